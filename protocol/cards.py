"""Card codes: the one definition of a card that the wire, the logs and the rules engine share.

On the wire a card is a two-character code, rank then suit: ``"2C"``, ``"TD"``, ``"QS"``,
``"AH"``. Inside the engine a card is a small integer (its *id*) so that a hand is a bit mask
and the legality checks are a few integer operations:

    id = copy * 64 + suit * 16 + rank        rank 2..14 (14 = ace), suit 0..3 (C, D, S, H)

``copy`` is 0 except for the second deck of the double-deck game, where two identical cards
share one code. This module depends on nothing, so a bot written in Python can use it alone.
"""

from __future__ import annotations

from typing import Final, TypeAlias

Card: TypeAlias = int
"""A card id (see the module docstring)."""

SUIT_CHARS: Final = "CDSH"
"""Suit letters by suit number: clubs, diamonds, spades, hearts."""
SUIT_SYMBOLS: Final = "♣♦♠♥"
SUIT_NAMES: Final = ("clubs", "diamonds", "spades", "hearts")
RANK_CHARS: Final = "??23456789TJQKA"
"""Rank letters by rank number (2..14); index 0 and 1 are unused."""

CLUBS: Final = 0
DIAMONDS: Final = 1
SPADES: Final = 2
HEARTS: Final = 3

JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
ACE: Final = 14

COPY_STRIDE: Final = 64
"""Id offset of the second deck's copy of a card."""


def make_card(suit: int, rank: int, copy: int = 0) -> Card:
    """The id of a card from its suit (0..3), rank (2..14) and deck copy (0 or 1)."""
    if not 0 <= suit <= 3 or not 2 <= rank <= 14 or copy not in (0, 1):
        raise ValueError(f"no such card: suit {suit}, rank {rank}, copy {copy}")
    return copy * COPY_STRIDE + suit * 16 + rank


def suit_of(card: Card) -> int:
    """The suit number (0..3) of a card id."""
    return (card >> 4) & 3


def rank_of(card: Card) -> int:
    """The rank number (2..14) of a card id."""
    return card & 15


def face_of(card: Card) -> Card:
    """The id of the first-deck copy of a card: identical cards share a face."""
    return card & 63


def _build_codes() -> tuple[dict[str, Card], list[str]]:
    by_code: dict[str, Card] = {}
    codes = [""] * (2 * COPY_STRIDE)
    for suit, suit_char in enumerate(SUIT_CHARS):
        for rank in range(2, 15):
            code = RANK_CHARS[rank] + suit_char
            card = make_card(suit, rank)
            by_code[code] = card
            codes[card] = code
            codes[card + COPY_STRIDE] = code
    return by_code, codes


_BY_CODE, _CODES = _build_codes()
CODES: Final[tuple[str, ...]] = tuple(_CODES)
"""The wire code of each card id (``CODES[card]``, both copies of a double deck); ``""`` for
an id that is no card. For hot loops over ids known to be cards; ``card_code`` checks."""


def card_code(card: Card) -> str:
    """The wire code of a card id, for example ``"QS"``."""
    code = _CODES[card] if 0 <= card < len(_CODES) else ""
    if not code:
        raise ValueError(f"not a card id: {card}")
    return code


def card_symbol(card: Card) -> str:
    """A human label for terminals and logs, for example ``"Q♠"`` or ``"10♥"``."""
    rank = rank_of(card)
    label = "10" if rank == 10 else RANK_CHARS[rank]
    return label + SUIT_SYMBOLS[suit_of(card)]


def parse_card(code: str) -> Card:
    """The id (first copy) of a wire code. Accepts ``"QS"``, ``"qs"`` and ``"10S"``.

    Raises ``ValueError`` naming the code when it is not a card.
    """
    card = _BY_CODE.get(code)
    if card is not None:  # the usual case: a code exactly as the referee writes it
        return card
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    card = _BY_CODE.get(text)
    if card is None:
        shown = code if len(code) <= 16 else f"{code[:16]}..."  # a bot chooses the code's length
        raise ValueError(f"not a card code: {shown!r} (expected rank then suit, like 'QS' or 'TH')")
    return card


def parse_cards(codes: list[str] | tuple[str, ...]) -> list[Card]:
    """Ids of several wire codes, in order."""
    return [parse_card(code) for code in codes]


def card_codes(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    """Wire codes of several card ids, in order."""
    return [card_code(card) for card in cards]


ALL_CODES: Final = tuple(sorted(_BY_CODE, key=lambda c: _BY_CODE[c]))
"""Every code of a 52-card deck, clubs first, low to high within a suit."""
