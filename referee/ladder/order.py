"""How sure the ladder is of the order of its top N, and about how many more sets would make it
sure.

The order of the top N is sure when every pair of neighbours in it is decided
(:mod:`referee.stats.evidence`: the confidence sequence or the sign test, on their duplicate
sets) the way the table ranks them: if 1 beats 2 and 2 beats 3, the order 1, 2, 3 stands. Each
undecided pair projects how many more sets with both would decide it; a pair that meets in
only a share of the ladder's sets needs that many divided by the share in ladder sets, and the
order needs the most of its pairs. What is told is a range, and none before
``MIN_PROJECTION_SETS`` sets with each pair (:mod:`referee.stats.projection`: early projections
swung from hundreds to tens of thousands of sets). Pure, but for :func:`order_of`, which reads
a ladder.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from referee.ladder.standings import Standing, ladder_sets, ranking
from referee.stats.betting import SET_BOUND, rules_bound
from referee.stats.evidence import ALPHA, Evidence, more_sets_needed, weigh
from referee.stats.projection import MIN_PROJECTION_SETS, Projection, projection
from referee.store.duplicates import complete_sets, pair_differences
from referee.store.reader import LadderReader

TOP = 3
"""The bots whose order the table and the live view speak of, by default."""

State = Literal["sure", "reversed", "not sure"]


@dataclass(frozen=True)
class Neighbours:
    """Two bots next to each other in the table, ``above`` ranked higher."""

    above: str
    below: str
    sets: int
    """Complete duplicate sets with both."""
    share: float | None
    """The share of the ladder's complete sets that seat both (``None`` before any is complete)."""
    state: State
    """``sure``: decided that ``above`` is stronger; ``reversed``: decided that ``below`` is (the
    ratings will follow); ``not sure``: neither."""
    by: str
    """What decided it, in words; empty when nothing did."""
    more_sets: int | None
    """About how many more sets with both would decide it (``0`` when it is decided); ``None``
    when no projection can be made (no difference seen yet, or fewer than two sets). The
    scheduler's figure; what is told is ``told``."""
    evidence: Evidence = field(repr=False, compare=False)

    @functools.cached_property
    def told(self) -> Projection:
        """What a person is told of the sets still needed: a range, none before
        ``MIN_PROJECTION_SETS`` sets with both (:mod:`referee.stats.projection`). Made when
        asked (its two projections cost tens of milliseconds; the scheduler never asks)."""
        return projection(self.evidence)

    @property
    def ladder_sets(self) -> int | None:
        """``more_sets`` in ladder sets, at the share of sets that seat both."""
        return ladder_sets(self.more_sets, self.share)


@dataclass(frozen=True)
class OrderProgress:
    """The top N bots, best first, and where each pair of neighbours stands."""

    bots: list[str]
    neighbours: list[Neighbours]

    @property
    def sure(self) -> int:
        """How many pairs of neighbours are decided in the table's order."""
        return sum(n.state == "sure" for n in self.neighbours)

    @property
    def settled(self) -> bool:
        return self.sure == len(self.neighbours)

    @property
    def open(self) -> list[Neighbours]:
        return [n for n in self.neighbours if n.state != "sure"]

    @property
    def ladder_sets(self) -> int | None:
        """About how many more ladder sets would make the order sure: the most any open pair
        needs (``0`` when it is sure; ``None`` when an open pair has no projection, or is
        reversed: the table's order must change first)."""
        needs = [n.ladder_sets if n.state == "not sure" else None for n in self.open]
        if any(need is None for need in needs):
            return None
        return max((need for need in needs if need is not None), default=0)

    @property
    def told(self) -> tuple[int, int | None] | None:
        """The range of more ladder sets told for a sure order: the most any open pair needs at
        each end (``high`` ``None``: maybe never); ``None`` when a pair has no projection yet or
        none at all, or is reversed."""
        lows: list[int] = []
        highs: list[int | None] = []
        for n in self.open:
            if n.state != "not sure" or n.told.low is None:
                return None
            lows.append(ladder_sets(n.told.low, n.share) or n.told.low)
            highs.append(None if n.told.high is None else ladder_sets(n.told.high, n.share) or n.told.high)
        if not lows:
            return (0, 0)
        return max(lows), None if any(h is None for h in highs) else max(h for h in highs if h is not None)


def order_progress(
    bots: Sequence[str],
    differences: Mapping[tuple[str, str], Sequence[float]],
    shares: Mapping[tuple[str, str], float | None],
    alpha: float = ALPHA,
    bound: float = SET_BOUND,
) -> OrderProgress:
    """Where the order of ``bots`` (best first) stands: each neighbouring pair ``(above, below)``
    judged on its set differences (``differences[(above, below)]``, positive when ``above`` took
    fewer points on the same cards; a missing pair has none) and ``shares[(above, below)]``, the
    share of the ladder's sets that seat both; ``bound``: of a set difference under the rules."""
    neighbours = []
    for above, below in pairwise(bots):
        found = list(differences.get((above, below), ()))
        evidence = weigh(found, alpha, bound)
        state: State = "not sure"
        if evidence.decided:
            state = "sure" if evidence.direction > 0 else "reversed"
        neighbours.append(
            Neighbours(
                above=above,
                below=below,
                sets=len(found),
                share=shares.get((above, below)),
                state=state,
                by=evidence.by,
                more_sets=more_sets_needed(evidence),
                evidence=evidence,
            )
        )
    return OrderProgress(list(bots), neighbours)


def least_sure_pairs(progress: OrderProgress) -> list[tuple[str, str]]:
    """The pairs of neighbours still open, the one to seat next first. The order is sure only
    when its last open pair is, so the pair that needs the most more sets holds it back most:
    seating it first shortens the time to a sure order, while seating a nearly decided pair
    only settles that pair sooner. First come the pairs with under two sets (nothing known:
    any set tells most), then by the most more sets with both needed (not in ladder sets: a
    scheduler seating the pair on purpose meets it every set), then the reversed pairs (the
    ratings are behind; their duplicate sets are decided), and last the pairs with no
    difference seen (they may be equal: sets spent there may never decide anything)."""

    def rank(n: Neighbours) -> tuple[int, int]:
        if n.sets < 2:
            return (0, -n.sets)
        if n.state == "reversed":
            return (2, 0)
        if n.more_sets is None:
            return (3, 0)
        return (1, -n.more_sets)

    return [(n.above, n.below) for n in sorted(progress.open, key=rank)]


def format_order(progress: OrderProgress) -> str:
    """One line: "order of the top 3: 1 of 2 neighbours sure; about 40 more sets would make it
    sure" (empty below two bots)."""
    pairs = len(progress.neighbours)
    if pairs == 0:
        return ""
    line = f"order of the top {len(progress.bots)}: {progress.sure} of {pairs} neighbours sure"
    if progress.settled:
        return line + " (the order is sure)"
    reversed_ = [n for n in progress.open if n.state == "reversed"]
    if reversed_:
        names = ", ".join(f"{n.below} is stronger than {n.above}" for n in reversed_)
        return line + f"; the duplicate sets say {names}: the ratings will follow"
    told = progress.told
    if told is not None:
        low, high = told
        if high is None:
            return line + f"; at least {low} more sets would make it sure (maybe never: no difference is sure yet)"
        if low == high:
            return line + f"; about {low} more set{'s' if low != 1 else ''} would make it sure"
        return line + f"; between {low} and {high} more sets would make it sure"
    unknown = [n for n in progress.open if n.told.low is None and n.told.fewest is None]
    if not unknown:  # each open pair has a bot ahead, some too few sets to project from
        fewest = min((n for n in progress.open if n.told.low is None), key=lambda n: n.sets)
        return line + (
            f"; no projection before {MIN_PROJECTION_SETS} sets with each pair"
            f" ({fewest.above} and {fewest.below} have {fewest.sets})"
        )
    names = ", ".join(f"{n.above} and {n.below}" for n in unknown)
    return line + f"; no difference seen yet between {names}"


def order_of(store: LadderReader, top: int = TOP, rows: Sequence[Standing] | None = None) -> OrderProgress:
    """The order of the ladder's top ``top`` bots by the standings (``rows``, when the caller
    has just read them; else the same order from the ratings alone), with the duplicate sets of
    each pair of neighbours: one query for the sets of all of them. On a ladder of 10,000
    matches it takes a few milliseconds (docs/performance.md). Retired versions are left out:
    they play no more sets, so their order can be made no surer."""
    active = set(store.active())
    bots = [b for b in (ranking(store) if rows is None else [s.bot for s in rows]) if b in active][:top]
    neighbours = list(pairwise(bots))
    differences = pair_differences(store, neighbours)
    complete = complete_sets(store)
    shares = {pair: len(found) / complete if complete else None for pair, found in differences.items()}
    return order_progress(bots, differences, shares, bound=rules_bound(store.settings().rules))


def order_json(progress: OrderProgress) -> dict[str, object]:
    """The progress as JSON-ready data (for ``ladder table --json``)."""
    return {
        "top": len(progress.bots),
        "bots": progress.bots,
        "sure": progress.sure,
        "pairs": len(progress.neighbours),
        "ladder_sets_needed": progress.ladder_sets,
        "ladder_sets_told": list(progress.told) if progress.told is not None else None,
        "neighbours": [
            {
                "above": n.above,
                "below": n.below,
                "sets": n.sets,
                "share": n.share,
                "state": n.state,
                "by": n.by,
                "more_sets": n.more_sets,
                "ladder_sets": n.ladder_sets,
                "told": {"low": n.told.low, "high": n.told.high, "waiting": n.told.waiting, "line": n.told.words()},
            }
            for n in progress.neighbours
        ],
        "line": format_order(progress),
    }
