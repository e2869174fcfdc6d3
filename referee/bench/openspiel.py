"""``referee bench openspiel``: our rules engine against OpenSpiel's C++ Hearts engine, side by
side in one run.

Both play random legal American hands in this process, in alternating blocks so that both see
the same machine load: ours through the referee's API (``bench engine``'s driver), OpenSpiel
through ``pyspiel`` with the cheapest correct driver, the fair one for the side we compare
against: ``choice`` over ``legal_actions()`` at every node. At a decision (three passes per
seat, 52 plays) that is what ours does over ``legal_plays()``; at a chance node (the pass
direction, each card of the deal) ``legal_actions()`` lists the chance outcomes, and Hearts'
chance outcomes are uniform (``tests/bench/test_bench_openspiel.py`` checks both), so a uniform
``choice`` among them is the game's own distribution. Drawing over ``chance_outcomes()``
instead (the driver before issue 46) builds a list of (action, probability) pairs at each of
the 53 chance nodes and made OpenSpiel's hands 1.5 times as slow. OpenSpiel is optional:
``pip install -e '.[compare]'``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import msgspec

from referee.bench.engine import bench_engine


class OpenSpielMissing(Exception):
    """``pyspiel`` cannot be imported."""


class OpenSpielBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench openspiel``: hands per second of each block, in order."""

    blocks: int
    seconds: float
    ours: list[float]
    openspiel: list[float]
    ours_median: float
    openspiel_median: float
    ratio: float
    """``ours_median / openspiel_median`` (the aim of issue 13: 2)."""


def _pyspiel() -> Any:
    try:
        import pyspiel  # noqa: PLC0415 - optional, and slow to import
    except ImportError as err:
        raise OpenSpielMissing(f"OpenSpiel is not installed ({err}): pip install -e '.[compare]'") from None
    return pyspiel


def openspiel_hands(game: Any, seconds: float, seed: int) -> float:
    """Random American hands of OpenSpiel's ``hearts`` per second, for about ``seconds``."""
    choice = random.Random(seed).choice
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():  # chance nodes too: their outcomes are uniform
                state.apply_action(choice(state.legal_actions()))
            state.returns()
            hands += 1
        if time.perf_counter() >= deadline:
            return hands / (time.perf_counter() - start)


def bench_openspiel(blocks: int = 6, seconds: float = 3.0) -> OpenSpielBench:
    """``blocks`` pairs of ``seconds`` each, the order swapped every block."""
    game = _pyspiel().load_game("hearts")
    bench_engine("american", 0.2, 0)  # warm up both: imports, tables, caches
    openspiel_hands(game, 0.2, 0)
    ours: list[float] = []
    theirs: list[float] = []
    for block in range(blocks):
        for side in ("ours", "theirs") if block % 2 == 0 else ("theirs", "ours"):
            if side == "ours":
                ours.append(bench_engine("american", seconds, block + 1).hands_per_second)
            else:
                theirs.append(openspiel_hands(game, seconds, block + 1))
    ours_median = sorted(ours)[len(ours) // 2]
    theirs_median = sorted(theirs)[len(theirs) // 2]
    return OpenSpielBench(
        blocks=blocks,
        seconds=seconds,
        ours=[round(h, 1) for h in ours],
        openspiel=[round(h, 1) for h in theirs],
        ours_median=round(ours_median, 1),
        openspiel_median=round(theirs_median, 1),
        ratio=round(ours_median / theirs_median, 2),
    )
