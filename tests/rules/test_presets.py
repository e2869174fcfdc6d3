"""Named presets (referee/rules/presets.py): each seed variant, and its 3- and 5-player decks."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from protocol.cards import card_code, parse_card
from protocol.ruleset import RuleSet
from referee.rules import PRESETS, InvalidRuleSet, deck_for, ruleset, with_options

PIKET = {r + s for r in "789TJQKA" for s in "CDSH"}
STANDARD = {r + s for r in "23456789TJQKA" for s in "CDSH"}


def deck_codes(rules: RuleSet) -> set[str]:
    return {card_code(c) for c in deck_for(rules).cards}


# name: (players, deck size, hand size, penalty total)
EXPECTED = {
    "american": (4, 52, 13, 26),
    "american-moon-choice": (4, 52, 13, 26),
    "american-no-hold": (4, 52, 13, 26),
    "american-3": (3, 51, 17, 26),
    "american-5": (5, 50, 10, 26),
    "double-deck": (6, 102, 17, 52),
    "omnibus": (4, 52, 13, 26),
    "argentine": (4, 52, 13, 45),
    "black-maria": (3, 51, 17, 43),
    "dutch": (4, 32, 8, 15),
    "dutch-modern": (4, 32, 8, 15),
    "dutch-classic": (4, 32, 8, 59),
    "dutch-35": (4, 32, 8, 15),
    "achterhoeks": (4, 32, 8, 25),
}


def test_every_preset_is_listed_here() -> None:
    assert set(PRESETS) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_builds_with_documented_deck_hand_and_penalty_total(name: str) -> None:
    rules = ruleset(name)
    deck = deck_for(rules)
    players, size, hand, penalty = EXPECTED[name]
    assert rules.name == name
    assert rules.players == players
    assert len(deck.cards) == size
    assert deck.hand_size == hand
    assert deck.penalty_total == penalty
    assert rules.description
    assert PRESETS[name].sources


def test_omnibus_jack_of_diamonds_is_a_minus_ten_bonus_outside_the_penalty_total() -> None:
    deck = deck_for(ruleset("omnibus"))
    assert ruleset("omnibus").card_points["JD"] == -10
    assert deck.points[parse_card("JD")] == -10
    assert deck.penalty_total == 26
    assert "JD" not in {card_code(c) for c in deck.cards if deck.penalty_mask >> c & 1}


def test_argentine_every_jack_is_five_and_the_heart_jack_not_six() -> None:
    points = ruleset("argentine").card_points
    assert {points[j] for j in ("JC", "JD", "JS", "JH")} == {5}
    assert points["QS"] == 13
    assert points["2H"] == 1


def test_dutch_values_hearts_one_queen_of_spades_five_jack_of_clubs_two() -> None:
    rules = ruleset("dutch")
    deck = deck_for(rules)
    assert deck_codes(rules) == PIKET
    penalty = {card_code(c) for c in deck.cards if deck.penalty_mask >> c & 1}
    assert penalty == {r + "H" for r in "789TJQKA"} | {"QS", "JC"}
    assert rules.card_points["QS"] == 5
    assert rules.card_points["JC"] == 2
    assert rules.deal_packets == (3, 2, 3)
    assert rules.pass_count == 0
    assert rules.opening_lead == "left_of_dealer"
    assert rules.end == "two_phase"
    assert rules.threshold == 50


def test_dutch_classic_every_queen_thirteen_heart_queen_not_fourteen() -> None:
    rules = ruleset("dutch-classic")
    deck = deck_for(rules)
    queens = {card_code(c): deck.points[c] for c in deck.cards if card_code(c)[0] == "Q"}
    assert queens == {"QC": 13, "QD": 13, "QS": 13, "QH": 13}
    assert rules.moon_points == 15
    assert rules.end == "rounds"
    assert rules.rounds == 12


def test_achterhoeks_values_and_declarations() -> None:
    rules = ruleset("achterhoeks")
    deck = deck_for(rules)
    values = {card_code(c): deck.points[c] for c in deck.cards if deck.points[c]}
    assert values == {"JS": 8, "QD": 6, "QC": 3} | {r + "H": 1 for r in "789TJQKA"}
    assert rules.declarations
    assert rules.declaration_points == 10


def test_black_maria_passes_right_every_round_and_values_high_spades() -> None:
    rules = ruleset("black-maria")
    assert rules.pass_schedule == ("right",)
    assert rules.hearts_lead == "any_time"
    assert (rules.card_points["QS"], rules.card_points["KS"], rules.card_points["AS"]) == (13, 10, 7)
    assert deck_codes(rules) == STANDARD - {"2D"}


def test_american_defaults_follow_the_windows_game() -> None:
    rules = ruleset("american")
    assert rules.pass_count == 3
    assert rules.pass_schedule == ("left", "right", "across", "hold")
    assert rules.opening_lead == "lowest_club"
    assert rules.first_trick_no_points
    assert rules.hearts_lead == "after_broken"
    assert rules.moon == "add_to_others"
    assert rules.end == "target"
    assert rules.target == 100
    assert deck_codes(rules) == STANDARD


def test_preset_rules_round_trip_through_json() -> None:
    for name in PRESETS:
        rules = ruleset(name)
        assert msgspec.json.decode(msgspec.json.encode(rules), type=RuleSet) == rules


# -- player counts -------------------------------------------------------------------------


def test_american_for_three_removes_the_two_of_diamonds() -> None:
    rules = ruleset("american", {"players": 3})
    deck = deck_for(rules)
    assert deck_codes(rules) == STANDARD - {"2D"}
    assert deck.hand_size == 17
    assert "across" not in rules.pass_schedule
    assert rules.pass_schedule == ("left", "right", "hold")
    assert rules == msgspec.structs.replace(ruleset("american-3"), name="american", description=rules.description)


def test_american_for_five_removes_three_of_clubs_and_two_of_diamonds() -> None:
    rules = ruleset("american", {"players": 5})
    deck = deck_for(rules)
    assert deck_codes(rules) == STANDARD - {"3C", "2D"}
    assert deck.hand_size == 10
    assert rules.pass_schedule == ("left", "right", "left2", "right2", "hold")


def test_american_five_with_the_other_removal_leads_the_three_of_clubs() -> None:
    rules = ruleset("american-5", {"remove": ["2D", "2C"]})
    deck = deck_for(rules)
    assert deck_codes(rules) == STANDARD - {"2D", "2C"}
    assert deck.lead_card is not None
    assert card_code(deck.lead_card) == "3C"


def test_american_for_three_can_remove_the_three_of_clubs_instead() -> None:
    rules = ruleset("american-3", {"remove": ["3C"]})
    assert deck_codes(rules) == STANDARD - {"3C"}
    assert deck_for(rules).hand_size == 17


def test_dutch_for_three_removes_seven_and_eight_of_diamonds() -> None:
    rules = ruleset("dutch", {"players": 3})
    deck = deck_for(rules)
    assert deck_codes(rules) == PIKET - {"7D", "8D"}
    assert deck.hand_size == 10
    assert deck.penalty_total == 15


def test_dutch_for_five_adds_three_sixes() -> None:
    rules = ruleset("dutch", {"players": 5})
    deck = deck_for(rules)
    assert deck_codes(rules) == PIKET | {"6S", "6C", "6D"}
    assert deck.hand_size == 7
    assert deck.penalty_total == 15


def test_dutch_35_for_three_removes_all_sevens_and_eights_and_turns_at_30() -> None:
    rules = ruleset("dutch-35", {"players": 3})
    deck = deck_for(rules)
    assert deck_codes(rules) == {r + s for r in "9TJQKA" for s in "CDSH"}
    assert deck.hand_size == 8
    assert deck.penalty_total == 13  # six hearts, QS 5, JC 2
    assert rules.threshold == 30


def test_dutch_35_for_five_adds_all_fives_and_sixes_for_17_points() -> None:
    rules = ruleset("dutch-35", {"players": 5})
    deck = deck_for(rules)
    assert deck_codes(rules) == PIKET | {r + s for r in "56" for s in "CDSH"}
    assert deck.hand_size == 8
    assert deck.penalty_total == 17  # ten hearts, QS 5, JC 2
    assert rules.threshold == 35


def test_dutch_35_for_three_keeps_an_explicit_threshold() -> None:
    assert ruleset("dutch-35", {"players": 3, "threshold": 40}).threshold == 40


def test_american_three_back_to_four_players_restores_the_full_deck_and_across() -> None:
    rules = ruleset("american-3", {"players": 4})
    assert deck_codes(rules) == STANDARD
    assert rules.pass_schedule == ("left", "right", "across", "hold")


def test_six_players_shuffle_two_decks_and_trim_the_twos_of_diamonds() -> None:
    rules = ruleset("american", {"players": 6})
    deck = deck_for(rules)
    assert rules.copies == 2
    assert len(deck.cards) == 102
    assert deck.hand_size == 17
    faces = [card_code(c) for c in deck.cards]
    assert "2D" not in faces
    assert faces.count("QS") == 2
    assert deck.penalty_total == 52


def test_no_hold_preset_for_three_and_five_players() -> None:
    assert ruleset("american-no-hold", {"players": 3}).pass_schedule == ("left", "right")
    assert ruleset("american-no-hold", {"players": 5}).pass_schedule == ("left", "right", "left2", "right2")


# -- invalid rule sets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "overrides", "message"),
    [
        ("nope", {}, "no preset named 'nope'"),
        ("american", {"foo": 1}, "unknown option 'foo'"),
        ("american", {"moon": "sometimes"}, "bad option value"),
        ("american", {"players": "five"}, "bad option value"),
        ("american", {"end": "forever"}, "bad option value"),
        ("american", {"players": 5, "pass_schedule": ["left", "across"]}, "across needs an even number of players"),
        ("american-5", {"pass_schedule": ["across"]}, "across needs an even number of players"),
        ("american", {"pass_schedule": ["left2"]}, "left2 needs 5 or more players"),
        ("american", {"remove": ["2D"]}, "51 cards do not deal evenly to 4 players"),
        ("dutch", {"players": 6, "copies": 1}, "do not deal evenly to 6 players"),
        ("american", {"players": 2}, "players must be 3 or more"),
        ("american", {"pass_count": 5}, "pass_count must be 0 to 4"),
        ("american", {"players": 40}, "pass_count 3 exceeds the hand of 2"),
        ("american", {"remove": ["ZZ"]}, "remove: not a card code"),
        ("american", {"remove": ["2D", "2D", "2C", "3C"]}, "remove: 2D is not in the deck"),
        ("dutch", {"add": ["7C"]}, "add: 7C is already in the deck"),
        ("dutch-35", {"players": 3, "opening_lead": "seven_of_clubs"}, "the 7C is not in the deck"),
        ("american", {"pass_schedule": []}, "pass_schedule needs at least one direction"),
        ("american", {"copies": 3}, "copies must be 1 or 2"),
        ("american", {"deal_packets": [0]}, "deal_packets must be positive"),
        ("american", {"card_points": {"XX": 1}}, "card_points: not a card code"),
        ("american", {"round_limit": 0}, "round_limit must be at least 1"),
        ("dutch-classic", {"rounds": 0}, "rounds must be at least 1"),
    ],
)
def test_invalid_rule_sets_are_refused_naming_the_problem(name: str, overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRuleSet) as info:
        ruleset(name, overrides)
    assert message in str(info.value)


def test_with_options_checks_like_ruleset() -> None:
    base = ruleset("dutch")
    assert with_options(base, {"threshold": 35}).threshold == 35
    with pytest.raises(InvalidRuleSet, match="unknown option 'bogus'"):
        with_options(base, {"bogus": 1})
    with pytest.raises(InvalidRuleSet, match="bad option value"):
        with_options(base, {"finish": "somewhere"})
    with pytest.raises(InvalidRuleSet, match="across needs an even number"):
        with_options(ruleset("american"), {"players": 3})


def test_overrides_do_not_change_the_preset_itself() -> None:
    before = ruleset("american")
    ruleset("american", {"players": 3, "target": 50})
    assert ruleset("american") == before
    assert PRESETS["american"].rules.players == 4
