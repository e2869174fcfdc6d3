"""Reading a ladder's season from its database (``referee.ladder.season`` says what a season is;
``LadderStore.set_season``, ``end_regular`` and ``choose_finalists`` write it): the ``season``
table's one row, and how far the sets of one stage have come."""

from __future__ import annotations

import json
import sqlite3

from referee.store.database import has_table
from referee.store.records import Finalist, Season


def read_season(db: sqlite3.Connection) -> Season | None:
    """The season kept in ``db``, or ``None`` for a ladder without one."""
    if not has_table(db, "season"):
        return None
    row = db.execute(
        "SELECT ends, closes, final_top, final_sets, ends_given, closes_given, finalists, regular_ended"
        " FROM season WHERE id = 1"
    ).fetchone()
    if row is None:
        return None
    ends, closes, top, count, ends_given, closes_given, finalists, ended = row
    chosen = None
    if finalists is not None:
        chosen = tuple(Finalist(str(b), float(m), float(s)) for b, m, s in json.loads(finalists))
    return Season(
        ends=ends,
        closes=closes,
        final_top=int(top),
        final_sets=int(count),
        ends_given=ends_given,
        closes_given=closes_given,
        finalists=chosen,
        regular_ended=ended,
    )


def stage_progress(db: sqlite3.Connection, stage: str) -> tuple[int, int]:
    """(sets drawn, sets complete) of one stage (``final``: the season's final)."""
    drawn, complete = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(NOT EXISTS (SELECT 1 FROM matches m WHERE m.set_index = s.set_index"
        " AND m.seq IS NULL)), 0) FROM sets s WHERE s.stage = ?",
        (stage,),
    ).fetchone()
    return int(drawn), int(complete)


def final_to_come(db: sqlite3.Connection) -> int:
    """The sets of the season's final not drawn yet (none without a final, or once its bots are
    chosen and fewer than two): counted in a ladder's matches to play."""
    season = read_season(db)
    if season is None or not season.has_final or (season.finalists is not None and len(season.finalists) < 2):
        return 0
    return max(0, season.final_sets - stage_progress(db, "final")[0])
