"""What is told of "how many more sets" (issue 42): nothing from too few sets but the fewest
that could decide, then a range from the mean's own uncertainty, "maybe never" when the
interval holds no difference; and ``referee bench projection`` on a small run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bench.projection import projection_cases
from referee.stats.evidence import more_sets_needed, weigh
from referee.stats.projection import MIN_PROJECTION_SETS, Projection, fewest_more, projection


def test_no_projection_from_too_few_sets_only_the_fewest_that_could_decide() -> None:
    six = weigh([30.0] * 6)  # won every set: the seventh, won too, decides by the sign test
    told = projection(six)
    assert told == Projection(6, fewest=1) and told.waiting == MIN_PROJECTION_SETS - 6
    assert (
        told.words()
        == f"at least 1 more set with both; no projection before {MIN_PROJECTION_SETS} sets with both (6 so far)"
    )
    assert more_sets_needed(six) == 1  # the scheduler's figure is still there
    even = weigh([5.0, -5.0] * 3)
    assert fewest_more(even) is None and projection(even).words() == (
        f"no projection before {MIN_PROJECTION_SETS} sets with both (6 so far)"
    )


def test_a_range_then_maybe_never() -> None:
    clear = projection(weigh([16.0, -4.0] * 20))  # mean 6, sd about 10
    assert clear.low is not None and clear.high is not None and 0 < clear.low < clear.high
    assert clear.words() == f"between {clear.low} and {clear.high} more sets with both"
    point = more_sets_needed(weigh([16.0, -4.0] * 20))
    assert point is not None and clear.low <= point <= clear.high  # the point lies inside
    unsure = projection(weigh([11.0, -9.0] * 20))  # mean 1: the interval holds zero
    assert unsure.low is not None and unsure.high is None and "maybe never" in unsure.words()
    wider = projection(weigh([16.0, -4.0] * 20), level=0.95)
    assert wider.low is not None and wider.high is not None
    assert wider.low <= clear.low and wider.high >= clear.high  # a higher level, a wider range
    assert projection(weigh([30.0] * 10)) == Projection(10, 0, 0)  # decided


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-60, 60, allow_nan=False), min_size=2, max_size=80))
def test_a_range_is_ordered_and_told_only_from_enough_sets(differences: list[float]) -> None:
    evidence = weigh(differences)
    told = projection(evidence)
    if evidence.decided:
        assert (told.low, told.high) == (0, 0)
    elif len(differences) < MIN_PROJECTION_SETS:
        assert told.low is None and told.high is None and told.waiting > 0
        assert told.fewest is None or 1 <= told.fewest <= MIN_PROJECTION_SETS
    elif told.low is not None and told.high is not None:
        assert 0 < told.low <= told.high


def test_the_bench_measures_the_first_projection_against_the_truth() -> None:
    cases = projection_cases(runs=3, horizon=120, seed=2, first_looks=(10, 30))
    assert {c.first for c in cases} == {10, 30}
    assert {c.sample for c in cases} >= {"search-heuristic"}
    for case in cases:
        assert 0 <= case.decided_before <= case.runs and 0 <= case.censored <= case.runs - case.decided_before
        for share in (case.within_2, case.in_range):
            assert share is None or 0.0 <= share <= 1.0
        assert case.median_ratio is None or case.median_ratio > 0
