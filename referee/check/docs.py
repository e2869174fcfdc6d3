"""The list of steps in docs/check.md, generated from the steps themselves.

``python -m referee.check.docs`` rewrites the block between the markers; the tests check
that it is current, so the page always lists every step with what it verifies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from referee.check.steps import STEPS

PAGE: Final = Path(__file__).resolve().parents[2] / "docs" / "check.md"
START: Final = "<!-- steps:start -->"
END: Final = "<!-- steps:end -->"
GROUPS: Final = {
    "handshake": "Handshake and version",
    "pass": "Passing",
    "events": "Events",
    "sandbox": "The sandbox",
    "play": "Legal plays in crafted positions",
    "state": "Keeping its own state",
    "declare": "Declarations (Achterhoeks miezen)",
    "moon": "The moon choice",
    "compat": "Forward compatibility and robust reading",
    "ids": "Request ids",
    "error": "Error messages",
    "variant": "Other variants",
    "connection": "Several matches",
    "exit": "Goodbye and exit",
    "timing": "Time",
}


def steps_table() -> str:
    """Markdown: a numbered table of every step, under a heading per group."""
    out: list[str] = []
    group = ""
    for number, step in enumerate(STEPS, 1):
        prefix = step.name.split(".")[0]
        if prefix != group:
            group = prefix
            out += ["", f"### {GROUPS.get(prefix, prefix)}", "", "| # | Step | Verifies |", "|---|---|---|"]
        summary = step.summary.replace("|", "\\|")
        out.append(f"| {number} | `{step.name}` | {summary} |")
    return "\n".join(out[1:])


def render(page: str) -> str:
    """``page`` with the block between the markers replaced by the current table."""
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{steps_table()}\n{END}{tail}"


def main() -> None:
    PAGE.write_text(render(PAGE.read_text()))


if __name__ == "__main__":
    main()
