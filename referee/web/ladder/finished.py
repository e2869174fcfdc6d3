"""A finished match as its viewer gets it from the server: its replay page and its log to
download, each without the output of the seats whose bots the viewer may not see
(``viewer.withheld_seats``; ``referee.replay.withheld``). The match is found by its key through
the database, its log in the ladder's logs folder only (``logs.log_inside``)."""

from __future__ import annotations

from referee.replay.withheld import Withheld
from referee.store.reader import LadderReader
from referee.web.ladder import queries
from referee.web.ladder.answers import REPLAY_POLICY, SECURITY_HEADERS, Answer
from referee.web.ladder.logs import Logs
from referee.web.ladder.reading import Reading
from referee.web.ladder.viewer import Viewer, withheld_seats

Where = tuple[str, str, tuple[str, ...]]
"""A finished match's log, match id and the ladder's names by seat (``queries.match_log``)."""
DOWNLOAD_POLICY = SECURITY_HEADERS[0][1].decode()
"""A log downloaded is data, never a page: it may run nothing and load nothing."""


async def _found(reading: Reading, key: str, viewer: Viewer) -> tuple[Where, frozenset[int]] | None:
    """The match's log, match id and names by seat, and the seats whose output ``viewer`` may
    not see; ``None``: no finished match of that key."""

    def read(reader: LadderReader) -> tuple[Where, frozenset[int]] | None:
        where = queries.match_log(reader, key)
        if where is None:
            return None
        return where, withheld_seats(viewer, where[2], queries.entrants_of(reader))

    return await reading.run(read)


def _unread(key: str) -> Answer:
    return Answer.text(404, f"the log of match {key} cannot be read in the ladder's logs folder\n")


async def replay(reading: Reading, logs: Logs, key: str, viewer: Viewer) -> Answer:
    """The replay viewer's page of the match, verified."""
    found = await _found(reading, key, viewer)
    if found is None:
        return Answer.text(404, f"no finished match {key[:20]!r} in this ladder\n")
    where, withheld = found
    shown = Withheld(withheld) if withheld else None
    body = await reading.run(lambda _: logs.replay_page(*where, shown=shown))
    return _unread(key) if body is None else Answer(200, body.encode(), policy=REPLAY_POLICY)


async def download(reading: Reading, logs: Logs, key: str, viewer: Viewer) -> Answer:
    """The match's log file to download (never kept by the server: a log may be megabytes)."""
    found = await _found(reading, key, viewer)
    if found is None:
        return Answer.text(404, f"no finished match {key[:20]!r} in this ladder\n")
    (recorded, _, _), withheld = found
    data = await reading.run(lambda _: logs.download(recorded, withheld))
    if data is None:
        return _unread(key)
    answer = Answer(200, data, "application/x-ndjson; charset=utf-8", policy=DOWNLOAD_POLICY)
    answer.headers.append((b"content-disposition", f'attachment; filename="{key}.jsonl"'.encode()))
    return answer
