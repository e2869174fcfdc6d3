"""Rule-set numbers that make no playable match are refused, naming the option (deck.py)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import PRESETS, ruleset
from referee.rules.deck import MAX_POINTS, MAX_ROUNDS, MAX_SCORE
from referee.rules.errors import InvalidRuleSet


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("american", {"target": -5}, "target must be at least 1, not -5"),
        ("american", {"target": 0}, "target must be at least 1, not 0"),
        ("american", {"target": MAX_SCORE + 1}, f"target must be at most {MAX_SCORE}"),
        ("dutch", {"threshold": 0}, "threshold must be at least 1, not 0"),
        ("dutch", {"threshold": -50}, "threshold must be at least 1"),
        ("dutch-classic", {"rounds": 0}, "rounds must be at least 1, not 0"),
        ("american", {"rounds": -1}, "rounds must be at least 1"),
        ("american", {"rounds": MAX_ROUNDS + 1}, f"rounds must be at most {MAX_ROUNDS}"),
        ("american", {"round_limit": 0}, "round_limit must be at least 1"),
        ("american", {"round_limit": 10**11}, f"round_limit must be at most {MAX_ROUNDS}"),
        ("american", {"moon_points": -26}, "moon_points must be at least 0"),
        ("american", {"moon_points": MAX_POINTS + 1}, f"moon_points must be at most {MAX_POINTS}"),
        ("american", {"revoke_points": -1}, "revoke_points must be at least 0"),
        ("achterhoeks", {"declaration_points": -10}, "declaration_points must be at least 0"),
        ("american", {"card_points": {"QS": 10**6}}, f"card_points[QS] must be at most {MAX_POINTS}"),
        ("american", {"card_points": {"QS": -(10**6)}}, f"card_points[QS] must be at least {-MAX_POINTS}"),
        ("american", {"card_points": {}}, "no card in play is worth points"),
        ("american", {"card_points": {"2C": 0}}, "no card in play is worth points"),
        ("american", {"deal_packets": [1000]}, "a packet of 1000 is larger than the deck"),
        ("american", {"players": 1000}, "do not deal evenly to 1000 players"),
        ("american", {"remove": [r + s for s in "CDHS" for r in "23456789TJQKA"]}, "0 cards leave nothing to deal"),
    ],
)
def test_numbers_that_make_no_playable_match_are_refused(preset: str, overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRuleSet) as info:
        ruleset(preset, overrides)
    assert message in str(info.value)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_passes_the_checks(name: str) -> None:
    assert ruleset(name) == PRESETS[name].rules


@pytest.mark.parametrize(
    "overrides",
    [
        {"target": 1},
        {"target": MAX_SCORE},
        {"moon_points": 0},
        {"revoke_points": 0},
        {"card_points": {"JD": -10}},
        {"round_limit": 1, "rounds": MAX_ROUNDS},
    ],
)
def test_edge_values_that_can_be_played_are_kept(overrides: dict[str, Any]) -> None:
    rules = ruleset("american", overrides)
    for key, value in overrides.items():
        assert getattr(rules, key) == value
