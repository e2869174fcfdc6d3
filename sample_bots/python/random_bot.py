"""A Hearts bot that plays a uniformly random legal card and passes random cards.

Run from the repository root::

    python sample_bots/python/random_bot.py [--seed N] [--tcp HOST:PORT --token T]

``--seed`` makes its choices repeatable (default: a seed from os.urandom).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

try:
    import protocol.bot  # noqa: F401
except ImportError:  # not installed: use the repository this file lives in
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from protocol.bot import Bot, TableState, main
from protocol.messages import PassRequest, PlayRequest


class RandomBot(Bot):
    name = "random"
    version = "1.0"
    author = "hearts-referee sample bots"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big")
        self.seed = seed
        self.rng = random.Random(seed)

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        return self.rng.sample(request.legal, request.count)

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        return self.rng.choice(request.legal)


def parse_seed(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=int)
    args, _ = parser.parse_known_args(argv)
    seed: int | None = args.seed
    return seed


if __name__ == "__main__":
    raise SystemExit(main(RandomBot(parse_seed(sys.argv[1:]))))
