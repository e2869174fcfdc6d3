"""Card codes as the rules engine judges them: a bot's code becomes a card id (a code that is
no card is an illegal move, ``not_a_card``), and a mask becomes codes for a message. The
runner, the replay verifier and the conformance check all read bots' cards this one way."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.cards import Card, card_code, parse_card
from referee.rules.cardset import cards_of
from referee.rules.errors import IllegalMove


def bot_card(code: str) -> Card:
    """The card id of a code a bot sent; raises ``IllegalMove`` (``not_a_card``) otherwise."""
    try:
        return parse_card(code)
    except ValueError as err:
        raise IllegalMove("not_a_card", str(err)) from None


def bot_cards(codes: Sequence[str]) -> list[Card]:
    """The card ids of several codes a bot sent."""
    return [bot_card(code) for code in codes]


def codes_of(mask: int) -> list[str]:
    """The wire codes of the cards in a mask, lowest id first."""
    return [card_code(c) for c in cards_of(mask)]
