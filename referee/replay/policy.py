"""The match's answer to an illegal move in a re-played match, checked as the referee gave it.

The policy (``forfeit``, ``penalty`` or ``substitute``) forgives a seat's illegal moves up to
the illegal-move cap, then forfeits it. The cap comes from the log's header or, in logs
whose header lacks it, from the first forfeit, and then every seat must agree with it. With the
cap in the header the match's machine (``match_turns.IllegalPolicy``) decides, as it did for the
match, and the log must agree.
"""

from __future__ import annotations

from protocol.messages import Error
from referee.log_format import Fault
from referee.replay.cursor import describe
from referee.replay.seats import Seats
from referee.rules.errors import IllegalMove
from referee.rules.turns import Action


class LoggedPolicy:
    """Illegal moves and the answers the log gives them."""

    def __init__(self, seats: Seats) -> None:
        self.seats = seats
        self.cursor = seats.cursor
        self.cap: int | None = seats.header.illegal_move_cap
        """The illegal-move cap: from the header, or (older logs) once a forfeit has shown it."""
        self.cap_min = 0
        """The least cap the penalties and substitutions so far allow."""

    def illegal(self, seat: int, err: IllegalMove, rid: int, reply: str, decided: Action | None = None) -> Action:
        """The policy's answer to an illegal move, checked: ``forfeit``, ``substitute`` (the
        fallback move follows in both) or ``penalty`` (the machine applies the revoke).
        ``decided``: the match's policy's action (``match_turns.IllegalPolicy``), which the log
        must hold; ``None`` when the header lacks the cap, which is then inferred."""
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
        record = self.seats.record.seats[seat]
        if decided is not None:
            if fault.action != decided:
                raise cursor.differ("fault.action", decided, fault.action, seat=seat, line=line.number)
        else:
            self._check_cap(fault.action, record.penalties + record.substitutions, seat, line.number)
        if fault.action == "forfeit":
            self.seats.forfeit(seat, line, rid, reply)
            return "forfeit"
        self.seats.note_fault(seat, line, reply)
        if fault.action == "penalty":
            record.penalties += 1
        else:
            record.substitutions += 1
        cursor.sent(seat, Error(code="illegal_move", message=err.message, fatal=False, rule=err.rule, request_id=rid))
        return "penalty" if fault.action == "penalty" else "substitute"

    def _check_cap(self, action: str, forgiven: int, seat: int, line: int) -> None:
        """The action must follow the policy, and the illegal-move cap must be one number
        for the whole match (the header does not give it)."""
        policy = self.seats.header.policy
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
