"""A Hearts bot that plays a uniformly random legal card and passes random cards.

Its program, with the command line, is ``sample_bots/python/random_bot.py``.

``--seed`` makes its choices repeatable (default: a seed from os.urandom).
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Sequence

from protocol.bot import Bot, TableState
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


def make_bot(argv: Sequence[str]) -> RandomBot:
    """The bot its command line asks for: ``--seed N`` (the other arguments are the kit's)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=int)
    args, _ = parser.parse_known_args(argv)
    seed: int | None = args.seed
    return RandomBot(seed)
