"""The referee's own moves for a seat whose bot was dropped or substituted.

Deterministic and documented (docs/protocol.md), so a replay can check them: pass the
highest cards (highest rank first; among equal ranks hearts, spades, diamonds, clubs), play
the lowest-ranked legal card (among equal ranks clubs, diamonds, spades, hearts), never
declare, and score a moon by adding to the others.
"""

from __future__ import annotations

from protocol.cards import Card, rank_of, suit_of
from protocol.ruleset import MoonChoice
from referee.rules.round import Round


def fallback_pass(round_: Round, seat: int) -> list[Card]:
    """The ``pass_count`` highest cards of the seat's hand."""
    hand = round_.hand(seat)
    hand.sort(key=lambda c: (rank_of(c), suit_of(c)), reverse=True)
    return hand[: round_.deck.rules.pass_count]


def fallback_play(round_: Round) -> Card:
    """The lowest-ranked legal card of the seat to play."""
    return min(round_.legal_plays(), key=lambda c: (rank_of(c), suit_of(c)))


def fallback_declare() -> bool:
    return False


def fallback_moon() -> MoonChoice:
    return "add_to_others"
