"""Ratings: finishing order with ties, OpenSkill updates, replaying results; and the small
statistics behind ``ladder compare``."""

from __future__ import annotations

import math

import pytest

from referee.ladder.standings import sets_to_decide
from referee.stats.betting import projected_radius
from referee.stats.estimate import Estimate, estimate, t_cdf, t_quantile
from referee.stats.ratings import (
    INITIAL,
    Rating,
    finishing_ranks,
    predict_win,
    rate_match,
    replay,
    skill_above,
)
from referee.stats.sequential import MIN_SETS


@pytest.mark.parametrize(
    ("scores", "ranks"),
    [
        ([52, 30, 30, 14], [3, 1, 1, 0]),
        ([10, 10, 10, 10], [0, 0, 0, 0]),
        ([0, 26, 26, 26], [0, 1, 1, 1]),
        ([100, 40, 40, 0], [3, 1, 1, 0]),
        ([7, 3, 7, 3, 9], [2, 0, 2, 0, 4]),
    ],
)
def test_equal_scores_get_equal_ranks(scores: list[int], ranks: list[int]) -> None:
    assert finishing_ranks(scores) == ranks


def test_a_dropped_seat_ranks_below_every_finished_seat() -> None:
    assert finishing_ranks([5, 90, 3, 3], [False, False, False, True]) == [1, 2, 0, 3]
    assert finishing_ranks([5, 90, 3, 3], [True, False, False, True]) == [3, 1, 0, 2]


def test_tied_seats_move_together() -> None:
    after = rate_match({}, ["a", "b", "c", "d"], [0, 1, 1, 3])
    assert after["b"] == after["c"]
    assert after["a"].mu > INITIAL.mu > after["b"].mu > after["d"].mu
    everyone_tied = rate_match({}, ["a", "b", "c", "d"], [0, 0, 0, 0])
    assert {r.mu for r in everyone_tied.values()} == {INITIAL.mu}
    assert all(r.sigma < INITIAL.sigma for r in after.values())


def test_a_crafted_sequence_gives_the_expected_order() -> None:
    """a always finishes first, b second, c and d tie last: a > b > c == d, with rotations."""
    matches = []
    for k in range(40):
        seats = ["a", "b", "c", "d"][k % 4 :] + ["a", "b", "c", "d"][: k % 4]
        place = {"a": 0, "b": 1, "c": 2, "d": 2}
        matches.append((seats, [place[s] for s in seats]))
    ratings = replay("abcd", matches)
    assert ratings["a"].ordinal > ratings["b"].ordinal > ratings["c"].ordinal
    assert ratings["c"].mu == pytest.approx(ratings["d"].mu)
    assert ratings["a"].sigma < 0.8 * INITIAL.sigma


def test_replay_is_exact() -> None:
    matches = [
        (["a", "b", "c", "d"], [0, 2, 1, 3]),
        (["d", "c", "b", "a"], [0, 0, 2, 3]),
        (["b", "a", "d", "c"], [3, 1, 1, 0]),
    ]
    ratings = dict.fromkeys("abcd", INITIAL)
    for seats, ranks in matches:
        ratings.update(rate_match(ratings, seats, ranks))
    assert replay("abcd", matches) == ratings  # bit for bit


def test_a_bot_in_two_seats_counts_once() -> None:
    after = rate_match({}, ["h", "r", "h", "r"], [0, 2, 1, 3])
    assert set(after) == {"h", "r"}
    assert after["h"].mu > INITIAL.mu > after["r"].mu
    assert after["h"].mu - INITIAL.mu == pytest.approx(INITIAL.mu - after["r"].mu)


def test_predictions() -> None:
    strong, weak = Rating(35.0, 2.0), Rating(20.0, 2.0)
    assert predict_win(strong, weak) > 0.9
    assert predict_win(strong, weak) + predict_win(weak, strong) == pytest.approx(1.0)
    assert predict_win(INITIAL, INITIAL) == pytest.approx(0.5)
    assert skill_above(strong, weak) > 0.999
    assert skill_above(Rating(26.0, 8.0), Rating(25.0, 8.0)) < 0.6


def test_student_t() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(0.975, 5) == pytest.approx(2.571, abs=1e-3)
    assert t_quantile(0.975, 30) == pytest.approx(2.042, abs=1e-3)
    assert t_cdf(0.0, 7) == pytest.approx(0.5)
    assert t_cdf(-2.776, 4) == pytest.approx(0.025, abs=1e-4)


def test_estimate() -> None:
    found = estimate([1.0, 2.0, 3.0, 4.0])
    assert found.mean == 2.5
    assert found.sd == pytest.approx(math.sqrt(5 / 3))
    low, high = found.interval(0.95)
    assert low == pytest.approx(2.5 - 3.182 * found.se, abs=1e-3) and high > 4
    assert 0.95 < found.probability_positive() < 0.99
    assert estimate([5.0]).probability_positive() == 0.5
    assert estimate([]).n == 0


def test_sets_to_decide() -> None:
    """The smallest n whose confidence sequence (its projected radius), at its share of the 5%
    (2.5%: the sign test has the rest), would exclude the mean's distance from zero, never
    fewer than ``MIN_SETS``."""
    assert sets_to_decide(Estimate(5, 60.0, 12.0)) == MIN_SETS
    assert sets_to_decide(Estimate(5, 10.0, 12.0)) == 154  # 30 with the normal mixture, not valid
    n = sets_to_decide(Estimate(10, 1.0, 10.0))
    assert projected_radius(n, 10.0, 0.025) < 1.0 <= projected_radius(n - 1, 10.0, 0.025)
    assert n == 2245  # 1225 with the normal mixture
    assert sets_to_decide(Estimate(30, 3.0, 0.0)) == 487  # no spread seen: the bound's prior decides
