"""What each seat is told. Events for a seat are queued and written together with its next
request, so a decision costs one write and one read per bot; a message every seat sees is
encoded once. Every line is checked against the protocol's line limit where it is encoded."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Final

import msgspec
import trio

from protocol.codec import MAX_LINE, MAX_MESSAGE, clip, encode
from protocol.messages import Error, ErrorCode, RefereeMessage
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat
from referee.players.channel import LinkClosed

LIVE_GRACE: Final = 1.0
"""Seconds a person's page may take to take an event written as it happens (a page that does
not read costs the match at most this per event; its next request meets the clock as usual)."""


class OverlongLine(Exception):
    """A referee message over the protocol's line limit: a bug in the referee, never a bot's
    doing (names are cut, quoted text is clipped), so it is raised rather than sent."""


def bounded(message: RefereeMessage) -> bytes:
    """A referee message as a line, checked against the protocol's ``MAX_LINE`` promise: every
    line a bot receives is at most that long, whatever the bots at the table said."""
    line = encode(message)
    if len(line) > MAX_LINE + 1:
        tag = type(message).__struct_config__.tag
        raise OverlongLine(f"a {tag!r} message of {len(line) - 1} bytes is over the line limit of {MAX_LINE}")
    return line


class Outbox:
    """The lines queued for each seat of one match, and their writing."""

    def __init__(self, seats: Sequence[LiveSeat], recorder: MatchRecorder, *, paced: bool = False) -> None:
        self._seats = seats
        self._recorder = recorder
        self._paced = paced
        """Pause even with no person at the table (a match being watched)."""

    def post(self, seat: LiveSeat, message: RefereeMessage, force: bool = False) -> None:
        """Queue a message for a seat (and log it); it is written with the seat's next flush.
        Only active seats are told, unless ``force`` (the error that drops a seat)."""
        if seat.active or force:
            self._queue(seat, bounded(message))

    def broadcast(self, message: RefereeMessage) -> None:
        """Queue a message that every seat at the table sees, encoded once."""
        line = bounded(message)
        told = [seat for seat in self._seats if seat.active]
        for seat in told:
            seat.outbox.append(line)
        if self._recorder.enabled:
            self._recorder.sent([seat.index for seat in told], line)

    def _queue(self, seat: LiveSeat, line: bytes) -> None:
        seat.outbox.append(line)
        if self._recorder.enabled:
            self._recorder.sent((seat.index,), line)

    def take(self, seat: LiveSeat) -> bytes:
        """A seat's queued lines as one write, taken off its queue."""
        data = b"".join(seat.outbox)
        seat.outbox.clear()
        return data

    async def flush(self, seat: LiveSeat) -> None:
        """Write a seat's queued lines in one write (the caller bounds the time)."""
        if not seat.outbox:
            return
        data = b"".join(seat.outbox)
        seat.outbox.clear()
        await seat.connection.link.send(data)

    async def flush_active(self, grace: float) -> None:
        """Write what every active seat has queued, each within ``grace`` seconds."""
        await self._flush_each([s for s in self._seats if s.active], grace)

    async def flush_live(self, pause: float = 0.0) -> None:
        """Write what a person's seat (``link.live``) has queued now, each within
        ``LIVE_GRACE``: a person sees each card as it is played, not with their next request.
        Then wait ``pause`` seconds if a person's seat is still at the table, so the next card
        is not shown in the same instant (a table of bots alone waits only when ``paced``)."""
        live = [s for s in self._seats if s.active and s.connection.link.live]
        await self._flush_each(live, LIVE_GRACE)
        if (live or self._paced) and pause > 0:
            await trio.sleep(pause)

    async def _flush_each(self, seats: Sequence[LiveSeat], grace: float) -> None:
        for seat in seats:
            with trio.move_on_after(grace):
                with contextlib.suppress(LinkClosed):
                    await self.flush(seat)

    async def tell(
        self,
        seat: LiveSeat,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        fatal: bool,
        force: bool = False,
        request_id: int | None = None,
    ) -> None:
        """Send an error message now (queued events first), without waiting on a stuck bot.
        The message is clipped: it may quote what the bot sent."""
        await self.tell_error(seat, Error(code=code, message=message, fatal=fatal, rule=rule, request_id=request_id),
                              force=force)  # fmt: skip

    async def tell_error(self, seat: LiveSeat, error: Error, *, force: bool = False) -> None:
        """``tell`` for an error already built (``referee.rules.telling.illegal_move``)."""
        if len(error.message) > MAX_MESSAGE:
            error = msgspec.structs.replace(error, message=clip(error.message, MAX_MESSAGE))
        self.post(seat, error, force=force)
        with trio.move_on_after(1.0):
            with contextlib.suppress(LinkClosed):
                await self.flush(seat)
