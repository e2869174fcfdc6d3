"""Generated parts of the protocol documentation: the JSON Schema and the match transcript.

Two artefacts in ``docs/`` are generated from the code so that they cannot drift from it:

- ``docs/protocol.schema.json``: the JSON Schema of every protocol v1 message, built by
  ``msgspec.json.schema_components`` from the message types in ``protocol.messages``. Both
  unions sit under ``$defs`` (``RefereeMessage``, ``BotMessage``, and every message and
  shared part); the top level accepts a line of either direction.
- the transcript block of ``docs/protocol.md`` (between ``<!-- transcript:start -->`` and
  ``<!-- transcript:end -->``): seat 0's side of a real one-round match between four sample
  bot processes, read back from the replay log, ``>>`` for referee to bot, ``<<`` for bot to
  referee. The seeds are fixed and the log's times are left out, so it is deterministic.

Run ``python -m referee.docgen write`` to regenerate both, ``python -m referee.docgen check``
to exit 1 when either is stale.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import msgspec
import trio

from protocol.messages import VERSIONS, BotMessage, RefereeMessage
from protocol.ruleset import RuleSet
from referee.log_format import LogEntry, Received, Sent
from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.rules.presets import ruleset

ROOT: Final = Path(__file__).resolve().parent.parent
"""The repository root: bot commands run from here."""
SCHEMA_PATH: Final = ROOT / "docs" / "protocol.schema.json"
PROTOCOL_DOC: Final = ROOT / "docs" / "protocol.md"
START_MARKER: Final = "<!-- transcript:start -->"
END_MARKER: Final = "<!-- transcript:end -->"

TRANSCRIPT_SEED: Final = 7
"""The deal seed of the transcript match."""
TRANSCRIPT_MATCH_ID = "transcript-match"
TRANSCRIPT_VARIANT: Final = "american"
TRANSCRIPT_OPTIONS: Final[dict[str, Any]] = {"end": "rounds", "rounds": 1}
TRANSCRIPT_SEAT: Final = 0
TRANSCRIPT_CONFIG: Final = MatchConfig(per_decision=5.0, bank=10.0, startup=10.0)
"""A decision limit far above what the sample bot needs, so the bank (shown in every request)
never moves and the transcript is the same on a slow machine."""
RANDOM_BOT: Final = "sample_bots/python/random_bot.py"

Direction: TypeAlias = Literal["send", "recv"]
"""``send``: referee to bot; ``recv``: bot to referee (the replay log's entry types)."""

_ARROWS: Final[dict[Direction, str]] = {"send": ">>", "recv": "<<"}
_log_decoder: Final = msgspec.json.Decoder(LogEntry)


# ---------------------------------------------------------------------------------------------
# The JSON Schema
# ---------------------------------------------------------------------------------------------
def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of protocol v1.

    ``$defs`` holds ``RefereeMessage`` (referee -> bot), ``BotMessage`` (bot -> referee) and
    every struct they use. The top level is an ``anyOf`` of the two unions, not a ``oneOf``:
    the bot's ``hello`` also satisfies the referee's ``Hello`` (whose fields all have
    defaults, and unknown fields are allowed), so under ``oneOf`` it would match both and fail.
    Validate a line against ``#/$defs/RefereeMessage`` or ``#/$defs/BotMessage`` to check one
    direction strictly.
    """
    (referee_union, bot_union), components = msgspec.json.schema_components(
        (RefereeMessage, BotMessage), ref_template="#/$defs/{name}"
    )
    defs = dict(components)
    defs["RefereeMessage"] = {
        "title": "RefereeMessage",
        "description": "A line from the referee to a bot; the `type` field names the message.",
        **referee_union,
    }
    defs["BotMessage"] = {
        "title": "BotMessage",
        "description": "A line from a bot to the referee; the `type` field names the message.",
        **bot_union,
    }
    version = VERSIONS[-1]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"hearts-bot protocol v{version}",
        "description": (
            f"Every message of protocol v{version}: one JSON object per line, UTF-8, ending in a newline, "
            "at most 65536 bytes. See docs/protocol.md."
        ),
        "anyOf": [{"$ref": "#/$defs/RefereeMessage"}, {"$ref": "#/$defs/BotMessage"}],
        "$defs": defs,
    }


def schema_text() -> str:
    """The schema as written to ``docs/protocol.schema.json``: sorted keys, indent 2."""
    return json.dumps(schema(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------
# Real matches and their logs
# ---------------------------------------------------------------------------------------------
def sample_bot_commands(players: int = 4) -> list[str]:
    """One command per seat: the Python random sample bot, seat ``i`` with ``--seed i + 1``.
    The interpreter is this one, so the bot finds the same msgspec."""
    python = shlex.quote(sys.executable)
    return [f"{python} {RANDOM_BOT} --seed {seat + 1}" for seat in range(players)]


def run_match(
    commands: Sequence[str],
    rules: RuleSet,
    *,
    seed: int,
    log_path: Path,
    config: MatchConfig = TRANSCRIPT_CONFIG,
) -> MatchOutcome:
    """Play one real match between bot processes (run from the repository root), with its
    replay log written to ``log_path``."""
    return trio.run(
        lambda: play_match(
            list(commands),
            rules,
            seed=seed,
            log_path=log_path,
            match_id=TRANSCRIPT_MATCH_ID,
            options=TableOptions(config=config, cwd=ROOT),
        )
    )


def protocol_lines(log_path: Path, seat: int | None = None) -> list[tuple[int, Direction, str]]:
    """Every protocol line in a replay log, in log order, as ``(seat, direction, line)``, each
    exactly as it went over the wire (the log keeps sent messages pre-encoded and received
    lines as read), without its newline. ``seat`` keeps one seat's lines only."""
    lines: list[tuple[int, Direction, str]] = []
    with log_path.open("rb") as file:
        for raw in file:
            entry = _log_decoder.decode(raw)
            if not isinstance(entry, Sent | Received) or (seat is not None and entry.seat != seat):
                continue
            if isinstance(entry, Sent):
                lines.append((entry.seat, "send", bytes(entry.msg).decode("utf-8")))
            else:
                lines.append((entry.seat, "recv", entry.line))
    return lines


def render(lines: Sequence[tuple[int, Direction, str]]) -> str:
    """Protocol lines as transcript text: ``>>`` referee to bot, ``<<`` bot to referee."""
    return "".join(f"{_ARROWS[direction]} {line}\n" for _, direction, line in lines)


def transcript() -> str:
    """Seat 0's side of the transcript match, played now by real bot processes."""
    rules = ruleset(TRANSCRIPT_VARIANT, TRANSCRIPT_OPTIONS)
    with tempfile.TemporaryDirectory(prefix="hearts-docgen-") as tmp:
        log_path = Path(tmp) / "match.jsonl"
        outcome = run_match(sample_bot_commands(rules.players), rules, seed=TRANSCRIPT_SEED, log_path=log_path)
        bad = [s for s in outcome.seats if s.status != "ok"]
        if bad:
            raise RuntimeError(f"the transcript match did not run cleanly: {bad}")
        return render(protocol_lines(log_path, TRANSCRIPT_SEAT))


def transcript_block(text: str) -> str:
    """The transcript as the fenced block that goes between the markers."""
    return f"```text\n{text}```\n"


# ---------------------------------------------------------------------------------------------
# docs/protocol.md
# ---------------------------------------------------------------------------------------------
def _marker_span(doc: str) -> tuple[int, int]:
    start = doc.find(START_MARKER)
    end = doc.find(END_MARKER)
    if start < 0 or end < start or doc.count(START_MARKER) != 1 or doc.count(END_MARKER) != 1:
        raise ValueError(f"expected one {START_MARKER} followed by one {END_MARKER}")
    return start + len(START_MARKER), end


def current_block(doc: str) -> str:
    """What is between the transcript markers now (without the newline after the start marker)."""
    start, end = _marker_span(doc)
    return doc[start:end].removeprefix("\n")


def replace_block(doc: str, block: str) -> str:
    """``doc`` with ``block`` between the transcript markers."""
    start, end = _marker_span(doc)
    return doc[:start] + "\n" + block + doc[end:]


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------
def write(schema_path: Path = SCHEMA_PATH, doc_path: Path = PROTOCOL_DOC) -> list[Path]:
    """Regenerate the schema file and the transcript block; return the files changed."""
    changed: list[Path] = []
    text = schema_text()
    if not schema_path.exists() or schema_path.read_text(encoding="utf-8") != text:
        schema_path.write_text(text, encoding="utf-8")
        changed.append(schema_path)
    doc = doc_path.read_text(encoding="utf-8")
    new_doc = replace_block(doc, transcript_block(transcript()))
    if new_doc != doc:
        doc_path.write_text(new_doc, encoding="utf-8")
        changed.append(doc_path)
    return changed


def stale(schema_path: Path = SCHEMA_PATH, doc_path: Path = PROTOCOL_DOC) -> list[str]:
    """What is out of date, one sentence each (empty when both are current)."""
    problems: list[str] = []
    if not schema_path.exists() or schema_path.read_text(encoding="utf-8") != schema_text():
        problems.append(f"{schema_path} is not the schema of protocol/messages.py")
    if current_block(doc_path.read_text(encoding="utf-8")) != transcript_block(transcript()):
        problems.append(f"the transcript block in {doc_path} differs from a fresh match")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.docgen", description="Regenerate or check the generated parts of docs/."
    )
    parser.add_argument(
        "command",
        choices=["write", "check"],
        help="write: rewrite docs/protocol.schema.json and the transcript in docs/protocol.md; "
        "check: exit 1 when either is stale",
    )
    args = parser.parse_args(argv)
    if args.command == "write":
        for path in write():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    problems = stale()
    for problem in problems:
        print(f"stale: {problem}", file=sys.stderr)
    if problems:
        print("run: python -m referee.docgen write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
