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
MAX_OPEN = 32
"""Answers being made at once; more are shed (503) until some are done."""
MAX_OPEN_PER_CLIENT = 8
"""Answers being made at once for one address (an IPv4 address, an IPv6 /64): one client
cannot take every slot from the others."""


class AnswerSlots:
    """The answers being made, in all and by client address. A slot is held only while an
    answer is made (a read of the database, a page's HTML), never while it is sent: making
    takes the ladder's CPU and is bounded; sending waits on the client, which Hypercorn's
    write deadline bounds (``referee.web.hypercorn_bounds``)."""

    def __init__(self, total: int = MAX_OPEN, per_client: int = MAX_OPEN_PER_CLIENT) -> None:
        self.total = total
        self.per_client = per_client
        self.by_client: dict[str, int] = {}

    @property
    def open(self) -> int:
        return sum(self.by_client.values())

    def take(self, client: str) -> bool:
        """A slot for ``client``, or ``False`` when all or its own are taken."""
        held = self.by_client.get(client, 0)
        if held >= self.per_client or self.open >= self.total:
            return False
        self.by_client[client] = held + 1
        return True

    def give(self, client: str) -> None:
        held = self.by_client.get(client, 0) - 1
        if held > 0:
            self.by_client[client] = held
        else:
            self.by_client.pop(client, None)


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
    entrants: tuple[tuple[str, str], ...] = ()
    """(name, SHA-256 of its secret) of every entrant with one: what a key is checked against
    (``referee.ladder.entrants.owner``), as fresh as the stamp."""

    @property
    def keys(self) -> str:
        return ",".join(m.key for m in self.tables)


class Kept:
    """The latest stamp of the database (looked at most every ``STAMP_EVERY`` seconds) and the
    answers made at it, by address. Each is made once however many ask for it at the same
    time: the others wait for it (a burst of forty connections asking a page no one had asked
    since the database changed made it forty times, and took every slot meanwhile)."""

    def __init__(self, look: Callable[[], Awaitable[State]], every: float = STAMP_EVERY) -> None:
        self.look = look
        self.every = every
        self._state = State()
        self._at: float | None = None
        self._looking: trio.Event | None = None
        self._answers: OrderedDict[tuple[str, ...], object] = OrderedDict()
        self._making: dict[tuple[str, ...], trio.Event] = {}

    async def state(self) -> State:
        """The stamp, the last match rated and the tables in play, at most ``every`` seconds old."""
        now = trio.current_time()
        if self._at is not None and now - self._at < self.every:
            return self._state
        if self._looking is not None:  # another request is looking: its look is ours
            await self._looking.wait()
            return self._state
        self._looking = trio.Event()
        try:
            self._state, self._at = await self.look(), now
        finally:
            self._looking.set()
            self._looking = None
        return self._state

    async def answer(self, key: tuple[str, ...], make: Callable[[], Awaitable[object]]) -> object:
        """The answer kept for ``key``, else the one being made for it (waited for), else
        ``make()`` (which keeps it with ``put`` if it should be kept)."""
        found = self.get(key)
        if found is not None:
            return found
        making = self._making.get(key)
        if making is not None:
            await making.wait()
            found = self.get(key)
            if found is not None:
                return found
        done = self._making.setdefault(key, trio.Event())
        try:
            return await make()
        finally:
            if self._making.get(key) is done:
                del self._making[key]
            done.set()

    def get(self, key: tuple[str, ...]) -> object | None:
        found = self._answers.get(key)
        if found is not None:
            self._answers.move_to_end(key)
        return found

    def put(self, key: tuple[str, ...], answer: object) -> None:
        self._answers[key] = answer
        while len(self._answers) > KEPT_ANSWERS:
            self._answers.popitem(last=False)
