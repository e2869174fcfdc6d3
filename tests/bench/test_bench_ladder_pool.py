"""``referee bench ladder-pool`` runs and reports what it measured (no speed is asserted)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from referee.cli import main


def test_bench_ladder_pool_times_a_draw_and_an_edit() -> None:
    result = CliRunner().invoke(main, ["bench", "ladder-pool", "--matches", "40", "--repeats", "2", "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["matches"] == 40
    assert 0 < found["draw_ms"] <= found["draw_max_ms"] and 0 < found["change_ms"] <= found["change_max_ms"]
