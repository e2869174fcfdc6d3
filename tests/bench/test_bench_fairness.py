"""``referee bench fairness`` plays what it says and reports it; the figures themselves are
measured, not asserted (docs/performance.md)."""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from referee.bench.fairness import bench_fairness
from referee.cli import main
from referee.sandbox.bwrap import SandboxUnavailable, choose_sandbox

pytestmark = [pytest.mark.process, pytest.mark.xdist_group("spinners")]
"""``spinners_left`` looks at the whole machine: every test that starts ``spinner_bot.py`` is in
the group ``spinners``, so they run one after another on one worker, never beside this check
(a parallel run once saw another test's spinners here)."""


def spinners_left() -> list[str]:
    found = subprocess.run(["pgrep", "-f", "spinner_bot.py"], capture_output=True, text=True, check=False)
    return found.stdout.split()


def test_every_scenario_is_played_with_and_without_groups() -> None:
    try:
        sandbox = choose_sandbox("on", pytest.fail)
    except SandboxUnavailable as err:
        pytest.skip(str(err))
    cases = bench_fairness(
        spinners=3, matches=1, playouts=2, per_move=30.0, scenarios=("none", "setsid"), compare=True, sandbox=sandbox
    )
    assert [(c.scenario, c.spinners, c.groups) for c in cases] == [
        ("none", 0, True),
        ("none", 0, False),
        ("setsid", 3, True),
        ("setsid", 3, False),
    ]
    for case in cases:
        assert case.decisions == 28 and case.timeouts == 0  # two rounds: a pass and 13 plays each
        assert 0 < case.median_ms <= case.p99_ms <= case.max_ms
    assert spinners_left() == []


def test_the_command_prints_a_row_per_case_and_refuses_compare_without_a_sandbox() -> None:
    result = CliRunner().invoke(
        main,
        ["bench", "fairness", "--spinners", "2", "--matches", "1", "--playouts", "2", "--time-per-move", "30",
         "--scenario", "threads", "--sandbox", "off", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.output)
    assert case["scenario"] == "threads" and case["groups"] is True and case["decisions"] == 28
    refused = CliRunner().invoke(main, ["bench", "fairness", "--compare", "--sandbox", "off"])
    assert refused.exit_code == 2 and "--compare needs the sandbox" in refused.output
    assert spinners_left() == []
