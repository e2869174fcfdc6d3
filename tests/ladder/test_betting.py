"""The betting confidence sequence: invariants (hypothesis) and a small simulation on skewed
bounded sets, where the normal-mixture sequence it replaced missed more than it promised."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.stats.betting import SET_BOUND, BettingSequence, betting_sequence, bound_for, projected_radius

SET = st.floats(min_value=-SET_BOUND, max_value=SET_BOUND, allow_nan=False)


@given(st.lists(SET, min_size=1, max_size=80), st.sampled_from([0.01, 0.05, 0.2]))
def test_intervals_are_nested_and_within_the_bound(values: list[float], alpha: float) -> None:
    """The running intersection: every interval inside the one before, all inside the bound."""
    sequence = BettingSequence(alpha)
    before = sequence.interval
    assert before == (-SET_BOUND, SET_BOUND)
    for x in values:
        sequence.add(x)
        low, high = sequence.interval
        assert before[0] - 1e-9 <= low <= high <= before[1] + 1e-9
        before = (low, high)
    assert betting_sequence(values, alpha) == before


@given(st.lists(SET, min_size=2, max_size=60))
def test_mirrored_sets_mirror_the_interval(values: list[float]) -> None:
    low, high = betting_sequence(values)
    mirror = betting_sequence([-v for v in values])
    assert mirror == (pytest.approx(-high, abs=1e-9), pytest.approx(-low, abs=1e-9))


def test_a_skewed_sample_is_covered_as_promised() -> None:
    """300 runs of 400 sets, each checked after every set, on a moon-shot-like law: +10 in 90%
    of the sets, -90 in 10% (mean 0, skewness -2.7). The true mean must be outside the interval
    at some look in at most 5% of the runs, within three binomial standard errors."""
    rng = random.Random(32)
    runs, misses = 300, 0
    for _ in range(runs):
        sequence = BettingSequence(0.05)
        for _ in range(400):
            sequence.add(-90.0 if rng.random() < 0.1 else 10.0)
            low, high = sequence.interval
            if not low <= 0.0 <= high:
                misses += 1
                break
    assert misses / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


def test_it_narrows_on_a_real_difference() -> None:
    """+20 points in every set but for some noise: excluded zero well before 200 sets."""
    rng = random.Random(5)
    low, _ = betting_sequence([20.0 + rng.gauss(0, 10) for _ in range(200)])
    assert low > 0


def test_projection_follows_the_sequence() -> None:
    """On sets of spread ``sd`` the projected radius is within 10% of the real one."""
    rng = random.Random(7)
    values = [rng.choice((-15.0, 15.0)) for _ in range(3000)]
    low, high = betting_sequence(values)
    assert (high - low) / 2 == pytest.approx(projected_radius(3000, 15.0), rel=0.1)
    assert projected_radius(100, 15.0) > projected_radius(1000, 15.0) > projected_radius(10_000, 15.0)


def test_values_beyond_the_bound_widen_it() -> None:
    assert bound_for([1.0, -300.0]) == 300.0 and bound_for([1.0]) == SET_BOUND
    with pytest.raises(ValueError, match="alpha"):
        BettingSequence(1.5)
