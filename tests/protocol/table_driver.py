"""A tiny synchronous table for testing bots without the referee's runner: it deals with the
pure rules engine (``referee.rules``), sends each seat the protocol v1 messages a referee
would send, and checks every reply (its type, its id, its legality) with assertions.

A seat is any callable taking a referee message and returning the bot's reply (or ``None``):
``Session(bot).handle`` for an in-process bot, or a pipe to a bot subprocess.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from protocol.cards import parse_card
from protocol.messages import (
    BotMessage,
    Declare,
    Moon,
    Pass,
    Play,
    RefereeMessage,
    SeatOutcome,
    TimeControl,
    TimeLeft,
)
from protocol.ruleset import RuleSet
from referee.rules import Match, Round, telling
from referee.rules.round import DECLARE, MOON, PASS, PLAY

Seat = Callable[[RefereeMessage], BotMessage | None]
TIME = TimeLeft(decision_ms=1000, bank_ms=10000)
CLOCK = TimeControl(per_decision_ms=1000, bank_ms=10000, startup_ms=5000)


@dataclass
class Outcome:
    scores: list[int]
    winners: list[int]
    rounds: int
    points: list[int] = field(default_factory=list)
    """Card points taken per seat over the whole match (before moons and phases)."""
    decisions: int = 0


def play_match(
    rules: RuleSet,
    seed: int,
    seats: Sequence[Seat],
    *,
    max_rounds: int | None = None,
    inspect: Callable[[int, Round], None] | None = None,
) -> Outcome:
    """Play one match; every seat's replies are checked. ``max_rounds`` stops early;
    ``inspect(seat, round)`` runs after each play reply, before the card is applied."""
    n = rules.players
    assert len(seats) == n
    match = Match(rules, seed)
    ids = itertools.count(1)
    outcome = Outcome(scores=[], winners=[], rounds=0, points=[0] * n)

    def tell(seat: int, message: RefereeMessage) -> None:
        assert seats[seat](message) is None, f"seat {seat} replied to {type(message).__name__}"

    def tell_all(message: RefereeMessage) -> None:
        for seat in range(n):
            tell(seat, message)

    def ask(seat: int, request: RefereeMessage, kind: type[BotMessage]) -> BotMessage:
        rid = getattr(request, "id", None)
        reply = seats[seat](request)
        assert isinstance(reply, kind), f"seat {seat}: expected {kind.__name__}, got {reply!r}"
        assert getattr(reply, "id", None) == rid, f"seat {seat}: reply {reply!r} does not echo id {rid}"
        outcome.decisions += 1
        return reply

    names = [f"p{s}" for s in range(n)]
    for seat in range(n):
        tell(seat, telling.match_start("m1", seat, names, rules, CLOCK))
    number = 0
    while not match.over and (max_rounds is None or number < max_rounds):
        round_ = match.next_round()
        for seat in range(n):
            tell(seat, telling.round_start(round_, seat, number, match.scores))
        if round_.phase == PASS:
            for seat in range(n):
                reply = ask(seat, telling.pass_request(round_, seat, next(ids), TIME), Pass)
                assert isinstance(reply, Pass)
                assert len(reply.cards) == rules.pass_count, reply
                round_.pass_cards(seat, [parse_card(c) for c in reply.cards])
            for seat in range(n):
                tell(seat, telling.passed(round_, seat))
        while round_.phase == DECLARE:
            seat = round_.turn
            reply = ask(seat, telling.declare_request(round_, next(ids), TIME), Declare)
            assert isinstance(reply, Declare)
            round_.declare(seat, reply.declare)
            tell_all(telling.declared(seat, reply.declare))
        while round_.phase == PLAY:
            seat = round_.turn
            number_ = round_.trick_number
            play = telling.play_request(round_, next(ids), TIME)
            reply = ask(seat, play, Play)
            assert isinstance(reply, Play)
            assert reply.card in play.legal, f"seat {seat} played {reply.card}, legal {play.legal}"
            if inspect is not None:
                inspect(seat, round_)
            card = parse_card(reply.card)
            round_.play(seat, card)
            tell_all(telling.card_played(seat, card, number_))
            end = telling.trick_end(round_, number_)
            if end is not None:
                tell_all(end)
        if round_.phase == MOON:
            seat = round_.turn
            reply = ask(seat, telling.moon_request(round_, next(ids), TIME), Moon)
            assert isinstance(reply, Moon)
            round_.choose_moon(seat, reply.choice)
        result = match.record(round_)
        for seat, points in enumerate(result.points_taken):
            outcome.points[seat] += points
        tell_all(telling.round_end(number, result, match.scores, match.phase))
        number += 1
    outcome.rounds = number
    outcome.scores = list(match.scores)
    if match.result is not None:
        outcome.winners = list(match.result.winners)
        outcomes = [SeatOutcome(seat=s, name=name, status="ok") for s, name in enumerate(names)]
        tell_all(telling.match_end(match, "m1", outcomes))
    return outcome
