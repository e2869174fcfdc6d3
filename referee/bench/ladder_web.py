"""``referee bench ladder-web``: the ladder's pages over a big database, timed.

A ladder of ``matches`` matches is made first (synthetic scores through the store's own
``record``: results, faults with stderr, ratings and their history as a real run keeps them;
``synchronous = OFF`` only while it is made), then every page is asked ``repeats`` times
through the web view's ASGI application in this process, as a browser would (its ``Host``,
``GET``), and the time from the request to the whole answer is taken: each time made from the
database (everything kept forgotten first, as after a match has ended), then asked again
(kept). The figures are in
docs/performance.md; no test asserts a speed."""

from __future__ import annotations

import random
import statistics
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import trio

from referee.ladder.schedule import draw_sets
from referee.rules.presets import ruleset
from referee.shared import FaultReport
from referee.stats.ratings import finishing_ranks
from referee.store.fixtures import last_listed, last_rated_match, most_dropped, speed_over_safety
from referee.store.pages import finished_count
from referee.store.reader import LadderReader
from referee.store.records import LadderSettings, ScheduledMatch, SeatResult, StoredMatch, match_key
from referee.store.writer import LadderStore
from referee.web.ladder.app import LadderWeb
from referee.web.ladder.budget import Bucket
from referee.web.ladder.queries import PAGE_SIZE

ADDRESS = "http://127.0.0.1:8000"
CRASHER = "crasher"


def make_ladder(path: Path, matches: int = 10_000, bots: int = 12, seed: int = 1) -> Path:
    """A ladder database of about ``matches`` finished matches (whole sets of 4) of ``bots``
    bots, one of which crashes in a tenth of its matches with a few lines of stderr."""
    names = [CRASHER, *(f"bot-{i:02d}" for i in range(1, bots))]
    rules = ruleset("american")
    sets = draw_sets(names, rules.players, seed, max(1, matches // rules.players))
    store = LadderStore(path)
    try:
        speed_over_safety(store)
        settings = LadderSettings(seed, rules, len(sets), "2026-12-01T00:00:00+00:00")
        store.initialize(settings, [(n, f"./{n} --play") for n in names], sets)
        draw = random.Random(seed)
        for match in store.pending():
            store.record(_record(match, draw))
    finally:
        store.close()
    return path


def _record(match: ScheduledMatch, draw: random.Random) -> StoredMatch:
    strength = {name: int(name[-2:]) if name[-2:].isdigit() else 0 for name in match.seats}
    scores = [max(0, int(draw.gauss(60 - 2 * strength[name], 20))) for name in match.seats]
    statuses = ["crash" if name == CRASHER and draw.random() < 0.1 else "ok" for name in match.seats]
    ranks = finishing_ranks(scores, [s != "ok" for s in statuses])
    winners = [i for i, r in enumerate(ranks) if r == 0]
    seats = [
        SeatResult(seat=i, bot=name, score=scores[i], status=statuses[i], moons=0,
                   win=1 / len(winners) if i in winners else 0.0)
        for i, name in enumerate(match.seats)
    ]  # fmt: skip
    faults = [
        FaultReport(seat=i, name=name, reason="crash", message="the bot exited with code 1", action="forfeit",
                    exit="exited with code 1", stderr=["Traceback (most recent call last):", "<b>boom</b>"],
                    stderr_lines=2)
        for i, name in enumerate(match.seats) if statuses[i] != "ok"
    ]  # fmt: skip
    return StoredMatch(match=match, match_id=f"m{match.key}", reason="target_reached", rounds=9, decisions=250,
                       log=f"{match.key}.jsonl", seats=seats, faults=faults)  # fmt: skip


async def get(app: Any, target: str) -> tuple[int, bytes]:
    """One ``GET`` through an ASGI application: its status and body. The path is decoded as a
    server decodes it (``%2F`` becomes ``/``), the query is not."""
    path, _, query = target.partition("?")
    scope = {"type": "http", "method": "GET", "path": unquote(path), "raw_path": path.encode(),
             "query_string": query.encode(), "headers": [(b"host", b"127.0.0.1:8000")], "http_version": "1.1",
             "scheme": "http"}  # fmt: skip
    status, _, body = await answer_of(app, scope)
    return status, body


async def answer_of(app: Any, scope: dict[str, Any]) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request without a body through an ASGI application: its status, headers and body."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return int(sent[0]["status"]), dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


@dataclass(frozen=True)
class PageTime:
    page: str
    status: int
    bytes: int
    made_ms: float
    """Median time of a page made from the database (nothing kept: as after a match ended)."""
    made_max_ms: float
    kept_ms: float
    """Median time of the same page asked again (kept until the database changes)."""


def pages(reader: LadderReader) -> list[str]:
    """The pages timed: the leaderboard, the last bot of the list and the one with most drops,
    the match list (its first page, its hundredth, a bot's twentieth, as far as they go), the
    replay of the last match rated, the tables, the version polled."""
    last = last_listed(reader)
    dropped = most_dropped(reader)
    worst = last if dropped is None else dropped
    done = finished_count(reader, None)
    key = last_rated_match(reader)
    far = max(1, min(100, done // PAGE_SIZE))
    bots = quote(str(last), safe="")
    return ["/", f"/bot/{bots}", f"/bot/{quote(worst, safe='')}", "/matches", f"/matches?page={far}",
            f"/matches?bot={bots}&page={max(1, min(20, far // 4))}",
            *([f"/match/{match_key(*key)}"] if key else []), "/tables", "/api/version"]  # fmt: skip


async def _time_pages(db: Path, repeats: int) -> list[PageTime]:
    app = LadderWeb(db)
    app.url = ADDRESS
    app.renders = Bucket(rate=1e9, burst=10**9)  # the pages timed, not the budget that sheds a flood
    try:
        await get(app, "/api/version")  # the worker thread started and the file opened, as in a served view
        found = []
        for target in app.reading.read(pages):
            made: list[float] = []
            kept: list[float] = []
            for _ in range(repeats):
                app.forget()
                for times in (made, kept):
                    start = time.perf_counter()
                    status, body = await get(app, target)
                    times.append((time.perf_counter() - start) * 1000)
            found.append(
                PageTime(target, status, len(body), statistics.median(made), max(made), statistics.median(kept))
            )
        return found
    finally:
        app.close()


def bench_ladder_web(db: Path, repeats: int = 10) -> list[PageTime]:
    """Every page's time over the ladder in ``db`` (made by ``make_ladder``)."""
    return trio.run(_time_pages, db, repeats)


FLOODED = ("/", "/matches", "/api/version", "/tables", "/matches?page=1", "/ladder.css")


def flood(url: str, clients: int = 16, seconds: float = 600.0) -> dict[str, int]:
    """``clients`` threads asking the pages at ``url`` in turn as fast as they can, until
    ``seconds`` have passed or the server is gone (50 failed connections): the answers by
    status. For measuring what a flood costs a ladder that serves its pages."""
    counts: Counter[str] = Counter()
    stop = threading.Event()
    deadline = time.monotonic() + seconds

    def client() -> None:
        asked = 0
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url.rstrip("/") + FLOODED[asked % len(FLOODED)], timeout=5) as answer:
                    answer.read()
                    counts[str(answer.status)] += 1
            except urllib.error.HTTPError as refused:
                counts[str(refused.code)] += 1
            except OSError:
                counts["gone"] += 1
                if counts["gone"] > 50:
                    stop.set()
                time.sleep(0.05)
            asked += 1

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return dict(counts)
