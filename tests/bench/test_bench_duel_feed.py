"""``referee bench duel-feed`` plays a duel through its feed and reports what it measured (no
speed is asserted)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from referee.cli import main


def test_bench_duel_feed_times_every_set_asked_for() -> None:
    result = CliRunner().invoke(main, ["bench", "duel-feed", "--sets", "20", "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["sets"] == 20
    assert found["first_ms"] > 0 and found["last_ms"] > 0 and found["total_s"] > 0
