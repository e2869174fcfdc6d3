"""Scoring a round (referee/rules/scoring.py): card values, the moon judged by cards, phase 2,
declarations and the revoke penalty. Most tests hand ``score_round`` the exact cards each seat
took; the rest play a whole hand-built round."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.cards import parse_card
from referee.rules import RoundResult, deck_for, ruleset
from referee.rules.deck import Deck
from referee.rules.scoring import moon_rule_for, moon_shooter, revoke_result, score_round
from tests.rules.helpers import make_round, piket_split, play_lowest, suit_split, taken_mask

HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
PIKET_HEARTS = "7H 8H 9H TH JH QH KH AH"


def score(
    deck: Deck,
    taken: list[str],
    *,
    phase: int = 1,
    declared: list[bool] | None = None,
    choice: Any = None,
) -> RoundResult:
    masks = [taken_mask(text) for text in taken]
    points = [sum(deck.points[c] for c in range(128) if mask >> c & 1) for mask in masks]
    return score_round(deck, phase, masks, points, declared=declared or [False] * deck.players, moon_choice=choice)


# -- card values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "taken", "points"),
    [
        ("american", "QS 2H AH", 15),
        ("american", "AS KS JD", 0),
        ("omnibus", "JD", -10),
        ("omnibus", "JD QS 5H", 4),
        ("argentine", "JH", 5),
        ("argentine", "JC JD JS JH QS 2H", 34),
        ("black-maria", "QS KS AS", 30),
        ("black-maria", "JS 3H", 1),
        ("dutch", "QS JC 7H", 8),
        ("dutch", "QC QD QH JS", 1),
        ("dutch-classic", "QC QD QS QH", 52),
        ("dutch-classic", "QH AH JC", 14),
        ("achterhoeks", "JS QD QC 7H", 18),
        ("achterhoeks", "QS JC", 0),
    ],
)
def test_card_values_per_variant(name: str, taken: str, points: int) -> None:
    deck = deck_for(ruleset(name))
    result = score(deck, [taken] + [""] * (deck.players - 1))
    assert result.points_taken[0] == points
    assert result.score_changes[0] == points
    assert result.moon is None


def test_points_are_counted_per_seat_and_sum_to_the_round_total() -> None:
    deck = deck_for(ruleset("american"))
    result = score(deck, ["QS 2H", "3H 4H 5H", "6H 7H 8H 9H TH", "JH QH KH AH"])
    assert result.points_taken == [14, 3, 5, 4]
    assert result.score_changes == [14, 3, 5, 4]
    assert sum(result.score_changes) == 26
    assert result.match_phase == 1
    assert result.revoke is None


# -- the moon is judged by cards, never by the score -------------------------------------------


def test_everything_but_one_heart_is_not_a_moon() -> None:
    deck = deck_for(ruleset("american"))
    result = score(deck, ["QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AH", "", ""])
    assert result.moon is None
    assert result.moon_scoring is None
    assert result.score_changes == [25, 1, 0, 0]


def test_omnibus_all_penalty_cards_without_the_jack_of_diamonds_is_a_moon() -> None:
    deck = deck_for(ruleset("omnibus"))
    result = score(deck, [f"QS {HEARTS}", "JD", "", ""])
    assert result.moon == 0
    assert result.points_taken == [26, -10, 0, 0]
    assert result.score_changes == [0, 26 - 10, 26, 26]


def test_omnibus_moon_with_the_jack_of_diamonds_keeps_the_bonus() -> None:
    deck = deck_for(ruleset("omnibus"))
    result = score(deck, [f"QS JD {HEARTS}", "", "", ""])
    assert result.moon == 0
    assert result.points_taken == [16, 0, 0, 0]
    assert result.score_changes == [-10, 26, 26, 26]


def test_omnibus_sixteen_points_without_every_penalty_card_is_no_moon() -> None:
    deck = deck_for(ruleset("omnibus"))
    result = score(deck, ["QS 2H 3H 4H", "JD 5H 6H 7H 8H 9H TH JH QH KH AH", "", ""])
    assert result.points_taken[0] == 16
    assert result.moon is None
    assert result.score_changes == [16, 0, 0, 0]


def test_argentine_moon_needs_every_jack_too() -> None:
    deck = deck_for(ruleset("argentine"))
    without_jc = score(deck, [f"QS JD JS {HEARTS}", "JC", "", ""])
    assert without_jc.moon is None
    everything = score(deck, [f"QS JC JD JS {HEARTS}", "", "", ""])
    assert everything.moon == 0
    assert everything.score_changes == [0, 45, 45, 45]


def test_double_deck_moon_needs_both_copies() -> None:
    deck = deck_for(ruleset("double-deck"))
    one_copy = taken_mask(f"QS {HEARTS}")
    both = one_copy | one_copy << 64
    taken = [one_copy, one_copy << 64, 0, 0, 0, 0]
    points = [26, 26, 0, 0, 0, 0]
    assert moon_shooter(deck, taken) is None
    result = score_round(deck, 1, taken, points, declared=[False] * 6)
    assert result.score_changes == points
    assert moon_shooter(deck, [0, both, 0, 0, 0, 0]) == 1


def test_no_penalty_cards_means_no_moon() -> None:
    deck = deck_for(ruleset("american", {"card_points": {"JD": -10}}))
    assert deck.penalty_mask == 0
    assert moon_shooter(deck, [taken_mask("JD"), 0, 0, 0]) is None


# -- moon outcomes ------------------------------------------------------------------------------


SHOOT = [f"QS {HEARTS}", "", "", ""]


def test_moon_adds_the_total_to_the_others() -> None:
    result = score(deck_for(ruleset("american")), SHOOT)
    assert result.moon == 0
    assert result.moon_scoring == "add_to_others"
    assert result.score_changes == [0, 26, 26, 26]
    assert result.points_taken == [26, 0, 0, 0]


def test_moon_subtracted_from_the_shooter() -> None:
    result = score(deck_for(ruleset("american", {"moon": "subtract_from_shooter"})), SHOOT)
    assert result.moon_scoring == "subtract_from_shooter"
    assert result.score_changes == [-26, 0, 0, 0]


def test_moon_none_scores_the_cards() -> None:
    result = score(deck_for(ruleset("american", {"moon": "none"})), SHOOT)
    assert result.moon == 0
    assert result.moon_scoring == "none"
    assert result.score_changes == [26, 0, 0, 0]


@pytest.mark.parametrize(
    ("choice", "changes"), [("add_to_others", [0, 26, 26, 26]), ("subtract_from_shooter", [-26, 0, 0, 0])]
)
def test_shooter_choice_uses_the_choice(choice: str, changes: list[int]) -> None:
    deck = deck_for(ruleset("american-moon-choice"))
    result = score(deck, SHOOT, choice=choice)
    assert result.moon_scoring == choice
    assert result.score_changes == changes


def test_shooter_choice_cannot_be_scored_without_the_choice() -> None:
    with pytest.raises(ValueError, match="moon choice is needed"):
        score(deck_for(ruleset("american-moon-choice")), SHOOT)


def test_moon_points_option_changes_what_the_others_get() -> None:
    deck = deck_for(ruleset("american", {"moon_points": 20}))
    assert score(deck, SHOOT).score_changes == [0, 20, 20, 20]
    deck = deck_for(ruleset("american", {"moon_points": 20, "moon": "subtract_from_shooter"}))
    assert score(deck, SHOOT).score_changes == [-20, 0, 0, 0]


def test_classic_moon_takes_all_59_and_gives_the_others_15() -> None:
    deck = deck_for(ruleset("dutch-classic"))
    result = score(deck, [f"QC QD QS {PIKET_HEARTS}", "", "", ""])
    assert result.points_taken == [59, 0, 0, 0]
    assert result.moon == 0
    assert result.score_changes == [0, 15, 15, 15]


def test_dutch_moon_in_phase_one_gives_the_others_fifteen() -> None:
    deck = deck_for(ruleset("dutch"))
    result = score(deck, [f"QS JC {PIKET_HEARTS}", "", "", ""])
    assert result.score_changes == [0, 15, 15, 15]


def test_dutch_35_moon_is_the_shooters_choice() -> None:
    deck = deck_for(ruleset("dutch-35"))
    taken = [f"QS JC {PIKET_HEARTS}", "", "", ""]
    assert score(deck, taken, choice="subtract_from_shooter").score_changes == [-15, 0, 0, 0]
    assert score(deck, taken, choice="add_to_others").score_changes == [0, 15, 15, 15]


# -- phase 2 of a two-phase match ----------------------------------------------------------------


def test_phase_two_subtracts_every_point_taken() -> None:
    deck = deck_for(ruleset("dutch"))
    result = score(deck, ["QS 7H", "JC 8H 9H", "TH JH QH KH AH", ""], phase=2)
    assert result.match_phase == 2
    assert result.points_taken == [6, 4, 5, 0]
    assert result.score_changes == [-6, -4, -5, 0]


def test_phase_two_moon_subtracts_fifteen_from_the_shooter() -> None:
    deck = deck_for(ruleset("dutch"))
    assert moon_rule_for(deck, 1) == "add_to_others"
    assert moon_rule_for(deck, 2) == "subtract_from_shooter"
    result = score(deck, [f"QS JC {PIKET_HEARTS}", "", "", ""], phase=2)
    assert result.moon == 0
    assert result.moon_scoring == "subtract_from_shooter"
    assert result.score_changes == [-15, 0, 0, 0]


def test_modern_phase_two_has_no_moon_but_still_subtracts_the_points() -> None:
    deck = deck_for(ruleset("dutch-modern"))
    result = score(deck, [f"QS JC {PIKET_HEARTS}", "", "", ""], phase=2)
    assert result.moon_scoring == "none"
    assert result.score_changes == [-15, 0, 0, 0]
    phase_one = score(deck, [f"QS JC {PIKET_HEARTS}", "", "", ""], phase=1)
    assert phase_one.score_changes == [0, 15, 15, 15]


def test_phase_two_moon_with_a_bigger_moon_value() -> None:
    deck = deck_for(ruleset("dutch", {"moon_points": 20}))
    result = score(deck, [f"QS JC {PIKET_HEARTS}", "", "", ""], phase=2)
    assert result.score_changes == [-20, 0, 0, 0]


# -- declarations ------------------------------------------------------------------------------


def test_declarations_kept_and_broken() -> None:
    deck = deck_for(ruleset("achterhoeks"))
    taken = ["JS QD", "QC 7H 8H", "", "9H TH JH QH KH AH"]
    result = score(deck, taken, declared=[True, False, True, False])
    assert result.points_taken == [14, 5, 0, 6]
    assert result.score_changes == [14 + 10, 5, -10, 6]
    assert result.declaration_success == [False, None, True, None]
    assert result.declared == [True, False, True, False]


def test_declaration_points_option() -> None:
    deck = deck_for(ruleset("achterhoeks", {"declaration_points": 5}))
    result = score(deck, ["JS", "", "", f"QD QC {PIKET_HEARTS}"], declared=[True, True, False, False])
    assert result.score_changes == [8 + 5, -5, 0, 17]


def test_declaration_broken_by_a_moon() -> None:
    deck = deck_for(ruleset("achterhoeks"))
    result = score(deck, [f"JS QD QC {PIKET_HEARTS}", "", "", ""], declared=[True, True, False, False])
    assert result.moon == 0
    assert result.score_changes == [0 + 10, 25 - 10, 25, 25]


# -- revoke --------------------------------------------------------------------------------------


def test_revoke_result_gives_the_revoker_the_round_total() -> None:
    result = revoke_result(deck_for(ruleset("dutch")), 1, 3)
    assert result.score_changes == [0, 0, 0, 15]
    assert result.points_taken == [0, 0, 0, 0]
    assert result.revoke == 3
    assert result.declaration_success == [None] * 4


def test_revoke_points_option_and_phase_two() -> None:
    deck = deck_for(ruleset("dutch", {"revoke_points": 30}))
    result = revoke_result(deck, 2, 0)
    assert result.score_changes == [30, 0, 0, 0]
    assert result.match_phase == 2


# -- whole rounds ------------------------------------------------------------------------------


def test_full_omnibus_round_moon_with_the_bonus() -> None:
    round_ = make_round(ruleset("omnibus"), suit_split("SHDC"), dealer=0)
    assert round_.turn == 3
    play_lowest(round_)
    assert round_.result is not None
    assert round_.result.points_taken == [0, 0, 0, 16]
    assert round_.result.score_changes == [26, 26, 26, -10]
    assert round_.result.moon == 3


def test_full_classic_round_moon() -> None:
    round_ = make_round(ruleset("dutch-classic"), piket_split("CDSH"), dealer=3)
    play_lowest(round_)
    assert round_.result is not None
    assert round_.result.points_taken == [59, 0, 0, 0]
    assert round_.result.score_changes == [0, 15, 15, 15]


def test_full_dutch_round_in_phase_two() -> None:
    round_ = make_round(ruleset("dutch"), piket_split("DCSH"), dealer=3, phase=2)
    play_lowest(round_)
    assert round_.result is not None
    assert round_.result.match_phase == 2
    assert round_.result.score_changes == [-15, 0, 0, 0]


def test_full_round_points_follow_the_tricks() -> None:
    deal = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
        1: "AC KS 2S 3S 4S 5S 6S 7S 8S 9S TS JS 3D",
        2: "QS AS 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        3: HEARTS,
    }
    round_ = make_round(ruleset("american"), deal, dealer=3)
    play_lowest(round_)
    assert round_.result is not None
    taken = [sum(t.points for t in round_.tricks if t.winner == seat) for seat in range(4)]
    assert round_.result.points_taken == taken
    assert sum(taken) == 26
    assert round_.points == taken
    values = deck_for(ruleset("american")).points
    for seat in range(4):
        assert round_.points[seat] == sum(values[c] for c in range(128) if round_.taken[seat] >> c & 1)


def test_the_two_of_clubs_is_worth_nothing() -> None:
    assert deck_for(ruleset("american")).points[parse_card("2C")] == 0
