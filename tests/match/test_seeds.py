"""Deal seeds cannot be guessed: 128 random bits by default, hashes for a series; a given
seed still reproduces its match exactly."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.seeds import SEED_BITS, random_seed, series_seed

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"


def test_random_seeds_use_all_128_bits() -> None:
    seeds = [random_seed() for _ in range(64)]
    assert len(set(seeds)) == 64
    assert all(0 <= s < 2**SEED_BITS for s in seeds)
    assert max(s.bit_length() for s in seeds) > 120  # 64 draws all under 2**120: odds 2**-512


def test_series_seeds_are_hashes_not_successors() -> None:
    first = 41
    seeds = [series_seed(first, i) for i in range(5)]
    assert seeds[0] == first  # --seed reproduces the first match
    assert len(set(seeds)) == 5
    assert all(s != first + i and s.bit_length() > 64 for i, s in enumerate(seeds) if i)
    assert seeds == [series_seed(first, i) for i in range(5)]  # the same on every run


def match(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["match", "--json", "--set", "end=rounds", "--set", "rounds=1", *args, GOOD, GOOD, GOOD, GOOD]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


@pytest.mark.process
def test_a_match_without_a_seed_gets_a_128_bit_one() -> None:
    seed = match()["seed"]
    # a string of digits: a JSON reader with doubles (JavaScript's) would lose a 128-bit integer
    assert isinstance(seed, str) and int(seed).bit_length() > 64  # odds of a false failure: 2**-64


@pytest.mark.process
def test_a_given_seed_of_any_size_reproduces_the_match(tmp_path: Path) -> None:
    seed = 2**127 + 99
    first = match("--seed", str(seed), "--log", str(tmp_path / "a.jsonl"))
    second = match("--seed", str(seed), "--log", str(tmp_path / "b.jsonl"))
    assert first["seed"] == second["seed"] == str(seed)
    assert first["scores"] == second["scores"]
    deals = [
        [e["hands"] for e in map(json.loads, (tmp_path / name).read_text().splitlines()) if e["type"] == "deal"]
        for name in ("a.jsonl", "b.jsonl")
    ]
    assert deals[0] == deals[1] and deals[0]
    code = CliRunner().invoke(main, ["replay", "--verify", str(tmp_path / "a.jsonl")])
    assert code.exit_code == 0 and "verified" in code.output, code.output
