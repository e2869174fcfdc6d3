"""`referee serve`: bots connect over TCP with the printed tokens and play several matches on
the same connections."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.seeds import series_seed
from tests.match.listening import random_bots_for, seats_announced

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]


def test_serve_plays_matches_for_connected_bots(tmp_path: Path) -> None:
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "serve",
            "--matches",
            "2",
            "--seed",
            "5",
            "--json",
            "--set",
            "end=rounds",
            "--set",
            "rounds=1",
            "--log-dir",
            str(tmp_path),
            "n",
            "e",
            "s",
            "w",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    bots = random_bots_for(seats_announced(serve))
    out, _ = serve.communicate(timeout=60)
    assert serve.returncode == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 2
    assert all([s["status"] for s in r["seats"]] == ["ok"] * 4 for r in results)
    # the second match's seed is a hash of the first, not the next number: one seed found by a
    # bot from its hands gives away no other match
    assert [r["seed"] for r in results] == ["5", str(series_seed(5, 1))]
    assert series_seed(5, 1).bit_length() > 64
    assert all(bot.wait(timeout=10) == 0 for bot in bots)  # goodbye after the second match
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match-1.jsonl", "match-2.jsonl"]
