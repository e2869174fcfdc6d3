"""TCP seats: bots that connect to the referee instead of being started by it.

Each TCP seat has a secret token. A bot connects, the referee says hello, and the bot's hello
must carry the token of a free seat; a hello without a token or with a wrong one, a token whose
seat is taken, or no hello within the hello limit is refused with an error line and the
connection closed, without touching the seated bots.

An unauthenticated connection cannot hold the referee: the hello limit is short (5 s from the
accept, and never more than the start-up limit), and the handshake slots are bounded per
address and in all (``referee.players.pending``): a connection silent after the referee's
hello gives its slot to a new one, a bot that answers keeps it whatever other addresses hold.
Whatever a connection sends before it is seated, and whatever goes wrong in its handshake, ends
that connection only: it is refused (``protocol_violation`` for an unexpected exception) and
reported. Every refusal goes to ``on_refusal``; ``RefusalReport`` prints them for the operator,
rate-limited and made safe for a terminal.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import secrets
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from protocol.messages import BotHello
from referee.names import printable
from referee.network import HIDDEN_TOKEN, new_token
from referee.players.acceptor import Acceptor, turn_away
from referee.players.channel import Failure, SocketLink
from referee.players.connection import BotConnection, handshake
from referee.players.pending import (
    MAX_PENDING,
    MAX_PENDING_PER_ADDRESS,
    SQUAT_AFTER,
    PendingLink,
    Slot,
    Slots,
    address_key,
)

DEFAULT_HELLO_TIMEOUT = 5.0
"""Seconds a TCP connection has for its hello: its program is already running, so the hello
should come at once; an idle connection is dropped after this."""
MAX_REFUSING = 64
"""Refusals being written at once; beyond this a connection is closed without a message."""


@dataclass
class ClaimedSeat:
    """A seat that a connection claims with the seat's token (a TCP bot's, a browser page's):
    the connection holding it, set when its handshake is done."""

    seat: int
    name: str
    token: str = field(default_factory=new_token)
    connection: BotConnection | None = None
    arrived: trio.Event = field(default_factory=trio.Event)
    reconnect: bool = False
    """Whether a new connection may take the seat once its own has disconnected."""


@dataclass
class TcpSeat(ClaimedSeat):
    """A seat waiting for (or held by) a bot that connects."""

    token_file: str | None = None
    """The file the token was read from (``tcp:NAME:@FILE``), which no bot may see."""
    token_given: bool = False
    """The user supplied the token (``tcp:NAME:TOKEN`` or ``@FILE``): it is never printed."""

    @property
    def free(self) -> bool:
        if self.connection is None:
            return True
        return self.reconnect and not self.connection.alive


@dataclass
class Refusal:
    """A connection the server turned away, for the operator, logs and tests. ``peer`` and
    ``message`` may carry text a peer chose: make them safe (``referee.names.printable``) to print."""

    peer: str
    reason: str
    message: str


OnRefusal = Callable[[Refusal], None]
"""Called for every refused connection, at once (not rate-limited)."""

EVICTED_SILENT = "dropped: another connection needed the slot and yours had sent nothing; try again"
EVICTED_PARTIAL = "dropped: another connection needed the slot and yours had not sent a complete hello line; try again"


class TcpSeatServer:
    """Accepts bots for a set of TCP seats."""

    def __init__(
        self,
        seats: list[TcpSeat],
        startup: float,
        max_pending: int = MAX_PENDING,
        *,
        hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
        max_pending_per_address: int = MAX_PENDING_PER_ADDRESS,
        squat_after: float = SQUAT_AFTER,
        on_refusal: OnRefusal | None = None,
    ) -> None:
        self.seats = seats
        self.startup = startup
        self.hello_timeout = min(hello_timeout, startup)
        self.slots = Slots(max_pending, max_pending_per_address, squat_after)
        self.on_refusal = on_refusal
        self.refusals: deque[Refusal] = deque(maxlen=1000)
        """The latest refusals (older ones are only counted in ``refused``)."""
        self.refused = 0
        self.address: tuple[str, int] = ("", 0)
        self._refusing = 0
        self._changed = trio.Event()

    @property
    def pending(self) -> int:
        """Connections in their handshake."""
        return len(self.slots)

    @property
    def pending_by_address(self) -> Counter[str]:
        return self.slots.by_address

    @property
    def max_pending_per_address(self) -> int:
        return self.slots.per_address

    async def serve(self, host: str, port: int, *, task_status: trio.TaskStatus[tuple[str, int]]) -> None:
        """Listen on ``host:port`` (port 0: any free port) until cancelled."""
        acceptor = Acceptor()
        self.address = await acceptor.listen(host, port)
        task_status.started(self.address)
        await acceptor.serve(self._take)

    def _take(self, stream: trio.SocketStream, nursery: trio.Nursery) -> None:
        """Start the handshake of a new connection (in a slot a squatter may have to give up),
        or refuse it ``busy``; never waits, so the accepting goes on whatever the handshakes do."""
        try:
            host = str(stream.socket.getpeername()[0])
        except OSError:
            host = "?"
        slot = self.slots.take(address_key(host))
        if isinstance(slot, Slot):
            nursery.start_soon(self._admit, stream, slot)
            return
        if self._refusing >= MAX_REFUSING:  # a flood: no message, no task, just close
            self._refuse(SocketLink(stream).peer, "busy", f"{slot} (closed without a message)")
            stream.socket.close()
            return
        self._refusing += 1
        nursery.start_soon(self._refuse_busy, stream, slot)

    def _refuse(self, peer: str, reason: str, message: str) -> None:
        refusal = Refusal(peer, reason, message)
        self.refusals.append(refusal)
        self.refused += 1
        if self.on_refusal is not None:
            with contextlib.suppress(Exception):  # a report that fails (stderr gone) must not end the match
                self.on_refusal(refusal)

    async def _refuse_busy(self, stream: trio.SocketStream, message: str) -> None:
        try:
            link = SocketLink(stream)
            self._refuse(link.peer, "busy", message)
            await turn_away(link, "busy", message)
        finally:
            self._refusing -= 1

    async def _admit(self, stream: trio.SocketStream, slot: Slot) -> None:
        link = PendingLink(stream)
        slot.link = link
        connection = BotConnection(link=link, command="tcp")
        claimed: list[TcpSeat] = []

        def check(hello: BotHello) -> Failure | None:
            if not hello.token:
                return Failure("bad_token", "your hello has no token; send your seat's token")
            token = hello.token.encode("utf-8", "surrogatepass")  # compare_digest takes ASCII str only
            seat = next((s for s in self.seats if secrets.compare_digest(s.token.encode(), token)), None)
            if seat is None:
                return Failure("bad_token", "no seat has this token")
            if not seat.free:
                return Failure("seat_taken", f"seat {seat.seat} ({seat.name}) already has a bot connected")
            seat.connection = connection  # claimed at once: a second connection sees it taken
            claimed.append(seat)
            return None

        try:
            with slot.scope:
                await handshake(connection, self.hello_timeout, admit=check, since=slot.since)
        except Exception as err:  # whatever a peer sent, it ends this connection only
            for seat in claimed:
                if seat.connection is connection:
                    seat.connection = None
            message = f"the referee could not handle this connection's handshake ({type(err).__name__})"
            self._refuse(link.peer, "protocol_violation", message)
            await turn_away(link, "protocol_violation", message)
            return
        finally:
            self.slots.release(slot)
        if slot.scope.cancelled_caught:
            for seat in claimed:  # none: a connection is evicted only before its hello line
                if seat.connection is connection:
                    seat.connection = None
            if connection.failure is None:
                await self._drop(link)
                return
            await link.close()  # evicted while being told it failed (its hello limit was up)
        if connection.failure is not None:
            failure = connection.failure
            self._refuse(link.peer, failure.reason, failure.message)
            return
        seat = claimed[0]
        connection.command = f"tcp:{seat.name} ({link.peer})"
        connection.transcript = [
            (t, way, hide_token(line) if way == "recv" else line) for t, way, line in connection.transcript
        ]
        seat.arrived.set()
        self._changed.set()

    async def _drop(self, link: PendingLink) -> None:
        """Refuse an evicted connection ``busy`` (the kits try again) and close it."""
        message = EVICTED_SILENT if link.received == 0 else EVICTED_PARTIAL
        if self._refusing >= MAX_REFUSING:  # a flood: no message, just close
            self._refuse(link.peer, "busy", f"{message} (closed without a message)")
            await link.close()
            return
        self._refuse(link.peer, "busy", message)
        self._refusing += 1
        try:
            await turn_away(link, "busy", message)
        finally:
            self._refusing -= 1

    async def wait_for_all(self, timeout: float) -> None:
        """Wait until every seat has a bot, or ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            for seat in self.seats:
                await seat.arrived.wait()

    async def wait_for(self, seat: TcpSeat, timeout: float) -> BotConnection | None:
        """A new connection for a seat whose bot disconnected (reconnection), or ``None``."""
        if not seat.free:
            return None
        seat.arrived = trio.Event()
        seat.connection = None
        with trio.move_on_after(timeout):
            await seat.arrived.wait()
            return seat.connection
        return None


_JSON_STRING: Final = re.compile(rb'"(?:[^"\\]|\\.)*"')
"""A JSON string literal, escapes included (in a line that decoded, quotes only delimit these)."""
_SHOWN_TOKEN: Final = json.dumps(HIDDEN_TOKEN).encode()


def hide_token(hello: bytes) -> bytes:
    """A TCP bot's hello as the match log keeps it (its handshake's transcript): the value of
    every ``"token"`` field written ``HIDDEN_TOKEN``, every other byte as the bot sent it. The
    log is shared (a CI artifact, ``referee watch``, ``replay --seat``) and a token is the key
    to a seat (docs/protocol.md). The field is replaced, not the token's text: a token that is
    also a word of the message (``hello``, ``1``) would rewrite the hello and the log would no
    longer verify, and a token spelt with JSON escapes would stay."""
    kept: list[bytes] = []
    start = 0
    key_end: int | None = None
    for found in _JSON_STRING.finditer(hello):
        if key_end is not None and hello[key_end : found.start()].strip() == b":":
            kept += [hello[start : found.start()], _SHOWN_TOKEN]
            start, key_end = found.end(), None
        else:
            key_end = found.end() if _names_token(found.group()) else None
    return b"".join([*kept, hello[start:]])


def _names_token(literal: bytes) -> bool:
    """Whether a JSON string literal spells ``token`` (with or without escapes)."""
    try:
        return bool(json.loads(literal) == "token")
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# The operator's report
# ---------------------------------------------------------------------------------------------
def describe(refusal: Refusal) -> str:
    """One line for the operator: ``refused 127.0.0.1:50312: bad_token (no seat has this token)``."""
    peer, reason, message = (printable(t, 200) for t in (refusal.peer, refusal.reason, refusal.message))
    return f"refused {peer}: {reason} ({message})"


class RefusalReport:
    """Prints refusals for the operator (an ``OnRefusal`` callback, called in trio): one line
    each, at most ``per_second`` lines a second; the rest are counted by reason and summed up
    in one line when the second is over, so a flood of connections cannot flood the terminal.
    Call ``flush`` at the end for a count still waiting."""

    def __init__(self, write: Callable[[str], None], per_second: int = 10) -> None:
        self.write = write
        self.per_second = per_second
        self._window = -math.inf
        """When the current one-second window started (trio time)."""
        self._shown = 0
        self._hidden: Counter[str] = Counter()
        self._flush_at: float | None = None

    def __call__(self, refusal: Refusal) -> None:
        now = trio.current_time()
        if now >= self._window + 1.0:
            self.flush()
            self._window, self._shown = now, 0
        if self._shown < self.per_second:
            self._shown += 1
            self.write(describe(refusal))
            return
        self._hidden[printable(refusal.reason, 40)] += 1
        end = self._window + 1.0
        if self._flush_at != end:  # sum up when this window ends, even if no refusal follows
            self._flush_at = end
            trio.lowlevel.spawn_system_task(self._flush_later, end)

    async def _flush_later(self, end: float) -> None:
        await trio.sleep_until(end)
        if self._flush_at == end:
            with contextlib.suppress(Exception):  # a system task must not raise; the count waits for flush()
                self.flush()

    def flush(self) -> None:
        """Print the count of refusals not shown one by one, if any."""
        self._flush_at = None
        if not self._hidden:
            return
        total = sum(self._hidden.values())
        reasons = ", ".join(f"{reason} {count}" for reason, count in self._hidden.most_common())
        self._hidden.clear()
        self.write(f"refused {total} more connection{'s' if total != 1 else ''} in one second ({reasons})")
