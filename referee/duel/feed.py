"""Which set a duel plays next, asked each time a table is free (the ladder runner's
``SetFeed``): first the sets a killed run left unfinished, then a new set against the bot with
fewest sets among those whose test has not decided and that are under ``--max-sets``; nothing
once every test has decided or reached the cap, and none once a bot is broken (no set against
a broken pool bot; none at all when NEW or an opponent is: ``referee.duel.faults``). So no set
is started after a decision, the sets already being played are finished and recorded, and a
run killed at any moment resumes without losing or repeating a set (a set is scheduled, with
its pairing, in one transaction before it is played, and its finished matches are never played
again)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from referee.duel.settings import DuelSettings
from referee.duel.status import DuelStatus
from referee.duel.store import DuelStore
from referee.duel.tables import PairedSet, duel_table
from referee.duel.tally import DuelTally
from referee.ladder.runner import pending_sets
from referee.ladder.schedule import set_seed
from referee.shared import FaultReport
from referee.store.records import ScheduledMatch


class DuelFeed:
    """The sets of a duel or a gauntlet, one at a time."""

    def __init__(
        self, store: DuelStore, duel: DuelSettings, max_sets: int, unstarted: Mapping[str, FaultReport] | None = None
    ) -> None:
        self.store = store
        self.duel = duel
        self.max_sets = max_sets
        self.unstarted = dict(unstarted or {})
        """The bots that failed to start before the first set (``referee.ladder.roll_call``)."""
        self.settings = store.settings()
        self.tally = DuelTally(duel, self.settings.rules)
        """The tests, fed each set once as it completes."""
        self.unfinished = pending_sets(store)
        """The sets a run before this one scheduled and did not finish, handed out first."""

    def __call__(self) -> Sequence[ScheduledMatch] | None:
        status = self.status()
        if status.stopped:
            return None
        group = self.unfinished()
        if group is not None:
            return group
        old = self.next_pairing(status)
        if old is None:
            return None
        index = self.store.next_index()
        table = duel_table(self.duel.new, old, self.duel.opponents, self.settings.rules.players)
        paired = PairedSet(index, table, set_seed(self.settings.ladder_seed, index))
        return self.store.schedule(paired, self.duel.new, old)

    def next_pairing(self, status: DuelStatus | None = None) -> str | None:
        """The bot NEW plays its next set against: undecided, under the cap, fewest sets so far
        (ties in the pool's order), not broken; ``None`` when there is none (``status``: the
        duel's now, when already read)."""
        status = status or self.status()
        scheduled = {p.old: p.scheduled for p in status.pairings}
        if status.stopped:
            return None
        open_ = [p.old for p in status.pairings if p.verdict in (None, "continue") and p.scheduled < self.max_sets]
        if not open_:
            return None
        return min(open_, key=lambda old: (scheduled[old], self.duel.olds.index(old)))

    def status(self) -> DuelStatus:
        """Where the duel stands now, its bots' faults counted."""
        return self.tally.status(self.store, self.unstarted)
