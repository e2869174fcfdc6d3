"""Which set a ladder plays next, asked each time a table is free (the runner's ``SetFeed``):
first the sets a run before this one began and did not finish (a set is finished with the
versions it began with, even retired ones), then the pending sets it drew and did not begin,
then, while the ladder has fewer sets than ``games``, a new set drawn from the pool as it is
now (``referee.ladder.schedule.next_set``): new entrants and versions first, then the pair
whose order is least sure.

A set is written to the store, with its pending matches, in one transaction before a table
plays it, so a run killed at any moment resumes without losing or repeating a set. Sets handed
out by this feed are its own: a pool change while it runs never takes them out of the
schedule (``LadderStore.change_pool``'s ``keep``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from referee.ladder.schedule import next_set
from referee.stats.ratings import Rating
from referee.store.duplicates import sets_drawn
from referee.store.records import ScheduledMatch
from referee.store.writer import LadderStore

Focus = Callable[[LadderStore, Sequence[str]], list[tuple[str, str]]]
"""The pairs of active bots whose order is least sure, least sure first."""

INTERVAL = 2.0
"""A rating's interval for the focus: mu plus or minus this many sigmas (about 95%)."""


def rating_focus(store: LadderStore, active: Sequence[str]) -> list[tuple[str, str]]:
    """Neighbours in the rating order whose intervals (mu +- ``INTERVAL`` sigma) overlap,
    the most overlapping first (the overlap as a share of the narrower interval, so two sure
    bots far apart never come before two that cannot be told apart). Cheap: one read of the
    ratings, no pass over the results, so it can run before every set."""
    ratings = store.ratings()
    order = sorted((b for b in active if b in ratings), key=lambda b: (-ratings[b].mu, b))
    scored = []
    for upper, lower in pairwise(order):
        share = _overlap(ratings[upper], ratings[lower])
        if share > 0:
            scored.append((-share, upper, lower))
    return [(a, b) for _, a, b in sorted(scored)]


def _overlap(a: Rating, b: Rating) -> float:
    low = max(a.mu - INTERVAL * a.sigma, b.mu - INTERVAL * b.sigma)
    high = min(a.mu + INTERVAL * a.sigma, b.mu + INTERVAL * b.sigma)
    narrower = 2 * INTERVAL * min(a.sigma, b.sigma)
    return max(0.0, high - low) / narrower if narrower > 0 else 0.0


class LadderFeed:
    """The sets of a living ladder, one at a time."""

    def __init__(self, store: LadderStore, focus: Focus = rating_focus) -> None:
        self.store = store
        self.focus = focus
        self.handed: set[int] = set()
        """The sets this feed handed to a table (never taken out by a pool change)."""

    def __call__(self) -> Sequence[ScheduledMatch] | None:
        for group in self._pending():
            if group[0].set_index not in self.handed:
                self.handed.add(group[0].set_index)
                return group
        settings = self.store.settings()
        drawn = sets_drawn(self.store)
        active = self.store.active()
        if drawn >= settings.games or len(active) < 2:
            return None
        drawn_set = next_set(
            self.store.next_index(),
            active,
            settings.rules.players,
            settings.ladder_seed,
            self.store.sets(),
            self.focus(self.store, active),
        )
        self.handed.add(drawn_set.index)
        return self.store.schedule_set(drawn_set)

    def _pending(self) -> list[list[ScheduledMatch]]:
        """The store's pending matches by set, begun sets first (then in schedule order)."""
        groups: dict[int, list[ScheduledMatch]] = {}
        for match in self.store.pending():
            groups.setdefault(match.set_index, []).append(match)
        return sorted(groups.values(), key=lambda g: (g[0].rotation == 0, g[0].set_index))
