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

from protocol.messages import RoundStart, SeatOutcome
from referee.hints import exit_text, hint
from referee.log_format import Result, RoundScored
from referee.replay.asking import Asker
from referee.replay.cursor import Interrupted, LogCursor, LogEnds, Mismatch, describe, same
from referee.replay.deals import DealSource, deal_source, next_deal
from referee.replay.handshake import check_handshakes
from referee.replay.phases import RoundPhases
from referee.replay.policy import Policy
from referee.replay.reader import LogMatch
from referee.replay.record import Difference, MatchRecord, ResultRecord, RoundRecord, SeatRecord, Verification
from referee.replay.seats import Seats
from referee.replay.stderr import seat_outputs
from referee.rules import telling
from referee.rules.errors import RulesError
from referee.rules.match import Match
from referee.rules.round import Round


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
        self.asker = Asker(self.seats, lambda seat: self._round_start(seat, self.round, len(self.match.results)))
        self.policy = Policy(self.seats)
        self.deals: DealSource = "seed"

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
        for seat in range(self.players):
            if self.seats.active(seat):
                cursor.sent(seat, self.seats.match_start(seat))
        cursor.position = "the start of the match"
        reason: str | None = None
        try:
            while not self.match.over:
                if not self.seats.any_active():
                    reason = "all_bots_dropped"
                    break
                self._round()
        except Interrupted:
            reason = "interrupted"
            cursor.abandon()
        self._finish(reason)
        cursor.leftovers()

    def _round_start(self, seat: int, round_: Round, number: int) -> RoundStart:
        """The ``round_start`` a seat is sent: at the deal, or again after a reconnection (with
        the hand it holds then)."""
        return telling.round_start(round_, seat, number, self.match.scores)

    # -- a round -----------------------------------------------------------------------------
    def _round(self) -> None:
        cursor = self.cursor
        number = len(self.match.results)
        cursor.round, cursor.trick, cursor.phase = number, None, "deal"
        round_, hands = next_deal(cursor, self.match, self.deals)
        self.round = round_
        record = RoundRecord(
            round=number,
            dealer=round_.dealer,
            pass_direction=round_.pass_direction,
            match_phase=round_.match_phase,
            hands=hands,
        )
        self.record.rounds.append(record)
        cursor.position = f"round {number} deal"
        for s in range(self.players):
            if self.seats.active(s):
                cursor.sent(s, self._round_start(s, round_, number))
        RoundPhases(self.seats, self.asker, self.policy, round_, record).play()
        self._round_end(number, record)

    def _round_end(self, number: int, record: RoundRecord) -> None:
        cursor = self.cursor
        cursor.phase = "end"
        result = self.match.record(self.round)
        scores = list(self.match.scores)
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
        record.result = result
        record.scores = scores
        self.seats.broadcast(telling.round_end(number, result, scores, self.match.phase))
        cursor.position = f"round {number}"

    # -- the end -----------------------------------------------------------------------------
    def _finish(self, reason_override: str | None) -> None:
        cursor = self.cursor
        cursor.round, cursor.trick, cursor.phase = None, None, "end"
        cursor.finishing = True
        outcomes = [
            SeatOutcome(seat=r.seat, name=r.name, status=r.status, substitutions=r.substitutions, penalties=r.penalties)
            for r in self.record.seats
        ]
        end = telling.match_end(self.match, self.header.match_id, outcomes, reason_override)
        scores, winners, reason, rounds = end.scores, end.winners, end.reason, end.rounds
        self.seats.broadcast(end)
        line = cursor.next_main("result", "result entry")
        result = line.entry
        assert isinstance(result, Result)
        expected = {
            "scores": scores,
            "winners": winners,
            "reason": reason,
            "rounds": rounds,
            "seats": msgspec.to_builtins(outcomes),
        }
        for key, want in expected.items():
            got = getattr(result, key)
            if not same(want, got):
                raise cursor.differ(f"result.{key}", want, got, line=line.number)
        self.record.result = ResultRecord(scores=scores, winners=winners, reason=reason, rounds=rounds)
        cursor.position = "the result"
