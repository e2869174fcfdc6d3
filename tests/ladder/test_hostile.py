"""A ladder with a bot that answers with a line nested 1,000 deep: the match goes on without
that seat, the ladder finishes every match, and a second run has nothing left to do. Seeds
are 128 bits and survive the SQLite store exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.ladder.schedule import draw_sets, set_seed
from referee.rules import ruleset
from referee.store.records import LadderSettings
from referee.store.writer import LadderStore
from tests.hostile_lines import PLAY_LINES
from tests.ladder.helpers import PY, ROOT, bot_list, check_consistent


@pytest.mark.process
def test_a_deeply_nested_reply_does_not_stop_the_ladder(tmp_path: Path) -> None:
    line_file = tmp_path / "deep"
    line_file.write_bytes(PLAY_LINES["deep_inside_play"][0])
    tmp_path.chmod(0o755)  # sandboxed bots run as their own uid; pytest's folders are 0700
    deep = f"{PY} {ROOT}/tests/bots/line_bot.py every {line_file}"
    config = bot_list(tmp_path, ["first", "deep"], deep=deep)
    db = tmp_path / "ladder.db"
    runner = CliRunner()
    # the line file is in the test's private folder, which a sandboxed bot (own uid) cannot read
    args = ["ladder", "run", str(config), "--games", "1", "--db", str(db), "--seed", "5", "--sandbox", "off"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
    store = LadderStore(db)
    statuses = {(row["set_index"], row["rotation"]): row["status"] for row in store.match_rows()}
    store.close()
    assert set(statuses.values()) == {"done"}
    logs = [p.read_text() for p in tmp_path.rglob("*.jsonl")]
    assert len(logs) == 4
    assert all('"type":"fault","t"' in text and '"reason":"bad_json"' in text for text in logs)
    again = runner.invoke(main, ["ladder", "run", str(config), "--db", str(db)])
    assert again.exit_code == 0, again.output
    assert "resuming: 4 of 4 matches done" in again.output


def test_seeds_of_128_bits_are_stored_exactly(tmp_path: Path) -> None:
    ladder_seed = 2**127 + 12345
    rules = ruleset("american")
    sets = draw_sets(["a", "b"], rules.players, ladder_seed, 3)
    assert all(s.seed == set_seed(ladder_seed, s.index) for s in sets)
    assert len({s.seed for s in sets}) == 3 and max(s.seed for s in sets).bit_length() > 64
    store = LadderStore(tmp_path / "l.db")
    store.initialize(LadderSettings(ladder_seed, rules, 3, "2026-01-01T00:00:00+00:00"), [("a", "x"), ("b", "y")], sets)
    assert [s.seed for s in store.sets()] == [s.seed for s in sets]
    assert {m.seed for m in store.pending()} == {s.seed for s in sets}
    assert store.settings().ladder_seed == ladder_seed
    assert {row["seed"] for row in store.match_rows()} == {s.seed for s in sets}
    store.close()


@pytest.mark.process
def test_bot_names_that_look_like_markup_are_shown_as_written(tmp_path: Path) -> None:
    first = f"{PY} {ROOT}/tests/bots/first_legal_bot.py"
    config = tmp_path / "bots.toml"
    config.write_text(f'[[bot]]\nname = "a[/]"\ncommand = "{first}"\n\n[[bot]]\nname = "[red]b"\ncommand = "{first}"\n')
    db = tmp_path / "l[red].db"
    runner = CliRunner()
    result = runner.invoke(main, ["ladder", "run", str(config), "--games", "1", "--db", str(db), "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "a[/]" in result.output and "[red]b" in result.output
    table = runner.invoke(main, ["ladder", "table", "--db", str(db)])
    assert table.exit_code == 0, table.output
    assert "a[/]" in table.output and "[red]b" in table.output and "l[red].db" in table.output
