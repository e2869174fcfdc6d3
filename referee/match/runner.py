"""The match runner: where the rules meet the bots.

The runner drives the match's machine (``referee.rules.match_turns``), which deals each
round, says what every seat is told, asks, judges and scores; here its events meet trio and
the table (``RoundPhases`` meets the round's). The pieces it joins each do one job:
``DecisionClock`` (times and banks), ``Outbox`` (what each seat is told, one write per
decision), ``Asker`` (a request and its reply), ``Faults`` (policies and fault reports) and
``MatchRecorder`` (the replay log).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec
import trio

from protocol.messages import MatchStart, RoundStart, SeatOutcome
from protocol.ruleset import RuleSet
from referee.match.asking import Asker, Reconnect
from referee.match.clock import DecisionClock
from referee.match.config import MatchConfig
from referee.match.faults import Faults
from referee.match.log import MatchLog
from referee.match.outbox import Outbox
from referee.match.outcome import MatchOutcome
from referee.match.phases import RoundPhases
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat
from referee.players.connection import BotConnection
from referee.rules import telling
from referee.rules.match import Match
from referee.rules.match_turns import Dealing, Dealt, Ended, MatchTurns, Outcomes, Scored
from referee.rules.round import Round
from referee.rules.turns import IllegalPolicy, Tell
from referee.shared import FaultReport


class MatchRunner:
    """Runs one match over already-connected bots."""

    def __init__(
        self,
        connections: Sequence[BotConnection],
        rules: RuleSet,
        *,
        seed: int,
        config: MatchConfig,
        log: MatchLog,
        nursery: trio.Nursery,
        match_id: str | None = None,
        reconnect: Reconnect | None = None,
    ) -> None:
        if len(connections) != rules.players:
            raise ValueError(f"{len(connections)} bots for {rules.players} seats")
        self.rules = rules
        self.seed = seed
        self.config = config
        self.log = log
        self.match = Match(rules, seed)
        # never derived from the seed: the seed and the rules give away every hand
        self.match_id = match_id or secrets.token_hex(6)
        self.seats = [LiveSeat(i, c, config.bank) for i, c in enumerate(connections)]
        self.clock = DecisionClock(config)
        self.recorder = MatchRecorder(log, self.clock, config)
        self.outbox = Outbox(self.seats, self.recorder, paced=config.paced)
        self.faults_ = Faults(config, self.outbox, self.recorder, nursery)
        self.asker = Asker(
            config=config,
            clock=self.clock,
            outbox=self.outbox,
            recorder=self.recorder,
            faults=self.faults_,
            reconnect=reconnect,
            restate=self._restate,
        )
        self.phases = RoundPhases(
            self.seats,
            self.asker,
            self.outbox,
            self.faults_,
            self.recorder,
            pauses=(config.card_pause, config.trick_pause),
        )
        self._round: Round | None = None
        self._round_number = 0
        self.turns: MatchTurns | None = None
        self._meet: dict[type, Callable[[Any], Awaitable[object]]] = {
            Dealing: self._deal,
            Dealt: self._dealt,
            Scored: self._scored,
        }
        self._meet.update(self.phases.meet)
        """What each of the machine's events does here (the round's: ``RoundPhases``)."""

    @property
    def decisions(self) -> int:
        """Decisions asked of the bots so far."""
        return self.asker.decisions

    @property
    def faults(self) -> list[FaultReport]:
        """Every fault so far, explained (at most ``MAX_REPORTS`` per seat)."""
        return self.faults_.reports

    @property
    def delays(self) -> list[float] | None:
        """When a list: the referee's delay from each reply's arrival to its next request in
        this match (what the match benchmark reports)."""
        return self.clock.delays

    @delays.setter
    def delays(self, delays: list[float] | None) -> None:
        self.clock.delays = delays

    # -- the match ---------------------------------------------------------------------------
    async def run(self) -> MatchOutcome:
        self.clock.begin()
        self.recorder.header(self.match_id, self.seed, self.match.first_dealer, self.rules, self.seats)
        for seat in self.seats:
            if not seat.connection.alive:
                self.faults_.absent(seat)
        turns = self._machine()
        async with trio.open_nursery() as watchdog:
            watchdog.start_soon(self.clock.watch)
            if self.recorder.enabled:
                watchdog.start_soon(self.recorder.log.keep_flushed)
            meet, event = self._meet, turns.event
            while event is not None and type(event) is not Outcomes:
                event = turns.answer(await meet[type(event)](event))
            watchdog.cancel_scope.cancel()
        return await self._finish(turns)

    def _machine(self) -> MatchTurns:
        """The match's machine (``referee.rules.match_turns``), made at the start of the match:
        the names are the bots' as they said hello."""
        names = [s.connection.name(s.index) for s in self.seats]
        seats = self.seats
        self.turns = MatchTurns(
            self.match, self.match_id, names=names, clock=self.config.time_control(),
            active=lambda seat: seats[seat].active,
            policy=IllegalPolicy(self.config.policy, self.config.illegal_move_cap), records=False,
        )  # fmt: skip
        return self.turns

    async def _deal(self, event: Dealing) -> None:
        return None  # the seed's deal

    async def _dealt(self, event: Dealt) -> None:
        self._round = event.round
        self._round_number = event.number + 1
        self.recorder.deal(event.number, event.round, self.rules.players)

    async def _scored(self, event: Scored) -> None:
        self.recorder.round_scored(event.number, event.result, event.scores)

    def _match_start(self, seat: LiveSeat) -> MatchStart:
        names = [s.connection.name(s.index) for s in self.seats]
        return telling.match_start(self.match_id, seat.index, names, self.rules, self.config.time_control())

    def _round_start(self, round_: Round, seat: LiveSeat, number: int) -> RoundStart:
        """The round as the seat holds it now (its current hand, after a reconnection)."""
        return telling.round_start(round_, seat.index, number, self.match.scores)

    def _restate(self, seat: LiveSeat) -> None:
        """Tell a reconnected bot the match and the round in play again."""
        self.outbox.post(seat, self._match_start(seat))
        if self._round is not None:
            self.outbox.post(seat, self._round_start(self._round, seat, self._round_number - 1))

    # -- the end -----------------------------------------------------------------------------
    async def _finish(self, turns: MatchTurns) -> MatchOutcome:
        """Answer the machine's ``Outcomes``, tell ``match_end`` and log the result."""
        match = self.match
        outcomes = [
            SeatOutcome(
                seat=s.index,
                name=s.connection.name(s.index),
                status=s.status,
                substitutions=s.substitutions,
                penalties=s.penalties,
            )
            for s in self.seats
        ]
        turns.answer(outcomes)
        while not isinstance(event := turns.event, Ended):
            assert isinstance(event, Tell)  # match_end, to every seat
            self.outbox.broadcast(event.message)
            turns.next()
        end = event.end
        scores, winners, reason, rounds = end.scores, end.winners, end.reason, end.rounds
        await self.outbox.flush_active(self.config.grace)
        self.recorder.result(scores, winners, reason, rounds, [msgspec.to_builtins(o) for o in outcomes])
        return MatchOutcome(
            match_id=self.match_id,
            seed=str(self.seed),
            variant=self.rules.name,
            scores=scores,
            winners=winners,
            reason=reason,
            rounds=rounds,
            seats=outcomes,
            round_scores=[r.score_changes for r in match.results],
            decisions=self.decisions,
            log=str(self.log.path) if self.log.path else None,
            faults=self.faults,
        )

    async def interrupted(self) -> MatchOutcome:
        """End the match now (SIGINT or SIGTERM): the bots and the log are told the reason
        ``interrupted``; the round in play is not scored."""
        turns = self.turns or self._machine()
        turns.interrupt()
        return await self._finish(turns)

    def write_stderr(self) -> None:
        """Log each bot's stderr of this match (after the programs have ended), and add its
        last lines and exit status to the seat's fault reports."""
        self.faults_.add_stderr(self.seats)
