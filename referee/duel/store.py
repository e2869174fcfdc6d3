"""A duel's database: a ladder database (``referee.store.writer``) whose ``meta`` holds the
duel's settings and whose ``pairings`` table says which two bots each set measures. Its sets are
scheduled one at a time (``schedule``, one transaction: the set, its matches and its pairing),
and read back as one paired difference per complete set, in the order the sets were completed
(``differences``): the order the sequential test saw them in, the same on every reading.

The queries are the store's (``referee.store.duels``); here only what needs the duel's own
types: its settings decoded, a ``PairedSet`` scheduled."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from referee.duel.settings import META_KEY, DuelSettings, decode_settings, encode_settings
from referee.duel.tables import PairedSet
from referee.errors import LadderError
from referee.store.duels import DuelQueries
from referee.store.records import LadderSettings, ScheduledMatch
from referee.store.writer import LadderStore


class DuelReader(DuelQueries):
    """The queries over a duel's or gauntlet's database (over any connection to it: the web
    view's is read-only), and its settings."""

    def duel(self) -> DuelSettings | None:
        """The duel's settings; ``None`` for a ladder's database. Raises ``LadderError`` for
        settings this referee cannot read."""
        stored = self.meta_value(META_KEY)
        if stored is None:
            return None
        try:
            return decode_settings(stored)
        except msgspec.ValidationError as err:
            raise LadderError(f"{self.path}: the duel's settings cannot be read ({err})") from None


class DuelStore(DuelReader, LadderStore):
    """One duel's or gauntlet's database, opened (upgraded if need be) like a ladder's."""

    def create(self, settings: LadderSettings, duel: DuelSettings, bots: Sequence[tuple[str, str]]) -> None:
        """The tables, the settings (the ladder's and the duel's) and the bots, no set yet: one
        transaction, so a process killed half-way leaves an empty database."""
        self.initialize(settings, bots, [], extra={META_KEY: encode_settings(duel)})

    def schedule(self, paired: PairedSet, new: str, old: str) -> list[ScheduledMatch]:
        """Add one set measuring ``new`` against ``old`` (its matches pending), in one
        transaction; its matches."""
        self.extend([paired], paired.index + 1, pairings=[(new, old)])
        return paired.matches()
