"""``referee bench engine``: random legal hands through the rules API, timed in one process.

The figures go to ``docs/performance.md`` with the command that produced them; no test
asserts a speed (timed assertions flake on shared machines).
"""

from __future__ import annotations

import random
import time

import msgspec

from referee.rules.match import Match
from referee.rules.presets import ruleset
from referee.rules.random_play import play_round


class EngineBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench engine``."""

    variant: str
    seconds: float
    hands: int
    decisions: int
    hands_per_second: float
    decisions_per_second: float


def bench_engine(variant: str = "american", seconds: float = 5.0, seed: int = 1) -> EngineBench:
    """Play random legal matches of ``variant`` for about ``seconds`` and count complete hands
    (deal, passing, every trick, scoring) and decisions (passes, plays, declarations, moon
    choices). Uses ``Match`` and ``Round`` exactly as the referee does."""
    rules = ruleset(variant)
    rng = random.Random(seed)
    hands = decisions = 0
    match_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        match = Match(rules, match_seed)
        match_seed += 1
        while not match.over:
            round_ = match.next_round()
            decisions += play_round(round_, rng)
            match.record(round_)
            hands += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return EngineBench(
        variant=variant,
        seconds=round(elapsed, 3),
        hands=hands,
        decisions=decisions,
        hands_per_second=round(hands / elapsed, 1),
        decisions_per_second=round(decisions / elapsed, 1),
    )
