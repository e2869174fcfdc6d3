"""A match in play watched from the ladder's pages (``/table/KEY/ws``): the WebSocket of one
spectator, let in only from one of our pages, by a viewer the cookies name, to a match in play,
while fewer than ``MAX_SPECTATORS`` watch; the log followed with the stderr of every seat its
viewer may not see left out (``viewer.withheld_seats``)."""

from __future__ import annotations

import re
from typing import Any

import trio

from referee.web.ladder import queries
from referee.web.ladder.reading import Reading
from referee.web.ladder.tables import LiveMatch
from referee.web.ladder.viewer import Viewer, withheld_seats
from referee.web.ladder.who import Who
from referee.web.link import AsgiReceive, AsgiSend
from referee.web.watch import MAX_SPECTATORS, LogTail, spectate

TABLE = re.compile(r"/table/([0-9]{5,7}-[0-9]{1,2})/(ws|style\.css|cards\.js|watch\.js)?")
"""A table's page, its files, and its WebSocket (``ws``)."""


class TableWatch:
    """The spectators of a ladder's tables: ``who`` names each, ``reading`` says whose bots
    sit where (an entrant sees its own bots' stderr)."""

    def __init__(self, who: Who, reading: Reading) -> None:
        self.who = who
        self.reading = reading
        self.spectators = 0

    async def serve(
        self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend, tables: list[LiveMatch], *, ours: bool
    ) -> None:
        """One spectator's WebSocket; ``tables``: the matches in play; ``ours``: whether the
        request names this server and comes from one of its pages."""
        first = await receive()
        if first.get("type") != "websocket.connect":
            return
        table = TABLE.fullmatch(str(scope.get("path", "")))
        match = next((m for m in tables if table and table.group(2) == "ws" and m.key == table.group(1)), None)
        viewer = await self.who.by_cookies(scope) if ours else None
        if match is None or not isinstance(viewer, Viewer) or self.spectators >= MAX_SPECTATORS:
            await send({"type": "websocket.close", "code": 1008})  # before accepting: HTTP 403
            return
        self.spectators += 1
        try:
            owners = {} if viewer.kind == "organizer" else await self.reading.run(queries.entrants_of)
            tail = LogTail(match.log, names=match.seats, withheld=withheld_seats(viewer, match.seats, owners))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(tail.follow)
                await spectate(tail, receive, send)
                nursery.cancel_scope.cancel()
        finally:
            self.spectators -= 1
