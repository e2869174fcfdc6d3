"""The match clock: each decision may take the per-decision limit plus what is left of the
seat's bank; time over the limit comes out of the bank. Times are trio's clock, so tests run
them on ``MockClock``.

Deadlines are kept by one watchdog task per match rather than a cancel scope per decision
(entering and leaving a trio cancel scope with a deadline costs about 6 µs, a quarter of the
referee's own work per decision). A decision *arms* its seat's wait before writing the
request; the watchdog sleeps until the earliest armed deadline and, when one passes, marks
the wait as fired and interrupts its link (``BotLink.interrupt``), whose blocked write or
read then raises ``LinkClosed``; the asker turns that into a timeout. A reply that arrived
before the interrupt reached the wait is kept, as it was with a cancel scope."""

from __future__ import annotations

import math
from dataclasses import dataclass

import trio

from protocol.messages import TimeLeft
from referee.match.config import MatchConfig
from referee.match.seat import LiveSeat
from referee.players.channel import BotLink, Failure

RETRY = 0.01
"""Seconds after which the watchdog interrupts a fired wait again if it is still armed (the
interrupt found the task between two waits of the same read)."""


# -- the bank rule (the match's seats and the check's probe both keep their banks by it) -----
def allowance(per_decision: float, bank: float) -> float:
    """Seconds a decision may take: the decision limit plus what is left of the bank."""
    return per_decision + bank


def spend(bank: float, per_decision: float, elapsed: float) -> float:
    """What is left of ``bank`` after a decision answered in ``elapsed`` seconds: the time
    over the decision limit comes out of it, down to zero. (A decision that got no answer
    within its ``allowance`` has spent the whole bank.)"""
    over = elapsed - per_decision
    return bank if over <= 0.0 else max(0.0, bank - over)


@dataclass(slots=True)
class Wait:
    """One seat waiting for one decision."""

    deadline: float
    link: BotLink
    fired: bool = False
    """Whether the watchdog found it past its deadline and interrupted its link."""


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
        self._waits: dict[int, Wait] = {}
        self._wake = math.inf
        self._alarm: trio.CancelScope | None = None
        self._time_left: dict[int, TimeLeft] = {}

    def begin(self) -> None:
        self.start = trio.current_time()

    def t(self) -> float:
        """Seconds since the match started, as the log has them."""
        return round(trio.current_time() - self.start, 6)

    def time_left(self, seat: LiveSeat) -> TimeLeft:
        """What a request tells the seat about its time (the same value while its bank is
        unchanged)."""
        bank_ms = round(seat.bank * 1000)
        left = self._time_left.get(seat.index)
        if left is None or left.bank_ms != bank_ms:
            left = self._time_left[seat.index] = TimeLeft(decision_ms=self._per_ms, bank_ms=bank_ms)
        return left

    def allowance(self, seat: LiveSeat) -> float:
        """Seconds the seat has for this decision: the limit plus its bank."""
        return allowance(self.per_decision, seat.bank)

    # -- deadlines ---------------------------------------------------------------------------
    def arm(self, seat: LiveSeat, link: BotLink) -> Wait:
        """Start the seat's time for a decision: from now, its limit plus its bank."""
        # now + the allowance, summed left to right as ever (the same float on MockClock)
        deadline = trio.current_time() + self.per_decision + seat.bank
        wait = self._waits[seat.index] = Wait(deadline, link)
        if deadline < self._wake:  # rare: the watchdog would wake too late for this one
            self._wake = deadline
            if self._alarm is not None:
                self._alarm.deadline = deadline
        return wait

    def disarm(self, seat: LiveSeat) -> None:
        """The seat's decision is over (answered, failed or timed out)."""
        self._waits.pop(seat.index, None)

    async def watch(self) -> None:
        """The watchdog (one task per match, cancelled when the match ends): sleeps until the
        earliest armed deadline, then interrupts every wait past its deadline. It wakes early
        at worst (a wait that was answered), never late."""
        while True:
            with trio.CancelScope(deadline=self._wake) as alarm:
                self._alarm = alarm
                await trio.sleep_forever()
            self._alarm = None
            now = trio.current_time()
            wake = math.inf
            for wait in self._waits.values():
                if wait.deadline <= now:
                    wait.fired = True
                    wait.link.interrupt()
                    wake = min(wake, now + RETRY)
                else:
                    wake = min(wake, wait.deadline)
            self._wake = wake

    # -- charging ----------------------------------------------------------------------------
    def request_written(self, now: float) -> None:
        if self.delays is not None and self._last_reply is not None:
            self.delays.append(now - self._last_reply)

    def reply_read(self, seat: LiveSeat, started: float) -> float:
        """Charge the seat for a reply read now to a request written at ``started``: the time
        over the decision limit comes out of its bank. Returns the time it took."""
        now = self._last_reply = trio.current_time()
        elapsed = now - started
        if elapsed > self.per_decision:  # else the bank is untouched: no call on the hot path
            seat.bank = spend(seat.bank, self.per_decision, elapsed)
        return elapsed

    def ran_out(self, seat: LiveSeat) -> Failure:
        """The seat used its limit and its whole bank: its bank is spent."""
        limit = self.allowance(seat)
        seat.bank = 0.0
        return Failure("timeout", f"no reply within {limit:.3f} s (decision limit plus bank)")
