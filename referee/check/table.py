"""A match as the referee would run it, with the bot at one seat and the check at the others.

The ``ScriptedTable`` deals with the rules engine (from a seed, or crafted hands) and drives
the round's machine (``referee.rules.turns``) as the match does: it answers the other seats'
questions with ``Opponents``, asks the bot its own, and tells the bot exactly what the match
runner would: the same messages, queued and written together with the bot's next request. Each of the bot's
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
from referee.rules.match import Match
from referee.rules.match_turns import Dealing, Dealt, Ended, MatchEvent, MatchTurns, Outcomes, Scored
from referee.rules.round import DECLARE, DONE, MOON, PASS, Round
from referee.rules.scoring import RoundResult
from referee.rules.turns import Ask, AskAll, Illegal, IllegalPolicy, Reply, Settled, Tell


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
        self.turns: MatchTurns | None = None
        """The match's machine (``referee.rules.match_turns``), as the match drives it: the
        check answers the other seats and asks the bot."""
        self.round_number = -1
        self.plays = 0
        """The bot's play decisions in the current round."""
        self.last_play: PlayRequest | None = None
        self.last_result: RoundResult | None = None

    @property
    def current(self) -> Round:
        if self.round is None:
            raise RuntimeError("no round has been dealt")
        return self.round

    # -- the match ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the match's machine and queue ``match_start``."""
        self.turns = MatchTurns(
            self.match, self.match_id, names=self.names, clock=self.probe.time_control(),
            active=lambda seat: True, policy=IllegalPolicy("forfeit", 0), records=False,
        )  # fmt: skip
        self._tell()

    def deal(self, hands: Sequence[Sequence[Card]] | None = None) -> Round:
        """Deal the next round (from the seed, or ``hands``) and queue ``round_start``."""
        event = self._tell()
        if not isinstance(event, Dealing):
            raise RuntimeError(f"no round can be dealt now ({event})")
        self.machine.answer(hands)
        self._tell()
        return self.current

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
        """The round's result, once the machine has scored it (``round_end`` queued)."""
        self._tell()
        if self.last_result is None or self.match.current is not self.round:
            raise RuntimeError("the round in play is not over")
        return self.last_result

    def revoke(self) -> RoundResult:
        """End the round in play with the revoke penalty on the bot (the check's scripted
        penalty: the bot broke no rule) and queue ``round_end``."""
        self.machine.revoke(self.seat)
        return self.end_round()

    def end_match(self) -> None:
        """Queue ``match_end``: the result, or ``interrupted`` when the match is not over."""
        event = self._tell()
        if not isinstance(event, Outcomes):
            self.machine.interrupt()
        self.machine.answer([SeatOutcome(seat=s, name=name, status="ok") for s, name in enumerate(self.names)])
        self._tell()

    # -- turns -------------------------------------------------------------------------------
    @property
    def machine(self) -> MatchTurns:
        assert self.turns is not None, "the match has not started"
        return self.turns

    def advance(self) -> None:
        """The other seats act until the bot must (or the round is over)."""
        turns = self.machine
        while (event := self._tell()) is not None:
            if isinstance(event, AskAll):
                if any(one.seat == self.seat for one in event.asks):
                    return  # the bot passes with the others: act() answers for all
                turns.answer({one.seat: self._opponent(one) for one in event.asks})
            elif isinstance(event, Ask):
                if event.seat == self.seat:
                    return
                turns.answer(self._opponent(event))
            elif isinstance(event, (Dealing, Outcomes)):
                return  # the round is over
            else:
                raise RuntimeError(f"a scripted seat's move cannot lead to {event}")

    def _tell(self) -> MatchEvent | None:
        """Queue for the bot what the machine tells it, up to the next question (or the end);
        note each deal and each round's result on the way."""
        turns = self.machine
        while (event := turns.event) is not None:
            if isinstance(event, Tell):
                if event.seat is None or event.seat == self.seat:
                    self.probe.post(event.message)
            elif isinstance(event, Dealt):
                self.round, self.round_number, self.plays, self.last_result = event.round, event.number, 0, None
            elif isinstance(event, Scored):
                self.last_result = event.result
            elif not isinstance(event, (Settled, Ended)):
                return event
            turns.next()
        return None

    def _opponent(self, ask: Ask) -> Reply:
        """A scripted seat's answer (``Opponents``; a moon shooter adds to the others)."""
        round_, seat = self.current, ask.seat
        if ask.decision == "pass":
            return Pass(id=0, cards=card_codes(self.opponents.pass_cards(round_, seat, self.round_number)))
        if ask.decision == "declare":
            return Declare(id=0, declare=self.opponents.declare(seat))
        if ask.decision == "play":
            return Play(id=0, card=card_code(self.opponents.play(round_, seat, self.round_number)))
        return Moon(id=0, choice="add_to_others")

    def _answer(self, reply: Reply, expected: str = "") -> None:
        """Give the machine the bot's reply to its pending question (with the scripted seats'
        passes, when it asks every seat at once), then queue what follows for the bot. An
        illegal reply fails the step with the rule it broke."""
        turns = self.machine
        event = turns.event
        if isinstance(event, AskAll):
            turns.answer({one.seat: reply if one.seat == self.seat else self._opponent(one) for one in event.asks})
        elif isinstance(event, Ask) and event.seat == self.seat:
            turns.answer(reply)
        else:
            raise RuntimeError(f"the bot is not asked now ({event})")
        if isinstance(illegal := turns.event, Illegal):
            error = illegal.error  # a play was checked against its legal list: only a pass gets here
            raise self.probe.fail(
                f"illegal pass: {error.message} (illegal_move, {error.rule})", expected, "illegal_move"
            )
        self._tell()

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
        self.check_play(request, reply)
        self._answer(reply)
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
            broken = self.current.explain_illegal(self.seat, card)
            why = f"illegal play: {broken.message} (illegal_move, {broken.rule})"
            raise self.probe.fail(why, expected, "illegal_move")
        if reply.card != card_code(card):
            self.probe.warn(f"card written as {reply.card!r}; the protocol's form is {card_code(card)!r}")
        return card

    def apply_play(self, card: Card) -> None:
        """Play ``card`` for the bot, whatever it chose (the referee's substitute): the answer to
        the machine's pending play question; then queue what everyone sees."""
        self._answer(Play(id=0, card=card_code(card)))

    # -- the other decisions -----------------------------------------------------------------
    async def _pass(self) -> Pass:
        round_ = self.current
        request = telling.pass_request(round_, self.seat, next(self.probe.ids), self.probe.time_left())
        count, legal = request.count, request.legal
        expected = f"{count} different cards from legal: {' '.join(legal)}"
        reply = await self.probe.ask(request, Pass, request.id)
        cards = _pass_cards(self.probe, reply, count, legal, expected)
        self._answer(reply, expected)
        if card_codes(cards) != reply.cards:
            written, form = " ".join(reply.cards), " ".join(card_codes(cards))
            self.probe.warn(f"cards written as {written}; the protocol's form is {form}")
        return reply

    async def _declare(self) -> Declare:
        round_ = self.current
        request = telling.declare_request(round_, next(self.probe.ids), self.probe.time_left())
        reply = await self.probe.ask(request, Declare, request.id)
        self._answer(reply)
        return reply

    async def _moon(self) -> Moon:
        round_ = self.current
        request = telling.moon_request(round_, next(self.probe.ids), self.probe.time_left())
        reply = await self.probe.ask(request, Moon, request.id)
        self._answer(reply)
        return reply


def _pass_cards(probe: Probe, reply: Pass, count: int, legal: list[str], expected: str) -> list[Card]:
    """The cards of a pass that the request allows; fails the step with why otherwise."""
    try:
        cards = [parse_card(code) for code in reply.cards]
    except ValueError as err:
        raise probe.fail(f"illegal pass: {err} (illegal_move, not_a_card)", expected, "illegal_move") from None
    if len(cards) != count:
        why = f"illegal pass: {len(cards)} cards, not {count} (illegal_move, wrong_pass_count)"
        raise probe.fail(why, expected, "illegal_move")
    if Counter(card_codes(cards)) - Counter(legal):
        raise probe.fail(
            f"illegal pass: {' '.join(reply.cards)} are not all in legal (illegal_move)", expected, "illegal_move"
        )
    return cards
