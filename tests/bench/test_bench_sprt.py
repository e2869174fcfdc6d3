"""``referee bench sprt`` simulates what it says and reports it; the figures themselves are
measured, not asserted (docs/testing-bots.md), but a small run must be sane: the test fails if
the error rates come out wrong by a wide margin."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner

from referee.bench.sprt import (
    DATA,
    RARE,
    SetData,
    SetSample,
    bench_sprt,
    load_sets,
    sign_margins,
    simulate_peeking,
    simulate_sprt,
    simulate_verdict,
    verdict_speed,
)
from referee.cli import main
from referee.stats.sequential import MIN_SETS, SprtBounds
from referee.stats.signs import sign_test

SYMMETRIC = SetData(
    variant="american",
    made=["made up: a symmetric spread of 10 points around 0"],
    samples=[
        SetSample(
            name="symmetric",
            new="a",
            old="b",
            opponents=["c", "d"],
            differences=[float(v) for v in range(-15, 16)],
        )
    ],
)


def test_the_measured_sets_are_there_and_real() -> None:
    data = load_sets(DATA)
    assert data.variant == "american" and data.made
    names = [s.name for s in data.samples]
    assert len(names) == len(set(names)) >= 2
    for sample in data.samples:
        assert len(sample.differences) >= 50
        assert len(set(sample.differences)) > 10  # a spread to draw from, not a constant
        # a set's difference averages 4 rotations of whole points: a multiple of 1/4
        assert all((4 * d).is_integer() for d in sample.differences)


def test_a_small_simulation_keeps_the_promised_rates_on_symmetric_sets() -> None:
    result = bench_sprt(runs=200, seed=3, pairs=[(0.0, 3.0)], horizon=200, data=SYMMETRIC, rare=False)
    assert [(c.truth, c.wrong) for c in result.sprt] == [(0.0, "H1"), (3.0, "H0")]
    for case in result.sprt:
        assert case.runs == 200 and case.undecided == 0
        assert case.error_rate < 0.15  # promised 0.05; a wrong sign or scale gives 0.5 or more
        assert case.error_se > 0 or case.error_rate == 0
        assert case.mean_sets >= MIN_SETS and case.p95_sets >= MIN_SETS
    looks = {(p.method, p.first_look): p.ever_excluded for p in result.peeking}
    assert looks[("confidence sequence", MIN_SETS)] < 0.15
    assert looks[("normal-mixture sequence", MIN_SETS)] < 0.15
    # the fixed interval looked at after every set: the inflation the confidence sequence avoids
    assert looks[("fixed 95% t interval", 2)] > 0.2


def test_peeking_runs_each_way_of_looking_on_the_same_streams() -> None:
    cases = simulate_peeking(SYMMETRIC.samples[0], horizon=MIN_SETS, runs=50, rng=random.Random(1))
    assert [(c.method, c.first_look) for c in cases] == [
        ("confidence sequence", MIN_SETS),
        ("normal-mixture sequence", MIN_SETS),
        ("fixed 95% t interval", 2),
        ("fixed 95% t interval", MIN_SETS),
    ]
    # looked at from set 2 it sees every stream the later look sees, and more
    assert cases[2].ever_excluded >= cases[3].ever_excluded


def test_the_prior_on_the_spread_keeps_beta_on_rare_differences() -> None:
    """+50 points in 2% of the sets, a true mean of +1 (``RARE``): without the prior the early
    sets are all equal and the SPRT accepts H0 in most runs (measured: 56% to 59% for a promised
    5%); with it, at most a few percent."""
    assert sum(RARE.differences) / len(RARE.differences) == 1.0
    bounds = SprtBounds(0.0, 1.0, 0.05, 0.05)
    before = simulate_sprt(RARE, bounds, 1.0, 100, random.Random(6), prior_sets=0)
    assert before.wrong == "H0" and before.error_rate > 0.3 and before.prior_sets == 0
    after = simulate_sprt(RARE, bounds, 1.0, 100, random.Random(6))
    assert after.error_rate < 0.1 and after.undecided == 0 and after.mean_sets > before.mean_sets


def test_the_sign_margins_are_the_sign_test() -> None:
    """The one comparison a set the bench makes is the sign test's own decision."""
    margins = sign_margins(40)
    for n in range(41):
        for wins in range(n + 1):
            leader = max(wins, n - wins)
            assert (leader >= margins[n]) == sign_test([1.0] * wins + [-1.0] * (n - wins)).decided
    assert margins[6] == float("inf") and margins[7] == 7


def test_the_verdict_keeps_its_rate_and_decides_a_lopsided_pair_early() -> None:
    """Symmetric sets at a true 0: the verdict, looked at after every set, is rarely wrong
    (each test at 2.5%; a sign test betting on the wrong side would be wrong far more often).
    At the real heuristic-random mean it decides on 7 sets, where the sequence alone waits for
    ``MIN_SETS``."""
    cases = simulate_verdict(SYMMETRIC.samples[0], horizon=300, runs=300, rng=random.Random(4))
    assert [c.method for c in cases] == ["sign test", "confidence sequence", "either: the verdict"]
    signs, sequence, either = (c.ever_excluded for c in cases)
    assert max(signs, sequence) <= either <= signs + sequence and either < 0.12
    symmetric = simulate_verdict(SYMMETRIC.samples[0], horizon=300, runs=300, rng=random.Random(4), symmetric=True)
    assert [c.method for c in symmetric][-1] == "either: the verdict (symmetric)"
    assert symmetric[-1].ever_excluded < 0.12
    lopsided = next(s for s in load_sets().samples if s.name == "heuristic-random")
    speed = verdict_speed(lopsided, horizon=60, runs=40, rng=random.Random(5))
    assert speed.decided == speed.sequence_decided == 1.0
    assert speed.median_sets == 7 and speed.sequence_median_sets == MIN_SETS


def test_the_command_reports_as_text_and_json() -> None:
    args = ["bench", "sprt", "--runs", "10", "--pair", "0", "30", "--horizon", "30", "--seed", "2"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "SPRT, alpha 0.05, beta 0.05" in text.output and "confidence sequence" in text.output
    assert "either: the verdict" in text.output and "sets to the verdict at the sample's own mean" in text.output
    found = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert {c["d1"] for c in found["sprt"]} == {30.0} and found["runs"] == 10
    measured = [s.name for s in load_sets().samples]
    assert len(found["sprt"]) == 2 * (len(measured) + 1) and found["sprt"][0]["prior_sets"] == 1.0
    assert [s["name"] for s in found["samples"]] == [*measured, "rare-difference"]
    assert len(found["verdict"]) == 6 * len(measured) and len(found["speed"]) == len(measured)
    assert len(found["peeking"]) == 4 * (len(measured) + 1)
    plain = json.loads(CliRunner().invoke(main, [*args, "--json", "--no-rare", "--prior-sets", "0"]).output)
    assert [s["name"] for s in plain["samples"]] == measured and {c["prior_sets"] for c in plain["sprt"]} == {0.0}
    only = json.loads(CliRunner().invoke(main, [*args, "--json", "--verdict-only"]).output)
    assert only["sprt"] == only["peeking"] == [] and len(only["verdict"]) == len(found["verdict"])
    refused = CliRunner().invoke(main, ["bench", "sprt", "--runs", "10", "--pair", "2", "1"])
    assert refused.exit_code == 2 and "d0 < d1" in refused.output
