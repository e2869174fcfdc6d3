"""A duel's database: a ladder database (``referee.store.writer``) whose ``meta`` holds the
duel's settings and whose ``pairings`` table says which two bots each set measures. Its sets are
scheduled one at a time (``schedule``, one transaction: the set, its matches and its pairing),
and read back as one paired difference per complete set, in the order the sets were completed
(``differences``): the order the sequential test saw them in, the same on every reading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from referee.duel.settings import META_KEY, DuelSettings, decode_settings, encode_settings
from referee.duel.tables import PairedSet
from referee.errors import LadderError
from referee.ladder.pairs import per_match
from referee.store.reader import LadderReader
from referee.store.records import LadderSettings, ScheduledMatch
from referee.store.writer import LadderStore


class CompletedSet(NamedTuple):
    """One complete set of a duel: the bot it measured NEW against, the ``seq`` of its last
    match, and its difference (points a match, positive: NEW better)."""

    old: str
    last: int
    difference: float


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

    def completed_sets(self, after: int = 0) -> list[CompletedSet]:
        """The sets completed (every match done) after the match numbered ``after`` in the order
        results were recorded (``matches.seq``), in the order they were completed (by their last
        match's ``seq``): what a running test reads after each set (``referee.duel.tally``),
        the same on every reading. Each set's difference is OLD's final score minus NEW's, a
        match, averaged over its matches: points a match NEW is better by on the same cards
        (scores count penalty points: lower is better), as the ladder defines a pair's
        difference (``referee.ladder.pairs.per_match``). A set completed later has a later last
        match, so reading after the last ``seq`` seen never misses one."""
        rows = self.db.execute(
            f"""
            WITH done(set_index, last) AS (
                SELECT set_index, MAX(seq) FROM matches
                WHERE set_index IN (SELECT set_index FROM matches WHERE seq > ?)
                GROUP BY set_index HAVING COUNT(seq) = COUNT(*)),
            pair(a, b, set_index, match) AS (
                SELECT p.new, p.old, p.set_index, m.id
                FROM done JOIN pairings p USING (set_index) JOIN matches m USING (set_index)),
            per_match AS ({per_match("pair", keep="set_index", match="match")})
            SELECT pm.b, done.last, AVG(pm.difference)
            FROM per_match pm JOIN done USING (set_index)
            GROUP BY pm.set_index ORDER BY done.last
            """,
            (after,),
        )
        return [CompletedSet(str(old), int(last), float(difference)) for old, last, difference in rows]

    def differences(self) -> dict[str, list[float]]:
        """For each bot NEW was measured against: one difference per complete set, in the order
        the sets were completed (``completed_sets``)."""
        found: dict[str, list[float]] = {}
        for done in self.completed_sets():
            found.setdefault(done.old, []).append(done.difference)
        return found

    def seat_statuses(self, after: int = 0) -> tuple[dict[str, Counter[str]], int]:
        """For each bot: its seats by status (``ok``, or why it was dropped) in the matches done
        after the one numbered ``after`` (``matches.seq``: through its unique index, so a running
        tally reads only the new ones); and the last ``seq`` read (``after`` when none is new)."""
        rows = self.db.execute(
            """SELECT r.bot, r.status, COUNT(*), MAX(m.seq) FROM results r JOIN matches m ON m.id = r.match
            WHERE r.match IN (SELECT id FROM matches WHERE seq > ?) GROUP BY r.bot, r.status""",
            (after,),
        )
        found: dict[str, Counter[str]] = {}
        last = after
        for bot, status, n, seq in rows:
            found.setdefault(str(bot), Counter())[str(status)] = int(n)
            last = max(last, int(seq))
        return found, last

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
