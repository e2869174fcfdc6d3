"""Sets of cards as bit masks: bit ``id`` is set when the card with that id is in the set.

A hand, a trick or the cards a seat has taken are plain ``int`` masks, so following suit is
``hand & suit_mask`` and "is this card in the hand" is one shift. These helpers convert
between masks and lists of card ids; ``cards_of`` is on the hot path of every decision, so
it reads a single deck's mask one suit at a time from precomputed tables.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import COPY_STRIDE, Card

_RANK_BITS = 0x1FFF  # ranks 2..14 of one suit, shifted down by 2


def _suit_table(suit: int) -> list[tuple[Card, ...]]:
    """Entry ``bits`` holds the ids of the ranks set in ``bits`` (rank 2 = bit 0), ascending;
    built from the entry without the highest bit, so it costs one small tuple per entry."""
    base = suit * 16 + 2
    table: list[tuple[Card, ...]] = [()]
    for bits in range(1, _RANK_BITS + 1):
        high = bits.bit_length() - 1
        table.append((*table[bits ^ (1 << high)], base + high))
    return table


_CLUBS, _DIAMONDS, _SPADES, _HEARTS = (_suit_table(s) for s in range(4))


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
        *_CLUBS[(mask >> 2) & _RANK_BITS],
        *_DIAMONDS[(mask >> 18) & _RANK_BITS],
        *_SPADES[(mask >> 34) & _RANK_BITS],
        *_HEARTS[(mask >> 50) & _RANK_BITS],
    ]


def _cards_of_any(mask: int) -> list[Card]:
    cards: list[Card] = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def count(mask: int) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()
