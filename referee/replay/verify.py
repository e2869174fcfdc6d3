"""Re-running a logged match through the rules engine, entry by entry, to verify it.

The walk plays the match again from the header's rule set, seed and first dealer, in the
order the referee plays it: each deal, each seat's request, the bot's reply (its ``recv``
line) or the fault and the policy's answer, the referee's ``fallback`` moves, and every event
broadcast. Every move must be legal and every entry must be what the rules produce: the
dealt hands, each message sent to each seat (request ``legal`` lists, ``card_played``,
``trick_end``, ``passed``, ``round_end``, ``match_end``), each round's result and scores, and
the result. The first entry that differs stops the walk, named by round, trick, seat and line.

The log is read seat by seat (``cursor``); each decision's request, reply, fault and fallback
are checked as the referee made them (``seats``); this module walks the match. What the log
cannot show is taken from it: a bot's time-outs and crashes (there is no reply to judge), the
time left in each request (only checked to be the decision limit and a bank that never
grows), and, in logs whose header lacks it, the illegal-move cap (inferred from the first forfeit,
and then every seat must agree with it). The walk builds the ``MatchRecord`` as it goes, so the text
and HTML replays show exactly what was verified, up to the first difference or the end of a
cut-off log; then each seat's stderr and exit status (its ``stderr`` entries) and each fault's
hint for the bot's author (``referee.hints``) are added to it.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from protocol.cards import Card, card_code, parse_card
from protocol.messages import Declare, Moon, Pass, Play, RoundStart, SeatOutcome, TimeLeft
from referee.hints import exit_text, hint
from referee.log_format import Deal, Result, RoundScored
from referee.replay.cursor import Interrupted, LogCursor, LogEnds, Mismatch, describe, same
from referee.replay.reader import LogMatch
from referee.replay.record import (
    DeclarationRecord,
    Difference,
    MatchRecord,
    MoonRecord,
    PassRecord,
    PlayRecord,
    ResultRecord,
    RoundRecord,
    SeatRecord,
    TrickRecord,
    Verification,
)
from referee.replay.seats import Seats
from referee.replay.stderr import seat_outputs
from referee.rules import telling
from referee.rules.dealing import deal
from referee.rules.errors import IllegalMove, RulesError
from referee.rules.fallback import fallback_declare, fallback_moon, fallback_pass, fallback_play
from referee.rules.match import Match
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round
from referee.rules.wire import bot_card, bot_cards, codes_of

_NO_TIME = TimeLeft(decision_ms=0, bank_ms=0)
"""Placeholder time in an expected request: the logged one is checked on its own."""


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
        self.seats.round_start = lambda seat: self._round_start(seat, self.round, len(self.match.results))
        self.deals: Literal["seed", "log"] = "seed"

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
        self.deals = self._deal_source()
        self.seats.handshake()
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

    def _deal_source(self) -> Literal["seed", "log"]:
        """``seed`` when any logged deal is the seed's deal (then all must be), else ``log``:
        the match was dealt from explicit hands and the logged hands are verified as played."""
        deals = [line.entry for line in self.log.entries if isinstance(line.entry, Deal)]
        for entry in deals:
            seeded = deal(self.match.table, self.header.seed_number(), entry.round, entry.dealer)
            if [codes_of(mask) for mask in seeded] == entry.hands:
                return "seed"
        return "log" if deals else "seed"

    def _round_start(self, seat: int, round_: Round, number: int) -> RoundStart:
        """The ``round_start`` a seat is sent: at the deal, or again after a reconnection (with
        the hand it holds then)."""
        return telling.round_start(round_, seat, number, self.match.scores)

    # -- a round -----------------------------------------------------------------------------
    def _round(self) -> None:
        cursor = self.cursor
        number = len(self.match.results)
        cursor.round, cursor.trick, cursor.phase = number, None, "deal"
        line = cursor.next_main("deal", "deal")
        dealt = line.entry
        assert isinstance(dealt, Deal)
        if self.deals == "seed":
            round_ = self.match.next_round()
        else:
            try:
                round_ = self.match.next_round([[parse_card(c) for c in hand] for hand in dealt.hands])
            except (ValueError, RulesError) as err:
                raise cursor.differ(
                    "deal.hands", "a deal of the rule set's cards", str(err), line=line.number
                ) from None
        self.round = round_
        n = self.players
        hands = [[card_code(c) for c in round_.hand(s)] for s in range(n)]
        for what, want, got in (
            ("round", number, dealt.round),
            ("dealer", round_.dealer, dealt.dealer),
            ("pass_direction", round_.pass_direction, dealt.pass_direction),
            ("match_phase", round_.match_phase, dealt.match_phase),
        ):
            if want != got:
                raise cursor.differ(f"deal.{what}", want, got, line=line.number)
        for s in range(n):
            found = dealt.hands[s] if s < len(dealt.hands) else None
            if found != hands[s]:
                raise cursor.differ(f"deal.hands[{s}]", hands[s], found, seat=s, line=line.number)
        self.rec = RoundRecord(
            round=number,
            dealer=round_.dealer,
            pass_direction=round_.pass_direction,
            match_phase=round_.match_phase,
            hands=hands,
        )
        self.record.rounds.append(self.rec)
        cursor.position = f"round {number} deal"
        for s in range(n):
            if self.seats.active(s):
                cursor.sent(s, self._round_start(s, round_, number))
        if round_.phase == PASS:
            self._passing(round_.table.pass_offset(round_.pass_direction))
        else:
            self.rec.hands_after_passing = hands
        self._declaring()
        self._playing()
        self._moon()
        self._round_end(number)

    def _passing(self, offset: int) -> None:
        round_ = self.round
        n = self.players
        self.cursor.phase = "pass"
        replies: dict[int, tuple[Pass, str] | None] = {}
        for s in range(n):
            if self.seats.active(s):
                replies[s] = self.seats.ask(s, telling.pass_request(round_, s, 0, _NO_TIME), Pass)
        for s in range(n):
            if round_.phase != PASS:
                return  # a revoke penalty ended the round
            reply = replies.get(s)
            if reply is not None:
                try:
                    round_.pass_cards(s, bot_cards(reply[0].cards))
                except IllegalMove as err:
                    if self._illegal(s, err, reply) == "penalty":
                        return
                else:
                    self._record_pass(s, offset, fallback=False)
                    continue
            cards = fallback_pass(round_, s)
            self.seats.fallback(s, "pass", [card_code(c) for c in cards])
            round_.pass_cards(s, cards)
            self._record_pass(s, offset, fallback=True)
        self.rec.hands_after_passing = [[card_code(c) for c in round_.hand(s)] for s in range(n)]
        for s in range(n):
            if self.seats.active(s):
                self.cursor.sent(s, telling.passed(round_, s))
        self.cursor.position = f"round {self.cursor.round} passing"

    def _record_pass(self, seat: int, offset: int, *, fallback: bool) -> None:
        cards = codes_of(self.round.passes[seat] or 0)
        to_seat = (seat + offset) % self.players
        self.rec.passes.append(PassRecord(seat=seat, to_seat=to_seat, cards=cards, fallback=fallback))

    def _declaring(self) -> None:
        round_ = self.round
        self.cursor.phase = "declare"
        while round_.phase == DECLARE:
            s = round_.turn
            reply: tuple[Declare, str] | None = None
            if self.seats.active(s):
                reply = self.seats.ask(s, telling.declare_request(round_, 0, _NO_TIME), Declare)
            if reply is None:
                declared = fallback_declare()
                self.seats.fallback(s, "declare", declared)
            else:
                declared = reply[0].declare
            round_.declare(s, declared)
            self.rec.declarations.append(DeclarationRecord(seat=s, declared=declared, fallback=reply is None))
            self.seats.broadcast(telling.declared(s, declared))
            self.cursor.position = f"round {self.cursor.round} declarations"

    def _playing(self) -> None:
        round_ = self.round
        cursor = self.cursor
        cursor.phase = "play"
        while round_.phase == PLAY:
            s = round_.turn
            number = cursor.trick = round_.trick_number
            if not round_.trick:
                self.rec.tricks.append(TrickRecord(number=number, leader=round_.leader))
            trick = self.rec.tricks[-1]
            reply: tuple[Play, str] | None = None
            if self.seats.active(s):
                reply = self.seats.ask(s, telling.play_request(round_, 0, _NO_TIME), Play)
            card: Card | None = None
            if reply is not None:
                try:
                    card = bot_card(reply[0].card)
                    round_.play(s, card)
                except IllegalMove as err:
                    card = None
                    if self._illegal(s, err, reply) == "penalty":
                        break
            fallback = card is None
            if card is None:
                card = fallback_play(round_)
                self.seats.fallback(s, "play", card_code(card))
                round_.play(s, card)
            trick.plays.append(PlayRecord(seat=s, card=card_code(card), fallback=fallback))
            self.seats.broadcast(telling.card_played(s, card, number))
            end = telling.trick_end(round_, number)
            if end is not None:
                self.seats.broadcast(end)
                trick.winner, trick.points, trick.complete = end.winner, end.points, True
                cursor.position = f"round {cursor.round} trick {number}"
        cursor.trick = None

    def _moon(self) -> None:
        round_ = self.round
        if round_.phase != MOON:
            return
        self.cursor.phase = "moon"
        s = round_.turn
        reply: tuple[Moon, str] | None = None
        if self.seats.active(s):
            reply = self.seats.ask(s, telling.moon_request(round_, 0, _NO_TIME), Moon)
        if reply is None:
            choice = fallback_moon()
            self.seats.fallback(s, "moon", choice)
        else:
            choice = reply[0].choice
        round_.choose_moon(s, choice)
        self.rec.moon = MoonRecord(seat=s, choice=choice, fallback=reply is None)
        self.cursor.position = f"round {self.cursor.round} moon choice"

    def _illegal(self, seat: int, err: IllegalMove, reply: tuple[Pass | Play, str]) -> str:
        """The policy's answer (checked); a revoke penalty ends the round here."""
        action = self.seats.illegal(seat, err, reply[0].id, reply[1])
        if action == "penalty":
            self.round.apply_revoke(seat)
        return action

    def _round_end(self, number: int) -> None:
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
        self.rec.result = result
        self.rec.scores = scores
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
