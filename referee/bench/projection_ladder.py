"""``referee bench projection``, on whole ladders: the first range the ladder tells for its top N
order against the ladder sets it then actually took to make that order sure.

The pair streams of :mod:`referee.bench.projection` check one pair's projection; what a person
reads is the order line of a ladder (``between 120 and 800 more sets would make it sure``),
whose pairs change as the ratings move, meet in only a share of the sets, and are seated by the
ladder's own focus. So here a ladder of bots with known strengths is played set by set with the
ladder's own pieces: the set drawn by its scheduler (``SetDrawer`` with the focus of
``rating_focus``), each rotation rated by OpenSkill (``rate_match``), the top N taken in the
table's order (``ranking``'s key: the conservative rating), and judged by ``order_progress``.
The first time that judgement tells a range (its ``told``), the range is kept; the ladder then
plays on until the order is sure (or ``horizon`` sets), and the sets it actually took are set
beside the range.

A bot's points in a set are ``-strength`` plus a draw from a measured sample of real set
differences (``data/sets-american.json``, centred), divided by the square root of 2, so that
the difference of two bots has the sample's own spread and shape around their gap in
strength. Each rotation's finishing order (which the ratings see) adds a luck of the cards
drawn from the same sample, which cancels over the set's rotations as duplicate play makes it
cancel. A difference is clipped to the rules' bound (``SET_BOUND``), as the tests clip it.

Cheap running sums per pair (the confidence sequence one set at a time, the sets won) find the
sets where the order may be sure or a range may be told; there ``order_progress`` itself, on
every difference so far, says whether it is: the figures are the ladder's own, and a run costs
a few milliseconds a set rather than a pass over every set at every set.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import cast

from referee.bench.sprt import DATA, centred_values, load_sets
from referee.ladder.feed import rating_focus
from referee.ladder.order import TOP, OrderProgress, order_progress
from referee.ladder.schedule import SetDrawer, _first_seated
from referee.stats.betting import SET_BOUND, BettingSequence
from referee.stats.evidence import ALPHA, sequence_alpha
from referee.stats.projection import MIN_PROJECTION_SETS
from referee.stats.ratings import INITIAL, Rating, rate_match
from referee.stats.sequential import MIN_SETS
from referee.stats.signs import SIGN_ALPHA, log_wealth
from referee.store.writer import LadderStore

SEATS = 4
"""The American game's table: four seats, a set of four rotations."""


@dataclass(frozen=True)
class SimulatedLadder:
    """A ladder to simulate: each bot's strength (points a match it saves; the table ranks the
    strongest first) and the measured sample its sets' spread is drawn from."""

    name: str
    strengths: tuple[float, ...]
    sample: str = "search-heuristic"
    top: int = TOP


KINDS: tuple[SimulatedLadder, ...] = (
    SimulatedLadder("4 bots, 20 apart", (60.0, 40.0, 20.0, 0.0)),
    SimulatedLadder("4 bots, 12 apart", (36.0, 24.0, 12.0, 0.0)),
    SimulatedLadder("4 bots, 12 apart, skew", (36.0, 24.0, 12.0, 0.0), sample="heuristic-random"),
    SimulatedLadder("4 bots, 6 apart", (18.0, 12.0, 6.0, 0.0)),
    SimulatedLadder("6 bots, 8 apart", (40.0, 32.0, 24.0, 16.0, 8.0, 0.0)),
    SimulatedLadder("8 bots, 10 apart", (70.0, 60.0, 50.0, 40.0, 30.0, 20.0, 10.0, 0.0), sample="random-random"),
    SimulatedLadder("5 bots, top 2 equal", (20.0, 20.0, 10.0, 0.0, -10.0)),
    SimulatedLadder("4 equal bots", (0.0, 0.0, 0.0, 0.0)),
)
"""The ladders ``referee bench projection`` simulates by default: lopsided gaps (on the spread of
search against heuristic, and on heuristic against random's, narrower and skewed), small gaps,
more bots than seats (pairs meet in a share of the sets), a tie at the top, no difference."""


@dataclass
class _Pair:
    """One pair's sets so far (``a`` before ``b`` by name; positive: ``a`` took fewer points),
    with the running figures that say cheaply whether it may be decided or projected."""

    differences: list[float] = field(default_factory=list)
    total: float = 0.0
    squares: float = 0.0
    wins: int = 0
    losses: int = 0
    sequence: BettingSequence = field(default_factory=lambda: BettingSequence(sequence_alpha(ALPHA), SET_BOUND))

    def add(self, x: float) -> None:
        self.differences.append(x)
        self.total += x
        self.squares += x * x
        self.wins += x > 0
        self.losses += x < 0
        self.sequence.add(x)

    def direction(self) -> int:
        """As ``Evidence.direction``: +1 ``a`` is decided stronger, -1 ``b``, 0 neither."""
        by_sequence = 0
        if len(self.differences) >= MIN_SETS:
            low, high = self.sequence.interval
            by_sequence = 1 if low > 0 else -1 if high < 0 else 0
        by_signs = 0
        if self.wins != self.losses and log_wealth(self.wins, self.losses) >= math.log(1 / SIGN_ALPHA):
            by_signs = 1 if self.wins > self.losses else -1
        found = {by_sequence, by_signs} - {0}
        return found.pop() if len(found) == 1 else 0

    def projectable(self) -> bool:
        """Whether ``projection`` would make a range from these sets (enough of them, a mean and
        a spread that are not zero)."""
        n = len(self.differences)
        return n >= MIN_PROJECTION_SETS and self.total != 0 and self.squares * n - self.total**2 > 1e-9


class _Ratings:
    """The ratings as ``rating_focus`` reads them from a store (``ratings()``)."""

    def __init__(self, held: Mapping[str, Rating]) -> None:
        self.held = held

    def ratings(self) -> Mapping[str, Rating]:
        return self.held


@dataclass(frozen=True)
class SimulatedRun:
    """One simulated ladder: when the first range was told (ladder sets played), the range,
    and when the order was sure (``None``: not by the horizon)."""

    told_at: int | None
    low: int | None
    high: int | None
    """``None`` with a ``low``: "maybe never" (no difference sure yet in some open pair)."""
    sure_at: int | None


class LadderSim:
    """One ladder of ``kind`` played set by set (see the module's docstring)."""

    def __init__(self, kind: SimulatedLadder, noise: Sequence[float], rng: random.Random) -> None:
        self.kind = kind
        self.names = [f"bot{k}" for k in range(len(kind.strengths))]
        self.strength = dict(zip(self.names, kind.strengths, strict=True))
        self.noise = noise
        self.rng = rng
        self.drawer = SetDrawer(self.names, SEATS, rng.getrandbits(32))
        self.ratings: dict[str, Rating] = dict.fromkeys(self.names, INITIAL)
        self.pairs = {pair: _Pair() for pair in combinations(self.names, 2)}
        self.sets = 0

    def play_set(self) -> None:
        """Draw the next set as the ladder would, play it, rate its rotations, keep its pairs'
        differences."""
        focus = rating_focus(cast(LadderStore, _Ratings(self.ratings)), self.names)
        table = self.drawer.draw(self.sets, _first_seated(self.drawer, focus)).table
        seated = sorted(set(table))
        points = {b: -self.strength[b] + self.rng.choice(self.noise) / math.sqrt(2) for b in seated}
        lucks = {b: self._luck(len(table)) for b in seated}
        for rotation in range(len(table)):
            scores = [points[b] + lucks[b][rotation] for b in table]
            ranks = [sum(other < mine for other in scores) for mine in scores]
            self.ratings.update(rate_match(self.ratings, table, ranks))
        for a, b in combinations(seated, 2):
            self.pairs[a, b].add(max(-SET_BOUND, min(SET_BOUND, points[b] - points[a])))
        self.sets += 1

    def _luck(self, rotations: int) -> list[float]:
        """A bot's luck of the cards in each rotation of a set: drawn from the sample, summing
        to zero over the set (duplicate play cancels it)."""
        drawn = [self.rng.choice(self.noise) for _ in range(rotations)]
        mean = sum(drawn) / rotations
        return [x - mean for x in drawn]

    def top(self) -> list[str]:
        """The table's top N: by conservative rating, ties by name (``ranking``'s order)."""
        return sorted(self.names, key=lambda b: (-self.ratings[b].ordinal, b))[: self.kind.top]

    def _state(self, above: str, below: str) -> tuple[_Pair, int]:
        if above < below:
            return self.pairs[above, below], 1
        return self.pairs[below, above], -1

    def progress(self, bots: Sequence[str]) -> OrderProgress:
        """The ladder's own judgement of the order of ``bots`` on every set so far."""
        differences: dict[tuple[str, str], list[float]] = {}
        shares: dict[tuple[str, str], float | None] = {}
        for above, below in pairwise(bots):
            pair, sign = self._state(above, below)
            differences[above, below] = [sign * x for x in pair.differences]
            shares[above, below] = len(pair.differences) / self.sets if self.sets else None
        return order_progress(bots, differences, shares, bound=SET_BOUND)

    def may_be_sure(self, bots: Sequence[str]) -> bool:
        """Every neighbour decided the table's way, by the running figures."""
        return all(pair.direction() * sign > 0 for pair, sign in (self._state(a, b) for a, b in pairwise(bots)))

    def may_tell(self, bots: Sequence[str]) -> bool:
        """A range may be told: no neighbour reversed, every open one projectable."""
        for above, below in pairwise(bots):
            pair, sign = self._state(above, below)
            found = pair.direction() * sign
            if found < 0 or (found == 0 and not pair.projectable()):
                return False
        return True


def simulate_ladder(kind: SimulatedLadder, noise: Sequence[float], rng: random.Random, horizon: int) -> SimulatedRun:
    """Play one ladder of ``kind`` up to ``horizon`` sets: its first told range and when its
    top N order was first sure."""
    ladder = LadderSim(kind, noise, rng)
    told_at: int | None = None
    low: int | None = None
    high: int | None = None
    while ladder.sets < horizon:
        ladder.play_set()
        bots = ladder.top()
        if ladder.may_be_sure(bots) and ladder.progress(bots).settled:
            return SimulatedRun(told_at, low, high, sure_at=ladder.sets)
        if told_at is None and ladder.may_tell(bots):
            found = ladder.progress(bots).told
            if found is not None and found != (0, 0):
                (low, high), told_at = found, ladder.sets
    return SimulatedRun(told_at, low, high, sure_at=None)


@dataclass(frozen=True)
class LadderCase:
    """Every run of one kind of ladder, summed up."""

    kind: str
    bots: int
    top: int
    strengths: tuple[float, ...]
    sample: str
    runs: int
    horizon: int
    sure_first: int
    """Runs whose order was sure before any range was told (a lopsided ladder's sign tests)."""
    untold: int
    """Runs with no range told and no sure order by the horizon."""
    told: int
    open_ended: int
    """Runs whose first range was "at least N (maybe never)"."""
    censored: int
    """Runs with a range told whose order was not sure by the horizon."""
    median_told_at: float | None
    """Median ladder sets played when the first range was told."""
    median_needed: float | None
    """Median more ladder sets the order then took, over the runs that became sure."""
    low_ratio: float | None
    """Median of the range's low end over the sets actually taken (decided runs)."""
    middle_ratio: float | None
    """The same for the range's midpoint (closed ranges only)."""
    high_ratio: float | None
    within_2: float | None
    """Share of the decided runs with a closed range whose midpoint was within a factor of 2."""
    in_range: float | None
    """Share of the runs with a range told whose truth lay in it (a censored run: when the
    range reaches past the horizon, or is open-ended)."""
    runs_detail: list[SimulatedRun] = field(default_factory=list, repr=False)


def ladder_case(kind: SimulatedLadder, runs: int, horizon: int, rng: random.Random) -> LadderCase:
    """``runs`` ladders of ``kind``, each to ``horizon`` sets at most."""
    sample = next(s for s in load_sets(DATA).samples if s.name == kind.sample)
    noise = centred_values(sample.differences)
    done = [simulate_ladder(kind, noise, rng, horizon) for _ in range(runs)]
    return summed(kind, done, horizon)


def summed(kind: SimulatedLadder, done: Sequence[SimulatedRun], horizon: int) -> LadderCase:
    """The figures of :class:`LadderCase` from the runs."""
    told = [r for r in done if r.told_at is not None]
    decided = [r for r in told if r.sure_at is not None]
    needed = [cast(int, r.sure_at) - cast(int, r.told_at) for r in decided]
    closed = [(r, n) for r, n in zip(decided, needed, strict=True) if r.high is not None]
    inside = sum(_holds(r, horizon) for r in told)
    middles = [(cast(int, r.low) + cast(int, r.high)) / 2 / n for r, n in closed]
    return LadderCase(
        kind=kind.name,
        bots=len(kind.strengths),
        top=min(kind.top, len(kind.strengths)),
        strengths=kind.strengths,
        sample=kind.sample,
        runs=len(done),
        horizon=horizon,
        sure_first=sum(r.told_at is None and r.sure_at is not None for r in done),
        untold=sum(r.told_at is None and r.sure_at is None for r in done),
        told=len(told),
        open_ended=sum(r.high is None for r in told),
        censored=len(told) - len(decided),
        median_told_at=_median([cast(int, r.told_at) for r in told]),
        median_needed=_median(needed),
        low_ratio=_median([cast(int, r.low) / n for r, n in zip(decided, needed, strict=True)]),
        middle_ratio=_median(middles),
        high_ratio=_median([cast(int, r.high) / n for r, n in closed]),
        within_2=sum(0.5 <= m <= 2 for m in middles) / len(middles) if middles else None,
        in_range=inside / len(told) if told else None,
        runs_detail=list(done),
    )


def _holds(run: SimulatedRun, horizon: int) -> bool:
    """Whether the truth lay in the run's range (a run never sure: the range reaches past)."""
    assert run.told_at is not None and run.low is not None
    if run.sure_at is None:
        return run.high is None or run.high > horizon - run.told_at
    needed = run.sure_at - run.told_at
    return run.low <= needed and (run.high is None or needed <= run.high)


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def ladder_cases(
    runs: int = 100, horizon: int = 1500, seed: int = 1, kinds: Sequence[SimulatedLadder] = KINDS
) -> list[LadderCase]:
    """Every kind of ladder, ``runs`` each."""
    rng = random.Random(seed)
    return [ladder_case(kind, runs, horizon, rng) for kind in kinds]


def ladder_lines(cases: Sequence[LadderCase]) -> list[str]:
    """The cases as a table of text (``referee bench projection``)."""

    def shown(value: float | None, digits: int = 2) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    lines = [
        f"{'ladder':22} {'runs':>4} {'sure1st':>7} {'untold':>6} {'told':>4} {'never?':>6} {'cens':>4}"
        f" {'at':>5} {'needed':>6} {'low':>5} {'mid':>5} {'high':>5} {'x2':>5} {'range':>5}"
    ]
    lines += [
        f"{c.kind:22} {c.runs:4} {c.sure_first:7} {c.untold:6} {c.told:4} {c.open_ended:6} {c.censored:4}"
        f" {shown(c.median_told_at, 0):>5} {shown(c.median_needed, 0):>6} {shown(c.low_ratio):>5}"
        f" {shown(c.middle_ratio):>5} {shown(c.high_ratio):>5} {shown(c.within_2):>5} {shown(c.in_range):>5}"
        for c in cases
    ]
    return lines
