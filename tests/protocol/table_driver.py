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
    TimeControl,
    TimeLeft,
)
from protocol.ruleset import MoonChoice, RuleSet
from referee.rules import Match, Round
from referee.rules.scoring import RoundResult
from referee.rules.scripted import play_scripted
from referee.rules.turns import Ask

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
    outcome = Outcome(scores=[], winners=[], rounds=0, points=[0] * n, decisions=[0] * n)

    def tell(seat: int | None, message: RefereeMessage) -> None:
        for one in range(n) if seat is None else (seat,):
            assert seats[one](message) is None, f"seat {one} replied to {type(message).__name__}"

    def reply(event: Ask, rid: int, round_: Round) -> BotMessage:
        """The seat's reply to the machine's request, checked (``inspect``: before a card is
        played)."""
        outcome.decisions[event.seat] += 1
        request = event.request(rid, TIME)
        answer = seats[event.seat](request)
        CHECKS[type(request)](answer, request)
        if inspect is not None and isinstance(request, PlayRequest):
            inspect(event.seat, round_, list(match.scores))
        assert answer is not None
        return answer

    def taken(result: RoundResult) -> None:
        for seat, points in enumerate(result.points_taken):
            outcome.points[seat] += points

    names = [f"p{s}" for s in range(n)]
    outcome.rounds = play_scripted(
        match, names, match_id, reply, tell, clock=CLOCK, max_rounds=max_rounds, on_round=taken
    )
    outcome.scores = list(match.scores)
    if match.result is not None:
        outcome.winners = list(match.result.winners)
    return outcome
