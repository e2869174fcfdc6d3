"""The handshake of a re-played match, seat by seat, checked as the referee made it.

Each seat's log starts with the referee's ``hello`` and the bot's, or with the fault that
dropped the seat before the match: a hello that is no hello, a version the referee does not
speak, a refused TCP connection (a bad token, a taken seat), a bot that never answered or
never came. A seat that failed is told why (unless it is gone) and dropped. This mirrors the
match's ``BotConnection`` handshake.
"""

from __future__ import annotations

from typing import Final

from protocol.codec import ProtocolError, decode_bot
from protocol.messages import VERSIONS, BotHello
from referee.log_format import Fault, Received
from referee.names import safe_name
from referee.replay.cursor import describe, sent_type
from referee.replay.seats import UNTOLD, Seats, fatal_error

_REFUSALS: Final = ("bad_token", "seat_taken", "busy")
"""Handshake failures after a well-formed hello (TCP admission)."""


def check_handshakes(seats: Seats) -> None:
    """Every seat's handshake, or the fault that dropped it before the match."""
    cursor = seats.cursor
    for state in seats.states:
        s = state.index
        first = cursor.peek(s)
        if isinstance(first, Fault):
            # no handshake here: a TCP seat whose bot never came, or a connection that
            # failed in an earlier match on the same connections
            line = cursor.next(s, "fault")
            if first.action != "forfeit":
                raise cursor.differ("fault.action", "forfeit", first.action, seat=s, line=line.number)
            seats.note_fault(s, line, None)
            seats.drop(s, first.reason)
        elif sent_type(first) == "hello":
            _shake_hands(seats, s)
        # else: a later match on kept connections; the handshake is in an earlier log
    cursor.position = "the handshake"


def _hello(reply: str) -> tuple[str | None, str | None]:
    """Why the bot's hello line fails (``None`` when it does not), and the name it gave when
    it is usable (``None`` when not: then the seat keeps its configured label)."""
    try:
        hello = decode_bot(reply.encode())
    except ProtocolError as err:
        return err.code, None
    if not isinstance(hello, BotHello):
        return "protocol_violation", None
    if hello.version not in VERSIONS:
        return "no_common_version", None
    return None, hello.name if safe_name(hello.name, "") else None


def _shake_hands(seats: Seats, s: int) -> None:
    cursor = seats.cursor
    cursor.next(s, "send hello")
    reply: str | None = None
    failure: str | None = None
    logged = seats.header.seats[s].name
    names = {logged}  # no usable hello name: the seat's configured label, not in the log
    expected = logged
    received = cursor.peek(s)
    if isinstance(received, Received):
        cursor.next(s, "recv hello")
        reply = received.line
        failure, name = _hello(reply)
        if name is not None:
            expected = safe_name(name, "")
            names = {expected, name}  # the raw name too: logs from before names were cut
    told = cursor.peek(s)
    is_error = sent_type(told) == "error"
    if reply is not None and failure is None and not (is_error or isinstance(told, Fault)):
        if logged not in names:
            raise cursor.differ("header.seats.name", expected, logged, seat=s)
        return
    error = cursor.next(s, "send error") if is_error else None
    line = cursor.next(s, f"fault of seat {s} (its handshake failed)")
    fault = line.entry
    if not isinstance(fault, Fault):
        raise cursor.differ("entry", f"fault of seat {s}", describe(fault), seat=s, line=line.number)
    # a well-formed hello may still be refused (a TCP seat's token); no reply: its fault
    allowed = (failure,) if failure is not None else _REFUSALS if reply is not None else seats.unseen(s)
    if failure is None and reply is not None and "\ufffd" in reply:
        allowed = ("bad_json", *allowed)  # invalid UTF-8 on the wire: the log holds it replaced
    if fault.reason not in allowed:
        raise cursor.differ("fault.reason", " or ".join(allowed), fault.reason, seat=s, line=line.number)
    if fault.action != "forfeit":
        raise cursor.differ("fault.action", "forfeit", fault.action, seat=s, line=line.number)
    if (error is None) != (fault.reason in UNTOLD):
        want = "no error (the bot is gone)" if error is not None else f"send error {fault.reason} to seat {s}"
        found = describe(error.entry) if error is not None else describe(fault)
        raise cursor.differ("entry", want, found, seat=s, line=(error or line).number)
    if error is not None:
        cursor.compare(s, error, fatal_error(fault))
    seats.note_fault(s, line, reply)
    seats.drop(s, fault.reason)
