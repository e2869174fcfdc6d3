"""Which set a duel plays next, asked each time a table is free (the ladder runner's
``SetFeed``): first the sets a killed run left unfinished, then a new set against the bot with
fewest sets among those whose test has not decided and that are under ``--max-sets``; nothing
once every test has decided or reached the cap. So no set is started after a decision, the sets
already being played are finished and recorded, and a run killed at any moment resumes without
losing or repeating a set (a set is scheduled, with its pairing, in one transaction before it
is played, and its finished matches are never played again)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.duel.settings import DuelSettings
from referee.duel.status import duel_status
from referee.duel.store import DuelStore
from referee.duel.tables import PairedSet, duel_table
from referee.ladder.runner import pending_sets
from referee.ladder.schedule import ScheduledMatch, set_seed


class DuelFeed:
    """The sets of a duel or a gauntlet, one at a time."""

    def __init__(self, store: DuelStore, duel: DuelSettings, max_sets: int) -> None:
        self.store = store
        self.duel = duel
        self.max_sets = max_sets
        self.settings = store.settings()
        self.unfinished = pending_sets(store)
        """The sets a run before this one scheduled and did not finish, handed out first."""

    def __call__(self) -> Sequence[ScheduledMatch] | None:
        group = self.unfinished()
        if group is not None:
            return group
        old = self.next_pairing()
        if old is None:
            return None
        index = self.store.next_index()
        table = duel_table(self.duel.new, old, self.duel.opponents, self.settings.rules.players)
        paired = PairedSet(index, table, set_seed(self.settings.ladder_seed, index))
        return self.store.schedule(paired, self.duel.new, old)

    def next_pairing(self) -> str | None:
        """The bot NEW plays its next set against: undecided, under the cap, fewest sets so far
        (ties in the pool's order); ``None`` when there is none."""
        scheduled = self.store.scheduled()
        status = duel_status(self.duel, self.settings.rules, self.store.differences(), scheduled)
        open_ = [p.old for p in status.pairings if p.verdict in (None, "continue") and p.scheduled < self.max_sets]
        if not open_:
            return None
        return min(open_, key=lambda old: (scheduled[old], self.duel.olds.index(old)))
