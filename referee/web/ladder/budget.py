"""What a flood of requests may take from the ladder that serves the pages: pages are made
again only when the database has changed (answers kept by address and stamp, the stamp looked
at most every ``STAMP_EVERY`` seconds), and at most ``RENDERS_PER_SECOND`` pages a second are
made at all (a token bucket; more are answered 503 at once). A browser that polls, or a
thousand that ask the same page, cost one page a change."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from referee.web.ladder.tables import LiveMatch

RENDERS_PER_SECOND = 10.0
BURST = 20
STAMP_EVERY = 0.5
"""Seconds a look at the database (its stamp, the tables in play) is used for: pages lag the
database by at most this."""
KEPT_ANSWERS = 64


class Bucket:
    """A token bucket: ``take`` succeeds at most ``rate`` times a second on average, ``burst``
    times at once."""

    def __init__(self, rate: float = RENDERS_PER_SECOND, burst: int = BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.at: float | None = None

    def take(self) -> bool:
        now = trio.current_time()
        elapsed = 0.0 if self.at is None else now - self.at
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(frozen=True)
class State:
    """The database and the tables as last looked at."""

    stamp: str = ""
    seq: int = 0
    tables: list[LiveMatch] = field(default_factory=list)

    @property
    def keys(self) -> str:
        return ",".join(m.key for m in self.tables)


class Kept:
    """The latest stamp of the database (looked at most every ``STAMP_EVERY`` seconds) and the
    answers made at it, by address."""

    def __init__(self, look: Callable[[], Awaitable[State]], every: float = STAMP_EVERY) -> None:
        self.look = look
        self.every = every
        self._state = State()
        self._at: float | None = None
        self._answers: OrderedDict[tuple[str, ...], object] = OrderedDict()

    async def state(self) -> State:
        """The stamp, the last match rated and the tables in play, at most ``every`` seconds old."""
        now = trio.current_time()
        if self._at is None or now - self._at >= self.every:
            self._state, self._at = await self.look(), now
        return self._state

    def get(self, key: tuple[str, ...]) -> object | None:
        found = self._answers.get(key)
        if found is not None:
            self._answers.move_to_end(key)
        return found

    def put(self, key: tuple[str, ...], answer: object) -> None:
        self._answers[key] = answer
        while len(self._answers) > KEPT_ANSWERS:
            self._answers.popitem(last=False)
