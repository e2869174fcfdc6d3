"""What the referee writes to a match's replay log, entry by entry (the format is
``referee.log_format``; the file is ``referee.match.log``).

Entries are built only when the log is kept (``MatchLog.enabled``): a match without a log
(the benchmarks, a ladder that keeps none) pays nothing for it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from protocol.cards import card_code
from protocol.codec import encode
from protocol.messages import VERSIONS, BotMessage
from protocol.ruleset import RuleSet
from referee import __version__
from referee.log_format import (
    CUT_PREFIX,
    Deal,
    Fallback,
    Fault,
    Header,
    Received,
    Result,
    RoundScored,
    SeatInfo,
    Stderr,
    sent_to_each,
)
from referee.match.clock import DecisionClock
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.seat import LiveSeat
from referee.players.channel import Failure
from referee.rules.round import Round
from referee.rules.scoring import RoundResult


class MatchRecorder:
    """Writes one match's entries to its log, timed by the match clock."""

    def __init__(self, log: MatchLog, clock: DecisionClock, config: MatchConfig) -> None:
        self.log = log
        self.enabled = log.enabled
        self._clock = clock
        self._config = config

    def header(self, match_id: str, seed: int, first_dealer: int, rules: RuleSet, seats: Sequence[LiveSeat]) -> None:
        """The header, then each seat's handshake (it came before the match: logged at t=0)."""
        config = self._config
        self.log.write(
            Header(
                protocol=VERSIONS[-1],
                referee=__version__,
                match_id=match_id,
                started=MatchLog.now_iso(),
                seed=str(seed),
                first_dealer=first_dealer,
                rules=rules,
                seats=[
                    SeatInfo(seat=s.index, name=s.connection.name(s.index), command=s.connection.command) for s in seats
                ],
                time_control=msgspec.to_builtins(config.time_control()),
                policy=config.policy,
                illegal_move_cap=config.illegal_move_cap,
            ),
            flush=True,
        )
        for seat in seats:
            if self.enabled:
                seat.connection.link.mark_cpu()  # each reply's ``cpu`` counts from here
            for _, direction, line in seat.connection.transcript:
                if direction == "recv":
                    self.log.write(Received(t=0.0, seat=seat.index, line=line.decode("utf-8", errors="replace")))
                else:
                    self.log.write_lines(sent_to_each(0.0, (seat.index,), line))
            seat.connection.transcript.clear()

    def deal(self, number: int, round_: Round, players: int) -> None:
        """Every hand of a new round (the log is the referee's, not a seat's)."""
        if not self.enabled:
            return
        self.log.write(
            Deal(
                t=self._clock.t(),
                round=number,
                dealer=round_.dealer,
                pass_direction=round_.pass_direction,
                match_phase=round_.match_phase,
                hands=[[card_code(c) for c in round_.hand(s)] for s in range(players)],
            )
        )

    def sent(self, seats: Iterable[int], line: bytes) -> None:
        """A line as written to each of ``seats`` (``line`` ends with its newline)."""
        self.log.write_lines(sent_to_each(self._clock.t(), seats, line[:-1]))

    def received(self, seat: LiveSeat, line: bytes, reply: BotMessage | None, cpu: float | None = None) -> None:
        """A reply verbatim while the seat's budget lasts; then as it was read (or, when it could
        not be read, its first bytes), noting how many bytes were left out."""
        if not self.enabled:
            return
        cut: int | None = None
        if seat.logged + len(line) <= self._config.log_budget:
            seat.logged += len(line)
            kept = line
        elif reply is not None:
            kept = encode(reply)[:-1]
            cut = max(0, len(line) - len(kept))
        else:
            kept = line[:CUT_PREFIX]
            cut = len(line) - len(kept)
        text = kept.decode("utf-8", errors="replace")
        cpu = round(cpu, 5) if cpu is not None else None
        self.log.write(Received(t=self._clock.t(), seat=seat.index, line=text, cut=cut, cpu=cpu))

    def fault(self, seat: int, failure: Failure, action: str) -> None:
        self.log.write(
            Fault(
                t=self._clock.t(),
                seat=seat,
                reason=failure.reason,
                message=failure.message,
                action=action,
                rule=failure.rule,
            ),
            flush=True,
        )

    def fallback(self, seat: int, decision: str, value: object) -> None:
        """A move the referee made for a seat."""
        self.log.write(Fallback(t=self._clock.t(), seat=seat, decision=decision, value=value))

    def round_scored(self, number: int, result: RoundResult, scores: list[int]) -> None:
        self.log.write(RoundScored(t=self._clock.t(), round=number, result=result, scores=list(scores)))

    def result(self, scores: list[int], winners: list[int], reason: str, rounds: int, seats: list[Any]) -> None:
        self.log.write(
            Result(t=self._clock.t(), scores=scores, winners=winners, reason=reason, rounds=rounds, seats=seats),
            flush=True,
        )

    def stderr(
        self, seat: int, text: str, dropped: int, exit_code: int | None, cpu_seconds: float | None = None
    ) -> None:
        cpu = round(cpu_seconds, 4) if cpu_seconds is not None else None
        self.log.write(Stderr(seat=seat, text=text, dropped_bytes=dropped, exit_code=exit_code, cpu_seconds=cpu))

    def flush(self) -> None:
        self.log.flush()
