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
from collections.abc import Sequence

from protocol.cards import Card
from referee.rules.cardset import mask_of
from referee.rules.table import Table


def _words(label: str, n: int) -> tuple[int, ...]:
    data = hashlib.shake_256(label.encode()).digest(8 * n)
    return struct.unpack(f"<{n}Q", data)


def shuffled(cards: Sequence[Card], seed: int, deal_number: int) -> list[Card]:
    """The cards in the shuffled order of deal ``deal_number`` of a match with ``seed``."""
    deck = list(cards)
    words = _words(f"hearts-deal:{seed}:{deal_number}", len(deck))
    for i, word in zip(range(len(deck) - 1, 0, -1), words, strict=False):
        j = word % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def draw_seat(seed: int, label: str, players: int) -> int:
    """A seat drawn from the seed, for "who deals first"."""
    return _words(f"hearts-{label}:{seed}", 1)[0] % players


def deal(table: Table, seed: int, deal_number: int, dealer: int) -> list[int]:
    """The hands (as masks, indexed by seat) of one deal."""
    deck = shuffled(table.cards, seed, deal_number)
    n = table.players
    hands = [0] * n
    if table.rules.deal_packets == (1,):
        for k in range(n):
            hands[(dealer + 1 + k) % n] = mask_of(deck[k::n])
        return hands
    held = [0] * n
    packets = table.rules.deal_packets
    seat = (dealer + 1) % n
    position = 0
    packet = 0
    while position < len(deck):
        size = min(packets[packet % len(packets)], table.hand_size - held[seat])
        for card in deck[position : position + size]:
            hands[seat] |= 1 << card
        held[seat] += size
        position += size
        seat = (seat + 1) % n
        if seat == (dealer + 1) % n:
            packet += 1
    return hands
