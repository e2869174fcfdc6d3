"""A duel's tests kept up to date one set at a time: each time a table is free the feed reads
only the sets completed since it last looked (``DuelReader.completed_sets`` after the last
``seq`` seen) and adds them to each pairing's running tally (``referee.duel.status.PairingTally``),
so choosing the next set costs the same after the thousandth set as after the first. Before, the
feed read every set again and ran both tests from the start at every set: the work of a whole
duel grew with the cube of its sets (the query also joined each set to every match of NEW),
38 s of a 175-set test (docs/performance.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from protocol.ruleset import RuleSet
from referee.duel.faults import duel_faults
from referee.duel.settings import DuelSettings
from referee.duel.status import DuelStatus, PairingTally, pairings_status
from referee.duel.store import DuelReader, DuelStore
from referee.shared import FaultReport
from referee.stats.betting import rules_bound


class DuelTally:
    """Every pairing of one duel, read from its database set by set."""

    def __init__(self, duel: DuelSettings, rules: RuleSet) -> None:
        self.duel, self.rules = duel, rules
        bound = rules_bound(rules)
        self.pairings = {old: PairingTally(old, duel, bound) for old in duel.olds}
        self.seen = 0
        """The ``seq`` of the last match of the last set read."""
        self.seats: dict[str, Counter[str]] = {}
        """Every bot's seats by status, over the done matches read."""
        self.seats_seen = 0
        """The ``seq`` of the last match whose seats were counted."""

    def read(self, store: DuelReader) -> None:
        """Add the sets completed and the seats done since the last read, in the order they were
        completed."""
        for done in store.completed_sets(after=self.seen):
            pairing = self.pairings.get(done.old)
            if pairing is not None:  # a set against a bot no longer measured: nothing to test
                pairing.add(done.difference)
            self.seen = done.last

        found, self.seats_seen = store.seat_statuses(after=self.seats_seen)
        for bot, statuses in found.items():
            self.seats.setdefault(bot, Counter()).update(statuses)

    def status(self, store: DuelStore, unstarted: Mapping[str, FaultReport] | None = None) -> DuelStatus:
        """Where the duel stands once the new sets and seats are read (``unstarted``: the bots
        that failed this run's roll call)."""
        self.read(store)
        faults = duel_faults(store, self.duel.names, unstarted, self.seats)
        return pairings_status(self.duel, self.rules, self.pairings, store.scheduled(), faults)
