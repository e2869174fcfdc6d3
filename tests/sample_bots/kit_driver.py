"""The referee's side, played by hand, for the tests of every bot kit (JavaScript, C, C++, Go,
Java, Rust): scripted messages for fixed positions, the handshake, and whole matches driven by
the rules engine in which the bot under test holds one seat.

The scripted messages are test data (a hand, a trick, an id), written for the position a test
sets up; a match's messages come from ``tests.protocol.table_driver``, which builds every one of
them with ``referee.rules.telling`` as the referee does.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec

from protocol.bot import deck_codes, trick_winner
from protocol.messages import (
    VERSIONS,
    BotHello,
    DeclareRequest,
    Hello,
    MatchStart,
    MoonRequest,
    PassRequest,
    PlayRequest,
    RoundStart,
)
from protocol.ruleset import MoonChoice, RuleSet
from referee.rules import Round, SeatView, ruleset, seat_view, telling
from referee.rules.telling import MOON_OPTIONS
from tests.bot_process import BotProcess
from tests.protocol.table_driver import CLOCK, TIME, Seat, check_pass, play_match, random_seat

LEFT = TIME
"""What every scripted request says is left on the bot's clock (the table's, in a match)."""
BIG_ID = 9_000_000_001
"""Larger than 32 bits: the bots must echo ids exactly."""
HAND = ["2C", "5C", "9C", "KC", "3D", "8D", "JD", "4S", "QS", "AS", "2H", "TH", "AH"]
"""Seat 1's hand in the scripted American round."""
ENGINE_PRESETS = ["american", "american-3", "double-deck", "achterhoeks", "dutch"]
"""Variants a bot plays whole matches of against the engine: passing and the queen, three
players, two decks, the piket deck with declarations, and Dutch's two phases."""


def american() -> RuleSet:
    return msgspec.convert(msgspec.to_builtins(ruleset("american")), RuleSet)


# ---------------------------------------------------------------------------------------------
# Scripted messages
# ---------------------------------------------------------------------------------------------
def match_start(seat: int = 1, rules: RuleSet | None = None, match_id: str = "m-1") -> MatchStart:
    rules = rules or american()
    return telling.match_start(match_id, seat, [f"bot-{s}" for s in range(rules.players)], rules, CLOCK)


def round_start(hand: list[str] | None = None) -> RoundStart:
    """Round 0 of an American match for seat 1, dealt ``hand``, passing left."""
    return RoundStart(
        round=0,
        dealer=0,
        hand=list(hand or HAND),
        pass_direction="left",
        pass_count=3,
        pass_to=2,
        match_phase=1,
        scores=[0, 0, 0, 0],
    )


def play_request(request_id: int, legal: list[str], trick: list[str], trick_number: int = 1) -> PlayRequest:
    """Seat 1 to play to ``trick`` (four players: its leader sat ``len(trick)`` seats before)."""
    return PlayRequest(
        id=request_id,
        legal=legal,
        trick=trick,
        leader=(1 - len(trick)) % 4,
        trick_number=trick_number,
        hearts_broken=False,
        time=LEFT,
    )


def pass_request(request_id: int, legal: list[str] | None = None, count: int = 3, to_seat: int = 2) -> PassRequest:
    """Seat 1's pass request: ``count`` cards of ``legal`` (its whole hand, ``HAND`` by default)."""
    return PassRequest(id=request_id, count=count, legal=list(legal or HAND), to_seat=to_seat, time=LEFT)


def declare_request(request_id: int) -> DeclareRequest:
    """Seat 1 to declare, in a four-player game where nobody has yet."""
    return DeclareRequest(id=request_id, declarations=[None] * 4, points=10, time=LEFT)


def moon_request(request_id: int, options: list[MoonChoice] | None = None) -> MoonRequest:
    """Seat 1 shot the moon: how is it scored (``options``: both ways by default)?"""
    return MoonRequest(id=request_id, options=list(options or MOON_OPTIONS), points=26, time=LEFT)


def to_dict(message: Any) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(message)
    return data


def handshake(bot: BotProcess) -> BotHello:
    """The referee's hello, and a valid answer to it: a version we speak, a name, no token (on
    pipes a bot has none)."""
    reply = bot.ask(Hello(referee="pytest"))
    assert isinstance(reply, BotHello), reply
    assert reply.version in VERSIONS
    assert isinstance(reply.name, str)
    assert reply.name.strip()
    assert reply.token is None
    return reply


def passed_from_hand(bot: BotProcess) -> list[str]:
    """The cards a bot passes from ``HAND`` at the start of the scripted round (after its
    handshake), sorted; the reply is checked."""
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    request = pass_request(BIG_ID)
    return sorted(check_pass(bot.ask(request), request))


# ---------------------------------------------------------------------------------------------
# Whole matches against the rules engine
# ---------------------------------------------------------------------------------------------
def drive_match(
    bot: BotProcess,
    rules: RuleSet,
    *,
    seat: int,
    seed: int,
    max_rounds: int,
    match_id: str = "engine",
    on_play_request: Callable[[SeatView, list[int]], None] | None = None,
) -> int:
    """Play a match in which ``bot`` holds ``seat`` and the engine plays the other seats at
    random; every reply must be accepted by the engine. The bot is told what the referee
    would tell it; a match cut short by ``max_rounds`` ends as ``interrupted``.
    ``on_play_request(view, scores)`` gets the engine's view of the bot's seat at each of its
    plays. Returns the bot's decision count."""
    engine = random_seat(random.Random(seed))
    seats: list[Seat] = [bot if s == seat else engine for s in range(rules.players)]

    def inspect(asked: int, round_: Round, scores: list[int]) -> None:
        if asked == seat and on_play_request is not None:
            on_play_request(seat_view(round_, seat), scores)

    outcome = play_match(rules, seed, seats, max_rounds=max_rounds, inspect=inspect, match_id=match_id)
    return outcome.decisions[seat]


def states_written(stderr: str, *, sort: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """What a state probe wrote at each play: its ``STATE {json}`` lines, the lists named in
    ``sort`` sorted (a kit need not keep a hand in the engine's order)."""
    states = [json.loads(line[6:]) for line in stderr.splitlines() if line.startswith("STATE ")]
    for state in states:
        for key in sort:
            state[key] = sorted(state[key])
    return states


def assert_states(seen: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """The probe reported at every play, and each time what the engine expected."""
    assert len(seen) == len(expected) > 0
    for number, (got, want) in enumerate(zip(seen, expected, strict=True)):
        assert got == want, f"decision {number}"


def probe_state(view: SeatView, scores: list[int]) -> dict[str, Any]:
    """What every kit's state probe reports (in camelCase; Rust's in snake_case has its own):
    the seat, its hand (sorted), the points taken, the match's scores, and the trick as the
    events left it (before the request told it again)."""
    return {
        "hand": sorted(view.hand),
        "pointsTaken": view.points_taken,
        "scores": scores,
        "seat": view.seat,
        "events": {"trick": view.trick, "heartsBroken": view.hearts_broken, "trickNumber": len(view.tricks)},
    }


def voids_shown(view: SeatView) -> list[set[str]]:
    """The suits each seat has shown it lacks (it did not follow the led suit), from the
    tricks played and the one on the table."""
    voids: list[set[str]] = [set() for _ in range(view.players)]
    for leader, cards in [*((t.leader, t.cards) for t in view.tricks), (view.trick_leader, view.trick)]:
        for index, card in enumerate(cards):
            if card[-1] != cards[0][-1]:
                voids[(leader + index) % view.players].add(cards[0][-1])
    return voids


def winning_seat(view: SeatView, rules: RuleSet) -> int | None:
    """The seat winning the trick on the table so far (by the Python kit's ``trick_winner``);
    ``None`` when no card is played or every card of the led suit is cancelled."""
    winner = trick_winner(view.trick, rules.identical_cards)
    return None if winner is None else (view.trick_leader + winner) % view.players


def cards_played(view: SeatView) -> list[str]:
    """Every card played in the round so far, the trick on the table last."""
    return [c for t in view.tricks for c in t.cards] + view.trick


def cards_unseen(view: SeatView, rules: RuleSet) -> list[str]:
    """The deck's cards the seat has not seen (not in its hand, not played), sorted."""
    unseen = Counter(deck_codes(rules))
    unseen.subtract(view.hand)
    unseen.subtract(cards_played(view))
    return sorted(unseen.elements())
