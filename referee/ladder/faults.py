"""A ladder's faults, explained for the operator and the bots' authors: per bot, how often it
was dropped and why, the first fault of each reason as ``referee match`` explains it (the
referee's message, the offending line, the hint, the bot's exit status and last stderr lines:
``referee.match.text.fault_lines``) and the replay logs to look at.

Read back from the store: ``results`` holds every drop (the counts), ``faults`` the
explanations (none for matches recorded before that table existed).
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import msgspec

from referee.errors import LadderError
from referee.ladder.standings import Standing
from referee.match.text import fault_lines
from referee.names import printable
from referee.store.records import Drop, StoredFault
from referee.store.writer import LadderStore

LOGS_SHOWN = 10
"""Replay commands listed in a bot's detail; the rest are counted."""


@dataclass(frozen=True)
class BotFaults:
    """What went wrong for one bot over a ladder."""

    bot: str
    matches: int
    """Matches it played."""
    drops: list[Drop]
    """Every seat of it that was dropped, in the order the matches were rated."""
    details: list[StoredFault]
    """The explained faults, in the same order."""

    @property
    def reasons(self) -> list[tuple[str, int]]:
        """Drops by reason, most frequent first (ties by name)."""
        counts = Counter(d.reason for d in self.drops)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    @property
    def faulty_matches(self) -> int:
        return len({d.match for d in self.drops})

    def first(self, reason: str) -> StoredFault | None:
        """The first explained fault of this reason (``None``: none was kept)."""
        return next((f for f in self.details if f.report.reason == reason), None)

    def headline(self) -> str:
        """``dropped 8 times in 4 of 4 matches: crash 8``."""
        n = len(self.drops)
        if not n:
            return f"no faults in {_count(self.matches, 'match')}"
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.reasons)
        times = "once" if n == 1 else f"{n} times"
        return f"dropped {times} in {self.faulty_matches} of {_count(self.matches, 'match')}: {reasons}"


def bot_faults(store: LadderStore, bot: str, matches: int | None = None) -> BotFaults:
    """One bot's faults (``matches``: the matches it played, when already known)."""
    if matches is None:
        figures = store.figures()
        if bot not in figures:
            raise LadderError(f"no bot named {bot!r} in this ladder (bots: {', '.join(sorted(figures))})")
        matches = figures[bot].matches
    return BotFaults(bot, matches, store.drops(bot), store.fault_details(bot))


def ladder_faults(store: LadderStore) -> list[BotFaults]:
    """Every bot that was ever dropped, most drops first (ties in config order)."""
    drops: dict[str, list[Drop]] = {}
    for drop in store.drops():
        drops.setdefault(drop.bot, []).append(drop)
    details: dict[str, list[StoredFault]] = {}
    for fault in store.fault_details():
        details.setdefault(fault.report.name, []).append(fault)
    figures = store.figures()
    found = [BotFaults(bot, f.matches, drops[bot], details.get(bot, [])) for bot, f in figures.items() if bot in drops]
    return sorted(found, key=lambda b: -len(b.drops))


def summary_lines(rows: Sequence[BotFaults], db: str) -> list[str]:
    """After ``ladder run``'s table: per bot that was dropped, its counts by reason and its
    first fault explained, with the log to replay and the command for all of its faults."""
    if not rows:
        return []
    lines = ["faults:"]
    for row in rows:
        lines.append(f"{printable(row.bot)}: {row.headline()}")
        first = row.details[0] if row.details else None
        if first is None:
            lines.append(f"  {_no_details(row.drops[0])}")
        else:
            lines.append(f"  first ({first.report.reason}), in match {first.match}:")
            lines += _explained(first)
        lines.append(f"  all of its faults: referee ladder table --bot {shlex.quote(row.bot)} --db {shlex.quote(db)}")
    return lines


def detail_lines(row: BotFaults, command: str | None) -> list[str]:
    """A bot's faults in detail (under its row of the table): its command, its drops by
    reason, the first fault of each reason explained, and the logs to replay."""
    lines = [f"command: {printable(command)}"] if command is not None else []
    lines.append(f"{printable(row.bot)}: {row.headline()}")
    for reason, count in row.reasons:
        first = row.first(reason)
        if first is None:
            drop = next(d for d in row.drops if d.reason == reason)
            lines.append(f"first {reason} (of {count}), in match {drop.match}:")
            lines.append(f"  {_no_details(drop)}")
        else:
            lines.append(f"first {reason} (of {count}), in match {first.match}:")
            lines += _explained(first)
    if row.drops:
        seats = sorted({(d.seq, d.match, d.seat, d.log) for d in row.drops})
        lines.append(f"replay its faults ({_count(len(seats), 'seat')} in {_count(row.faulty_matches, 'match')}):")
        for _, match, seat, log in seats[:LOGS_SHOWN]:
            lines.append(f"  referee replay {shlex.quote(log)} --seat {seat}" if log else f"  match {match}: no log")
        if len(seats) > LOGS_SHOWN:
            lines.append(f"  ... and {len(seats) - LOGS_SHOWN} more (referee ladder table --bot NAME --json lists all)")
    return lines


def detail_json(standing: Standing, command: str | None, row: BotFaults) -> str:
    """A bot's detail as JSON: its row of the table, its command, its drops by reason, the
    first fault of each reason explained, and every drop with its log."""
    examples = [f for f in (row.first(reason) for reason, _ in row.reasons) if f is not None]
    data = {
        "standing": asdict(standing),
        "command": command,
        "faulty_matches": row.faulty_matches,
        "reasons": dict(row.reasons),
        "examples": [{"match": f.match, "log": f.log, "fault": msgspec.to_builtins(f.report)} for f in examples],
        "drops": [{"match": d.match, "seat": d.seat, "reason": d.reason, "log": d.log} for d in row.drops],
    }
    return json.dumps(data, indent=2)


def _explained(fault: StoredFault) -> list[str]:
    return [f"  {line}" for line in fault_lines(fault.report, fault.log)]


def _no_details(drop: Drop) -> str:
    where = f"referee replay {shlex.quote(drop.log)} --seat {drop.seat}" if drop.log else "(no log)"
    return f"seat {drop.seat}: {drop.reason}; recorded before the ladder kept explanations: {where}"


def _count(n: int, noun: str) -> str:
    """``1 match``, ``2 matches``, ``1 seat``, ``3 seats``."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}es" if noun.endswith(("s", "sh", "ch", "x")) else f"{n} {noun}s"
