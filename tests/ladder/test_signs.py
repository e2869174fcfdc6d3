"""The sign test as a betting martingale and the verdict that combines it with the confidence
sequence: the wealth by hand and against a brute-force product, the martingale property, the
exact chance of ever deciding between equal bots, and the scenarios of few sets."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.stats.evidence import ALPHA, more_sets_needed, sequence_alpha, weigh
from referee.stats.sequential import MIN_SETS
from referee.stats.signs import BETS, SIGN_ALPHA, log_wealth, sign_counts, sign_sets_to_decide, sign_test

SIGNS = st.lists(st.sampled_from([-1.0, 0.0, 1.0]), max_size=60)
GRID = st.lists(st.floats(min_value=0.0, max_value=0.99), min_size=1, max_size=4)


def test_the_grid_decides_seven_of_seven_and_no_fewer() -> None:
    """The arithmetic of ``BETS``' docstring: ((1.8^7 + 0.2^7) + (1.95^7 + 0.05^7)) / 4 = 42.1,
    above 1 / 0.025 = 40."""
    assert BETS == (0.8, 0.95) and SIGN_ALPHA == 0.025
    seven = sign_test([3.0] * 7)
    assert seven.wealth == pytest.approx(((1.8**7 + 0.2**7) + (1.95**7 + 0.05**7)) / 4)
    assert seven.wealth == pytest.approx(42.108, abs=1e-3) and seven.threshold == pytest.approx(math.log(40))
    assert seven.decided and seven.direction == 1
    assert sign_test([-0.25] * 7).direction == -1  # the other way round: B won them all
    assert sign_test([1.0] * 6).wealth == pytest.approx(22.248, abs=1e-3)
    assert not sign_test([1.0] * 6).decided
    assert not sign_test([1.0] * 6 + [-1.0]).decided  # six of seven
    assert not sign_test([1.0] * 7 + [-1.0]).decided  # seven of eight: 4.4
    eight_of_nine = (1.8**8 * 0.2 + 0.2**8 * 1.8 + 1.95**8 * 0.05 + 0.05**8 * 1.95) / 4
    assert sign_test([1.0] * 8 + [-1.0]).wealth == pytest.approx(eight_of_nine, rel=1e-12)


def test_ties_are_dropped() -> None:
    assert sign_counts([2.0, 0.0, -1.0, 0.0, 0.5]) == (2, 1, 2)
    with_ties = sign_test([1.0, 0.0] * 7)
    assert (with_ties.wins, with_ties.losses, with_ties.ties) == (7, 0, 7)
    assert with_ties.log_wealth == sign_test([1.0] * 7).log_wealth and with_ties.decided
    assert sign_test([0.0] * 50).log_wealth == pytest.approx(0.0) and not sign_test([0.0] * 50).decided


@given(SIGNS, GRID)
def test_the_wealth_is_the_mixture_of_the_gamblers_products(signs: list[float], bets: list[float]) -> None:
    """Computed from the counts, it is the mean over λ in ±bets of Π (1 + λ·sign), set by set."""
    products = []
    for bet in bets:
        for stake in (bet, -bet):
            wealth = 1.0
            for s in signs:
                wealth *= 1 + stake * s
            products.append(wealth)
    wins, losses, _ = sign_counts(signs)
    assert math.exp(log_wealth(wins, losses, bets)) == pytest.approx(sum(products) / len(products), rel=1e-9)


@given(st.integers(0, 300), st.integers(0, 300), GRID)
def test_the_wealth_is_a_nonnegative_martingale(wins: int, losses: int, bets: list[float]) -> None:
    """Under H0 the next set is won by either with probability 1/2: the expected wealth after it
    is the wealth now (each gambler's is: (1 + λ) / 2 + (1 - λ) / 2 = 1), and it is never
    negative. It starts at 1."""
    now = log_wealth(wins, losses, bets)
    after_win, after_loss = log_wealth(wins + 1, losses, bets), log_wealth(wins, losses + 1, bets)
    expected = (math.exp(after_win - now) + math.exp(after_loss - now)) / 2
    assert expected == pytest.approx(1.0, rel=1e-9)
    assert math.isfinite(now) and math.exp(now) >= 0
    assert log_wealth(0, 0, bets) == pytest.approx(0.0)


def test_between_equal_bots_it_ever_decides_at_most_alpha_of_the_time() -> None:
    """The exact chance that the wealth ever reaches 40 in 600 sets of a fair coin (the walk of
    the counts, absorbed where it decides): Ville's inequality says at most 2.5%."""
    threshold = math.log(1 / SIGN_ALPHA)
    alive = {0: 1.0}  # wins -> probability of not having decided, at n sets so far
    decided = 0.0
    for n in range(1, 601):
        step: dict[int, float] = {}
        for wins, p in alive.items():
            for w in (wins, wins + 1):
                step[w] = step.get(w, 0.0) + p / 2
        alive = {}
        for wins, p in step.items():
            if log_wealth(wins, n - wins) >= threshold:
                decided += p
            else:
                alive[wins] = p
    assert 0.005 < decided <= SIGN_ALPHA  # and not vacuous: it does decide sometimes


def test_the_projection_is_the_first_count_that_decides() -> None:
    assert sign_sets_to_decide(sign_test([1.0] * 3)) == 4  # 7 of 7
    # a quarter of the sets tied: 4 more decisive sets take about 5.3 sets, so 6
    assert sign_sets_to_decide(sign_test([1.0, 1.0, 1.0, 0.0])) == 6
    assert sign_sets_to_decide(sign_test([1.0] * 7)) == 0
    assert sign_sets_to_decide(sign_test([1.0, -1.0] * 10)) is None  # half and half: never
    assert sign_sets_to_decide(sign_test([1.0] * 6 + [-1.0] * 4)) is None  # 60%: the grid never decides
    assert sign_sets_to_decide(sign_test([0.0, 0.0])) is None
    four_fifths = sign_sets_to_decide(sign_test([1.0] * 8 + [-1.0] * 2))
    assert four_fifths is not None and 10 < four_fifths < 40


@given(st.integers(1, 40), st.integers(0, 10))
def test_the_projection_decides_and_not_one_set_sooner(wins: int, losses: int) -> None:
    """Continued at the same share, the projected number of sets decides and one fewer does
    not (when the shares stay whole: all sets won, or a fixed pattern of a few)."""
    test = sign_test([1.0] * wins + [-1.0] * losses)
    more = sign_sets_to_decide(test)
    if more is None or more == 0:
        return
    share = wins / (wins + losses)
    at = log_wealth(wins + share * more, losses + (1 - share) * more)
    before = log_wealth(wins + share * (more - 1), losses + (1 - share) * (more - 1))
    assert at >= test.threshold > before


def test_the_verdict_splits_alpha_and_says_what_decided() -> None:
    assert sequence_alpha() == pytest.approx(ALPHA - SIGN_ALPHA)
    few = weigh([70.0, 75.0, 68.0, 80.0, 72.0, 77.0, 74.0])
    assert few.sequence_low == -math.inf and few.decided and few.direction == 1
    assert few.by == "won 7 of 7 sets" and more_sets_needed(few) == 0
    six = weigh([70.0, 75.0, 68.0, 80.0, 72.0, 0.0, -74.0])
    assert not six.decided and six.by == ""
    assert more_sets_needed(six) is not None
    many = weigh([(-1.0) ** i * 10 + 3 for i in range(800)])  # +13 and -7: half and half, mean +3
    assert many.sequence_low > 0 and many.signs.direction == 0 and many.direction == 1
    assert many.by == "the confidence sequence excludes zero"
    both = weigh([-50.0 - i % 3 for i in range(MIN_SETS)])
    assert both.direction == -1 and both.by == "won 30 of 30 sets; the confidence sequence excludes zero"


def test_tests_pointing_opposite_ways_decide_nothing() -> None:
    """A wins 200 sets by a point, B 30 by a hundred: the sign test says A, the confidence
    sequence B (mean -12.2). Neither is trusted, and no projection is made."""
    found = weigh([1.0] * 200 + [-100.0] * 30)
    assert found.signs.direction == 1 and found.sequence_direction == -1
    assert not found.decided and found.by == "" and more_sets_needed(found) is None


def test_the_projection_is_the_sooner_of_the_two() -> None:
    three = weigh([20.0, 25.0, 22.0])
    assert more_sets_needed(three) == 4  # the sign test: 7 of 7; the sequence would need 27 more
    close = weigh([(-1.0) ** i * 10 + 1 for i in range(40)])  # wins 20 of 40: only the sequence
    sequence_only = more_sets_needed(close)
    assert sequence_only is not None and sequence_only > 100
    assert more_sets_needed(weigh([5.0])) is None  # one set: nothing known
    assert more_sets_needed(weigh([5.0, -5.0])) is None  # no difference seen
