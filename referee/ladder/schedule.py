"""The ladder's schedule: duplicate sets drawn from the pool, and the matches of each set.

A *duplicate set* (one "game" of ``--games``) is one table of bots and one seed, played once
in every seat rotation: with ``n`` seats, ``n`` matches. The deal depends only on the seed
and the deal number (and the first dealer, drawn from the seed), never on who sits where, so
every rotation is dealt exactly the same hands round by round, and over the set each bot holds
each seat's cards once. Card luck cancels out; what is left is play.

Tables are drawn greedily so that appearances and pairings stay level: each next bot is one
that has played least, then one that has met the bots already at the table least. Ties are
broken by SHA-256 of the ladder seed, the set number and the bot's name, so the schedule is a
pure function of the bot names, the seat count and the ladder seed, on any machine and any
Python. Drawing is incremental: the sets already drawn (as stored) are fed back in and the
draw continues from them, so extending a ladder never changes the sets it already has.

A living ladder draws its sets one at a time as tables free up (``next_set``, called by
``referee.ladder.feed``), from the versions active then, so a pool that changes is drawn from
as it is. Two rules come before the level draw there: a bot *behind* (fewer than half the
appearances of the bot with most: a new entrant or version) is seated first; and once no bot
is behind and every pair has met in ``EXPLORE`` sets, the pair whose order is least sure (the
``focus`` the caller measured) is seated together, the other seats drawn level. So matches go
where they tell most, and a pure function of the sets so far, the pool and the focus still
gives the same set on any machine.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from referee.store.records import DuplicateSet

SEED_BITS = 128
"""Set seeds are as wide as ``referee match``'s random seeds: a bot that sees its own hands
cannot search the seed space for the one that dealt them."""


def _hash(*parts: object, size: int = 8) -> int:
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:size], "big")


def set_seed(ladder_seed: int, index: int) -> int:
    """The deal seed of set ``index``: a hash of the ladder seed, so one set's seed tells
    nothing of another's."""
    return _hash("hearts-ladder-seed", ladder_seed, index, size=SEED_BITS // 8)


class SetDrawer:
    """Draws duplicate sets one after another, keeping appearances and pairings level."""

    def __init__(self, bots: Sequence[str], seats: int, ladder_seed: int) -> None:
        if len(set(bots)) != len(bots):
            raise ValueError("bot names must be unique")
        if len(bots) < 2:
            raise ValueError("a ladder needs at least two bots")
        if seats < 2:
            raise ValueError("a table needs at least two seats")
        self.bots = sorted(bots)  # the config's order does not matter
        self.seats = seats
        self.ladder_seed = ladder_seed
        self.appearances: Counter[str] = Counter()
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.extra_seats: Counter[str] = Counter()
        self.drawn = 0

    def record(self, table: Iterable[str]) -> None:
        """Count a set already drawn (read back from the store)."""
        names = list(table)
        self.appearances.update(set(names))
        for a, b in combinations(sorted(set(names)), 2):
            self.pairs[a, b] += 1
        for name, count in Counter(names).items():
            self.extra_seats[name] += count - 1
        self.drawn += 1

    def draw(self, index: int | None = None, focus: Sequence[str] = ()) -> DuplicateSet:
        """The next set (numbered ``index``, default: the sets drawn so far); ``focus``: bots
        seated first, in that order, when they are of the pool and fit."""
        index = self.drawn if index is None else index
        if len(self.bots) >= self.seats:
            chosen = self._draw_distinct(index, [b for b in dict.fromkeys(focus) if b in self.bots][: self.seats])
        else:
            chosen = self._draw_with_repeats(index)
        # the cyclic order at the table (who passes to whom) is drawn too
        order = sorted(range(len(chosen)), key=lambda k: _hash("hearts-ladder-order", self.ladder_seed, index, k))
        table = tuple(chosen[k] for k in order)
        self.record(table)
        return DuplicateSet(index, table, set_seed(self.ladder_seed, index))

    def _tie(self, index: int, name: str) -> int:
        return _hash("hearts-ladder-draw", self.ladder_seed, index, name)

    def _met(self, name: str, chosen: Sequence[str]) -> int:
        return sum(self.pairs[min(name, c), max(name, c)] for c in chosen)

    def _draw_distinct(self, index: int, first: Sequence[str] = ()) -> list[str]:
        chosen: list[str] = list(first)
        for _ in range(self.seats - len(chosen)):
            candidates = [b for b in self.bots if b not in chosen]
            chosen.append(
                min(candidates, key=lambda b: (self.appearances[b], self._met(b, chosen), self._tie(index, b)))
            )
        return chosen

    def _draw_with_repeats(self, index: int) -> list[str]:
        """Fewer bots than seats: every bot sits at the table, the seats left over go to the
        bots that have had fewest extra seats so far."""
        per_bot, left = divmod(self.seats, len(self.bots))
        extra = sorted(self.bots, key=lambda b: (self.extra_seats[b], self._tie(index, b)))[:left]
        return [b for b in self.bots for _ in range(per_bot + (b in extra))]


def draw_sets(bots: Sequence[str], seats: int, ladder_seed: int, count: int) -> list[DuplicateSet]:
    """The first ``count`` sets of a new ladder."""
    drawer = SetDrawer(bots, seats, ladder_seed)
    return [drawer.draw() for _ in range(count)]


def extend_sets(
    bots: Sequence[str], seats: int, ladder_seed: int, existing: Sequence[DuplicateSet], count: int
) -> list[DuplicateSet]:
    """The sets that follow ``existing`` up to ``count`` sets in all (none if there are
    already that many)."""
    drawer = SetDrawer(bots, seats, ladder_seed)
    for duplicate_set in existing:
        drawer.record(duplicate_set.table)
    return [drawer.draw() for _ in range(max(0, count - len(existing)))]


EXPLORE = 2
"""Sets every pair of active bots meets in before the draw follows the least sure pair: no
order is measured before that."""


def next_set(  # noqa: PLR0917 - the draw's inputs, each named where it is called
    index: int,
    active: Sequence[str],
    seats: int,
    ladder_seed: int,
    drawn: Iterable[DuplicateSet],
    focus: Sequence[tuple[str, str]] = (),
) -> DuplicateSet:
    """Set ``index`` of a living ladder: drawn from the ``active`` bots, level with the sets
    ``drawn`` so far (all of them, retired bots' too), bots behind first, else the first pair
    of ``focus`` (least sure first) together when every pair has met ``EXPLORE`` times (see
    the module's docstring)."""
    drawer = SetDrawer(active, seats, ladder_seed)
    for duplicate_set in drawn:
        drawer.record(duplicate_set.table)
    return drawer.draw(index, _first_seated(drawer, focus))


def _first_seated(drawer: SetDrawer, focus: Sequence[tuple[str, str]]) -> list[str]:
    """Who sits first at the next table: the bots behind, fewest appearances first; else the
    least sure pair of ``focus`` once every pair has met ``EXPLORE`` times; else nobody."""
    most = max((drawer.appearances[b] for b in drawer.bots), default=0)
    behind = sorted((b for b in drawer.bots if 2 * drawer.appearances[b] < most), key=lambda b: drawer.appearances[b])
    if behind:
        return behind
    explored = all(drawer.pairs[a, b] >= EXPLORE for a, b in combinations(drawer.bots, 2))
    for a, b in focus:
        if explored and a in drawer.bots and b in drawer.bots:
            return [a, b]
    return []


def first_sets(bots: Sequence[str], seats: int, ladder_seed: int, games: int) -> list[DuplicateSet]:
    """The sets a new ladder draws up front: level sets until every pair has met ``EXPLORE``
    times (before that no order is measured, so ``next_set`` would draw the same), at most
    ``games``; all ``games`` when every set seats every bot (there is no choice to make). The
    rest are drawn as tables free up."""
    drawer = SetDrawer(bots, seats, ladder_seed)
    sets: list[DuplicateSet] = []
    everyone = len(drawer.bots) <= seats
    while len(sets) < games and (
        everyone or not all(drawer.pairs[a, b] >= EXPLORE for a, b in combinations(drawer.bots, 2))
    ):
        sets.append(drawer.draw())
    return sets
