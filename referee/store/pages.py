"""What the ladder's pages read that the reader has no method for (``referee.web.ladder``:
``queries.py`` one read per page, ``tables.py`` the matches in play, ``match_rows.py`` the static
copy's rows): each a query of the caller's read transaction, bounded where a page shows only
part (a page of matches by the unique index on ``matches.seq``, a bot's latest faults and
matches). Rows come back as SQLite gives them; the pages make their records of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from referee.store.reader import LadderReader

Row = tuple[Any, ...]


def command(store: LadderReader, name: str) -> str:
    """The command of the bot ``name`` (a version the ladder has)."""
    (found,) = store.db.execute("SELECT command FROM bots WHERE name = ?", (name,)).fetchone()
    return str(found)


def rating_history(store: LadderReader, name: str) -> list[Row]:
    """(seq, mu, sigma) of every rating the bot ``name`` had, in order."""
    return store.db.execute("SELECT seq, mu, sigma FROM rating_history WHERE bot = ? ORDER BY seq", (name,)).fetchall()


def opponents(store: LadderReader, name: str) -> list[Row]:
    """Per opponent of ``name`` (another bot at its table), by name: (opponent, matches, matches
    ``name`` finished with fewer points, with more, the opponent's points minus its own on
    average)."""
    return store.db.execute(
        """
        SELECT o.bot, COUNT(*), SUM(r.score < o.score), SUM(r.score > o.score), AVG(o.score - r.score)
        FROM results r JOIN results o ON o.match = r.match AND o.seat != r.seat
        WHERE r.bot = ? AND o.bot != r.bot GROUP BY o.bot ORDER BY o.bot
        """,
        (name,),
    ).fetchall()


def drop_reasons(store: LadderReader, name: str) -> list[Row]:
    """(status, seats) of each reason ``name`` was dropped for, most first."""
    return store.db.execute(
        "SELECT status, COUNT(*) FROM results WHERE bot = ? AND status != 'ok' GROUP BY status"
        " ORDER BY COUNT(*) DESC, status",
        (name,),
    ).fetchall()


def latest_faults(store: LadderReader, name: str, limit: int) -> list[Row]:
    """The ``limit`` latest explained faults of ``name``, newest first: (set, rotation, log,
    seat, reason, message, hint, exit, stderr as JSON, stderr's lines)."""
    return store.db.execute(
        "SELECT m.set_index, m.rotation, m.log, f.seat, f.reason, f.message, f.hint, f.exit, f.stderr,"
        " f.stderr_lines FROM faults f JOIN matches m ON m.id = f.match WHERE f.bot = ? AND m.status = 'done'"
        " ORDER BY m.seq DESC, f.number DESC LIMIT ?",
        (name, limit),
    ).fetchall()


def recent_matches(store: LadderReader, name: str, limit: int) -> list[Row]:
    """(log, match id, seat) of the ``limit`` latest done matches of ``name`` with a log."""
    return store.db.execute(
        "SELECT m.log, m.match_id, r.seat FROM results r JOIN matches m ON m.id = r.match"
        " WHERE r.bot = ? AND m.status = 'done' AND m.log IS NOT NULL ORDER BY m.seq DESC LIMIT ?",
        (name, limit),
    ).fetchall()


def finished_count(store: LadderReader, bot: str | None) -> int:
    """How many matches are finished (with ``bot`` at the table, when given)."""
    if bot is None:
        (total,) = store.db.execute("SELECT COUNT(seq) FROM matches").fetchone()
    else:
        (total,) = store.db.execute("SELECT COUNT(DISTINCT match) FROM results WHERE bot = ?", (bot,)).fetchone()
    return int(total)


def finished_page(store: LadderReader, bot: str | None, limit: int, offset: int) -> list[Row]:
    """The finished matches (with ``bot`` at the table, when given), newest first, ``limit``
    of them after the first ``offset``: (id, set, rotation, seq, finished, reason, rounds)."""
    if bot is None:
        where, args = "WHERE seq IS NOT NULL", []
    else:
        where, args = "WHERE seq IS NOT NULL AND id IN (SELECT match FROM results WHERE bot = ?)", [bot]
    return store.db.execute(
        f"SELECT id, set_index, rotation, seq, finished, reason, rounds FROM matches {where}"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        [*args, limit, offset],
    ).fetchall()


def seats_of(store: LadderReader, ids: Sequence[int]) -> list[Row]:
    """(match id, bot, score, rank, status) of every seat of the matches ``ids``, by match and
    seat; none for no match."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    return store.db.execute(
        f"SELECT match, bot, score, rank, status FROM results WHERE match IN ({marks}) ORDER BY match, seat", list(ids)
    ).fetchall()


def finished_match(store: LadderReader, set_index: int, rotation: int) -> Row | None:
    """(log, match id, seats as JSON) of the finished match of that set and rotation, or
    ``None``: not finished (or no such match)."""
    found: Row | None = store.db.execute(
        "SELECT log, match_id, seats FROM matches WHERE set_index = ? AND rotation = ? AND seq IS NOT NULL",
        (set_index, rotation),
    ).fetchone()
    return found


def pending_seats(store: LadderReader, set_index: int, rotation: int) -> tuple[str, ...] | None:
    """The ladder's names by seat of that set and rotation's match while it is pending;
    ``None``: not pending (or no such match)."""
    row = store.db.execute(
        "SELECT seats FROM matches WHERE set_index = ? AND rotation = ? AND status = 'pending'",
        (set_index, rotation),
    ).fetchone()
    return None if row is None else tuple(json.loads(row[0]))


def last_rated(store: LadderReader) -> int:
    """The number of the last match rated (0: none)."""
    (seq,) = store.db.execute("SELECT COALESCE(MAX(seq), 0) FROM matches").fetchone()
    return int(seq)


def stamp_counts(store: LadderReader) -> tuple[int, int, int, int]:
    """The last match rated, the matches scheduled, the bots, and their names' length in all:
    what changes when a match is rated, a set drawn or a version added."""
    seq, scheduled = store.db.execute("SELECT COALESCE(MAX(seq), 0), COUNT(*) FROM matches").fetchone()
    bots, length = store.db.execute("SELECT COUNT(*), total(length(name)) FROM bots").fetchone()
    return int(seq), int(scheduled), int(bots), int(length)


def all_seats(store: LadderReader) -> list[Row]:
    """(match id, seat, bot, score, rank, status) of every seat with a result, by match and
    seat (the static copy's rows)."""
    return store.db.execute("SELECT match, seat, bot, score, rank, status FROM results ORDER BY match, seat").fetchall()


def finished_in_order(store: LadderReader) -> list[Row]:
    """(id, set, rotation, seq, finished, reason, rounds) of every finished match, in the order
    results were rated (the static copy's rows)."""
    return store.db.execute(
        "SELECT id, set_index, rotation, seq, finished, reason, rounds FROM matches WHERE seq IS NOT NULL ORDER BY seq"
    ).fetchall()
