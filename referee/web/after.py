"""``AfterMatch``: what a seat's page may ask once its match is over: the match's replay (the
viewer of ``referee replay --html``, every hand shown, since the match is over) and a rematch
at the same table (``referee play``).

Two small HTTP answers beside the page, each only for a request that carries a seat's token in
the ``X-Seat-Token`` header (never in the address, so never in a log or a ``Referer``) and
comes from the server's own origin: ``GET /after`` says what is on offer (JSON), ``GET /replay``
is the finished match's viewer, ``POST /rematch`` asks for the next match. Nothing here reaches
a match in play: the replay is the log of a match that has ended, and a rematch is only taken
while the command waits for one.

And the analysis of the person's own play (``referee.analysis``, docs/analysis.md): ``POST
/analysis`` starts it for the seat whose token the request carries (the person's: only a seat's
page can ask, and it gets its own seat analysed, from that seat's information only), on the last
finished match's log (the path the command wrote, never one the request names), in a worker
thread with a budget (``ANALYSIS_BUDGET``: about half a minute a match on one core), one analysis
at a time (another asked meanwhile: 409). ``GET /analysis`` says how far it is (JSON: ``state``
idle, running, done or failed, ``done`` and ``total`` decisions and deals valued), ``GET
/analysed`` is the replay viewer with the analysis once done (``referee analyze --html``'s page).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from referee.analysis import Budget, analyse_match
from referee.replay.html import match_page
from referee.replay.reader import LogError, LogMatch, read_log
from referee.replay.verify import verify
from referee.web.asgi import plain_response
from referee.web.link import AsgiSend

PATHS = frozenset({"/after", "/replay", "/rematch", "/analysis", "/analysed"})
ANALYSIS_BUDGET = Budget()
"""The budget of a person's analysis: ``referee analyze``'s default, so the page shows the
same figures as the command printed with the result (same seed): some 30 s for a whole American
match on one core here, a few seconds for a short one."""
ANALYSIS_SEED = 1
"""The seed of ``referee analyze``'s default: the same figures as its command at this budget."""


@dataclass
class Analysing:
    """The one analysis of the person's play: of which log and seat, how far, its page."""

    log: Path
    seat: int
    state: str = "running"
    done: int = 0
    total: int = 0
    page: str | None = None
    error: str = ""
    seconds: float = 0.0


class AfterMatch:
    """The replay of the last finished match and the offer of a rematch."""

    def __init__(self, budget: Budget = ANALYSIS_BUDGET) -> None:
        self.budget = budget
        self.analysing: Analysing | None = None
        """The latest analysis asked for (one at a time)."""
        self.nursery: trio.Nursery | None = None
        """Where an analysis runs: the page server's (``WebSeatServer.serve``)."""
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

    async def answer(
        self, scope: dict[str, Any], send: AsgiSend, seat_of: Callable[[dict[str, Any]], int | None]
    ) -> None:
        """One request to ``PATHS``; ``seat_of`` checks its origin and token, and names the
        token's seat (``None``: refused)."""
        path, method = scope.get("path"), scope.get("method")
        seat = seat_of(scope)
        if seat is None:
            await plain_response(send, 403, "forbidden\n")
        elif path == "/after" and method == "GET":
            body = json.dumps({"replay": self.log is not None, "rematch": self.offered}).encode()
            await _respond(send, 200, "application/json", body)
        elif path == "/analysis" and method == "POST":
            await self._start_analysis(send, seat)
        elif path == "/analysis" and method == "GET":
            await _respond(send, 200, "application/json", json.dumps(self._progress(seat)).encode())
        elif path == "/analysed" and method == "GET":
            found = self.analysing
            if found is None or found.seat != seat or found.page is None or found.log != self.log:
                await plain_response(send, 404, "no analysis of this match done yet\n")
            else:
                await _respond(send, 200, "text/html; charset=utf-8", found.page.encode())
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

    def _progress(self, seat: int) -> dict[str, object]:
        """How far the analysis of ``seat``'s play in the last finished match is."""
        found = self.analysing
        if found is None or found.seat != seat or found.log != self.log:
            return {"state": "idle" if self.log is not None else "none", "done": 0, "total": 0}
        told: dict[str, object] = {"state": found.state, "done": found.done, "total": found.total}
        if found.state == "failed":
            told["error"] = found.error
        if found.state == "done":
            told["seconds"] = round(found.seconds, 1)
        return told

    async def _start_analysis(self, send: AsgiSend, seat: int) -> None:
        log, found = self.log, self.analysing
        if log is None or self.nursery is None:
            await plain_response(send, 404, "no finished match to analyse\n")
        elif found is not None and found.state == "running" and (found.log, found.seat) != (log, seat):
            await plain_response(send, 409, "another analysis is running: one at a time\n")
        elif found is not None and (found.log, found.seat) == (log, seat) and found.state in ("running", "done"):
            await plain_response(send, 202, "being analysed\n" if found.state == "running" else "analysed\n")
        else:
            self.analysing = Analysing(log, seat)
            self.nursery.start_soon(self._analyse, self.analysing)
            await plain_response(send, 202, "being analysed\n")

    async def _analyse(self, job: Analysing) -> None:
        """``job`` done in a worker thread (its figures from its seat's information only)."""

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        started = time.perf_counter()
        try:
            job.page = await trio.to_thread.run_sync(
                _analysed_page, job.log, job.seat, self.budget, progress, abandon_on_cancel=True
            )
            job.state = "done"
        except Exception as err:  # a log that cannot be read or analysed: told to the page, never raised
            job.state, job.error = "failed", f"{type(err).__name__}: {err}"[:300]
        job.seconds = time.perf_counter() - started

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
    return match_page(verify(_last(log)))


def _analysed_page(log: Path, seat: int, budget: Budget, progress: Callable[[int, int], None]) -> str:
    """The viewer of the last match of ``log`` with the analysis of ``seat`` (in this thread,
    one worker: the table may be playing a rematch beside it)."""
    record = verify(_last(log))
    status = record.verification
    if status is None or status.status == "mismatch":
        raise LogError(f"{log.name}: the log does not verify")
    analysis = analyse_match(
        record, [seat], seed=ANALYSIS_SEED, budget=budget, workers=1, progress=progress, log_name=log.name
    )
    return match_page(record, analysis)


def _last(log: Path) -> LogMatch:
    matches = read_log(log).matches
    if not matches:
        raise LogError(f"{log}: no match in the log")
    return matches[-1]


async def _respond(send: AsgiSend, status: int, kind: str, body: bytes) -> None:
    headers = [
        (b"content-type", kind.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
