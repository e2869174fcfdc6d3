"""Playouts: finish a round fast with a simple policy and return what it scores.

A search bot evaluates a move by playing the rest of the round many times in sampled worlds
(``referee.rules.sampling``). Each playout here drives a ``Round`` through its public calls,
every seat playing the same cheap policy:

- ``greedy`` (the default): follow with the highest card that still loses the trick, or, when
  every card wins, the highest if last to play and the lowest otherwise; when void, throw the
  most expensive card (the most points, then the highest); lead the lowest card of a suit
  chosen at random. In a phase where points taken count down (phase 2 of a two-phase match)
  the policy turns round: it tries to win tricks with points in them.
- ``random``: a uniformly random legal card.

Passing (where a playout starts before it) gives each seat's most expensive cards, nobody
declares, and the shooter of a moon adds to the others. The policy reads masks only, so a
playout of a 52-card round costs little more than the 52 ``Round.play`` calls.
"""

from __future__ import annotations

import random
from typing import Final, Literal, TypeAlias

from referee.rules.cardset import cards_of
from referee.rules.round import DECLARE, DONE, MOON, PASS, Round

Policy: TypeAlias = Literal["greedy", "random"]
POLICIES: Final[tuple[Policy, ...]] = ("greedy", "random")

_LOW64: Final = (1 << 64) - 1
_SUIT_FACES: Final = tuple(0x7FFC << (16 * s) for s in range(4))
"""The faces (ranks 2..14) of each suit, as a mask."""


def _faces(mask: int) -> int:
    return (mask | mask >> 64) & _LOW64


def _top(mask: int) -> int:
    return mask.bit_length() - 1


def _bottom(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def greedy_card(round_: Round, rng: random.Random) -> int:
    """The greedy policy's card (a face; ``Round.play`` takes either copy) for the seat to play."""
    legal = _faces(round_.legal_mask())
    if legal & (legal - 1) == 0:
        return _top(legal)
    table = round_.table
    points = table.points
    want = round_.match_phase == 2  # points taken count down: take them
    trick = round_.trick
    if not trick:
        suits = [m for m in _SUIT_FACES if legal & m]
        suit = suits[rng.randrange(len(suits))] if len(suits) > 1 else suits[0]
        return _top(legal & suit) if want else _bottom(legal & suit)
    led = _SUIT_FACES[(trick[0] >> 4) & 3]
    follow = legal & led
    if follow:
        best = _top(_faces(sum(1 << c for c in trick)) & led)
        last = len(trick) == table.players - 1
        if want:
            return _top(follow)
        below = follow & ((1 << best) - 1)
        if below:
            return _top(below)
        return _top(follow) if last else _bottom(follow)
    # void in the led suit: the most expensive card (points, then rank), the cheapest when wanted
    cards = cards_of(legal)
    if want:
        return min(cards, key=lambda c: (points[c], c & 15))
    return max(cards, key=lambda c: (points[c], c & 15))


def _pass_cards(round_: Round, seat: int, count: int) -> list[int]:
    points = round_.table.points
    cards = round_.hand(seat)
    want = round_.match_phase == 2
    cards.sort(key=lambda c: (points[c], c & 15), reverse=not want)
    return cards[:count]


def finish(round_: Round, rng: random.Random, policy: Policy = "greedy") -> list[int]:
    """Play ``round_`` to its end with ``policy`` for every seat (changing it) and return the
    round's score changes by seat."""
    count = round_.table.rules.pass_count
    choose = greedy_card if policy == "greedy" else _random_card
    while True:
        phase = round_.phase
        if phase == DONE:
            result = round_.result
            assert result is not None
            return result.score_changes
        if phase == PASS:
            for seat in round_.awaiting():
                round_.pass_cards(seat, _pass_cards(round_, seat, count))
        elif phase == DECLARE:
            round_.declare(round_.turn, False)
        elif phase == MOON:
            round_.choose_moon(round_.turn, "add_to_others")
        else:
            play = round_.play
            for _ in range(sum(map(int.bit_count, round_.hands))):
                play(round_.turn, choose(round_, rng))


def _random_card(round_: Round, rng: random.Random) -> int:
    legal = round_.legal_plays()
    return legal[rng.randrange(len(legal))]
