"""What the benchmarks (``referee.bench``) do to a database that a ladder never does, and what
they pick from one: a generated ladder written without waiting for the disk, a copy given room
to draw more sets, the bots and the match whose pages are timed."""

from __future__ import annotations

import json

from referee.store.reader import LadderReader


def speed_over_safety(store: LadderReader) -> None:
    """``synchronous = OFF`` on this connection: a benchmark's fixture, written fast, which a
    power cut may lose (a ladder's is ``FULL``: ``referee.store.database.connect``)."""
    store.db.execute("PRAGMA synchronous = OFF")


def room_to_draw(store: LadderReader, games: int) -> None:
    """The ladder's ``games`` set to ``games``, in one statement, on a copy whose feed is
    timed: its feed draws another set."""
    store.db.execute("UPDATE meta SET value = ? WHERE key = 'games'", (json.dumps(games),))


def last_listed(store: LadderReader) -> str:
    """A bot of the last position in the list."""
    (last,) = store.db.execute("SELECT name FROM bots ORDER BY position DESC LIMIT 1").fetchone()
    return str(last)


def most_dropped(store: LadderReader) -> str | None:
    """A bot dropped from the most seats; ``None``: none ever was."""
    found = store.db.execute(
        "SELECT bot FROM results WHERE status != 'ok' GROUP BY bot ORDER BY COUNT(*) DESC LIMIT 1"
    ).fetchone()
    return None if found is None else str(found[0])


def last_rated_match(store: LadderReader) -> tuple[int, int] | None:
    """(set, rotation) of the last match rated (of a match still to play when none is);
    ``None``: the ladder has no match."""
    found = store.db.execute("SELECT set_index, rotation FROM matches ORDER BY seq DESC LIMIT 1").fetchone()
    return None if found is None else (int(found[0]), int(found[1]))
