"""Sets of cards as bit masks: bit ``id`` is set when the card with that id is in the set.

A hand, a trick or the cards a seat has taken are plain ``int`` masks, so following suit is
``hand & suit_mask`` and "is this card in the hand" is one shift. These helpers convert
between masks and lists of card ids; ``cards_of`` is on the hot path of every decision, so
it reads a single deck's mask one suit at a time from precomputed tables.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import COPY_STRIDE, Card

RANK_BITS = 0x1FFF
"""Ranks 2..14 of one suit, shifted down by 2: ``(mask >> (suit * 16 + 2)) & RANK_BITS``."""


def _suit_table(suit: int) -> list[tuple[Card, ...]]:
    """Entry ``bits`` holds the ids of the ranks set in ``bits`` (rank 2 = bit 0), ascending;
    built from the entry without the highest bit, so it costs one small tuple per entry."""
    base = suit * 16 + 2
    table: list[tuple[Card, ...]] = [()]
    for bits in range(1, RANK_BITS + 1):
        high = bits.bit_length() - 1
        table.append((*table[bits ^ (1 << high)], base + high))
    return table


CLUB_IDS, DIAMOND_IDS, SPADE_IDS, HEART_IDS = (_suit_table(s) for s in range(4))
"""Per suit, entry ``(mask >> (suit * 16 + 2)) & RANK_BITS``: the ids of those cards, ascending.
``Round.legal_plays`` inlines ``cards_of`` with these (one call less on every decision)."""


def mask_of(cards: Iterable[Card]) -> int:
    """The mask of a collection of distinct card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[Card]:
    """The card ids in a mask, lowest id first (clubs, diamonds, spades, hearts; low to high)."""
    if mask >> COPY_STRIDE:
        return _cards_of_any(mask)
    return [
        *CLUB_IDS[(mask >> 2) & RANK_BITS],
        *DIAMOND_IDS[(mask >> 18) & RANK_BITS],
        *SPADE_IDS[(mask >> 34) & RANK_BITS],
        *HEART_IDS[(mask >> 50) & RANK_BITS],
    ]


_FIRST_COPY = sum(RANK_BITS << (suit * 16 + 2) for suit in range(4))
_BOTH_COPIES = _FIRST_COPY | _FIRST_COPY << COPY_STRIDE


def _cards_of_any(mask: int) -> list[Card]:
    if not mask & ~_BOTH_COPIES:  # cards of a double deck: each copy from the tables
        first = mask & _FIRST_COPY
        second = mask >> COPY_STRIDE
        return [
            *CLUB_IDS[(first >> 2) & RANK_BITS],
            *DIAMOND_IDS[(first >> 18) & RANK_BITS],
            *SPADE_IDS[(first >> 34) & RANK_BITS],
            *HEART_IDS[(first >> 50) & RANK_BITS],
            *[card + COPY_STRIDE for card in cards_of(second)],
        ]
    cards: list[Card] = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def count(mask: int) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()
