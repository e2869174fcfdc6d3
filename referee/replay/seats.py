"""The seats of a re-played match: who is still in, what every seat was told, what the referee
did for a seat.

A seat is in the match until a forfeit drops it; a dropped seat is told why (unless it is
gone) and the referee's ``fallback`` moves play it from then on. Each fault is noted in the
``MatchRecord`` where it happened. The pieces that read a seat's decisions from the log use
these: the handshake (``handshake``), a request and its reply (``asking``), the answer to an
illegal move (``policy``). Together they mirror the match runner's connection, ``Asker`` and
``Faults``, entry by entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, get_args

import msgspec

from protocol.messages import Error, ErrorCode, MatchStart, RefereeMessage, TimeControl
from referee.log_format import Fallback, Fault, Header
from referee.replay.cursor import LogCursor, describe, same
from referee.replay.reader import Line
from referee.replay.record import FaultRecord, MatchRecord
from referee.rules import telling
from referee.shared import GONE_FAULTS

UNSEEN: Final = ("timeout", *GONE_FAULTS, "line_too_long")
"""Faults with no reply line in the log to judge them by."""
UNSEEN_WEB: Final = (*UNSEEN, "protocol_violation")
"""For a browser seat (``web:NAME``) also ``protocol_violation``: a binary WebSocket message
is no line at all, so none is logged. A bot on a pipe or a socket always has its line logged."""
UNTOLD: Final = GONE_FAULTS
"""Faults after which the bot is not sent an ``error`` (it is gone)."""
_ERROR_CODES: Final = frozenset(get_args(ErrorCode))


@dataclass
class LoggedSeat:
    index: int
    bank_ms: int
    active: bool = True
    last_id: int | None = None
    """The id of the seat's last request on its connection."""


def fatal_error(fault: Fault, request_id: int | None = None, rule: str | None = None) -> Error:
    """The ``error`` a bot is sent with the fault that drops it (a reason the protocol has no
    code for is told as ``protocol_violation``)."""
    code = fault.reason if fault.reason in _ERROR_CODES else "protocol_violation"
    return Error(code=code, message=fault.message, fatal=True, rule=rule, request_id=request_id)  # type: ignore[arg-type]


class Seats:
    """Every seat of the match, as the log tells what happened to it."""

    def __init__(self, cursor: LogCursor, header: Header, record: MatchRecord) -> None:
        self.cursor = cursor
        self.header = header
        self.record = record
        bank = header.time_control.get("bank_ms", 0)
        self.states = [LoggedSeat(index=s, bank_ms=bank) for s in range(header.rules.players)]

    def active(self, seat: int) -> bool:
        return self.states[seat].active

    def any_active(self) -> bool:
        return any(state.active for state in self.states)

    def unseen(self, seat: int) -> tuple[str, ...]:
        """The faults the seat may have with no reply line logged."""
        return UNSEEN_WEB if self.header.seats[seat].command.startswith("web:") else UNSEEN

    # -- what the seats are told -------------------------------------------------------------
    def broadcast(self, message: RefereeMessage) -> None:
        """A message every seat still in the match was sent."""
        for state in self.states:
            if state.active:
                self.cursor.sent(state.index, message)

    def told(self, seat: int | None, message: RefereeMessage) -> None:
        """What the machine's ``Tell`` says: a message ``seat`` was sent if it is still in the
        match (``None``: every seat still in)."""
        if seat is None:
            self.broadcast(message)
        elif self.active(seat):
            self.cursor.sent(seat, message)

    def clock(self) -> TimeControl:
        """The match's time control, as the header gives it."""
        try:
            return msgspec.convert(self.header.time_control, TimeControl)
        except msgspec.ValidationError as err:
            raise self.cursor.differ("header.time_control", "per_decision_ms, bank_ms, startup_ms", str(err)) from None

    def match_start(self, seat: int) -> MatchStart:
        """The ``match_start`` the seat is sent again after a reconnection (the first is the
        match's machine's)."""
        header = self.header
        names = [i.name for i in header.seats]  # by seat: the walk checked that they are 0 to n-1
        return telling.match_start(header.match_id, seat, names, header.rules, self.clock())

    # -- what the referee does for a seat ----------------------------------------------------
    def fallback(self, seat: int, decision: str, value: object) -> None:
        """The referee's move for the seat must be the documented one."""
        line = self.cursor.next(seat, f"fallback {decision} for seat {seat}")
        entry = line.entry
        if not isinstance(entry, Fallback):
            want = f"fallback {decision} {msgspec.json.encode(value).decode()} for seat {seat}"
            raise self.cursor.differ("entry", want, describe(entry), seat=seat, line=line.number)
        if entry.decision != decision:
            raise self.cursor.differ("fallback.decision", decision, entry.decision, seat=seat, line=line.number)
        if not same(value, entry.value):
            raise self.cursor.differ(f"fallback {decision}", value, entry.value, seat=seat, line=line.number)

    def forfeit(self, seat: int, line: Line, rid: int | None, reply: str | None) -> None:
        """A forfeit: the fault is logged, the bot told why (unless it is gone) and dropped."""
        fault = line.entry
        assert isinstance(fault, Fault)
        if fault.action != "forfeit":
            raise self.cursor.differ("fault.action", "forfeit", fault.action, seat=seat, line=line.number)
        self.note_fault(seat, line, reply)
        self.drop(seat, fault.reason)
        if fault.reason not in UNTOLD:
            self.cursor.sent(seat, fatal_error(fault, rid, fault.rule))

    # -- the record --------------------------------------------------------------------------
    def drop(self, seat: int, reason: str) -> None:
        self.states[seat].active = False
        self.record.seats[seat].status = reason

    def note_fault(self, seat: int, line: Line, reply: str | None) -> None:
        fault = line.entry
        assert isinstance(fault, Fault)
        cursor = self.cursor
        self.record.faults.append(
            FaultRecord(
                seat=seat,
                round=cursor.round,
                phase=cursor.phase,
                trick=cursor.trick,
                reason=fault.reason,
                message=fault.message,
                action=fault.action,
                rule=fault.rule,
                reply=reply,
                line=line.number,
            )
        )
