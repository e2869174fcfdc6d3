"""A ladder resumed with other rules or another seed: the refusal says exactly what differs and
how to go on, before any build step or bot starts (setup.py ``check_same_ladder``, ``referee
ladder run``). Other bots are not refused: the pool follows the list (tests/ladder/test_pool.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.errors import LadderError
from referee.ladder.setup import bot_differences, check_same_ladder, open_ladder, rule_differences
from referee.players.bot_config import BotEntry
from referee.players.process import ProcessLink
from referee.rules import ruleset
from tests.ladder.helpers import PY, bot_list

AMERICAN = ruleset("american")
ENTRIES = [BotEntry(name=n, command=f"{PY} {n}.py") for n in ("a", "b", "c")]


def make_ladder(db: Path, entries: list[BotEntry] = ENTRIES, seed: int = 7) -> None:
    store, _ = open_ladder(db, entries, None, games=1, seed=seed, default_rules=AMERICAN)
    store.close()


def refusal(db: Path, entries: list[BotEntry], rules: object = None, seed: int | None = None) -> str:
    with pytest.raises(LadderError) as info:
        check_same_ladder(db, entries, rules, seed)  # type: ignore[arg-type]
    return str(info.value)


def test_the_same_config_or_no_ladder_passes(tmp_path: Path) -> None:
    check_same_ladder(tmp_path / "new.db", ENTRIES, None, None)
    assert not (tmp_path / "new.db").exists()
    make_ladder(tmp_path / "l.db")
    check_same_ladder(tmp_path / "l.db", list(reversed(ENTRIES)), AMERICAN, 7)


def test_other_rules_and_seed_are_named_option_by_option(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    make_ladder(db)
    message = refusal(db, ENTRIES, ruleset("american", {"target": 50}), seed=8)
    assert "it is a ladder of american with other rules (target: 100 in the ladder, 50 given)" in message
    assert "it has ladder seed 7, not 8" in message
    assert "run with the rules it was made with (without --variant/--set) and without --seed" in message
    assert f"or start a new ladder with another --db (for example --db {tmp_path / 'l-2.db'})" in message
    assert f"no match of it is finished, so deleting {db} loses nothing" in message
    assert "\n" not in message


def test_the_differences_one_by_one() -> None:
    assert bot_differences({"a": "x"}, {"a": "x"}) == []
    assert bot_differences({"a": "x", "b": "y"}, {"a": "z", "c": "y"}) == [
        "the config has other bots (added c; removed b; a runs 'z', not 'x')"
    ]
    assert rule_differences(AMERICAN, AMERICAN) == ""
    dutch = ruleset("dutch")
    assert "deck: 'standard' in the ladder, 'piket' given" in rule_differences(AMERICAN, dutch)


def test_ladder_run_with_other_rules_explains_before_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "l.db"
    make_ladder(db, [BotEntry(name="a", command=f"{PY} a.py"), BotEntry(name="b", command=f"{PY} b.py")])
    config = bot_list(tmp_path, ["a", "b"], a=f"{PY} a.py", b=f"{PY} b.py")

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("a build step or bot was started")

    monkeypatch.setattr(subprocess, "run", forbidden)
    monkeypatch.setattr(ProcessLink, "start", forbidden)
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(db), "--set", "target=50", "-q"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1
    assert "target: 100 in the ladder, 50 given" in errors[0]
    assert "another --db" in errors[0]


def test_a_bot_list_naming_another_entrants_version_is_refused_before_building(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    make_ladder(db)
    store, _ = open_ladder(
        db, [ENTRIES[0], BotEntry(name="b", command="other"), ENTRIES[2]], None, default_rules=AMERICAN
    )
    store.close()
    message = refusal(db, [*ENTRIES[:2], BotEntry(name="b@2", command="x")])
    assert "bot 'b@2': that is the name of version 2 of 'b'" in message
