"""The decisions of one re-played round, phase by phase: passing, declarations, play, the moon
shooter's choice.

Each asks a seat (its request as ``telling`` builds it, its reply or fault from the log),
applies the answer to the rules engine, checks the policy's answer to an illegal one and the
referee's fallback move for a dropped seat, checks what every seat was then told, and records
the round as it goes. This mirrors the match's ``RoundPhases``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from protocol.cards import Card, card_code
from protocol.messages import Declare, Moon, Pass, Play, RefereeMessage, TimeLeft
from referee.replay.asking import Asker, ReplyT
from referee.replay.policy import Policy
from referee.replay.record import DeclarationRecord, MoonRecord, PassRecord, PlayRecord, RoundRecord, TrickRecord
from referee.replay.seats import Seats
from referee.rules import telling
from referee.rules.errors import IllegalMove
from referee.rules.fallback import fallback_declare, fallback_moon, fallback_pass, fallback_play
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round
from referee.rules.wire import bot_card, bot_cards, codes_of

_NO_TIME = TimeLeft(decision_ms=0, bank_ms=0)
"""Placeholder time in an expected request: the logged one is checked on its own."""
AnswerT = TypeVar("AnswerT")


class RoundPhases:
    """Re-plays the decisions of one round from the log (scored by the caller)."""

    def __init__(self, seats: Seats, asker: Asker, policy: Policy, round_: Round, record: RoundRecord) -> None:
        self.seats = seats
        self.cursor = seats.cursor
        self.asker = asker
        self.policy = policy
        self.round = round_
        self.rec = record
        self.players = round_.table.players

    def play(self) -> None:
        """Every decision of the round, until it is over."""
        round_ = self.round
        if round_.phase == PASS:
            self._passing(round_.table.pass_offset(round_.pass_direction))
        else:
            self.rec.hands_after_passing = self.rec.hands
        self._declaring()
        self._playing()
        self._moon()

    def _passing(self, offset: int) -> None:
        round_ = self.round
        n = self.players
        self.cursor.phase = "pass"
        replies: dict[int, tuple[Pass, str] | None] = {}
        for s in range(n):
            if self.seats.active(s):
                replies[s] = self.asker.ask(s, telling.pass_request(round_, s, 0, _NO_TIME), Pass)
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
            request = telling.declare_request(round_, 0, _NO_TIME)
            declared, fallback = self._decide(s, request, Declare, ("declare", fallback_declare()), lambda r: r.declare)
            round_.declare(s, declared)
            self.rec.declarations.append(DeclarationRecord(seat=s, declared=declared, fallback=fallback))
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
                reply = self.asker.ask(s, telling.play_request(round_, 0, _NO_TIME), Play)
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
        request = telling.moon_request(round_, 0, _NO_TIME)
        choice, fallback = self._decide(s, request, Moon, ("moon", fallback_moon()), lambda r: r.choice)
        round_.choose_moon(s, choice)
        self.rec.moon = MoonRecord(seat=s, choice=choice, fallback=fallback)
        self.cursor.position = f"round {self.cursor.round} moon choice"

    def _decide(
        self,
        seat: int,
        request: RefereeMessage,
        expect: type[ReplyT],
        fallback: tuple[str, AnswerT],
        answer: Callable[[ReplyT], AnswerT],
    ) -> tuple[AnswerT, bool]:
        """A decision no reply can make illegal (a declaration, a moon choice): the ``answer``
        in the seat's reply while it is in the match, else the referee's ``fallback`` (the
        decision's name and the move, checked in the log); and whether it was the fallback."""
        reply = self.asker.ask(seat, request, expect) if self.seats.active(seat) else None
        if reply is None:
            decision, move = fallback
            self.seats.fallback(seat, decision, move)
            return move, True
        return answer(reply[0]), False

    def _illegal(self, seat: int, err: IllegalMove, reply: tuple[Pass | Play, str]) -> str:
        """The policy's answer (checked); a revoke penalty ends the round here."""
        action = self.policy.illegal(seat, err, reply[0].id, reply[1])
        if action == "penalty":
            self.round.apply_revoke(seat)
        return action
