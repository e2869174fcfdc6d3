"""One decision: the request written, the reply read and timed, and every way that can fail.

The reply is timed on trio's clock from the written request to the complete reply line. A
reply that cannot be read, answers the wrong request or comes too late drops the seat (its
``Failure`` is named); a TCP bot that disconnects may come back within its time when the
match allows it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

import trio

from protocol.codec import ProtocolError, decode_bot
from protocol.messages import RefereeMessage, TimeLeft
from referee.match.clock import DecisionClock
from referee.match.config import MatchConfig
from referee.match.faults import Faults
from referee.match.outbox import Outbox
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat, SeatFault
from referee.players.channel import Failure, LinkClosed
from referee.players.connection import BotConnection, classify_closed
from referee.rules.turns import Reply

Reconnect: TypeAlias = Callable[[int, float], Awaitable[BotConnection | None]]
"""Waits up to the given seconds for a seat's bot to connect again."""

Restate: TypeAlias = Callable[[LiveSeat], None]
"""Queues the match and the round again for a seat whose bot has reconnected."""


class Asker:
    """Asks seats for decisions."""

    def __init__(
        self,
        *,
        config: MatchConfig,
        clock: DecisionClock,
        outbox: Outbox,
        recorder: MatchRecorder,
        faults: Faults,
        reconnect: Reconnect | None,
        restate: Restate,
    ) -> None:
        self._config = config
        self._clock = clock
        self._outbox = outbox
        self._recorder = recorder
        self._faults = faults
        self._reconnect = reconnect
        self._restate = restate
        self.decisions = 0

    async def ask(
        self, seat: LiveSeat, make: Callable[[int, TimeLeft], RefereeMessage], expect: type[Reply]
    ) -> Reply | None:
        """Send a request and wait for its reply; ``None`` when the seat is (or becomes)
        dropped, in which case the caller plays the fallback."""
        if not seat.active:
            return None
        self.decisions += 1
        drop = self._faults.drop
        while True:
            rid = next(seat.connection.ids)
            self._outbox.post(seat, make(rid, self._clock.time_left(seat)))
            link = seat.connection.link
            try:
                return await self._exchange(seat, rid, expect)
            except trio.TooSlowError:
                await drop(seat, self._clock.ran_out(seat), rid)
            except ProtocolError as err:
                await drop(seat, Failure(err.code, err.message), rid)
            except LinkClosed as err:
                failure = await classify_closed(link, err)
                if failure.reason == "disconnect" and await self._reconnected(seat, failure):
                    continue  # ask the new connection again
                await drop(seat, failure, rid)
            except SeatFault as fault:
                await drop(seat, fault.failure, rid)
            except Exception as err:  # whatever a bot's bytes cause is that bot's fault
                failure = Failure("protocol_violation", f"the reply could not be read: {type(err).__name__}: {err}")
                await drop(seat, failure, rid)
            return None

    async def _exchange(self, seat: LiveSeat, rid: int, expect: type[Reply]) -> Reply:
        """Write the seat's queued lines and read the reply to request ``rid``, timed from the
        written request to the complete reply line."""
        link = seat.connection.link
        clock = self._clock
        wait = clock.arm(seat, link)
        seat.last_line = None
        try:
            line = await link.exchange(self._outbox.take(seat))  # a bot that does not read times out
        except LinkClosed:
            if wait.fired:  # the watchdog interrupted the write or the read: time is up
                raise trio.TooSlowError from None
            raise
        finally:
            clock.disarm(seat)
        seat.last_line = line
        start = link.written_at
        clock.request_written(start)
        clock.reply_read(seat, start)
        problem: ProtocolError | None = None
        cpu = link.cpu_since_mark() if self._recorder.enabled else None
        try:
            reply = decode_bot(line)
        except ProtocolError as err:
            self._recorder.received(seat, line, None, cpu)
            problem = err
        else:
            self._recorder.received(seat, line, reply, cpu)
        flood = link.flood(self._config.stderr_flood, self._config.queued_lines_flood)
        if flood:
            raise SeatFault(Failure("output_flood", flood))
        if problem is not None:
            raise problem
        if not isinstance(reply, expect):
            want = expect.__struct_config__.tag
            got = type(reply).__struct_config__.tag
            raise SeatFault(Failure("protocol_violation", f"expected a {want!r} reply to request {rid}, got {got!r}"))
        if reply.id != rid:
            raise SeatFault(Failure("wrong_id", f"reply id {reply.id} does not answer request {rid}"))
        return reply

    async def _reconnected(self, seat: LiveSeat, failure: Failure) -> bool:
        """Wait for a disconnected TCP bot or browser to come back (if the match, or the
        connection's ``reconnects``, allows it) and tell it the match and the round again.
        The wait is the decision limit plus its bank."""
        allowed = seat.connection.reconnects
        if self._reconnect is None or not (self._config.reconnect if allowed is None else allowed):
            return False
        self._faults.record(seat, failure, "reconnect")
        seat.connection.failure = failure  # frees the seat for a new connection
        connection = await self._reconnect(seat.index, self._clock.allowance(seat))
        if connection is None or connection is seat.connection or not connection.alive:
            return False
        connection.label = connection.label or seat.connection.label
        connection.known_as = seat.connection.name(seat.index)  # the seat keeps its name
        seat.connection = connection
        seat.outbox.clear()
        self._restate(seat)
        return True
