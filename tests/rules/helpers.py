"""Building rounds from explicit, hand-written deals, and checking illegal moves.

Cards are written as wire codes in one string: ``"2C 3C QS TH"``. A deal is a mapping from
seat to such a string; seats left out are filled with the rest of the deck (lowest card id
first, seat by seat), so a test spells out only the hands that matter to it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from protocol.cards import Card, card_code, face_of, parse_card
from protocol.ruleset import PassDirection, RuleSet
from referee.rules import IllegalMove, Match, Round, deck_for
from referee.rules.cardset import cards_of, mask_of
from referee.rules.match import hands_to_masks


def cards(text: str) -> list[Card]:
    """Card ids of a space-separated list of codes."""
    return [parse_card(code) for code in text.split()]


def codes(cards_: Sequence[Card] | int) -> list[str]:
    """Wire codes of card ids (or of a mask), in id order."""
    ids = cards_of(cards_) if isinstance(cards_, int) else sorted(cards_)
    return [card_code(c) for c in ids]


def code_set(text: str) -> set[str]:
    """The codes of a space-separated list, normalised (``"10H"`` -> ``"TH"``)."""
    return {card_code(c) for c in cards(text)}


def deal_hands(rules: RuleSet, fixed: Mapping[int, str]) -> list[list[Card]]:
    """Hands by seat: the ``fixed`` ones as written, the others filled from the rest of the deck."""
    deck = deck_for(rules)
    pool = Counter(face_of(c) for c in deck.cards)
    hands: list[list[Card] | None] = [None] * rules.players
    for seat, text in fixed.items():
        hand = cards(text)
        assert len(hand) == deck.hand_size, f"seat {seat}: {len(hand)} cards, expected {deck.hand_size}"
        for card in hand:
            pool[card] -= 1
            assert pool[card] >= 0, f"seat {seat}: {card_code(card)} is not in the deck or is dealt twice"
        hands[seat] = hand
    rest = sorted(pool.elements())
    for seat in range(rules.players):
        if hands[seat] is None:
            hands[seat], rest = rest[: deck.hand_size], rest[deck.hand_size :]
    assert not rest
    return [h for h in hands if h is not None]


def make_round(
    rules: RuleSet,
    fixed: Mapping[int, str],
    *,
    dealer: int = 0,
    direction: PassDirection = "hold",
    phase: int = 1,
) -> Round:
    """A round of ``rules`` with a hand-built deal (see ``deal_hands``)."""
    deck = deck_for(rules)
    return Round(deck, hands_to_masks(deck, deal_hands(rules, fixed)), dealer, direction, phase)


def match_round(match: Match, fixed: Mapping[int, str]) -> Round:
    """The match's next round, dealt from explicit hands."""
    return match.next_round(hands=deal_hands(match.rules, fixed))


def hand_codes(round_: Round, seat: int) -> set[str]:
    return {card_code(c) for c in round_.hand(seat)}


def legal_codes(round_: Round) -> set[str]:
    return {card_code(c) for c in round_.legal_plays()}


def play(round_: Round, text: str) -> None:
    """Play the listed cards, each from the seat whose turn it is."""
    for card in cards(text):
        round_.play(round_.turn, card)


def play_lowest(round_: Round) -> None:
    """Play the lowest legal card for whoever is to play, until the play phase ends."""
    while round_.phase == "play":
        round_.play(round_.turn, round_.legal_plays()[0])


def taken_mask(text: str) -> int:
    return mask_of(cards(text))


def snapshot(round_: Round) -> tuple[Any, ...]:
    """Everything a move could change, to check that an illegal one changed nothing."""
    return (
        list(round_.hands),
        list(round_.passes),
        list(round_.received),
        list(round_.declared),
        round_.declarations_made(),
        list(round_.trick),
        round_.trick_number,
        len(round_.tricks),
        round_.turn,
        round_.leader,
        round_.phase,
        list(round_.points),
        list(round_.taken),
        round_.broken,
        round_.result,
        round_.legal_plays(),
    )


def assert_illegal(round_: Round, action: Callable[[], object], rule: str, message: str) -> IllegalMove:
    """``action`` raises ``IllegalMove`` for ``rule`` with ``message`` in its text and changes nothing."""
    before = snapshot(round_)
    with pytest.raises(IllegalMove) as info:
        action()
    err = info.value
    assert err.rule == rule, f"rule {err.rule!r} ({err.message}), expected {rule!r}"
    assert message in str(err), f"message {str(err)!r} does not mention {message!r}"
    assert err.message == str(err)
    assert snapshot(round_) == before, "an illegal move changed the round"
    return err


def suit_split(suit_by_seat: str) -> dict[int, str]:
    """A deal of the 52-card deck where seat i holds the whole suit ``suit_by_seat[i]``."""
    ranks = "23456789TJQKA"
    return {seat: " ".join(r + suit for r in ranks) for seat, suit in enumerate(suit_by_seat)}


def piket_split(suit_by_seat: str) -> dict[int, str]:
    """A deal of the 32-card piket deck where seat i holds the whole suit ``suit_by_seat[i]``."""
    ranks = "789TJQKA"
    return {seat: " ".join(r + suit for r in ranks) for seat, suit in enumerate(suit_by_seat)}
