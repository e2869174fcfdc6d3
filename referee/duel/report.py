"""A duel or a gauntlet shown: a table of NEW's difference against each bot (the live view's
and the end's), the verdict in words, and JSON for scripts (``docs/testing-bots.md`` lists its
fields)."""

from __future__ import annotations

import json
import math
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from referee.duel.status import LEVEL, DuelStatus, PairingStatus
from referee.ladder.sequential import SprtBounds

VERDICT_WORDS = {"H1": "H1 accepted", "H0": "H0 accepted", "continue": "undecided"}
"""The sequential test's verdicts in words."""


def _interval(bounds: tuple[float, float]) -> str:
    low, high = bounds
    if not (math.isfinite(low) and math.isfinite(high)):
        return "-"
    return f"[{low:+.2f}, {high:+.2f}]"


def _llr(pairing: PairingStatus) -> str:
    return "-" if pairing.sprt is None else f"{pairing.sprt.llr:+.2f}"


def status_table(status: DuelStatus, title: str | None = None) -> Table:
    """One row per bot NEW is measured against (and the pool's mean in a gauntlet), and a
    caption that says what the figures are. Bot names are plain text, never markup."""
    sprt = status.duel.sprt
    table = Table(
        title=Text(title) if title else None,
        caption=Text(caption(status)),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("against", overflow="fold", min_width=min(12, max(len(p.old) for p in status.pairings)))
    for header in ("sets", "diff", f"{LEVEL:.0%} interval", "conf. sequence"):
        table.add_column(header, justify="right", no_wrap=True)
    if sprt is not None:
        table.add_column("LLR", justify="right", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
    for p in status.pairings:
        cells = [str(p.sets), f"{p.estimate.mean:+.2f}" if p.sets else "-", _interval(p.interval)]
        cells.append(_interval(p.sequence))
        if sprt is not None:
            cells += [_llr(p), p.verdict if p.verdict in ("H1", "H0") else "-"]
        table.add_row(Text(p.old), *cells)
    found = status.overall
    if status.duel.kind == "gauntlet" and found is not None:
        table.add_row(Text("pool mean"), "", f"{found.mean:+.2f}", _interval((found.low, found.high)), "")
    return table


def caption(status: DuelStatus) -> str:
    """What the table's figures are."""
    new = status.duel.new
    text = (
        f"diff: points a match {new} is better by (the other's points minus {new}'s, on the same cards; "
        f"{status.matches_per_set} matches a set)"
    )
    sprt = status.duel.sprt
    if sprt is not None:
        text += (
            f"; SPRT H0 diff <= {sprt.d0:g}, H1 diff >= {sprt.d1:g}: H1 accepted at LLR >= {sprt.upper:+.2f},"
            f" H0 at LLR <= {sprt.lower:+.2f}"
        )
    return text


def _bounds(sprt: SprtBounds) -> str:
    return f"--sprt {sprt.d0:g},{sprt.d1:g} --alpha {sprt.alpha:g} --beta {sprt.beta:g}"


def verdict_line(status: DuelStatus) -> str:
    """The answer in words, with the exit status it gives."""
    duel = status.duel
    sprt = duel.sprt
    against = "every bot of the pool" if duel.kind == "gauntlet" else duel.olds[0]
    code = status.exit_status
    if sprt is None:
        return f"verdict: none, no sequential test (no --sprt): estimate only (exit status {code})"
    if status.verdict == "H1":
        said = f"{duel.new} is better than {against} by at least {sprt.d1:g} points a match"
    elif status.verdict == "H0":
        beaten = [p.old for p in status.pairings if p.verdict == "H0"]
        said = f"{duel.new} is better than {', '.join(beaten)} by at most {sprt.d0:g} points a match"
    else:
        said = "no decision yet: run the same command again (with a larger --max-sets) to go on"
    words = VERDICT_WORDS[status.verdict or "continue"]
    return f"verdict: {words}: {said} ({_bounds(sprt)}; exit status {code})"


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _pairing_json(p: PairingStatus) -> dict[str, Any]:
    state = p.sprt
    return {
        "against": p.old,
        "sets": p.sets,
        "scheduled": p.scheduled,
        "mean": p.estimate.mean if p.sets else None,
        "sd": p.estimate.sd if p.sets >= 2 else None,
        "interval": [_finite(v) for v in p.interval],
        "confidence_sequence": [_finite(v) for v in p.sequence],
        "sprt": None
        if state is None
        else {"sets": state.sets, "mean": state.mean, "llr": _finite(state.llr), "verdict": state.verdict},
        "verdict": p.verdict,
    }


def status_json(status: DuelStatus, extra: dict[str, Any] | None = None) -> str:
    """Everything a script needs: the settings, each pairing, the overall verdict and the exit
    status (infinite bounds, before there are enough sets, are ``null``)."""
    duel = status.duel
    sprt = duel.sprt
    found = status.overall if duel.kind == "gauntlet" else None
    data: dict[str, Any] = {
        "kind": duel.kind,
        "new": duel.new,
        "opponents": list(duel.opponents),
        "rules": status.rules.name,
        "players": status.rules.players,
        "matches_per_set": status.matches_per_set,
        "level": LEVEL,
        "sprt": None
        if sprt is None
        else {**{k: getattr(sprt, k) for k in ("d0", "d1", "alpha", "beta")}, "lower": sprt.lower, "upper": sprt.upper},
        "pairings": [_pairing_json(p) for p in status.pairings],
        "overall": None if found is None else {"mean": found.mean, "interval": [found.low, found.high]},
        "verdict": status.verdict,
        "exit_status": status.exit_status,
        **(extra or {}),
    }
    return json.dumps(data, indent=2)
