"""Playouts: finish a round fast with a simple policy and return what it scores.

A search bot evaluates a move by playing the rest of the round many times in sampled worlds
(``referee.rules.sampling``). Each playout here drives a ``Round`` through its public calls,
every seat playing the same cheap policy:

- ``greedy`` (the default): follow with the most expensive card that still loses the trick
  (the most points, then the highest: the Q♠ under the K♠, not the J♠); when every card
  wins, the cheapest (of those the highest if last to play, the lowest otherwise), so a seat
  never wins a trick with its own Q♠ (or Black Maria's A♠ or K♠) when another card would do;
  when void, throw the most expensive card; lead the lowest card of a suit chosen at random
  among the cards that are not *costly* (worth more than the cheapest penalty card, or a
  bonus: the Q♠, Black Maria's A♠ and K♠, the Omnibus J♦), a costly card only when there is
  no other. In a phase where points taken count down (phase 2 of a two-phase match) the
  policy turns round: it tries to win tricks with points in them.
- ``random``: a uniformly random legal card.

Passing (where a playout starts before it) gives each seat's most expensive cards, nobody
declares, and the shooter of a moon adds to the others. The policy reads masks only, so a
playout of a 52-card round costs little more than the 52 ``Round.play`` calls.
"""

from __future__ import annotations

import functools
import random
from typing import Final, Literal, NamedTuple, TypeAlias

from protocol.cards import COPY_STRIDE
from referee.rules.cardset import cards_of, mask_of
from referee.rules.deck import Deck
from referee.rules.round import DECLARE, DONE, MOON, PASS, Round

PlayoutPolicy: TypeAlias = Literal["greedy", "random"]
PLAYOUT_POLICIES: Final[tuple[PlayoutPolicy, ...]] = ("greedy", "random")

_LOW64: Final = (1 << 64) - 1
_SUIT_FACES: Final = tuple(0x7FFC << (16 * s) for s in range(4))
"""The faces (ranks 2..14) of each suit, as a mask."""
_FACE_BITS: Final = tuple(1 << (card % COPY_STRIDE) for card in range(2 * COPY_STRIDE))
"""By card id, the bit of its face (either copy)."""


def _faces(mask: int) -> int:
    return (mask | mask >> 64) & _LOW64


def _top(mask: int) -> int:
    return mask.bit_length() - 1


def _bottom(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class _Costs(NamedTuple):
    """What the policy reads of a deck's card values, by face (see ``_costs``). The masks and
    sort keys beyond the first three are derived from them once per deck, so that a playout's
    decisions do fewer operations on masks (wider than the 30 bits CPython computes on fast)."""

    points: list[int]
    """The points of each face."""
    penalty: int
    """The faces worth points."""
    costly: int
    """The faces worth something other than nothing or the cheapest penalty."""
    cheap: int
    """The faces that are not costly."""
    free: int
    """The faces that are not penalty cards."""
    priced: int
    """The faces that are penalty cards or costly."""
    duck_key: list[int]
    """By face: ``points * 64 + face``, which orders as ``(points, face)``."""
    void_key: list[int]
    """By face: ``points * 16 + rank``, which orders as ``(points, rank)`` (a rank is below 16)."""
    double: bool
    """Whether legal masks hold second copies, to be folded onto faces."""


@functools.lru_cache(maxsize=64)
def _costs(deck: Deck) -> _Costs:
    """What the policy reads of a deck's card values, by face (the policy plays faces): the
    points of each face (in a double deck the value of whichever copy is in play, so a face
    whose first copy is out of play still counts), the faces worth points, and the *costly*
    faces, worth something other than nothing or the cheapest penalty (the Q♠; Black Maria's
    A♠ and K♠; the Omnibus J♦)."""
    points = [0] * COPY_STRIDE
    for card in deck.cards:
        points[card % COPY_STRIDE] = deck.points[card]
    faces = {c % COPY_STRIDE for c in deck.cards}
    cheapest = min((points[f] for f in faces if points[f] > 0), default=0)
    penalty = mask_of(f for f in faces if points[f] > 0)
    costly = mask_of(f for f in faces if points[f] not in (0, cheapest))
    return _Costs(
        points=points,
        penalty=penalty,
        costly=costly,
        cheap=_LOW64 & ~costly,
        free=_LOW64 & ~penalty,
        priced=penalty | costly,
        duck_key=[points[f] * 64 + f for f in range(COPY_STRIDE)],
        void_key=[points[f] * 16 + (f & 15) for f in range(COPY_STRIDE)],
        double=deck.double,
    )


def greedy_card(round_: Round, rng: random.Random) -> int:
    """The greedy policy's card (a face; ``Round.play`` takes either copy) for the seat to play."""
    return _greedy(round_, rng, _costs(round_.deck))


def _greedy(round_: Round, rng: random.Random, costs: _Costs) -> int:
    legal = round_.legal_mask()
    if costs.double:
        legal = _faces(legal)
    if legal.bit_count() <= 1:
        return _top(legal)
    want = round_.match_phase == 2  # points taken count down: take them
    trick = round_.trick
    if not trick:
        pool = legal if want else (legal & costs.cheap) or legal
        suits = list(filter(pool.__and__, _SUIT_FACES))  # the suits in the pool
        suit = suits[rng.randrange(len(suits))] if len(suits) > 1 else suits[0]
        return _top(pool & suit) if want else _bottom(pool & suit)
    led = _SUIT_FACES[(trick[0] >> 4) & 3]
    follow = legal & led
    if follow:
        if want:
            return _top(follow)
        best = 0  # the highest face of the led suit in the trick
        for card in trick:
            face = _FACE_BITS[card]
            if face > best and face & led:
                best = face
        below = follow & (best - 1)
        if below:  # ducking: the most expensive card that still loses
            if not below & costs.priced:  # all worth nothing: the highest
                return _top(below)
            return max(cards_of(below), key=costs.duck_key.__getitem__)
        # every card wins: the cheapest, and of those the highest if last to play, else the lowest
        free = follow & costs.free
        if not free:
            points = costs.points
            cards = cards_of(follow)
            cheapest = min(points[c] for c in cards)
            free = mask_of(c for c in cards if points[c] == cheapest)
        return _top(free) if len(trick) == round_.deck.players - 1 else _bottom(free)
    # void in the led suit: the most expensive card (points, then rank), the cheapest when wanted
    cards = cards_of(legal)
    if want:
        return min(cards, key=costs.void_key.__getitem__)
    return max(cards, key=costs.void_key.__getitem__)


def _pass_cards(round_: Round, seat: int, count: int) -> list[int]:
    points = round_.deck.points
    cards = round_.hand(seat)
    want = round_.match_phase == 2
    cards.sort(key=lambda c: (points[c], c & 15), reverse=not want)
    return cards[:count]


def finish(round_: Round, rng: random.Random, policy: PlayoutPolicy = "greedy") -> list[int]:
    """Play ``round_`` to its end with ``policy`` for every seat (changing it) and return the
    round's score changes by seat."""
    count = round_.deck.rules.pass_count
    costs = _costs(round_.deck)
    greedy = policy == "greedy"
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
                play(round_.turn, _greedy(round_, rng, costs) if greedy else _random_card(round_, rng))


def _random_card(round_: Round, rng: random.Random) -> int:
    legal = round_.legal_plays()
    return legal[rng.randrange(len(legal))]
