"""The Deck (referee/rules/deck.py): cards in play, values, masks and option checks."""

from __future__ import annotations

import pytest

from protocol.cards import COPY_STRIDE, card_code, parse_card
from protocol.ruleset import PassDirection, RuleSet
from referee.rules import Deck, InvalidRuleSet, deck_for, ruleset
from referee.rules.cardset import cards_of, count, mask_of
from referee.rules.deck import pass_offset
from tests.rules.helpers import code_set


def mask_codes(mask: int) -> set[str]:
    return {card_code(c) for c in cards_of(mask)}


@pytest.mark.parametrize(
    ("direction", "players", "offset"),
    [
        ("hold", 4, 0),
        ("left", 4, 1),
        ("right", 4, 3),
        ("across", 4, 2),
        ("left", 3, 1),
        ("right", 3, 2),
        ("left", 5, 1),
        ("right", 5, 4),
        ("left2", 5, 2),
        ("right2", 5, 3),
        ("across", 6, 3),
        ("left2", 6, 2),
        ("right2", 6, 4),
    ],
)
def test_pass_offset_counts_seats_clockwise(direction: PassDirection, players: int, offset: int) -> None:
    assert pass_offset(direction, players) == offset


def test_deck_masks_of_the_american_game() -> None:
    deck = deck_for(ruleset("american"))
    assert mask_codes(deck.penalty_mask) == {r + "H" for r in "23456789TJQKA"} | {"QS"}
    assert mask_codes(deck.hearts_mask) == {r + "H" for r in "23456789TJQKA"}
    assert mask_codes(deck.queen_mask) == {"QS"}
    assert deck.breaker_mask == deck.hearts_mask
    assert count(deck.full_mask) == 52
    assert [count(m) for m in deck.suit_masks] == [13, 13, 13, 13]
    assert deck.lead_card == parse_card("2C")
    assert deck.moon_points == 26
    assert deck.points[parse_card("QS")] == 13
    assert deck.points[parse_card("AS")] == 0


def test_queen_breaks_hearts_adds_the_queen_to_the_breakers() -> None:
    deck = deck_for(ruleset("american", {"queen_breaks_hearts": True}))
    assert mask_codes(deck.breaker_mask) == mask_codes(deck.hearts_mask) | {"QS"}


def test_negative_cards_are_not_penalty_cards() -> None:
    deck = deck_for(ruleset("omnibus"))
    assert not deck.penalty_mask >> parse_card("JD") & 1
    assert deck.points[parse_card("JD")] == -10
    assert deck.penalty_total == 26


def test_values_of_cards_not_in_play_are_zero() -> None:
    # Hearts 2..6 are listed in card_points but not in the piket deck.
    deck = deck_for(ruleset("dutch"))
    assert deck.points[parse_card("2H")] == 0
    assert deck.points[parse_card("7H")] == 1
    assert deck.penalty_total == 15


def test_moon_points_default_to_the_penalty_total_or_the_option() -> None:
    assert deck_for(ruleset("argentine")).moon_points == 45
    assert deck_for(ruleset("dutch-classic")).moon_points == 15
    assert deck_for(ruleset("american", {"moon_points": 20})).moon_points == 20


def test_opening_card_per_rule() -> None:
    assert deck_for(ruleset("dutch")).lead_card is None
    assert deck_for(ruleset("dutch", {"opening_lead": "lowest_club"})).lead_card == parse_card("7C")
    assert deck_for(ruleset("american", {"opening_lead": "seven_of_clubs"})).lead_card == parse_card("7C")
    assert deck_for(ruleset("american-5", {"remove": ["2C", "2D"]})).lead_card == parse_card("3C")


def test_double_deck_has_two_copies_and_both_copies_count() -> None:
    deck = deck_for(ruleset("double-deck"))
    qs = parse_card("QS")
    assert deck.double
    assert qs in deck.cards
    assert qs + COPY_STRIDE in deck.cards
    assert deck.points[qs + COPY_STRIDE] == 13
    assert count(deck.queen_mask) == 2
    assert count(deck.penalty_mask) == 28
    assert deck.penalty_total == 52


def test_trim_to_deal_evenly_removes_low_diamonds_then_spades() -> None:
    deck = deck_for(ruleset("american", {"players": 7}))  # 104 cards, 6 too many for 7 seats
    faces = [card_code(c) for c in deck.cards]
    assert len(faces) == 98
    assert deck.hand_size == 14
    for code in ("2D", "2S", "3D"):
        assert code not in faces
    assert faces.count("3S") == 2
    assert faces.count("2C") == 2


def test_remove_takes_one_copy_per_entry_in_a_double_deck() -> None:
    rules = ruleset("american", {"players": 6, "trim_to_deal_evenly": False, "remove": ["2D", "2S"]})
    faces = [card_code(c) for c in deck_for(rules).cards]
    assert faces.count("2D") == 1
    assert faces.count("2S") == 1
    assert len(faces) == 102


def test_deck_for_is_built_once_per_rule_set() -> None:
    rules = ruleset("dutch")
    assert deck_for(rules) is deck_for(ruleset("dutch"))
    assert isinstance(deck_for(rules), Deck)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"players": 2}, "players must be 3 or more"),
        ({"players": 3}, "across needs an even number of players, not 3"),
        ({"remove": ("2D",)}, "51 cards do not deal evenly to 4 players"),
        ({"remove": ("QQ",)}, "remove: not a card code"),
        ({"pass_schedule": ("left", "right2")}, "right2 needs 5 or more players"),
        ({"pass_count": -1}, "pass_count must be 0 to 4"),
        ({"deal_packets": ()}, "deal_packets must be positive"),
        ({"end": "rounds", "rounds": 0}, "rounds must be at least 1"),
        ({"deck": "piket", "add": ("7S",)}, "add: 7S is already in the deck"),
    ],
)
def test_deck_refuses_options_that_cannot_be_played(overrides: dict[str, object], message: str) -> None:
    rules = RuleSet(**overrides)  # type: ignore[arg-type]
    with pytest.raises(InvalidRuleSet) as info:
        Deck(rules)
    assert message in str(info.value)


def test_a_deck_without_clubs_cannot_open_with_the_lowest_club() -> None:
    clubs = tuple(r + "C" for r in "23456789TJQKA")
    rules = RuleSet(remove=(*clubs, "2D", "3D", "4D"), players=4)
    with pytest.raises(InvalidRuleSet, match="the deck has no clubs"):
        Deck(rules)


def test_mask_helpers_round_trip() -> None:
    ids = sorted(parse_card(c) for c in ("QS", "2C", "AH"))
    mask = mask_of(ids)
    assert cards_of(mask) == ids
    assert count(mask) == 3
    assert mask_codes(mask) == code_set("QS 2C AH")
