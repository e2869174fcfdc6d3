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

from protocol.cards import card_code, parse_card
from protocol.messages import (
    BotMessage,
    CardPlayed,
    Declare,
    Declared,
    DeclareRequest,
    MatchEnd,
    MatchStart,
    Moon,
    MoonRequest,
    Pass,
    PassRequest,
    PassResult,
    Play,
    Player,
    PlayRequest,
    RefereeMessage,
    RoundEnd,
    RoundStart,
    SeatOutcome,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import MoonChoice, RuleSet
from referee.rules import Match, Round
from referee.rules.round import DECLARE, MOON, PASS, PLAY

Seat = Callable[[RefereeMessage], BotMessage | None]
TIME = TimeLeft(decision_ms=1000, bank_ms=10000)


@dataclass
class Outcome:
    scores: list[int]
    winners: list[int]
    rounds: int
    points: list[int] = field(default_factory=list)
    """Card points taken per seat over the whole match (before moons and phases)."""
    decisions: int = 0


def _codes(mask: int | None) -> list[str]:
    return [card_code(c) for c in range(128) if mask and mask >> c & 1]


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

    players = [Player(seat=s, name=f"p{s}") for s in range(n)]
    for seat in range(n):
        tell(
            seat,
            MatchStart(
                match_id="m1",
                seat=seat,
                players=players,
                rules=rules,
                time=TimeControl(per_decision_ms=1000, bank_ms=10000, startup_ms=5000),
            ),
        )
    number = 0
    while not match.over and (max_rounds is None or number < max_rounds):
        round_ = match.next_round()
        offset = round_.table.pass_offset(round_.pass_direction)
        for seat in range(n):
            tell(
                seat,
                RoundStart(
                    round=number,
                    dealer=round_.dealer,
                    hand=[card_code(c) for c in round_.hand(seat)],
                    pass_direction=round_.pass_direction,
                    pass_count=0 if offset == 0 else rules.pass_count,
                    pass_to=None if offset == 0 else (seat + offset) % n,
                    match_phase=round_.match_phase,
                    scores=list(match.scores),
                ),
            )
        if round_.phase == PASS:
            for seat in range(n):
                legal = [card_code(c) for c in round_.legal_passes(seat)]
                request = PassRequest(
                    id=next(ids), count=rules.pass_count, legal=legal, to_seat=(seat + offset) % n, time=TIME
                )
                reply = ask(seat, request, Pass)
                assert isinstance(reply, Pass)
                assert len(reply.cards) == rules.pass_count, reply
                round_.pass_cards(seat, [parse_card(c) for c in reply.cards])
            for seat in range(n):
                tell(
                    seat,
                    PassResult(
                        given=_codes(round_.passes[seat]),
                        to_seat=(seat + offset) % n,
                        received=_codes(round_.received[seat]),
                        from_seat=(seat - offset) % n,
                        hand=[card_code(c) for c in round_.hand(seat)],
                    ),
                )
        while round_.phase == DECLARE:
            seat = round_.turn
            made = round_.declarations_made()
            declare = DeclareRequest(id=next(ids), declarations=made, points=rules.declaration_points, time=TIME)
            reply = ask(seat, declare, Declare)
            assert isinstance(reply, Declare)
            round_.declare(seat, reply.declare)
            tell_all(Declared(seat=seat, declared=reply.declare))
        while round_.phase == PLAY:
            seat = round_.turn
            number_ = round_.trick_number
            legal = [card_code(c) for c in round_.legal_plays()]
            trick = [card_code(c) for c in round_.trick]
            play = PlayRequest(
                id=next(ids),
                legal=legal,
                trick=trick,
                leader=round_.leader,
                trick_number=number_,
                hearts_broken=round_.broken,
                time=TIME,
            )
            reply = ask(seat, play, Play)
            assert isinstance(reply, Play)
            assert reply.card in legal, f"seat {seat} played {reply.card}, legal {legal}"
            if inspect is not None:
                inspect(seat, round_)
            round_.play(seat, parse_card(reply.card))
            tell_all(CardPlayed(seat=seat, card=reply.card, trick_number=number_))
            if round_.trick_number != number_:
                done = round_.tricks[-1]
                tell_all(
                    TrickEnd(
                        trick_number=number_,
                        leader=done.leader,
                        cards=[card_code(c) for c in done.cards],
                        winner=done.winner,
                        points=done.points,
                    )
                )
        if round_.phase == MOON:
            seat = round_.turn
            options: list[MoonChoice] = ["add_to_others", "subtract_from_shooter"]
            moon = MoonRequest(id=next(ids), options=options, points=round_.table.moon_points, time=TIME)
            reply = ask(seat, moon, Moon)
            assert isinstance(reply, Moon)
            round_.choose_moon(seat, reply.choice)
        result = match.record(round_)
        for seat, points in enumerate(result.points_taken):
            outcome.points[seat] += points
        tell_all(
            RoundEnd(
                round=number,
                points_taken=result.points_taken,
                score_changes=result.score_changes,
                scores=list(match.scores),
                moon=result.moon,
                moon_scoring=result.moon_scoring,
                declared=result.declared,
                declaration_success=result.declaration_success,
                revoke=result.revoke,
                match_phase=result.match_phase,
                next_match_phase=match.phase,
            )
        )
        number += 1
    outcome.rounds = number
    outcome.scores = list(match.scores)
    if match.result is not None:
        outcome.winners = list(match.result.winners)
        tell_all(
            MatchEnd(
                match_id="m1",
                scores=outcome.scores,
                winners=outcome.winners,
                reason=match.result.reason,
                rounds=number,
                seats=[SeatOutcome(seat=s, name=f"p{s}", status="ok") for s in range(n)],
            )
        )
    return outcome
