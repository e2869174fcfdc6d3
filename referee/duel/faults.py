"""When a bot of a duel or a gauntlet is broken: it failed to start (``referee.ladder.roll_call``),
or it was dropped from more than a small share of its seats. A broken bot's sets measure the
referee's fallback moves, not the bot: an OLD that crashes at once makes any NEW look better by
the points its empty seat loses, a NEW that crashes looks worse. So a broken bot gets no H0/H1
verdict, its sets stop, and the run ends with exit status 2 naming it and its fault.

The threshold: dropped from at least ``BROKEN_LEAST`` seats *and* from more than
``BROKEN_SHARE`` of its seats, over the run's done matches. The least count keeps a one-off
fault (a time-out on a loaded machine, in the first match) from ending a run; the share keeps a
long run's rare faults (part of a bot's play, counted against it in its differences) from ending
it. A bot that faults in every match is caught at its first set (a set seats NEW and OLD in
at least three matches, at tables of three to six)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from referee.duel.store import DuelStore
from referee.shared import FaultReport

BROKEN_SHARE = 0.10
"""A bot dropped from more than this share of its seats is broken..."""
BROKEN_LEAST = 3
"""... once it was dropped from at least this many."""


def over_threshold(dropped: int, seats: int) -> bool:
    """Whether a bot dropped from ``dropped`` of its ``seats`` is broken."""
    return dropped >= BROKEN_LEAST and dropped > BROKEN_SHARE * seats


@dataclass(frozen=True)
class SeatFaults:
    """One bot's seats over the run's done matches, the ones it was dropped from by reason,
    and what went wrong first (a failed start, or the first fault of its most frequent reason)."""

    bot: str
    seats: int = 0
    reasons: Mapping[str, int] = field(default_factory=dict)
    """Drops by reason, most frequent first."""
    example: FaultReport | None = None
    log: str | None = None
    """The replay log of ``example``'s match (``None`` for a failed start)."""
    unstarted: bool = False
    """It failed to start, or to say hello, when this run started it before the first set."""

    @property
    def dropped(self) -> int:
        return sum(self.reasons.values())

    @property
    def broken(self) -> bool:
        return self.unstarted or over_threshold(self.dropped, self.seats)

    def counts(self) -> str:
        """``dropped from 8 of 8 seats (crash 8)``, ``0 of 40 seats``."""
        if not self.dropped:
            return f"dropped from 0 of {self.seats} seats"
        reasons = ", ".join(f"{reason} {n}" for reason, n in self.reasons.items())
        return f"dropped from {self.dropped} of {self.seats} seats ({reasons})"

    def why(self) -> str:
        """Why it is broken, in a few words."""
        if self.unstarted:
            found = self.example
            said = f"{found.reason}: {found.message}" if found is not None else "no hello"
            return f"it failed to start ({said})"
        return f"it was {self.counts()}, more than {BROKEN_SHARE:.0%}"


def duel_faults(
    store: DuelStore,
    names: Iterable[str],
    unstarted: Mapping[str, FaultReport] | None = None,
    seats: Mapping[str, Counter[str]] | None = None,
) -> dict[str, SeatFaults]:
    """Every bot's faults over the run's done matches (``names``: the bots of the run), with
    the failed starts of this run (``unstarted``); ``seats``: every bot's seats by status, when
    already counted (``referee.duel.tally``), else read from ``store``."""
    unstarted = unstarted or {}
    if seats is None:
        seats, _ = store.seat_statuses()
    found = {}
    for bot in names:
        statuses = seats.get(bot, Counter())
        drops = Counter({status: n for status, n in statuses.items() if status != "ok"})
        reasons = dict(sorted(drops.items(), key=lambda item: (-item[1], item[0])))
        example, log = _example(store, bot, reasons)
        if bot in unstarted:
            example, log = unstarted[bot], None
        found[bot] = SeatFaults(bot, statuses.total(), reasons, example, log, unstarted=bot in unstarted)
    return found


def _example(store: DuelStore, bot: str, reasons: Mapping[str, int]) -> tuple[FaultReport | None, str | None]:
    """The first explained fault of the bot's most frequent reason, and its log."""
    if not reasons:
        return None, None
    top = next(iter(reasons))
    first = next((f for f in store.fault_details(bot) if f.report.reason == top), None)
    return (None, None) if first is None else (first.report, first.log)
