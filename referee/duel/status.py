"""Where a duel or a gauntlet stands: for each bot NEW is measured against, the mean difference
over the complete sets with a fixed-sample 95% interval (Student's t: right for one look at the
end) and a 95% confidence sequence (right however often it is looked at, as the live view
does), the sequential test's state and verdict; for a gauntlet, the mean over the pool; and the
exit status that sums it up for a script.

Exit statuses: 0 H1 accepted (NEW better by at least D1; in a gauntlet, against every bot of
the pool), 1 H0 accepted (NEW better by at most D0; in a gauntlet, against at least one bot of
the pool: "better than every one of them" is then refuted), 2 a broken bot (``referee.duel.faults``:
no verdict is given on its sets; other errors are 2 too, ``referee.cli``), 3 stopped before a
decision (``--max-sets`` reached, or no ``--sprt``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

from protocol.ruleset import RuleSet
from referee.duel.faults import SeatFaults
from referee.duel.settings import DuelSettings
from referee.duel.tables import matches_per_set
from referee.stats.betting import SET_BOUND, rules_bound
from referee.stats.estimate import Estimate
from referee.stats.sequential import ConfidenceRun, RunningMoments, SprtRun, SprtState, Verdict

LEVEL = 0.95
"""The level of the intervals and of the confidence sequence."""

EXIT_H1 = 0
EXIT_H0 = 1
EXIT_BROKEN = 2
EXIT_UNDECIDED = 3

Answer = Verdict | Literal["broken"]
"""A verdict, or none because a bot is broken (``referee.duel.faults``)."""


@dataclass(frozen=True)
class PairingStatus:
    """NEW against one bot: over the complete sets, what the differences say."""

    old: str
    scheduled: int
    """Sets scheduled against it (complete, being played, or cut off by a kill)."""
    estimate: Estimate
    """The mean difference (points a match, positive: NEW better) and its spread, over the
    complete sets."""
    sequence: tuple[float, float]
    """The ``LEVEL`` confidence sequence of the mean (valid at every look)."""
    sprt: SprtState | None
    """The sequential test at the set where it decided, or after the last set; ``None``
    without ``--sprt``."""
    broken: bool = False
    """The bot it is measured against is broken: its test gives no verdict, it plays no more."""

    @property
    def sets(self) -> int:
        return self.estimate.n

    @property
    def interval(self) -> tuple[float, float]:
        """The fixed-sample ``LEVEL`` interval of the mean (valid at one look chosen in advance):
        worked out when shown, not at every set the feed schedules."""
        return self.estimate.interval(LEVEL)

    @property
    def verdict(self) -> Answer | None:
        if self.broken:
            return "broken"
        return None if self.sprt is None else self.sprt.verdict


@dataclass(frozen=True)
class Overall:
    """A gauntlet's figure: the mean of NEW's mean differences over the pool (each bot counted
    once, however many sets it took), with its ``LEVEL`` interval (normal, from the bots'
    standard errors: the pairings' sets are independent)."""

    mean: float
    low: float
    high: float
    bots: int
    """Pool bots with at least two complete sets (the others have no standard error yet)."""


@dataclass(frozen=True)
class DuelStatus:
    """A duel or gauntlet as it stands."""

    duel: DuelSettings
    rules: RuleSet
    pairings: list[PairingStatus]
    faults: Mapping[str, SeatFaults] = field(default_factory=dict)
    """Every bot's faults over the done matches (and its failed start, if it had one)."""

    @property
    def broken(self) -> list[SeatFaults]:
        """The broken bots, in the order of ``duel.names``."""
        return [self.faults[n] for n in self.duel.names if n in self.faults and self.faults[n].broken]

    @property
    def stopped(self) -> bool:
        """No set is to be played: NEW or an opponent is broken (every set would measure it),
        or every bot NEW is measured against is."""
        seated = {self.duel.new, *self.duel.opponents}
        return any(b.bot in seated for b in self.broken) or all(p.broken for p in self.pairings)

    def role(self, bot: str) -> str:
        """``NEW``, ``OLD``, ``pool bot`` or ``opponent``."""
        if bot == self.duel.new:
            return "NEW"
        if bot in self.duel.olds:
            return "OLD" if self.duel.kind == "duel" else "pool bot"
        return "opponent"

    @property
    def matches_per_set(self) -> int:
        return matches_per_set(self.duel, self.rules.players)

    @property
    def overall(self) -> Overall | None:
        return overall(self.pairings)

    @property
    def verdict(self) -> Answer | None:
        """``broken`` when a bot is; else H1 when accepted against every bot, H0 when against
        at least one, else ``continue``; ``None`` without ``--sprt``."""
        verdicts = [p.verdict for p in self.pairings]
        if self.broken:
            return "broken"
        if self.duel.sprt is None:
            return None
        if "H0" in verdicts:
            return "H0"
        if verdicts and all(v == "H1" for v in verdicts):
            return "H1"
        return "continue"

    @property
    def exit_status(self) -> int:
        return {"H1": EXIT_H1, "H0": EXIT_H0, "broken": EXIT_BROKEN}.get(self.verdict or "", EXIT_UNDECIDED)


class PairingTally:
    """NEW against one bot, one complete set at a time (O(1) a set): the running mean and spread,
    the confidence sequence and the sequential test, read as a ``PairingStatus`` whenever asked.
    What the duel's feed keeps between sets instead of reading every set again
    (``referee.duel.tally``)."""

    def __init__(self, old: str, duel: DuelSettings, bound: float = SET_BOUND) -> None:
        self.old = old
        self.moments = RunningMoments()
        self.sequence = ConfidenceRun(1 - LEVEL, bound=bound)
        self.test = None if duel.sprt is None else SprtRun(duel.sprt, bound=bound)

    def add(self, difference: float) -> None:
        """One more complete set's difference, in the order the sets were completed."""
        self.moments.add(difference)
        self.sequence.add(difference)
        if self.test is not None:
            self.test.add(difference)

    def status(self, scheduled: int, broken: bool = False) -> PairingStatus:
        """Where the pairing stands (``scheduled``: its sets, complete or not; ``broken``: the
        bot it is measured against is)."""
        moments = self.moments
        found = Estimate(moments.n, moments.mean, math.sqrt(moments.variance))
        return PairingStatus(
            old=self.old,
            scheduled=scheduled,
            estimate=found,
            sequence=self.sequence.interval,
            sprt=None if self.test is None else self.test.state,
            broken=broken,
        )


def pairing_status(
    old: str,
    differences: Sequence[float],
    scheduled: int,
    duel: DuelSettings,
    broken: bool = False,
    *,
    bound: float = SET_BOUND,
) -> PairingStatus:
    """NEW against ``old`` from its set differences, in the order the sets were completed
    (``broken``: ``old`` is; ``bound``: of a set difference under the duel's rules, for the
    confidence sequence and the SPRT's prior spread)."""
    return _tally(old, duel, bound, differences).status(scheduled, broken)


def _tally(old: str, duel: DuelSettings, bound: float, differences: Sequence[float]) -> PairingTally:
    """A pairing's tally fed every one of its set differences, in order."""
    tally = PairingTally(old, duel, bound)
    for difference in differences:
        tally.add(difference)
    return tally


def pairings_status(
    duel: DuelSettings,
    rules: RuleSet,
    pairings: Mapping[str, PairingTally],
    scheduled: Mapping[str, int],
    faults: Mapping[str, SeatFaults] | None = None,
) -> DuelStatus:
    """The duel's status from a tally per bot NEW is measured against (in the order of
    ``duel.olds``; ``faults``: every bot's)."""
    faults = faults or {}
    found = [pairings[old].status(scheduled.get(old, 0), old in faults and faults[old].broken) for old in duel.olds]
    return DuelStatus(duel=duel, rules=rules, pairings=found, faults=faults)


def duel_status(
    duel: DuelSettings,
    rules: RuleSet,
    differences: Mapping[str, Sequence[float]],
    scheduled: Mapping[str, int],
    faults: Mapping[str, SeatFaults] | None = None,
) -> DuelStatus:
    """Every pairing's status from all its set differences, in the order of ``duel.olds``
    (``faults``: every bot's)."""
    bound = rules_bound(rules)
    tallies = {old: _tally(old, duel, bound, differences.get(old, [])) for old in duel.olds}
    return pairings_status(duel, rules, tallies, scheduled, faults)


def overall(pairings: Sequence[PairingStatus]) -> Overall | None:
    """The mean over the pairings with a standard error, a broken bot's left out (its sets
    measure its faults); ``None`` when none has one yet."""
    known = [p.estimate for p in pairings if p.estimate.n >= 2 and not p.broken]
    if not known:
        return None
    mean = math.fsum(e.mean for e in known) / len(known)
    se = math.sqrt(math.fsum(e.se**2 for e in known)) / len(known)
    half = NormalDist().inv_cdf(0.5 + LEVEL / 2) * se
    return Overall(mean=mean, low=mean - half, high=mean + half, bots=len(known))
