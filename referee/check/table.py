"""A match as the referee would run it, with the bot at one seat and the check at the others.

The ``ScriptedTable`` deals with the rules engine (from a seed, or crafted hands), plays the
other seats with ``Opponents``, and tells the bot exactly what the match runner would: the
same messages, queued and written together with the bot's next request. Each of the bot's
decisions is checked by the engine; an illegal one fails the step with the rule it broke.
Steps can also take the pieces (``play_request``, ``check_play``, ``apply_play``) to do
something the runner only does to a misbehaving bot, such as a non-fatal error.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from protocol.cards import Card, card_code, card_codes, parse_card
from protocol.messages import Declare, Moon, Pass, Play, PlayRequest, SeatOutcome
from protocol.ruleset import RuleSet
from referee.check.positions import Opponents
from referee.check.probe import Probe
from referee.rules import telling
from referee.rules.errors import IllegalMove
from referee.rules.match import Match
from referee.rules.round import DECLARE, DONE, MOON, PASS, PLAY, Round
from referee.rules.scoring import RoundResult

Reply = Pass | Play | Declare | Moon


def over(round_: Round) -> bool:
    """Whether the round is done (a call, so that type checkers do not pin the phase down
    across the awaits that change it)."""
    return round_.phase == DONE


class ScriptedTable:
    """One match: the bot at ``seat``, the check playing every other seat."""

    def __init__(
        self,
        probe: Probe,
        rules: RuleSet,
        seat: int,
        *,
        dealer: int = 0,
        seed: int = 7,
        opponents: Opponents | None = None,
        match_id: str = "check-1",
        names: Sequence[str] | None = None,
    ) -> None:
        self.probe = probe
        self.rules = rules
        self.seat = seat
        self.match = Match(rules, seed, first_dealer=dealer)
        self.opponents = opponents or Opponents(seed)
        self.match_id = match_id
        bot_name = probe.hello.name if probe.hello is not None else "bot"
        chosen = itertools.cycle(names) if names else None
        self.names = [bot_name if s == seat else next(chosen) if chosen else f"check-{s}" for s in range(rules.players)]
        self.round: Round | None = None
        self.round_number = -1
        self.plays = 0
        """The bot's play decisions in the current round."""
        self.last_play: PlayRequest | None = None

    @property
    def current(self) -> Round:
        if self.round is None:
            raise RuntimeError("no round has been dealt")
        return self.round

    # -- the match ---------------------------------------------------------------------------
    def start(self) -> None:
        """Queue ``match_start``."""
        self.probe.post(
            telling.match_start(self.match_id, self.seat, self.names, self.rules, self.probe.time_control())
        )

    def deal(self, hands: Sequence[Sequence[Card]] | None = None) -> Round:
        """Deal the next round (from the seed, or ``hands``) and queue ``round_start``."""
        round_ = self.match.next_round(hands)
        self.round = round_
        self.round_number += 1
        self.plays = 0
        self.probe.post(telling.round_start(round_, self.seat, self.round_number, self.match.scores))
        return round_

    async def play_match(self) -> None:
        """A whole match, from ``match_start`` to ``match_end``."""
        self.start()
        while not self.match.over:
            self.deal()
            await self.finish_round()
        self.end_match()

    async def finish_round(self) -> RoundResult:
        """Play the current round to its end and queue ``round_end``."""
        round_ = self.current
        while not over(round_):
            self.advance()
            if not over(round_):
                await self.act()
        return self.end_round()

    def end_round(self) -> RoundResult:
        """Record the finished round and queue ``round_end``."""
        result = self.match.record(self.current)
        self.probe.post(telling.round_end(self.round_number, result, self.match.scores, self.match.phase))
        return result

    def end_match(self) -> None:
        """Queue ``match_end``: the result, or ``interrupted`` when the match is not over."""
        seats = [SeatOutcome(seat=s, name=name, status="ok") for s, name in enumerate(self.names)]
        self.probe.post(telling.match_end(self.match, self.match_id, seats))

    # -- turns -------------------------------------------------------------------------------
    def advance(self) -> None:
        """The other seats act until the bot must (or the round is over)."""
        round_ = self.current
        while round_.phase != DONE:
            if round_.phase == PASS:
                for seat in round_.awaiting():
                    if seat != self.seat:
                        round_.pass_cards(seat, self.opponents.pass_cards(round_, seat, self.round_number))
                return
            seat = round_.turn
            if seat == self.seat:
                return
            if round_.phase == DECLARE:
                declare = self.opponents.declare(seat)
                round_.declare(seat, declare)
                self.probe.post(telling.declared(seat, declare))
            elif round_.phase == PLAY:
                self.apply_play(seat, self.opponents.play(round_, seat, self.round_number))
            elif round_.phase == MOON:
                round_.choose_moon(seat, "add_to_others")

    async def act(self) -> Reply:
        """Ask the bot for the decision due now, check it with the rules and apply it."""
        phase = self.current.phase
        if phase == PASS:
            return await self._pass()
        if phase == DECLARE:
            return await self._declare()
        if phase == MOON:
            return await self._moon()
        request = self.play_request()
        reply = await self.probe.ask(request, Play, request.id)
        self.apply_play(self.seat, self.check_play(request, reply))
        return reply

    async def until_play(self, number: int) -> tuple[PlayRequest, Play]:
        """Play on to the bot's ``number``-th play decision of the round; that request and
        the bot's (checked and applied) reply."""
        round_ = self.current
        while not over(round_):
            self.advance()
            if over(round_):
                break
            reply = await self.act()
            if isinstance(reply, Play) and self.plays == number and self.last_play is not None:
                return self.last_play, reply
        raise RuntimeError(f"the round ended before the bot's play decision {number}")

    # -- playing -----------------------------------------------------------------------------
    def play_request(self) -> PlayRequest:
        """The bot's play request for the current position (the full legal list)."""
        self.plays += 1
        self.last_play = telling.play_request(self.current, next(self.probe.ids), self.probe.time_left())
        return self.last_play

    def check_play(self, request: PlayRequest, reply: Play) -> Card:
        """The card of a legal reply; fails the step with the broken rule otherwise."""
        expected = f"a card from legal: {' '.join(request.legal)}"
        try:
            card = parse_card(reply.card)
        except ValueError as err:
            raise self.probe.fail(f"illegal play: {err} (illegal_move, not_a_card)", expected, "illegal_move") from None
        if card_code(card) not in request.legal:
            rule, message = self._explain_play(card)
            raise self.probe.fail(f"illegal play: {message} (illegal_move, {rule})", expected, "illegal_move")
        if reply.card != card_code(card):
            self.probe.warn(f"card written as {reply.card!r}; the protocol's form is {card_code(card)!r}")
        return card

    def _explain_play(self, card: Card) -> tuple[str, str]:
        round_ = self.current
        try:
            round_.play(self.seat, card)
        except IllegalMove as err:
            return err.rule, err.message
        raise RuntimeError(f"{card_code(card)} is legal for the engine but not in the request's legal list")

    def apply_play(self, seat: int, card: Card) -> None:
        """Play a card for a seat and queue what everyone sees: the card, and the trick's end."""
        round_ = self.current
        trick_number = round_.trick_number
        round_.play(seat, card)
        self.probe.post(telling.card_played(seat, card, trick_number))
        end = telling.trick_end(round_, trick_number)
        if end is not None:
            self.probe.post(end)

    # -- the other decisions -----------------------------------------------------------------
    async def _pass(self) -> Pass:
        round_ = self.current
        request = telling.pass_request(round_, self.seat, next(self.probe.ids), self.probe.time_left())
        count, legal = request.count, request.legal
        reply = await self.probe.ask(request, Pass, request.id)
        expected = f"{count} different cards from legal: {' '.join(legal)}"
        try:
            cards = [parse_card(code) for code in reply.cards]
        except ValueError as err:
            raise self.probe.fail(f"illegal pass: {err} (illegal_move, not_a_card)", expected, "illegal_move") from None
        if len(cards) != count:
            raise self.probe.fail(
                f"illegal pass: {len(cards)} cards, not {count} (illegal_move, wrong_pass_count)",
                expected,
                "illegal_move",
            )
        if Counter(card_codes(cards)) - Counter(legal):
            given = " ".join(reply.cards)
            raise self.probe.fail(
                f"illegal pass: {given} are not all in legal (illegal_move)", expected, "illegal_move"
            )
        try:
            round_.pass_cards(self.seat, cards)
        except IllegalMove as err:
            raise self.probe.fail(
                f"illegal pass: {err.message} (illegal_move, {err.rule})", expected, "illegal_move"
            ) from None
        if card_codes(cards) != reply.cards:
            written, form = " ".join(reply.cards), " ".join(card_codes(cards))
            self.probe.warn(f"cards written as {written}; the protocol's form is {form}")
        if round_.phase != PASS:  # everybody has passed: the exchange is done
            self.probe.post(telling.passed(round_, self.seat))
        return reply

    async def _declare(self) -> Declare:
        round_ = self.current
        request = telling.declare_request(round_, next(self.probe.ids), self.probe.time_left())
        reply = await self.probe.ask(request, Declare, request.id)
        round_.declare(self.seat, reply.declare)
        self.probe.post(telling.declared(self.seat, reply.declare))
        return reply

    async def _moon(self) -> Moon:
        round_ = self.current
        request = telling.moon_request(round_, next(self.probe.ids), self.probe.time_left())
        reply = await self.probe.ask(request, Moon, request.id)
        round_.choose_moon(self.seat, reply.choice)
        return reply
