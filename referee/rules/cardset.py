"""Sets of cards as bit masks: bit ``id`` is set when the card with that id is in the set.

A hand, a trick or the cards a seat has taken are plain ``int`` masks, so following suit is
``hand & suit_mask`` and "is this card in the hand" is one shift. These helpers convert
between masks and lists of card ids.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import Card


def mask_of(cards: Iterable[Card]) -> int:
    """The mask of a collection of distinct card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[Card]:
    """The card ids in a mask, lowest id first (clubs, diamonds, spades, hearts; low to high)."""
    cards: list[Card] = []
    append = cards.append
    while mask:
        low = mask & -mask
        append(low.bit_length() - 1)
        mask ^= low
    return cards


def count(mask: int) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()
