"""A duel or a gauntlet shown: a table of NEW's difference against each bot (the live view's
and the end's), the verdict in words with every bot's faults, a broken bot's fault explained,
and JSON for scripts (``docs/testing-bots.md`` lists its fields)."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

import msgspec
from rich import box
from rich.table import Table
from rich.text import Text

from referee.duel.faults import BROKEN_LEAST, BROKEN_SHARE, SeatFaults
from referee.duel.status import LEVEL, DuelStatus, PairingStatus
from referee.match.text import fault_lines, why_lines
from referee.names import printable
from referee.stats.sequential import SprtBounds

VERDICT_WORDS = {"H1": "H1 accepted", "H0": "H0 accepted", "continue": "undecided", "broken": "none"}
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
    caption that says what the figures are; a column of the drops once a bot was dropped or
    failed to start. Bot names are plain text, never markup."""
    sprt = status.duel.sprt
    drops = _faulty(status)
    table = Table(
        title=Text(title) if title else None,
        caption=Text(caption(status)),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("against", overflow="fold", min_width=min(12, max(len(p.old) for p in status.pairings)))
    for header in ("sets", "diff", f"{LEVEL:.0%} interval", "conf. sequence", *(["drops"] if drops else [])):
        table.add_column(header, justify="right", no_wrap=True)
    if sprt is not None:
        table.add_column("LLR", justify="right", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
    for p in status.pairings:
        cells = [str(p.sets), f"{p.estimate.mean:+.2f}" if p.sets else "-", _interval(p.interval)]
        cells += [_interval(p.sequence), *([_dropped(status.faults.get(p.old))] if drops else [])]
        if sprt is not None:
            cells += [_llr(p), p.verdict if p.verdict in ("H1", "H0", "broken") else "-"]
        table.add_row(Text(p.old), *cells)
    found = status.overall
    if status.duel.kind == "gauntlet" and found is not None:
        table.add_row(Text("pool mean"), "", f"{found.mean:+.2f}", _interval((found.low, found.high)), "")
    return table


def _faulty(status: DuelStatus) -> bool:
    """Whether a bot of the run was dropped from a seat or failed to start."""
    return any(f.dropped or f.unstarted for f in status.faults.values())


def _dropped(faults: SeatFaults | None) -> str:
    """``3/40``: the seats a bot was dropped from, of its seats; ``-`` before any."""
    if faults is None or not faults.seats:
        return "-"
    return f"{faults.dropped}/{faults.seats}"


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
    if _faulty(status):
        text += "; drops: seats of that bot the referee took over after a fault, of its seats"
    return text


def _bounds(sprt: SprtBounds) -> str:
    return f"--sprt {sprt.d0:g},{sprt.d1:g} --alpha {sprt.alpha:g} --beta {sprt.beta:g}"


def verdict_line(status: DuelStatus) -> str:
    """The answer in words, with every bot's faults and the exit status it gives."""
    duel = status.duel
    sprt = duel.sprt
    against = "every bot of the pool" if duel.kind == "gauntlet" else duel.olds[0]
    end = f"{faults_said(status)}; exit status {status.exit_status}"
    if status.verdict == "broken":
        said = "; ".join(f"{b.bot} ({status.role(b.bot)}) is broken: {b.why()}" for b in status.broken)
        return f"verdict: none: {said} ({end})"
    if sprt is None:
        return f"verdict: none, no sequential test (no --sprt): estimate only ({end})"
    if status.verdict == "H1":
        said = f"{duel.new} is better than {against} by at least {sprt.d1:g} points a match"
    elif status.verdict == "H0":
        beaten = [p.old for p in status.pairings if p.verdict == "H0"]
        said = f"{duel.new} is better than {', '.join(beaten)} by at most {sprt.d0:g} points a match"
    else:
        said = "no decision yet: run the same command again (with a larger --max-sets) to go on"
    words = VERDICT_WORDS[status.verdict or "continue"]
    return f"verdict: {words}: {said} ({_bounds(sprt)}; {end})"


def faults_said(status: DuelStatus) -> str:
    """``faults: new 0/40 seats, old 4/40 (crash 4), opponent 0/80``: every bot's drops."""
    said = []
    for bot in status.duel.names:
        found = status.faults.get(bot) or SeatFaults(bot)
        reasons = ", ".join(f"{reason} {n}" for reason, n in found.reasons.items())
        said.append(f"{bot} {found.dropped}/{found.seats}" + (f" ({reasons})" if reasons else ""))
    return f"faults: {said[0]} seats{''.join(', ' + s for s in said[1:])}"


def broken_lines(status: DuelStatus, db: str | Path) -> list[str]:
    """Each broken bot's fault explained: why it is broken, and its first fault (of its most
    frequent reason) as ``referee match`` explains it, or its failed start."""
    lines = []
    for found in status.broken:
        lines.append(f"{printable(found.bot)} ({status.role(found.bot)}) is broken: {printable(found.why())}")
        report = found.example
        if found.unstarted and report is not None:
            lines += why_lines(report)  # a failed start: no seat, match or log
        elif report is not None:
            lines.append(f"  its first {report.reason}:")
            lines += [f"  {line}" for line in fault_lines(report, found.log)]
        if found.unstarted:
            lines.append("  fix it, then run the same command again")
        else:
            command = f"referee ladder table --bot {shlex.quote(found.bot)} --db {shlex.quote(str(db))}"
            lines.append(f"  all of its faults: {command}")
            lines.append(f"  fix it, then give another --db ({shlex.quote(str(db))} keeps its faults)")
    if lines:
        lines.append(
            f"a bot that cannot start, or is dropped from more than {BROKEN_SHARE:.0%} of its seats (and {BROKEN_LEAST}"
            " at least), gets no verdict (docs/testing-bots.md)"
        )
    return lines


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


def _faults_json(found: SeatFaults) -> dict[str, Any]:
    return {
        "seats": found.seats,
        "dropped": found.dropped,
        "reasons": dict(found.reasons),
        "unstarted": found.unstarted,
        "broken": found.broken,
        "example": None if found.example is None else {**msgspec.to_builtins(found.example), "log": found.log},
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
        "faults": {bot: _faults_json(found) for bot, found in status.faults.items()},
        "broken": [{"bot": b.bot, "role": status.role(b.bot), **_faults_json(b)} for b in status.broken],
        "verdict": status.verdict,
        "exit_status": status.exit_status,
        **(extra or {}),
    }
    return json.dumps(data, indent=2)
