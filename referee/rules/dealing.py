"""Shuffling and dealing, reproducible from a seed on any machine and in any language.

A deal is a Fisher-Yates shuffle driven by SHAKE-256 (FIPS 202), so the same seed gives the
same hands everywhere, forever, and a bot author can reproduce a logged deal in any language:

    stream = SHAKE-256(f"hearts-deal:{seed}:{deal_number}") read as little-endian uint64 words
    for i from len(deck)-1 down to 1: swap deck[i] with deck[word[k] mod (i+1)], k = 0, 1, ...

``deck`` is the cards in play sorted by id. The shuffled deck is then dealt clockwise from
the seat left of the dealer in packets (``RuleSet.deal_packets``), one packet per seat.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from operator import mod
from typing import TypeVar

from protocol.cards import Card
from referee.rules.deck import Deck

_T = TypeVar("_T")

_UNPACK: dict[int, Callable[[bytes], tuple[int, ...]]] = {}
"""``struct`` unpackers of ``n`` little-endian uint64 words, by ``n``."""


def _words(label: str, n: int) -> tuple[int, ...]:
    unpack = _UNPACK.get(n)
    if unpack is None:
        unpack = _UNPACK[n] = struct.Struct(f"<{n}Q").unpack
    return unpack(hashlib.shake_256(label.encode()).digest(8 * n))


def _shuffle(deck: list[_T], seed: int, deal_number: int) -> None:
    """Fisher-Yates in place, as the module docstring spells it: the draws ``word[k] mod (i+1)``
    are all taken in one ``map``, so the loop only swaps."""
    size = len(deck)
    # The stream is read as far as the draws go: size - 1 words (the last one of the size words
    # the docstring's loop could index is never drawn), which is a prefix of the same stream.
    words = _words(f"hearts-deal:{seed}:{deal_number}", size - 1) if size > 1 else ()
    i = size - 1
    for j in map(mod, words, range(size, 1, -1)):  # j = word[k] mod (i + 1), i = size-1-k
        deck[i], deck[j] = deck[j], deck[i]
        i -= 1


def shuffled(cards: Sequence[Card], seed: int, deal_number: int) -> list[Card]:
    """The cards in the shuffled order of deal ``deal_number`` of a match with ``seed``."""
    deck = list(cards)
    _shuffle(deck, seed, deal_number)
    return deck


def draw_seat(seed: int, label: str, players: int) -> int:
    """A seat drawn from the seed, for "who deals first"."""
    return _words(f"hearts-{label}:{seed}", 1)[0] % players


def deal(deck: Deck, seed: int, deal_number: int, dealer: int) -> list[int]:
    """The hands (as masks, indexed by seat) of one deal."""
    # The deck is shuffled as card bits (1 << card) rather than ids: the same permutation, and
    # a hand is then the sum of its bits (distinct powers of two add up to their union).
    bits = list(deck.card_bits)
    _shuffle(bits, seed, deal_number)
    n = deck.players
    hands = [0] * n
    if deck.rules.deal_packets == (1,):
        for k in range(n):
            hands[(dealer + 1 + k) % n] = sum(bits[k::n])
        return hands
    held = [0] * n
    packets = deck.rules.deal_packets
    seat = (dealer + 1) % n
    position = 0
    packet = 0
    while position < len(bits):
        size = min(packets[packet % len(packets)], deck.hand_size - held[seat])
        hands[seat] |= sum(bits[position : position + size])
        held[seat] += size
        position += size
        seat = (seat + 1) % n
        if seat == (dealer + 1) % n:
            packet += 1
    return hands
