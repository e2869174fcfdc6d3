"""The queries of a duel's or gauntlet's database: a ladder database whose ``pairings`` table
says which two bots each set measures (``referee.duel.store`` adds the duel's settings, read
from ``meta``, and the scheduling of a set). Its sets are read back as one paired difference
per complete set, in the order the sets were completed: the order the sequential test saw them
in, the same on every reading."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from referee.store.duplicates import per_match
from referee.store.reader import LadderReader, complete

NEWER = "SELECT set_index FROM matches WHERE seq > ?"
"""The sets with a match done after the one numbered ``?`` (through the unique index on
``matches.seq``: a running tally reads only the new ones)."""


class CompletedSet(NamedTuple):
    """One complete set of a duel: the bot it measured NEW against, the ``seq`` of its last
    match, and its difference (points a match, positive: NEW better)."""

    old: str
    last: int
    difference: float


class DuelQueries(LadderReader):
    """The queries over a duel's or gauntlet's database (over any connection to it: the web
    view's is read-only)."""

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
        difference (``referee.store.duplicates.per_match``). A set completed later has a later
        last match, so reading after the last ``seq`` seen never misses one."""
        rows = self.db.execute(
            f"""
            WITH done(set_index, last) AS ({complete(among=NEWER, also="MAX(seq)")}),
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
        (count,) = self.db.execute(f"SELECT COUNT(*) FROM ({complete()})").fetchone()
        return int(count)
