"""``AfterMatch``: what a seat's page may ask once its match is over: the match's replay (the
viewer of ``referee replay --html``, every hand shown, since the match is over) and a rematch
at the same table (``referee play``).

Two small HTTP answers beside the page, each only for a request that carries a seat's token in
the ``X-Seat-Token`` header (never in the address, so never in a log or a ``Referer``) and
comes from the server's own origin: ``GET /after`` says what is on offer (JSON), ``GET /replay``
is the finished match's viewer, ``POST /rematch`` asks for the next match. Nothing here reaches
a match in play: the replay is the log of a match that has ended, and a rematch is only taken
while the command waits for one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from referee.replay.html import match_page
from referee.replay.reader import LogError, read_log
from referee.replay.verify import verify
from referee.web.asgi import plain_response
from referee.web.link import AsgiSend

PATHS = frozenset({"/after", "/replay", "/rematch"})


class AfterMatch:
    """The replay of the last finished match and the offer of a rematch."""

    def __init__(self) -> None:
        self.log: Path | None = None
        """The finished match's log (its last match is the one shown)."""
        self.offered = False
        self._wanted = trio.Event()
        self._pages: dict[Path, str] = {}
        """The viewer of each finished log, made once (a page asking again costs nothing)."""
        self._making = trio.Lock()
        """One viewer made at a time, whatever the pages ask."""

    def finished(self, log: Path | None) -> None:
        """A match ended, its log at ``log``: its replay may be asked for."""
        self.log = log

    async def wait_for_rematch(self, timeout: float) -> bool:
        """Offer a rematch for ``timeout`` seconds; whether a page asked for one."""
        self._wanted = trio.Event()
        self.offered = True
        try:
            with trio.move_on_after(timeout):
                await self._wanted.wait()
        finally:
            self.offered = False
        return self._wanted.is_set()

    async def answer(self, scope: dict[str, Any], send: AsgiSend, allowed: Callable[[dict[str, Any]], bool]) -> None:
        """One request to ``PATHS``; ``allowed`` checks its origin and token."""
        path, method = scope.get("path"), scope.get("method")
        if not allowed(scope):
            await plain_response(send, 403, "forbidden\n")
        elif path == "/after" and method == "GET":
            body = json.dumps({"replay": self.log is not None, "rematch": self.offered}).encode()
            await _respond(send, 200, "application/json", body)
        elif path == "/replay" and method == "GET":
            await self._replay(send)
        elif path == "/rematch" and method == "POST":
            if not self.offered:
                await plain_response(send, 409, "no rematch is offered now\n")
                return
            self._wanted.set()
            await plain_response(send, 202, "a rematch\n")
        else:
            await plain_response(send, 405, "method not allowed\n")

    async def _replay(self, send: AsgiSend) -> None:
        log = self.log
        if log is None:
            await plain_response(send, 404, "no finished match yet\n")
            return
        try:
            async with self._making:
                if log not in self._pages:
                    self._pages = {log: await trio.to_thread.run_sync(_page, log)}
            page = self._pages[log]
        except (LogError, OSError) as err:
            await plain_response(send, 404, f"no replay: {err}\n")
            return
        await _respond(send, 200, "text/html; charset=utf-8", page.encode())


def _page(log: Path) -> str:
    """The viewer of the last match of ``log``, verified."""
    matches = read_log(log).matches
    if not matches:
        raise LogError(f"{log}: no match in the log")
    return match_page(verify(matches[-1]))


async def _respond(send: AsgiSend, status: int, kind: str, body: bytes) -> None:
    headers = [
        (b"content-type", kind.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
