"""A tiny synchronous table for testing bots without the referee's runner: it deals with the
pure rules engine (``referee.rules``), sends each seat the protocol v1 messages a referee
would send (built by ``referee.rules.telling``, as the referee builds them, in the order the
round's machine ``referee.rules.turns`` gives them, as the referee's match does), and checks
every reply (its type, its id, its legality) with assertions.

A seat is any callable taking a referee message and returning the bot's reply (or ``None``):
``Session(bot).handle`` for an in-process bot, a ``tests.bot_process.BotProcess`` for a bot
program on pipes, or ``random_seat(rng)`` for a seat the engine plays at random.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.messages import (
    BotMessage,
    Declare,
    DeclareRequest,
    Moon,
    MoonRequest,
    Pass,
    PassRequest,
    Play,
    PlayRequest,
    RefereeMessage,
    SeatOutcome,
    TimeControl,
    TimeLeft,
)
from protocol.ruleset import MoonChoice, RuleSet
from referee.rules import Match, Round, telling
from referee.rules.turns import Ask, AskAll, Fallback, Illegal, RoundTurns, Tell

Seat = Callable[[RefereeMessage], BotMessage | None]
Inspect = Callable[[int, Round, list[int]], None]
"""``inspect(seat, round, scores)``: a look at the table when ``seat`` has answered a play
request, before its card is applied (``scores``: the match's before the round)."""
TIME = TimeLeft(decision_ms=1000, bank_ms=10000)
CLOCK = TimeControl(per_decision_ms=1000, bank_ms=10000, startup_ms=5000)


@dataclass
class Outcome:
    scores: list[int]
    winners: list[int]
    rounds: int
    points: list[int] = field(default_factory=list)
    """Card points taken per seat over the whole match (before moons and phases)."""
    decisions: list[int] = field(default_factory=list)
    """Requests answered, per seat."""


# -- every reply, checked ----------------------------------------------------------------------
def check_pass(reply: BotMessage | None, request: PassRequest) -> list[str]:
    """A legal answer to ``request``: its id, as many cards as asked, each from the hand."""
    assert isinstance(reply, Pass), reply
    assert reply.id == request.id
    assert len(reply.cards) == request.count, reply
    assert not Counter(reply.cards) - Counter(request.legal), f"{reply.cards} not from {request.legal}"
    return reply.cards


def check_play(reply: BotMessage | None, request: PlayRequest) -> str:
    """A legal answer to ``request``: its id and a legal card."""
    assert isinstance(reply, Play), reply
    assert reply.id == request.id
    assert reply.card in request.legal, f"played {reply.card}, legal {request.legal}"
    return reply.card


def check_declare(reply: BotMessage | None, request: DeclareRequest) -> bool:
    assert isinstance(reply, Declare), reply
    assert reply.id == request.id
    return reply.declare


def check_moon(reply: BotMessage | None, request: MoonRequest) -> MoonChoice:
    """A legal answer to ``request``: its id and one of the options offered."""
    assert isinstance(reply, Moon), reply
    assert reply.id == request.id
    assert reply.choice in request.options, reply
    return reply.choice


def random_seat(rng: random.Random) -> Seat:
    """A seat that answers every request at random from what it offers (and declares one time
    in five). One ``rng`` may serve several seats: the draws follow the order of the requests."""

    def answer(message: RefereeMessage) -> BotMessage | None:
        if isinstance(message, PassRequest):
            return Pass(id=message.id, cards=rng.sample(message.legal, message.count))
        if isinstance(message, DeclareRequest):
            return Declare(id=message.id, declare=rng.random() < 0.2)
        if isinstance(message, PlayRequest):
            return Play(id=message.id, card=rng.choice(message.legal))
        if isinstance(message, MoonRequest):
            return Moon(id=message.id, choice=rng.choice(message.options))
        return None

    return answer


CHECKS: dict[type[RefereeMessage], Callable[[BotMessage | None, Any], object]] = {
    PassRequest: check_pass,
    DeclareRequest: check_declare,
    PlayRequest: check_play,
    MoonRequest: check_moon,
}
"""The check of each request's reply."""


# -- a match -----------------------------------------------------------------------------------
def play_match(
    rules: RuleSet,
    seed: int,
    seats: Sequence[Seat],
    *,
    max_rounds: int | None = None,
    inspect: Inspect | None = None,
    match_id: str = "m1",
) -> Outcome:
    """Play one match; every seat's replies are checked. ``max_rounds`` stops early (the match
    then ends as ``interrupted``, as a referee's would); ``inspect`` runs at each play reply."""
    n = rules.players
    assert len(seats) == n
    match = Match(rules, seed)
    ids = itertools.count(1)
    outcome = Outcome(scores=[], winners=[], rounds=0, points=[0] * n, decisions=[0] * n)

    def tell(seat: int, message: RefereeMessage) -> None:
        assert seats[seat](message) is None, f"seat {seat} replied to {type(message).__name__}"

    def tell_all(message: RefereeMessage) -> None:
        for seat in range(n):
            tell(seat, message)

    def reply(event: Ask, round_: Round) -> BotMessage:
        """The seat's reply to the machine's request, checked (``inspect``: before a card is
        played)."""
        outcome.decisions[event.seat] += 1
        request = event.request(next(ids), TIME)
        answer = seats[event.seat](request)
        CHECKS[type(request)](answer, request)
        if inspect is not None and isinstance(request, PlayRequest):
            inspect(event.seat, round_, list(match.scores))
        assert answer is not None
        return answer

    names = [f"p{s}" for s in range(n)]
    for seat in range(n):
        tell(seat, telling.match_start(match_id, seat, names, rules, CLOCK))
    number = 0
    while not match.over and (max_rounds is None or number < max_rounds):
        round_ = match.next_round()
        for seat in range(n):
            tell(seat, telling.round_start(round_, seat, number, match.scores))
        turns = RoundTurns(round_, lambda seat: True)
        while (event := turns.event) is not None:
            if isinstance(event, AskAll):
                turns.answer({one.seat: reply(one, round_) for one in event.asks})
            elif isinstance(event, Ask):
                turns.answer(reply(event, round_))
            elif isinstance(event, Tell) and event.seat is None:
                tell_all(event.message)
                turns.next()
            elif isinstance(event, Tell):
                tell(event.seat, event.message)
                turns.next()
            else:
                assert not isinstance(event, (Illegal, Fallback)), f"a checked reply cannot lead to {event}"
                turns.next()
        result = match.record(round_)
        for seat, points in enumerate(result.points_taken):
            outcome.points[seat] += points
        tell_all(telling.round_end(number, result, match.scores, match.phase))
        number += 1
    outcome.rounds = number
    outcome.scores = list(match.scores)
    if match.result is not None:
        outcome.winners = list(match.result.winners)
    tell_all(
        telling.match_end(
            match, match_id, [SeatOutcome(seat=s, name=name, status="ok") for s, name in enumerate(names)]
        )
    )
    return outcome
