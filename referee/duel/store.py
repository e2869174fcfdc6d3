"""A duel's database: a ladder database (``referee.store.writer``) whose ``meta`` holds the
duel's settings and whose ``pairings`` table says which two bots each set measures. Its sets are
scheduled one at a time (``schedule``, one transaction: the set, its matches and its pairing),
and read back as one paired difference per complete set, in the order the sets were completed
(``differences``): the order the sequential test saw them in, the same on every reading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec

from referee.duel.settings import META_KEY, DuelSettings, decode_settings, encode_settings
from referee.duel.tables import PairedSet
from referee.errors import LadderError
from referee.ladder.pairs import COMPLETE, per_match
from referee.store.reader import LadderReader
from referee.store.records import LadderSettings, ScheduledMatch
from referee.store.writer import LadderStore


class DuelReader(LadderReader):
    """The queries over a duel's or gauntlet's database (over any connection to it: the web
    view's is read-only)."""

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

    def scheduled(self) -> Counter[str]:
        """Sets scheduled (complete or not) against each bot."""
        rows = self.db.execute("SELECT old, COUNT(*) FROM pairings GROUP BY old")
        return Counter({str(old): int(n) for old, n in rows})

    def differences(self) -> dict[str, list[float]]:
        """For each bot NEW was measured against: one difference per complete set (every match
        done), in the order the sets were completed (by the last match's ``seq``). A set's
        difference is OLD's final score minus NEW's, a match, averaged over its matches: points
        a match NEW is better by on the same cards (scores count penalty points: lower is
        better), as the ladder defines a pair's difference (``referee.ladder.pairs.per_match``)."""
        rows = self.db.execute(
            f"""
            WITH pair(a, b, set_index) AS (SELECT new, old, set_index FROM pairings),
            per_match AS ({per_match("pair", keep="set_index")})
            SELECT pm.set_index, pm.b, m.seq, pm.difference
            FROM per_match pm JOIN matches m ON m.id = pm.match AND m.set_index = pm.set_index
            WHERE pm.set_index IN ({COMPLETE})
            """
        )
        per_set: dict[int, tuple[str, list[int], list[float]]] = {}
        for set_index, old, seq, difference in rows:
            _, seqs, differences = per_set.setdefault(int(set_index), (str(old), [], []))
            seqs.append(int(seq))
            differences.append(float(difference))
        found: dict[str, list[float]] = {}
        for old, _, differences in sorted(per_set.values(), key=lambda entry: max(entry[1])):
            found.setdefault(old, []).append(sum(differences) / len(differences))
        return found

    def seat_statuses(self) -> dict[str, Counter[str]]:
        """For each bot: its seats in done matches by status (``ok``, or why it was dropped)."""
        rows = self.db.execute("SELECT bot, status, COUNT(*) FROM results GROUP BY bot, status")
        found: dict[str, Counter[str]] = {}
        for bot, status, n in rows:
            found.setdefault(str(bot), Counter())[str(status)] = int(n)
        return found

    def set_count(self) -> int:
        """Complete sets, against every bot."""
        (count,) = self.db.execute(
            "SELECT COUNT(*) FROM (SELECT set_index FROM matches GROUP BY set_index HAVING COUNT(seq) = COUNT(*))"
        ).fetchone()
        return int(count)


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
