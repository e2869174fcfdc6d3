"""One decision of a re-played match as the log tells it: the request, then the reply or the
fault, checked as the referee made them.

For a seat still in the match a decision is the referee's request (its id counting up on the
connection, its time the decision limit and a bank that never grows), then the bot's reply
line, judged as the referee judges it, or a fault: an unreadable reply, a time-out, a crash.
A TCP bot that hangs up and comes back is told the match and the round again and asked again.
This mirrors the match's ``Asker``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from protocol.codec import ProtocolError, decode_bot
from protocol.messages import RefereeMessage, RoundStart
from referee.log_format import Fault, Received
from referee.replay.cursor import describe
from referee.replay.reader import Line
from referee.replay.seats import Seats
from referee.rules.turns import Reply

_UNREADABLE: Final = frozenset({"bad_json", "unknown_message", "protocol_violation"})
"""Why a line may not be read; a cut line's first bytes cannot tell which."""


class LoggedAsker:
    """Each seat's requests and replies, read from the log and checked."""

    def __init__(self, seats: Seats, round_start: Callable[[int], RoundStart]) -> None:
        self.seats = seats
        self.cursor = seats.cursor
        self.round_start = round_start
        """The ``round_start`` a reconnected seat is sent again (the round in play)."""

    def ask(self, seat: int, request: RefereeMessage, expect: type[Reply]) -> tuple[Reply, str] | None:
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
                unseen = self.seats.unseen(seat)
                if entry.reason not in unseen:
                    raise self.cursor.differ(
                        "fault.reason", " or ".join(unseen), entry.reason, seat=seat, line=line.number
                    )
                self.seats.forfeit(seat, line, rid, None)
                return None
            if not isinstance(entry, Received):
                raise self.cursor.differ(
                    "entry", f"recv from seat {seat}", describe(entry), seat=seat, line=line.number
                )
            return self._judge(seat, entry.line, expect, rid, cut=entry.cut is not None)

    def _request(self, seat: int, message: RefereeMessage) -> int:
        """Check a logged request (its id and time on their own); return its id."""
        found, line = self.cursor.sent(seat, message, request=True)
        tag = found["type"]
        state = self.seats.states[seat]
        rid = found.get("id")
        want_id = "a positive integer" if state.last_id is None else state.last_id + 1
        if not isinstance(rid, int) or isinstance(rid, bool) or rid < 1:
            raise self.cursor.differ(f"{tag}.id", want_id, rid, seat=seat, line=line)
        if state.last_id is not None and rid != state.last_id + 1:
            raise self.cursor.differ(f"{tag}.id", want_id, rid, seat=seat, line=line)
        state.last_id = rid
        time = found.get("time")
        per = self.seats.header.time_control.get("per_decision_ms")
        if not isinstance(time, dict) or time.get("decision_ms") != per:
            raise self.cursor.differ(f"{tag}.time.decision_ms", per, time, seat=seat, line=line)
        bank = time.get("bank_ms")
        if not isinstance(bank, int) or not 0 <= bank <= state.bank_ms:
            want = f"at most {state.bank_ms} (the bank never grows)"
            raise self.cursor.differ(f"{tag}.time.bank_ms", want, bank, seat=seat, line=line)
        state.bank_ms = bank
        return rid

    def _judge(
        self, seat: int, text: str, expect: type[Reply], rid: int, *, cut: bool = False
    ) -> tuple[Reply, str] | None:
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
        self.seats.forfeit(seat, line, rid, text)
        return None

    def _reconnected(self, seat: int, line: Line) -> bool:
        """A TCP bot's connection dropped and the referee waited for it: True when it came
        back (and was told the match and the round again), False when it was dropped."""
        fault = line.entry
        assert isinstance(fault, Fault)
        if fault.reason != "disconnect":
            raise self.cursor.differ("fault.reason", "disconnect", fault.reason, seat=seat, line=line.number)
        self.seats.note_fault(seat, line, None)
        if isinstance(self.cursor.peek(seat), Fault):
            self.seats.forfeit(seat, self.cursor.next(seat, "fault"), None, None)
            return False
        # the players' names may be the new connection's
        self.cursor.sent(seat, self.seats.match_start(seat), skip=("players",))
        self.cursor.sent(seat, self.round_start(seat))
        self.seats.states[seat].last_id = None  # a new connection counts its request ids from 1
        return True
