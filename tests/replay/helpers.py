"""Real replay logs for the replay tests: real matches between real bot processes (sample bots,
hostile bots, a rule-breaking bot and bots making an author's common mistakes), each played
once per test session, when first needed; and ``referee replay`` run in-process."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from click.testing import CliRunner, Result

from referee.cli import main
from referee.match.config import MatchConfig
from referee.match.play import TableOptions, play_match
from referee.rules import ruleset

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
RANDOM = f"{PY} sample_bots/python/random_bot.py --seed 1"
HEURISTIC = f"{PY} sample_bots/python/heuristic_bot.py"
JS = "node sample_bots/javascript/bot.js" if shutil.which("node") else f"{PY} sample_bots/python/random_bot.py --seed 2"
FIRST = f"{PY} tests/bots/first_legal_bot.py"
BREAKER = f"{PY} tests/replay/bots/rule_breaker.py"
HOSTILE = f"{PY} tests/bots/hostile_bot.py"
MISTAKE = f"{PY} tests/bots/mistake_bot.py"
FAST = MatchConfig(per_decision=0.5, bank=0.5, startup=10.0, grace=0.3)
SLOW = MatchConfig(per_decision=5.0, bank=30.0, startup=20.0)


@dataclass(frozen=True)
class Setup:
    variant: str
    options: dict[str, Any]
    bots: list[str]
    seed: int
    config: MatchConfig = SLOW


SETUPS: dict[str, Setup] = {
    "american": Setup("american", {"end": "rounds", "rounds": 4}, [RANDOM, HEURISTIC, JS, RANDOM], 3),
    "dutch": Setup("dutch", {}, [RANDOM, HEURISTIC, FIRST, HEURISTIC], 4),
    "achterhoeks": Setup(
        "achterhoeks", {"end": "rounds", "rounds": 3}, [f"{BREAKER} declare", FIRST, f"{BREAKER} declare", HEURISTIC], 5
    ),
    "moon_choice": Setup(
        "american-moon-choice",
        {"card_points": {"QS": 13}, "end": "rounds", "rounds": 4},  # only the Q♠ counts: every round is a moon
        [f"{BREAKER} subtract", FIRST, f"{BREAKER} subtract", FIRST],
        6,
    ),
    # deterministic bots and a seed with a trick whose identical cards cancel out
    "double_deck": Setup("double-deck", {"end": "rounds", "rounds": 2}, [FIRST] * 6, 1),
    "forfeit": Setup(
        "american",
        {"end": "rounds", "rounds": 2},
        [f"{HOSTILE} crash", f"{BREAKER} illegal=3", f"{HOSTILE} garbage", f"{HOSTILE} sleep"],
        8,
        FAST,
    ),
    "penalty": Setup(
        "american",
        {"end": "rounds", "rounds": 3},
        [f"{BREAKER} illegal=5", FIRST, f"{BREAKER} illegal=9", FIRST],
        11,
        MatchConfig(per_decision=5.0, bank=30.0, policy="penalty"),
    ),
    "substitute": Setup(
        "american",
        {"end": "rounds", "rounds": 3},
        [f"{BREAKER} illegal=4,shortpass", FIRST, f"{BREAKER} notacard", FIRST],
        12,
        MatchConfig(per_decision=5.0, bank=30.0, policy="substitute", illegal_move_cap=2),
    ),
    # a traceback on stderr, a debug print on stdout, a reply never flushed (a time-out)
    "mistakes": Setup(
        "american",
        {"end": "rounds", "rounds": 2},
        [f"{MISTAKE} crash", f"{MISTAKE} debug_print", f"{MISTAKE} no_flush", FIRST],
        4,
        FAST,
    ),
    "wrong_version": Setup(
        "american", {"end": "rounds", "rounds": 1}, [FIRST, f"{MISTAKE} wrong_version", FIRST, FIRST], 4
    ),
}


class MatchLogs:
    """Plays each named match the first time a test asks for its log."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.paths: dict[str, Path] = {}

    def __call__(self, name: str) -> Path:
        if name not in self.paths:
            setup = SETUPS[name]
            path = self.directory / f"{name}.jsonl"
            rules = ruleset(setup.variant, setup.options)
            trio.run(
                lambda: play_match(
                    setup.bots,
                    rules,
                    seed=setup.seed,
                    log_path=path,
                    options=TableOptions(config=setup.config, cwd=ROOT),
                )
            )
            self.paths[name] = path
        return self.paths[name]


def replay(*args: str | Path) -> Result:
    """``referee replay ARGS`` in-process."""
    return CliRunner().invoke(main, ["replay", *map(str, args)])
