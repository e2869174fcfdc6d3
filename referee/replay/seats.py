"""The seats of a re-played match: each decision as the log tells it, checked as the referee made it.

For a seat still in the match a decision is the referee's request (its id counting up on the
connection, its time the decision limit and a bank that never grows), then the bot's reply
line, judged as the referee judges it, or a fault: an unreadable reply, a time-out, a crash.
A dropped seat is told why (unless it is gone) and the referee's ``fallback`` moves play it
from then on; an illegal move meets the match's policy. This mirrors the match runner's
``_ask``, ``_illegal`` and ``_drop``, entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar, get_args

import msgspec

from protocol.codec import ProtocolError, decode_bot
from protocol.messages import (
    VERSIONS,
    BotHello,
    Declare,
    Error,
    ErrorCode,
    MatchStart,
    Moon,
    Pass,
    Play,
    RefereeMessage,
    RoundStart,
    TimeControl,
)
from referee.log_format import GONE_FAULTS, Fallback, Fault, Header, Received
from referee.names import safe_name
from referee.replay.cursor import LogCursor, describe, same, sent_type
from referee.replay.reader import Line
from referee.replay.record import FaultRecord, MatchRecord
from referee.rules import telling
from referee.rules.errors import IllegalMove

ReplyT = TypeVar("ReplyT", Pass, Play, Declare, Moon)

UNSEEN: Final = ("timeout", *GONE_FAULTS, "line_too_long")
"""Faults with no reply line in the log to judge them by."""
UNSEEN_WEB: Final = (*UNSEEN, "protocol_violation")
"""For a browser seat (``web:NAME``) also ``protocol_violation``: a binary WebSocket message
is no line at all, so none is logged. A bot on a pipe or a socket always has its line logged."""
_UNTOLD: Final = GONE_FAULTS
"""Faults after which the bot is not sent an ``error`` (it is gone)."""
_REFUSALS: Final = ("bad_token", "seat_taken", "busy")
"""Handshake failures after a well-formed hello (TCP admission)."""
_UNREADABLE: Final = frozenset({"bad_json", "unknown_message", "protocol_violation"})
"""Why a line may not be read; a cut line's first bytes cannot tell which."""
_ERROR_CODES: Final = frozenset(get_args(ErrorCode))


@dataclass
class SeatState:
    index: int
    bank_ms: int
    active: bool = True
    last_id: int | None = None
    """The id of the seat's last request on its connection."""


class Seats:
    """Every seat's decisions, read from the log and checked."""

    def __init__(self, cursor: LogCursor, header: Header, record: MatchRecord) -> None:
        self.cursor = cursor
        self.header = header
        self.record = record
        bank = header.time_control.get("bank_ms", 0)
        self.states = [SeatState(index=s, bank_ms=bank) for s in range(header.rules.players)]
        self.cap: int | None = header.illegal_move_cap
        """The illegal-move cap: from the header, or (older logs) once a forfeit has shown it."""
        self.cap_min = 0
        """The least cap the penalties and substitutions so far allow."""
        self.round_start: Callable[[int], RoundStart] | None = None
        """The ``round_start`` a reconnected seat is sent again (the round in play)."""

    def active(self, seat: int) -> bool:
        return self.states[seat].active

    def any_active(self) -> bool:
        return any(state.active for state in self.states)

    def broadcast(self, message: RefereeMessage) -> None:
        """A message every seat still in the match was sent."""
        for state in self.states:
            if state.active:
                self.cursor.sent(state.index, message)

    # -- the start ---------------------------------------------------------------------------
    def handshake(self) -> None:
        cursor = self.cursor
        for state in self.states:
            s = state.index
            first = cursor.peek(s)
            if isinstance(first, Fault):
                # no handshake here: a TCP seat whose bot never came, or a connection that
                # failed in an earlier match on the same connections
                line = cursor.next(s, "fault")
                if first.action != "forfeit":
                    raise cursor.differ("fault.action", "forfeit", first.action, seat=s, line=line.number)
                self._note_fault(s, line, None)
                self._drop(s, first.reason)
            elif sent_type(first) == "hello":
                self._shake_hands(s)
            # else: a later match on kept connections; the handshake is in an earlier log
        cursor.position = "the handshake"

    def _shake_hands(self, s: int) -> None:
        cursor = self.cursor
        cursor.next(s, "send hello")
        reply: str | None = None
        failure: str | None = None
        logged = self.header.seats[s].name
        names = {logged}  # no usable hello name: the seat's configured label, not in the log
        expected = logged
        received = cursor.peek(s)
        if isinstance(received, Received):
            cursor.next(s, "recv hello")
            reply = received.line
            try:
                hello = decode_bot(reply.encode())
            except ProtocolError as err:
                failure = err.code
            else:
                if not isinstance(hello, BotHello):
                    failure = "protocol_violation"
                elif hello.version not in VERSIONS:
                    failure = "no_common_version"
                elif safe_name(hello.name, ""):
                    expected = safe_name(hello.name, "")
                    names = {expected, hello.name}  # the raw name too: logs from before names were cut
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
        allowed = (failure,) if failure is not None else _REFUSALS if reply is not None else self._unseen(s)
        if failure is None and reply is not None and "\ufffd" in reply:
            allowed = ("bad_json", *allowed)  # invalid UTF-8 on the wire: the log holds it replaced
        if fault.reason not in allowed:
            raise cursor.differ("fault.reason", " or ".join(allowed), fault.reason, seat=s, line=line.number)
        if fault.action != "forfeit":
            raise cursor.differ("fault.action", "forfeit", fault.action, seat=s, line=line.number)
        if (error is None) != (fault.reason in _UNTOLD):
            want = "no error (the bot is gone)" if error is not None else f"send error {fault.reason} to seat {s}"
            found = describe(error.entry) if error is not None else describe(fault)
            raise cursor.differ("entry", want, found, seat=s, line=(error or line).number)
        if error is not None:
            code = fault.reason if fault.reason in _ERROR_CODES else "protocol_violation"
            cursor.compare(s, error, Error(code=code, message=fault.message, fatal=True))  # type: ignore[arg-type]
        self._note_fault(s, line, reply)
        self._drop(s, fault.reason)

    def match_start(self, seat: int) -> MatchStart:
        header = self.header
        try:
            clock = msgspec.convert(header.time_control, TimeControl)
        except msgspec.ValidationError as err:
            raise self.cursor.differ("header.time_control", "per_decision_ms, bank_ms, startup_ms", str(err)) from None
        names = [i.name for i in header.seats]  # by seat: the walk checked that they are 0 to n-1
        return telling.match_start(header.match_id, seat, names, header.rules, clock)

    # -- a decision --------------------------------------------------------------------------
    def ask(self, seat: int, request: RefereeMessage, expect: type[ReplyT]) -> tuple[ReplyT, str] | None:
        """A request and the seat's well-formed reply with its line, or ``None`` when the seat
        was dropped instead (the fault and the error it was sent are checked). A TCP bot that
        reconnects is told the match and the round again and asked again with a new id."""
        rid = self._request(seat, request)
        while True:
            line = self.cursor.next(seat, f"seat {seat}'s reply")
            entry = line.entry
            if isinstance(entry, Fault) and entry.action == "reconnect":
                if not self._reconnected(seat, line):
                    return None
                rid = self._request(seat, request)
                continue
            if isinstance(entry, Fault):
                if entry.reason not in self._unseen(seat):
                    want = " or ".join(self._unseen(seat))
                    raise self.cursor.differ("fault.reason", want, entry.reason, seat=seat, line=line.number)
                self._dropped(seat, line, rid, None)
                return None
            if not isinstance(entry, Received):
                raise self.cursor.differ(
                    "entry", f"recv from seat {seat}", describe(entry), seat=seat, line=line.number
                )
            return self._judge(seat, entry.line, expect, rid, cut=entry.cut is not None)

    def _unseen(self, seat: int) -> tuple[str, ...]:
        """The faults the seat may have with no reply line logged."""
        return UNSEEN_WEB if self.header.seats[seat].command.startswith("web:") else UNSEEN

    def _request(self, seat: int, message: RefereeMessage) -> int:
        """Check a logged request (its id and time on their own); return its id."""
        found, line = self.cursor.sent(seat, message, request=True)
        tag = found["type"]
        state = self.states[seat]
        rid = found.get("id")
        want_id = "a positive integer" if state.last_id is None else state.last_id + 1
        if not isinstance(rid, int) or isinstance(rid, bool) or rid < 1:
            raise self.cursor.differ(f"{tag}.id", want_id, rid, seat=seat, line=line)
        if state.last_id is not None and rid != state.last_id + 1:
            raise self.cursor.differ(f"{tag}.id", want_id, rid, seat=seat, line=line)
        state.last_id = rid
        time = found.get("time")
        per = self.header.time_control.get("per_decision_ms")
        if not isinstance(time, dict) or time.get("decision_ms") != per:
            raise self.cursor.differ(f"{tag}.time.decision_ms", per, time, seat=seat, line=line)
        bank = time.get("bank_ms")
        if not isinstance(bank, int) or not 0 <= bank <= state.bank_ms:
            want = f"at most {state.bank_ms} (the bank never grows)"
            raise self.cursor.differ(f"{tag}.time.bank_ms", want, bank, seat=seat, line=line)
        state.bank_ms = bank
        return rid

    def _judge(
        self, seat: int, text: str, expect: type[ReplyT], rid: int, *, cut: bool = False
    ) -> tuple[ReplyT, str] | None:
        """A reply line as the referee judges it: the reply, or ``None`` after the fault. A
        ``cut`` line (over the seat's log budget) is the message as the referee read it, or the
        first bytes of a line it could not read, whose reason the log alone holds."""
        reason: str | None = None
        try:
            reply = decode_bot(text.encode())
        except ProtocolError as err:
            reason = err.code
        else:
            if not isinstance(reply, expect):
                reason = "protocol_violation"
            elif reply.id != rid:
                reason = "wrong_id"
        after = self.cursor.peek(seat)
        if isinstance(after, Fault) and after.reason == "output_flood":
            reason = "output_flood"  # the bot's stderr or stray lines, which the log does not hold
        elif "\ufffd" in text and isinstance(after, Fault) and after.reason == "bad_json":
            reason = "bad_json"  # invalid UTF-8 on the wire: the log holds it replaced
        elif cut and reason in _UNREADABLE and isinstance(after, Fault) and after.reason in _UNREADABLE:
            reason = after.reason  # only the line's first bytes were kept
        if reason is None:
            assert isinstance(reply, expect)
            return reply, text
        line = self.cursor.next(seat, f"fault {reason} of seat {seat}")
        if not isinstance(line.entry, Fault):
            want = f"fault {reason} of seat {seat}"
            raise self.cursor.differ("entry", want, describe(line.entry), seat=seat, line=line.number)
        if line.entry.reason != reason:
            raise self.cursor.differ("fault.reason", reason, line.entry.reason, seat=seat, line=line.number)
        self._dropped(seat, line, rid, text)
        return None

    def _reconnected(self, seat: int, line: Line) -> bool:
        """A TCP bot's connection dropped and the referee waited for it: True when it came
        back (and was told the match and the round again), False when it was dropped."""
        fault = line.entry
        assert isinstance(fault, Fault)
        if fault.reason != "disconnect":
            raise self.cursor.differ("fault.reason", "disconnect", fault.reason, seat=seat, line=line.number)
        self._note_fault(seat, line, None)
        if isinstance(self.cursor.peek(seat), Fault):
            self._dropped(seat, self.cursor.next(seat, "fault"), None, None)
            return False
        # the players' names may be the new connection's
        self.cursor.sent(seat, self.match_start(seat), skip=("players",))
        if self.round_start is not None:
            self.cursor.sent(seat, self.round_start(seat))
        self.states[seat].last_id = None  # a new connection counts its request ids from 1
        return True

    def _dropped(self, seat: int, line: Line, rid: int | None, reply: str | None) -> None:
        """A forfeit: the fault is logged, the bot told why (unless it is gone) and dropped."""
        fault = line.entry
        assert isinstance(fault, Fault)
        if fault.action != "forfeit":
            raise self.cursor.differ("fault.action", "forfeit", fault.action, seat=seat, line=line.number)
        self._note_fault(seat, line, reply)
        self._drop(seat, fault.reason)
        if fault.reason not in _UNTOLD:
            code = fault.reason if fault.reason in _ERROR_CODES else "protocol_violation"
            error = Error(code=code, message=fault.message, fatal=True, rule=fault.rule, request_id=rid)  # type: ignore[arg-type]
            self.cursor.sent(seat, error)

    def illegal(self, seat: int, err: IllegalMove, rid: int, reply: str) -> str:
        """The policy's answer to an illegal move, checked: ``forfeit``, ``substitute`` (the
        fallback move follows in both) or ``penalty`` (the caller applies the revoke)."""
        cursor = self.cursor
        line = cursor.next(seat, f"fault illegal_move of seat {seat}")
        fault = line.entry
        if not isinstance(fault, Fault):
            want = f"fault illegal_move ({err.rule}) of seat {seat}"
            raise cursor.differ("entry", want, describe(fault), seat=seat, line=line.number)
        for what, want_value, got in (
            ("reason", "illegal_move", fault.reason),
            ("rule", err.rule, fault.rule),
            ("message", err.message, fault.message),
        ):
            if want_value != got:
                raise cursor.differ(f"fault.{what}", want_value, got, seat=seat, line=line.number)
        record = self.record.seats[seat]
        self._check_cap(fault.action, record.penalties + record.substitutions, seat, line.number)
        if fault.action == "forfeit":
            self._dropped(seat, line, rid, reply)
            return fault.action
        self._note_fault(seat, line, reply)
        if fault.action == "penalty":
            record.penalties += 1
        else:
            record.substitutions += 1
        cursor.sent(seat, Error(code="illegal_move", message=err.message, fatal=False, rule=err.rule, request_id=rid))
        return fault.action

    def _check_cap(self, action: str, forgiven: int, seat: int, line: int) -> None:
        """The action must follow the policy, and the illegal-move cap must be one number
        for the whole match (the header does not give it)."""
        policy = self.header.policy
        if action not in ("forfeit", policy) or policy not in ("forfeit", "penalty", "substitute"):
            raise self.cursor.differ("fault.action", f"forfeit or {policy}", action, seat=seat, line=line)
        if policy == "forfeit":
            return
        if action == "forfeit":
            if forgiven < self.cap_min or (self.cap is not None and forgiven != self.cap):
                want = f"{policy} (the cap is not {forgiven})"
                raise self.cursor.differ("fault.action", want, action, seat=seat, line=line)
            self.cap = forgiven
        else:
            if self.cap is not None and forgiven >= self.cap:
                want = f"forfeit (cap {self.cap} reached)"
                raise self.cursor.differ("fault.action", want, action, seat=seat, line=line)
            self.cap_min = max(self.cap_min, forgiven + 1)

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

    # -- the record --------------------------------------------------------------------------
    def _drop(self, seat: int, reason: str) -> None:
        self.states[seat].active = False
        self.record.seats[seat].status = reason

    def _note_fault(self, seat: int, line: Line, reply: str | None) -> None:
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
