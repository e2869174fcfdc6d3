"""The ladder's web view for tests: a small ladder with hostile bot names and faults, and the
view's ASGI application asked as a browser would (``referee.bench.ladder_web.get``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.bench.ladder_web import ADDRESS, answer_of, get
from referee.ladder.schedule import draw_sets
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.records import LadderSettings, ScheduledMatch, StoredMatch
from referee.store.writer import LadderStore
from referee.web.ladder.app import LadderWeb
from tests.ladder.helpers import record_of

HOSTILE = '<script>alert("x")</script>'
"""A bot name that would run in a page that did not escape it."""
NAMES = ["alpha", HOSTILE, "b/../c?d#e", "delta"]
STDERR = ["Traceback (most recent call last):", '  <img src=x onerror="alert(1)">', "ValueError: boom"]


def hostile_ladder(folder: Path, games: int = 3) -> Path:
    """A ladder of ``games`` sets of the bots of ``NAMES`` whose every match is recorded; the
    bot ``HOSTILE`` crashes in every match with ``STDERR`` (markup) as its last words."""
    path = folder / "hostile.db"
    store = LadderStore(path)
    rules = ruleset("american")
    settings = LadderSettings(9, rules, games, "2026-01-01T00:00:00+00:00")
    store.initialize(settings, [(b, f"./run {b}") for b in NAMES], draw_sets(NAMES, rules.players, 9, games))
    for match in store.pending():
        store.record(_crashing(match))
    store.close()
    return path


def _crashing(match: ScheduledMatch) -> StoredMatch:
    statuses = ["crash" if bot == HOSTILE else "ok" for bot in match.seats]
    record = record_of(match, [10 * (i + 1) for i in range(len(match.seats))], statuses)
    faults = [
        FaultReport(seat=i, name=bot, reason="crash", message=f"{HOSTILE} exited", action="forfeit",
                    exit="exited with code 3", stderr=STDERR, stderr_lines=40)
        for i, bot in enumerate(match.seats) if bot == HOSTILE
    ]  # fmt: skip
    return replace(record, faults=faults, log=f"{match.key}.jsonl")


class View:
    """A ``LadderWeb`` over a database, asked in the test's trio run."""

    def __init__(self, db: Path, *, token: str | None = None, public_view: bool = False) -> None:
        self.app = LadderWeb(db, token=token, public_view=public_view)
        self.app.url = ADDRESS
        self.app.kept.every = 0.0  # every request sees the database as it is now

    async def get(self, target: str) -> tuple[int, str]:
        status, body = await get(self.app, target)
        return status, body.decode()

    async def ask(self, target: str, **scope: Any) -> tuple[int, dict[bytes, bytes], bytes]:
        """A request with some of its scope replaced: its status, headers and body."""
        path, _, query = target.partition("?")
        full = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                "query_string": query.encode(), "headers": [(b"host", b"127.0.0.1:8000")], **scope}  # fmt: skip
        return await answer_of(self.app, full)

    def close(self) -> None:
        self.app.close()
