"""The match clock: each decision may take the per-decision limit plus what is left of the
seat's bank; time over the limit comes out of the bank. Times are trio's clock, so tests run
them on ``MockClock``."""

from __future__ import annotations

import trio

from protocol.messages import TimeLeft
from referee.match.config import MatchConfig
from referee.match.seat import SeatState
from referee.match.seats.connection import Failure


class DecisionClock:
    """The clock of one match: the time since its start (for the log), each seat's deadline
    and bank, and (for the benchmark) the referee's own delay between a reply and the next
    request."""

    def __init__(self, config: MatchConfig) -> None:
        self.per_decision = config.per_decision
        self._per_ms = round(config.per_decision * 1000)
        self.start = 0.0
        self.delays: list[float] | None = None
        """When a list: the delay from each reply's arrival to the next request written."""
        self._last_reply: float | None = None

    def begin(self) -> None:
        self.start = trio.current_time()

    def t(self) -> float:
        """Seconds since the match started, as the log has them."""
        return round(trio.current_time() - self.start, 6)

    def time_left(self, seat: SeatState) -> TimeLeft:
        """What a request tells the seat about its time."""
        return TimeLeft(decision_ms=self._per_ms, bank_ms=round(seat.bank * 1000))

    def allowance(self, seat: SeatState) -> float:
        """Seconds the seat has for this decision: the limit plus its bank."""
        return self.per_decision + seat.bank

    def request_written(self, now: float) -> None:
        if self.delays is not None and self._last_reply is not None:
            self.delays.append(now - self._last_reply)

    def reply_read(self, seat: SeatState, started: float) -> float:
        """Charge the seat for a reply read now to a request written at ``started``: the time
        over the decision limit comes out of its bank. Returns the time it took."""
        now = self._last_reply = trio.current_time()
        elapsed = now - started
        over = elapsed - self.per_decision
        if over > 0.0:
            seat.bank = max(0.0, seat.bank - over)
        return elapsed

    def ran_out(self, seat: SeatState) -> Failure:
        """The seat used its limit and its whole bank: its bank is spent."""
        limit = self.allowance(seat)
        seat.bank = 0.0
        return Failure("timeout", f"no reply within {limit:.3f} s (decision limit plus bank)")
