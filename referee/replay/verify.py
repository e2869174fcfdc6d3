"""Re-running a logged match through the rules engine, entry by entry, to verify it.

The walk plays the match again from the header's rule set, seed and first dealer, in the
order the referee plays it: each deal, each seat's request, the bot's reply (its ``recv``
line) or the fault and the policy's answer, the referee's ``fallback`` moves, and every event
broadcast. Every move must be legal and every entry must be what the rules produce: the
dealt hands, each message sent to each seat (request ``legal`` lists, ``card_played``,
``trick_end``, ``passed``, ``round_end``, ``match_end``), each round's result and scores, and
the result. The first entry that differs stops the walk, named by round, trick, seat and line.

The log is read seat by seat (``cursor``). This module walks the match: its start, each
round's deal (``deals``) and result, and its end. The pieces it joins mirror the match
runner's: the handshake (``handshake``), each round's decisions phase by phase (``phases``),
a request and its reply or fault (``asking``), the policy's answer to an illegal move
(``policy``), and the seats: who is still in, what they were told, the referee's fallback
moves (``seats``).

What the log cannot show is taken from it: a bot's time-outs and crashes (there is no reply
to judge), the time left in each request (only checked to be the decision limit and a bank
that never grows), and, in logs whose header lacks it, the illegal-move cap (inferred from the
first forfeit, and then every seat must agree with it). The walk builds the ``MatchRecord`` as
it goes, so the text and HTML replays show exactly what was verified, up to the first
difference or the end of a cut-off log; then each seat's stderr and exit status (its
``stderr`` entries) and each fault's hint for the bot's author (``referee.hints``) are added
to it.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from protocol.cards import Card
from protocol.messages import RoundStart, SeatOutcome
from referee.hints import exit_text, hint
from referee.log_format import Result, RoundScored
from referee.replay.asking import LoggedAsker
from referee.replay.cursor import LogCursor, LogEnds, LoggedInterruption, Mismatch, describe, same
from referee.replay.deals import DealSource, check_deal, deal_source, logged_deal
from referee.replay.handshake import check_handshakes
from referee.replay.phases import LoggedRound
from referee.replay.policy import LoggedPolicy
from referee.replay.reader import Line, LogMatch
from referee.replay.record import Difference, MatchRecord, ResultRecord, RoundRecord, SeatRecord, Verification
from referee.replay.seats import Seats
from referee.replay.stderr import seat_outputs
from referee.rules import telling
from referee.rules.errors import RulesError
from referee.rules.match import Match
from referee.rules.match_turns import Dealing, Dealt, Ended, MatchEvent, MatchTurns, Outcomes, Scored
from referee.rules.round import Round
from referee.rules.turns import IllegalPolicy, Settled, Tell


def verify(log: LogMatch) -> MatchRecord:
    """Replay one logged match through the rules: the record of what happened, with its
    ``verification`` (verified, truncated or the first mismatch)."""
    return _Walk(log).run()


class _Walk:
    def __init__(self, log: LogMatch) -> None:
        self.log = log
        self.header = header = log.header
        self.rules = header.rules
        self.players = header.rules.players
        self.record = MatchRecord(
            log_format=header.log_format,
            match_id=header.match_id,
            started=header.started,
            referee=header.referee,
            protocol=header.protocol,
            seed=str(header.seed_number()),
            first_dealer=header.first_dealer,
            rules=header.rules,
            policy=header.policy,
            time_control=header.time_control,
            seats=[SeatRecord(seat=i.seat, name=i.name, command=i.command) for i in header.seats],
        )
        self.cursor = LogCursor(log)
        self.seats = Seats(self.cursor, header, self.record)
        self.asker = LoggedAsker(self.seats, lambda seat: self._round_start(seat, self.round, len(self.match.results)))
        self.policy = LoggedPolicy(self.seats)
        self.deals: DealSource = "seed"
        self.phases: LoggedRound | None = None
        """The round in play's driver, from its deal to its score."""
        self._deal_line: Line | None = None

    def run(self) -> MatchRecord:
        difference: Difference | None = None
        try:
            self._match()
            status: Literal["verified", "truncated", "mismatch"] = "verified"
        except LogEnds:
            status = "truncated"
        except Mismatch as err:
            status = "mismatch"
            difference = err.difference
        self.record.verification = Verification(
            status=status,
            deals=self.deals,
            lines=self.cursor.last_line,
            ends_after=self.cursor.position if status == "truncated" else None,
            difference=difference,
        )
        self._bot_output()
        return self.record

    def _bot_output(self) -> None:
        """Each seat's stderr and exit status (the log's ``stderr`` entries, however far the
        walk got), and each fault's hint for the bot's author, which may need the exit status
        (a signal names its likely cause)."""
        outputs = seat_outputs(self.log)
        for seat, output in outputs.items():
            record = self.record.seats[seat]
            record.stderr, record.stderr_dropped = output.text, output.dropped_bytes
            record.exit_code, record.exit = output.exit_code, exit_text(output.exit_code)
        for fault in self.record.faults:
            code = outputs[fault.seat].exit_code if fault.seat in outputs else None
            fault.hint = hint(fault.reason, fault.message, fault.reply, code)

    # -- the match ---------------------------------------------------------------------------
    def _match(self) -> None:
        cursor = self.cursor
        seats = [s.seat for s in self.record.seats]
        if seats != list(range(self.players)):
            raise cursor.differ("header.seats", f"seats 0 to {self.players - 1}", seats)
        if cursor.stray:
            line = cursor.stray[0]
            raise cursor.differ("entry", f"seats 0 to {self.players - 1}", describe(line.entry), line=line.number)
        try:
            self.match = Match(self.rules, self.header.seed_number(), self.header.first_dealer)
        except RulesError as err:
            raise cursor.differ("header.rules", "a rule set that can be played", str(err)) from None
        self.deals = deal_source(self.log, self.match)
        check_handshakes(self.seats)
        turns = MatchTurns(
            self.match, self.header.match_id, names=[i.name for i in self.header.seats], clock=self.seats.clock(),
            active=self.seats.active, policy=self._policy(),
        )  # fmt: skip
        try:
            while (event := turns.event) is not None:
                turns.answer(self._meet(event))
        except LoggedInterruption:
            cursor.abandon()
            turns.interrupt()
            while (event := turns.event) is not None:
                turns.answer(self._meet(event))
        cursor.leftovers()

    def _policy(self) -> IllegalPolicy:
        """The match's illegal-move policy, from the header; its cap unknown (the replay's own
        ``LoggedPolicy`` infers it from the faults) in old logs, or with a policy no match has."""
        header = self.header
        if header.policy in ("forfeit", "penalty", "substitute") and header.illegal_move_cap is not None:
            return IllegalPolicy(header.policy, header.illegal_move_cap)  # type: ignore[arg-type]
        return IllegalPolicy("penalty", None)

    def _meet(self, event: MatchEvent) -> object:
        """Check the machine's ``event`` against the log; what it asks for."""
        if isinstance(event, Dealing):
            return self._deal(event.number)
        if isinstance(event, Dealt):
            self._dealt(event.number, event.round)
        elif isinstance(event, Scored):
            self._scored(event)
        elif isinstance(event, Settled) and event.after == "round":
            self.cursor.position = f"round {len(self.match.results) - 1}"
        elif isinstance(event, Outcomes):
            return self._outcomes()
        elif isinstance(event, Ended):
            self._ended(event)
        elif self.phases is not None:
            return self.phases.meet(event)
        elif isinstance(event, Tell):  # match_start, match_end
            self.seats.told(event.seat, event.message)
        return None

    def _round_start(self, seat: int, round_: Round, number: int) -> RoundStart:
        """The ``round_start`` a seat is sent: at the deal, or again after a reconnection (with
        the hand it holds then)."""
        return telling.round_start(round_, seat, number, self.match.scores)

    # -- a round -----------------------------------------------------------------------------
    def _deal(self, number: int) -> list[list[Card]] | None:
        cursor = self.cursor
        if number == 0:
            cursor.position = "the start of the match"
        cursor.round, cursor.trick, cursor.phase = number, None, "deal"
        self.phases = None
        self._deal_line, hands = logged_deal(cursor, self.match, self.deals)
        return hands

    def _dealt(self, number: int, round_: Round) -> None:
        assert self._deal_line is not None
        hands = check_deal(self.cursor, self._deal_line, round_, number)
        self.round = round_
        record = RoundRecord(
            round=number,
            dealer=round_.dealer,
            pass_direction=round_.pass_direction,
            match_phase=round_.match_phase,
            hands=hands,
        )
        self.record.rounds.append(record)
        self.cursor.position = f"round {number} deal"
        self.phases = LoggedRound(self.seats, self.asker, self.policy, round_, record)

    def _scored(self, event: Scored) -> None:
        cursor = self.cursor
        cursor.trick, cursor.phase = None, "end"
        number, result, scores = event.number, event.result, event.scores
        line = cursor.next_main("round_end", "round_end entry")
        scored = line.entry
        assert isinstance(scored, RoundScored)
        if scored.round != number:
            raise cursor.differ("round_end.round", number, scored.round, line=line.number)
        found = msgspec.to_builtins(scored.result)
        for key, want in msgspec.to_builtins(result).items():
            if not same(want, found.get(key)):
                raise cursor.differ(f"round_end.result.{key}", want, found.get(key), line=line.number)
        if scored.scores != scores:
            raise cursor.differ("round_end.scores", scores, scored.scores, line=line.number)
        record = self.record.rounds[-1]
        record.result = result
        record.scores = scores

    # -- the end -----------------------------------------------------------------------------
    def _outcomes(self) -> list[SeatOutcome]:
        cursor = self.cursor
        cursor.round, cursor.trick, cursor.phase = None, None, "end"
        cursor.finishing = True
        self.phases = None
        return [
            SeatOutcome(seat=r.seat, name=r.name, status=r.status, substitutions=r.substitutions, penalties=r.penalties)
            for r in self.record.seats
        ]

    def _ended(self, event: Ended) -> None:
        cursor, end = self.cursor, event.end
        line = cursor.next_main("result", "result entry")
        result = line.entry
        assert isinstance(result, Result)
        expected = {
            "scores": end.scores,
            "winners": end.winners,
            "reason": end.reason,
            "rounds": end.rounds,
            "seats": msgspec.to_builtins(end.seats),
        }
        for key, want in expected.items():
            got = getattr(result, key)
            if not same(want, got):
                raise cursor.differ(f"result.{key}", want, got, line=line.number)
        self.record.result = ResultRecord(scores=end.scores, winners=end.winners, reason=end.reason, rounds=end.rounds)
        cursor.position = "the result"
