"""The sequential test (GSPRT on set differences) and the anytime-valid confidence sequence:
hand-computed values, invariants (hypothesis) and a small simulation that fails if the error
rates are wrong."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.stats.betting import SET_BOUND, betting_sequence
from referee.stats.sequential import (
    MARGIN,
    MIN_SETS,
    ConfidenceRun,
    RunningMoments,
    SprtBounds,
    SprtBoundsError,
    SprtRun,
    SprtState,
    confidence_radius,
    confidence_sequence,
    prior_variance,
    sprt,
    sprt_path,
)

DIFFERENCE = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)


def test_wald_bounds_by_hand() -> None:
    """Wald's bounds at half the promised rates (``MARGIN``): alpha 0.05, beta 0.1 draw them
    at 0.025 and 0.05."""
    bounds = SprtBounds(0.0, 2.0, alpha=0.05, beta=0.1)
    assert MARGIN == 0.5
    assert bounds.lower == pytest.approx(math.log(0.05 / 0.975))
    assert bounds.upper == pytest.approx(math.log(0.95 / 0.025))
    assert SprtBounds(0, 1).upper == pytest.approx(math.log(0.975 / 0.025))


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
    state = sprt([1.0, 2.0, 3.0, 4.0], SprtBounds(0, 1), min_sets=4, prior_sets=0)
    assert state == SprtState(
        sets=4,
        mean=pytest.approx(2.5),
        sd=pytest.approx(math.sqrt(5 / 3)),
        llr=pytest.approx(4.8),
        lower=pytest.approx(-math.log(0.975 / 0.025)),
        upper=pytest.approx(math.log(0.975 / 0.025)),
        verdict="H1",
    )


def test_no_sets_no_verdict() -> None:
    assert sprt([], SprtBounds(0, 1)).verdict == "continue"
    assert sprt([], SprtBounds(0, 1)).sets == 0


def test_the_prior_spread_by_hand() -> None:
    """The same four sets with one prior set at the widest spread: the variance is
    ``(5 + 125²) / 4`` (the squared deviations, 5, and the prior, over n - 1 + 1 sets), so the
    LLR is ``8 / 3907.5``: four close sets say next to nothing."""
    state = sprt([1.0, 2.0, 3.0, 4.0], SprtBounds(0, 1), min_sets=4)
    assert state.llr == pytest.approx(8 / ((5 + SET_BOUND**2) / 4))
    assert state.sd == pytest.approx(math.sqrt(5 / 3)) and state.verdict == "continue"


def test_confidence_sequence_is_the_betting_one() -> None:
    values = [float(v % 7) for v in range(40)]
    low, high = confidence_sequence(values)
    assert (low, high) == betting_sequence(values, 0.05, SET_BOUND)
    assert low < sum(values) / 40 < high
    assert confidence_sequence(values[: MIN_SETS - 1]) == (-math.inf, math.inf)
    assert confidence_sequence([300.0] * MIN_SETS)[1] == 300.0  # beyond the bound: widened to it


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


WIDE = st.floats(min_value=-400, max_value=400, allow_nan=False, allow_infinity=False)
"""Set differences, some beyond ``SET_BOUND`` (rules with no bound: the sequence widens)."""


@given(st.lists(WIDE, min_size=0, max_size=70))
def test_the_running_tests_agree_with_the_tests_over_every_set(values: list[float]) -> None:
    """Fed one set at a time (what the duel's feed keeps between sets), the test and the
    confidence sequence say after each set what they say when run over every set so far."""
    bounds = SprtBounds(0.0, 2.0)
    test, sequence = SprtRun(bounds), ConfidenceRun()
    for n, value in enumerate(values, start=1):
        test.add(value)
        sequence.add(value)
        assert test.state == sprt(values[:n], bounds)
        assert sequence.interval == confidence_sequence(values[:n])


@given(
    st.floats(min_value=0.001, max_value=0.499),
    st.floats(min_value=0.001, max_value=0.499),
    st.floats(min_value=-100, max_value=100),
    st.floats(min_value=0.001, max_value=100),
)
def test_bounds_are_ordered(alpha: float, beta: float, d0: float, width: float) -> None:
    bounds = SprtBounds(d0, d0 + width, alpha, beta)
    assert bounds.lower < 0 < bounds.upper


@given(st.lists(DIFFERENCE, min_size=2, max_size=40), st.floats(min_value=0.01, max_value=20))
def test_llr_grows_with_the_mean_at_a_fixed_spread(values: list[float], shift: float) -> None:
    """The same sets moved up by ``shift`` (same variance, larger mean): a larger LLR."""
    bounds = SprtBounds(-1.0, 2.0)
    before = sprt_path(values, bounds)
    after = sprt_path([v + shift for v in values], bounds)
    for old, new in zip(before[1:], after[1:], strict=True):
        if old.sd > 0.1:  # a spread well above rounding
            assert new.sd == pytest.approx(old.sd, rel=1e-6)
            assert new.llr > old.llr - 1e-9 * (1 + abs(old.llr))


@given(
    st.lists(DIFFERENCE, min_size=0, max_size=60),
    st.floats(min_value=-5, max_value=5),
    st.floats(min_value=0.1, max_value=5),
    st.tuples(st.sampled_from([0.01, 0.05, 0.1, 0.2]), st.sampled_from([0.01, 0.05, 0.1, 0.2])),
    st.integers(min_value=2, max_value=30),
)
def test_mirrored_data_mirror_the_verdict(
    values: list[float], d0: float, width: float, rates: tuple[float, float], min_sets: int
) -> None:
    """NEW and OLD swapped: the differences change sign, H0 "at most d0" becomes H1 "at least
    -d0", and the error rates swap: the LLR changes sign and H1 and H0 swap, at the same set."""
    alpha, beta = rates
    state = sprt(values, SprtBounds(d0, d0 + width, alpha, beta), min_sets)
    mirror = sprt([-v for v in values], SprtBounds(-(d0 + width), -d0, beta, alpha), min_sets)
    assert mirror.sets == state.sets
    assert mirror.llr == -state.llr
    assert (mirror.lower, mirror.upper) == (pytest.approx(-state.upper), pytest.approx(-state.lower))
    assert mirror.verdict == {"H1": "H0", "H0": "H1", "continue": "continue"}[state.verdict]


@given(st.lists(DIFFERENCE, min_size=0, max_size=50), st.integers(min_value=2, max_value=60))
def test_no_verdict_before_min_sets(values: list[float], min_sets: int) -> None:
    bounds = SprtBounds(0.0, 0.5, 0.2, 0.2)  # wide error rates: bounds that are easy to cross
    assert all(s.verdict == "continue" for s in sprt_path(values, bounds, min_sets) if s.sets < min_sets)
    state = sprt(values, bounds, min_sets)
    assert state.verdict == "continue" or state.sets >= min_sets


def test_every_set_alike_ends_honestly() -> None:
    """No spread at all (a deterministic bot against itself: 0 in every set): the prior spread
    keeps the LLR finite, and H0 is accepted once a rare set worth the bound could no longer
    plausibly hide: ``2 n² / 125² >= log(0.975 / 0.025)``, at 170 sets for ``--sprt 0,2``
    (339 for 0,1). Without the prior the LLR was infinite at the 30th set."""
    path = sprt_path([0.0] * 400, SprtBounds(0.0, 2.0))
    decided = next(s for s in path if s.verdict != "continue")
    assert (decided.sets, decided.verdict) == (170, "H0") and math.isfinite(decided.llr)
    assert sprt([0.0] * 400, SprtBounds(0.0, 1.0)).sets == 339
    assert sprt([0.0] * MIN_SETS, SprtBounds(0.0, 2.0), prior_sets=0).llr == -math.inf
    assert sprt([1.0] * 400, SprtBounds(0.0, 2.0)).llr == 0.0  # exactly halfway: no evidence


@given(
    st.floats(min_value=-1.0, max_value=1.0),
    st.floats(min_value=-20, max_value=20),
    st.floats(min_value=0.1, max_value=5),
    st.tuples(st.sampled_from([0.01, 0.05, 0.1, 0.2]), st.sampled_from([0.01, 0.05, 0.1, 0.2])),
)
def test_equal_early_sets_do_not_decide_at_once(
    where: float, d0: float, width: float, rates: tuple[float, float]
) -> None:
    """A run of equal sets anywhere within one width of the midpoint between d0 and d1: the LLR
    stays finite and no decision comes at ``MIN_SETS``, whatever the error rates (the prior
    spread must first be outweighed: ``width · |x - mid| · n² / 125²`` reaching Wald's bound)."""
    alpha, beta = rates
    bounds = SprtBounds(d0, d0 + width, alpha, beta)
    value = d0 + width / 2 + where * width
    path = sprt_path([value] * MIN_SETS, bounds)
    assert all(math.isfinite(s.llr) for s in path)
    assert path[-1].verdict == "continue"


@given(st.lists(DIFFERENCE, min_size=2, max_size=60), st.floats(min_value=0, max_value=5))
def test_the_prior_pulls_the_variance_towards_the_widest(values: list[float], prior_sets: float) -> None:
    """A weighted mean of the sample variance and the widest one, the prior weighing less as
    the sets come in."""
    moments = RunningMoments()
    for x in values:
        moments.add(x)
    found = prior_variance(moments, prior_sets)
    assert moments.variance * (1 - 1e-9) <= found <= max(moments.variance, SET_BOUND**2) * (1 + 1e-9)
    assert prior_variance(moments, 0.0) == moments.variance


def test_a_simulation_keeps_its_error_rates() -> None:
    """200 runs at d0 and 200 at d1 on normal sets: the promised 5% each, within a generous
    limit (a wrong sign or variance would give rates near 1 or 0.5)."""
    rng = random.Random(26)
    bounds = SprtBounds(0.0, 1.0)
    for truth, wrong in ((0.0, "H1"), (1.0, "H0")):
        errors = 0
        for _ in range(200):
            values: list[float] = []
            state = sprt(values, bounds, prior_sets=0)
            while state.verdict == "continue":
                values.extend(rng.gauss(truth, 4.0) for _ in range(10))
                state = sprt(values, bounds, prior_sets=0)
            errors += state.verdict == wrong
        assert errors / 200 < 0.15


def test_radius_shrinks() -> None:
    assert confidence_radius(20) > confidence_radius(100) > confidence_radius(1000)
