"""Complete matches with every sample bot in real processes, in several variants, through
the referee; and the heuristic bot beats the random one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from referee.cli import main
from referee.match.config import MatchConfig
from referee.match.play import TableOptions, play_match
from referee.rules import ruleset
from tests.sample_bots.bot_matches import BOTS, ROOT, entries, random_bot
from tests.sample_bots.bot_matches import sample_bot_command as command

pytestmark = pytest.mark.process

CONFIG = MatchConfig(per_decision=5.0, bank=30.0, startup=20.0)


@pytest.mark.parametrize(
    ("variant", "seats"),
    [
        ("american", ["heuristic", "random", "javascript", "c"]),
        ("dutch", ["c", "javascript", "random", "heuristic"]),
        ("american-3", ["javascript", "heuristic", "c"]),
        ("achterhoeks", ["heuristic", "c", "random", "javascript"]),
        ("american-5", ["random", "heuristic", "javascript", "c", "random"]),
    ],
)
def test_every_sample_bot_plays_a_whole_match(variant: str, seats: list[str], tmp_path: Path) -> None:
    rules = ruleset(variant)
    commands = [command(BOTS[name]) for name in seats]
    log = tmp_path / "match.jsonl"
    outcome = trio.run(
        lambda: play_match(commands, rules, seed=3, log_path=log, options=TableOptions(config=CONFIG, cwd=ROOT))
    )
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players, outcome.seats
    assert outcome.reason in ("target_reached", "reached_zero", "rounds_played")
    assert outcome.winners
    lines = entries(log)
    assert lines[0]["type"] == "header" and lines[0]["rules"]["name"] == variant
    assert not [e for e in lines if e["type"] in ("fault", "fallback")]


def test_heuristic_beats_random_clearly() -> None:
    heuristic = command(BOTS["heuristic"])
    randoms = [random_bot(s) for s in (1, 2, 3)]
    wins = 0
    for seed in range(6):
        seats = [*randoms]
        seats.insert(seed % 4, heuristic)
        outcome = trio.run(
            lambda seats=seats, seed=seed: play_match(
                seats, ruleset("american"), seed=seed, options=TableOptions(config=CONFIG, cwd=ROOT)
            )
        )
        wins += (seed % 4) in outcome.winners
    assert wins >= 4, f"the heuristic bot won {wins} of 6"


def test_demo_command_plays_the_sample_bots(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    result = CliRunner().invoke(main, ["demo", "--seed", "4", "--log", str(tmp_path / "demo.jsonl")])
    assert result.exit_code == 0, result.output
    assert "seats: 0 heuristic, 1 random, 2 javascript" in result.output
    assert "result:" in result.output
    assert (tmp_path / "demo.jsonl").read_text().count("\n") > 100


def test_demo_strong_seats_the_search_bot_first_and_the_log_verifies(tmp_path: Path) -> None:
    log = tmp_path / "strong.jsonl"
    args = ["demo", "--strong", "--variant", "black-maria", "--seed", "3", "--log", str(log)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "seats: 0 search, 1 heuristic, 2 " in result.output
    assert "result:" in result.output
    verified = CliRunner().invoke(main, ["replay", "--verify", str(log)])
    assert verified.exit_code == 0, verified.output
    header = json.loads(log.read_text().splitlines()[0])
    assert "search_bot.py --playouts 30" in header["seats"][0]["command"]
