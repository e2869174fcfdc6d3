"""The score range the confidence sequence relies on (``referee.rules.spread``): every final
score of a match played at random lies in it, for every preset and for rule sets changed where
the range comes from (target, rounds, threshold, the moon, declarations)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import PRESETS, Match
from referee.rules.presets import ruleset, with_options
from referee.rules.random_play import play_match
from referee.rules.spread import difference_bound, round_steps, score_range
from tests.tiers import examples

BOUNDED = sorted(name for name in PRESETS if score_range(ruleset(name)) is not None)


def test_the_american_range_is_a_score_below_100_and_one_round_more() -> None:
    rules = ruleset("american")
    assert round_steps(rules, 1) == (26, 0)
    assert score_range(rules) == (0, 99 + 26)
    assert difference_bound(rules) == 125.0


def test_bonus_cards_or_a_moon_that_subtracts_leave_a_target_match_unbounded() -> None:
    assert score_range(ruleset("omnibus")) is None
    assert score_range(ruleset("american-moon-choice")) is None
    assert round_steps(ruleset("omnibus"), 1).down == 10


def test_a_two_phase_match_ends_one_round_below_zero_at_worst() -> None:
    rules = ruleset("dutch")
    first, second = round_steps(rules, 1), round_steps(rules, 2)
    assert second.up == 0
    assert score_range(rules) == (-second.down, rules.threshold - 1 + first.up)


def test_a_match_of_fixed_rounds_spans_its_rounds_both_ways() -> None:
    rules = with_options(ruleset("omnibus"), {"end": "rounds", "rounds": 5})
    steps = round_steps(rules, 1)
    assert score_range(rules) == (-5 * steps.down, 5 * steps.up)


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.sampled_from(BOUNDED),
    seed=st.integers(0, 2**32 - 1),
    change=st.sampled_from(
        [
            {},
            {"target": 30},
            {"end": "rounds", "rounds": 3},
            {"threshold": 20},
            {"moon": "none"},
            {"declarations": True},
        ]
    ),
)
def test_every_final_score_of_a_random_match_lies_in_the_range(name: str, seed: int, change: dict[str, object]) -> None:
    rules = with_options(ruleset(name), change)
    found = score_range(rules)
    if found is None:
        return
    match = Match(rules, seed, first_dealer=0)
    play_match(match, random.Random(seed))
    assert match.result is not None
    low, high = found
    assert all(low <= score <= high for score in match.result.scores), (found, match.result.scores)
