"""The time plan of the bots that search on the clock (the search bot and the ISMCTS bot).

Both spend the same share of each decision's limit by the same rule, so that a ladder of the
two compares their methods, not their clocks; both fall back on the heuristic bot when their
search cannot answer.
"""

from __future__ import annotations

import argparse
import os
import random

from hearts_bots.heuristic_bot import HeuristicBot
from protocol.bot import Bot
from protocol.messages import TimeLeft

BUDGET = 0.4
"""The share of each decision's own limit a clocked bot spends by default (``--budget``)."""


def clock_parser() -> argparse.ArgumentParser:
    """The command line every clocked bot takes: ``--seed``, ``--budget``, ``--max-seconds``.
    Each bot adds its own options; what none knows is left to the kit (``--tcp``...)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--budget", type=float, default=BUDGET, help="share of the decision's time limit to use")
    parser.add_argument("--max-seconds", type=float, help="at most this many seconds per decision")
    return parser


class ClockedBot(Bot):
    """What a bot that searches on the clock holds: its seed and random numbers, its share of
    each decision's limit, and the heuristic bot to fall back on."""

    def __init__(self, seed: int | None, budget: float, max_seconds: float | None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big")
        self.seed = seed
        self.rng = random.Random(seed)
        self.budget = budget
        self.max_seconds = max_seconds
        self.fallback = HeuristicBot()

    def seconds_for(self, time_left: TimeLeft | None) -> float:
        """What one decision may spend: ``budget`` of its own limit, and when that limit is
        short (under 0.2 s) a thousandth of the bank besides; at most ``max_seconds``."""
        if time_left is None:
            seconds = 0.2
        else:
            seconds = self.budget * time_left.decision_ms / 1000
            if time_left.decision_ms < 200:
                seconds += time_left.bank_ms / 1000 / 1000
        if self.max_seconds is not None:
            seconds = min(seconds, self.max_seconds)
        return max(seconds, 0.005)
