"""``referee bench floor``: the referee and its floor play the same conversation (every reply of
the floor's new bots is the taped one), in every placement and log setting, and the figures are
what the bench says they are; the referee alone (its bots their taped replies) plays the same
matches again."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.bench.floor import C_BOT, bench_floor
from referee.cli import main
from tests.replay.helpers import ROOT

pytestmark = pytest.mark.process


def test_the_floor_replays_the_referees_conversation_in_each_case() -> None:
    result = bench_floor("american", 1, blocks=1, bot=C_BOT, placements=("apart", "pinned"), cwd=str(ROOT))
    cases = {(c.placement, c.log): c for c in result.cases}
    assert set(cases) == {("apart", True), ("apart", False), ("pinned", True), ("pinned", False)}
    for case in result.cases:
        assert case.mismatches == 0, case
        assert case.decisions == result.cases[0].decisions > 50  # the same seeds: the same match
        assert case.referee_cpu_us > 0 and case.floor_cpu_us > 0
        assert case.cpu_ratio == pytest.approx(case.referee_cpu_us / case.floor_cpu_us, rel=0.02, abs=0.01)
        assert case.cpu_ratios == [case.cpu_ratio]
        assert 0 < case.alone_cpu_us < case.referee_cpu_us  # the same matches, without the processes


def test_the_command_prints_a_line_a_case_or_one_json_object() -> None:
    args = ["bench", "floor", "--games", "1", "--blocks", "1", "--placement", "pinned", "--log", "off"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "pinned log off  referee" in text.output and "ratio" in text.output and "alone" in text.output
    done = CliRunner().invoke(main, [*args, "--json"])
    data = json.loads(done.output)
    assert [(c["placement"], c["log"]) for c in data["cases"]] == [("pinned", False)]
    assert data["cases"][0]["mismatches"] == 0
