"""The sequential test (GSPRT on set differences) and the anytime-valid confidence sequence:
hand-computed values, invariants (hypothesis) and a small simulation that fails if the error
rates are wrong."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.ladder.sequential import (
    MIN_SETS,
    SprtBounds,
    SprtBoundsError,
    SprtState,
    confidence_radius,
    confidence_sequence,
    sprt,
    sprt_path,
)

DIFFERENCE = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)


def test_wald_bounds_by_hand() -> None:
    bounds = SprtBounds(0.0, 2.0, alpha=0.05, beta=0.1)
    assert bounds.lower == pytest.approx(math.log(0.1 / 0.95))
    assert bounds.upper == pytest.approx(math.log(0.9 / 0.05))
    assert SprtBounds(0, 1).upper == pytest.approx(2.944439, abs=1e-6)


@pytest.mark.parametrize(
    ("d0", "d1", "alpha", "beta"),
    [(1, 1, 0.05, 0.05), (2, 1, 0.05, 0.05), (0, 1, 0, 0.05), (0, 1, 0.05, 0.5), (0, math.inf, 0.05, 0.05)],
)
def test_bounds_refuse_what_cannot_be_tested(d0: float, d1: float, alpha: float, beta: float) -> None:
    with pytest.raises(SprtBoundsError):
        SprtBounds(d0, d1, alpha, beta)


def test_llr_by_hand() -> None:
    # values 1, 2, 3, 4: mean 2.5, sample variance 5/3; d0 = 0, d1 = 1: midpoint 0.5
    # LLR = (1 - 0) / (5/3) * (10 - 4 * 0.5) = 0.6 * 8 = 4.8
    state = sprt([1.0, 2.0, 3.0, 4.0], SprtBounds(0, 1), min_sets=4)
    assert state == SprtState(
        sets=4,
        mean=pytest.approx(2.5),
        sd=pytest.approx(math.sqrt(5 / 3)),
        llr=pytest.approx(4.8),
        lower=pytest.approx(-2.944439, abs=1e-6),
        upper=pytest.approx(2.944439, abs=1e-6),
        verdict="H1",
    )


def test_no_sets_no_verdict() -> None:
    assert sprt([], SprtBounds(0, 1)).verdict == "continue"
    assert sprt([], SprtBounds(0, 1)).sets == 0


def test_confidence_sequence_by_hand() -> None:
    values = [float(v % 7) for v in range(40)]
    mean = sum(values) / 40
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 39)
    log_alpha = -2 * math.log(0.05)
    rho2 = (log_alpha + math.log(log_alpha + 1)) / 100
    half = sd * math.sqrt(2 * (40 * rho2 + 1) / (40**2 * rho2) * math.log(math.sqrt(40 * rho2 + 1) / 0.05))
    low, high = confidence_sequence(values)
    assert (low, high) == (pytest.approx(mean - half), pytest.approx(mean + half))
    assert confidence_sequence(values[: MIN_SETS - 1]) == (-math.inf, math.inf)


@given(st.lists(DIFFERENCE, min_size=0, max_size=60))
def test_path_and_verdict_agree(values: list[float]) -> None:
    bounds = SprtBounds(0.0, 1.5)
    path = sprt_path(values, bounds)
    assert [s.sets for s in path] == list(range(1, len(values) + 1))
    for s in path:
        assert s.lower < 0 < s.upper
        if s.sets < MIN_SETS:
            assert s.verdict == "continue"
        elif s.llr >= s.upper:
            assert s.verdict == "H1"
        elif s.llr <= s.lower:
            assert s.verdict == "H0"
        else:
            assert s.verdict == "continue"
    decided = [s for s in path if s.verdict != "continue"]
    assert sprt(values, bounds) == (decided[0] if decided else path[-1] if path else sprt([], bounds))


def test_a_simulation_keeps_its_error_rates() -> None:
    """200 runs at d0 and 200 at d1 on normal sets: the promised 5% each, within a generous
    limit (a wrong sign or variance would give rates near 1 or 0.5)."""
    rng = random.Random(26)
    bounds = SprtBounds(0.0, 1.0)
    for truth, wrong in ((0.0, "H1"), (1.0, "H0")):
        errors = 0
        for _ in range(200):
            values: list[float] = []
            state = sprt(values, bounds)
            while state.verdict == "continue":
                values.extend(rng.gauss(truth, 4.0) for _ in range(10))
                state = sprt(values, bounds)
            errors += state.verdict == wrong
        assert errors / 200 < 0.15


def test_radius_shrinks() -> None:
    assert confidence_radius(20) > confidence_radius(100) > confidence_radius(1000)
