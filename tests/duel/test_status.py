"""Where a duel stands and its exit status (``referee/duel/status.py``): 0 H1, 1 H0, 3 no
decision; a gauntlet 0 only with H1 against every bot, 1 with H0 against any; the pool's mean
with its interval."""

from __future__ import annotations

import math

import pytest

from referee.duel.status import duel_status, overall, pairing_status
from referee.rules import ruleset
from referee.stats.sequential import MIN_SETS
from tests.duel.helpers import duel_settings

DECIDING = {
    "H1": [44.0, 46.0] * MIN_SETS,
    "H0": [-1.0, 1.0] * 100,
    "continue": [0.0, 2.0] * 3,
}
"""Differences that make the test accept H1 (mean 45), accept H0 (mean 0, after about 170 sets:
the prior spread must be outweighed), or go on (too few)."""


@pytest.mark.parametrize(
    ("verdicts", "verdict", "exit_status"),
    [
        (["H1"], "H1", 0),
        (["H0"], "H0", 1),
        (["continue"], "continue", 3),
        (["H1", "H1", "H1"], "H1", 0),
        (["H1", "H0", "continue"], "H0", 1),  # "better than every one" is refuted already
        (["H1", "continue"], "continue", 3),
    ],
)
def test_the_exit_status_sums_up_the_verdicts(verdicts: list[str], verdict: str, exit_status: int) -> None:
    olds = [f"old{i}" for i in range(len(verdicts))]
    duel = duel_settings(olds=olds)
    differences = {old: DECIDING[v] for old, v in zip(olds, verdicts, strict=True)}
    status = duel_status(duel, ruleset("american"), differences, dict.fromkeys(olds, 50))
    assert [p.verdict for p in status.pairings] == verdicts
    assert (status.verdict, status.exit_status) == (verdict, exit_status)


def test_without_a_test_there_is_no_verdict_and_the_exit_status_is_3() -> None:
    duel = duel_settings(sprt=None)
    status = duel_status(duel, ruleset("american"), {"old": DECIDING["H1"]}, {"old": 40})
    assert status.pairings[0].sprt is None and status.verdict is None and status.exit_status == 3


def test_a_pairing_has_a_fixed_interval_and_a_wider_confidence_sequence() -> None:
    found = pairing_status("old", [1.0, 3.0] * 25, 50, duel_settings())
    assert found.sets == 50 and found.estimate.mean == 2.0
    low, high = found.interval
    cs_low, cs_high = found.sequence
    assert cs_low < low < 2.0 < high < cs_high
    early = pairing_status("old", [1.0, 3.0], 2, duel_settings())
    assert early.sequence == (-math.inf, math.inf) and early.verdict == "continue"


def test_the_pool_mean_counts_each_bot_once_with_its_standard_error() -> None:
    pairings = [
        pairing_status("a", [1.0, 3.0] * 10, 20, duel_settings()),  # mean 2
        pairing_status("b", [3.0, 5.0, 4.0, 4.0] * 10, 40, duel_settings()),  # mean 4, more sets
        pairing_status("c", [7.0], 1, duel_settings()),  # no standard error yet: left out
    ]
    found = overall(pairings)
    assert found is not None and found.mean == 3.0 and found.bots == 2
    se = math.hypot(pairings[0].estimate.se, pairings[1].estimate.se) / 2
    assert math.isclose(found.high - found.mean, 1.959963984540054 * se)
    assert overall(pairings[2:]) is None
