"""The random bot (``hearts_bots.random_bot``) as a program.

Run from the repository root::

    python3 sample_bots/python/random_bot.py [--seed N] [--tcp HOST:PORT --token T]
"""

import sys

from hearts_bots.random_bot import make_bot
from protocol.bot import main

if __name__ == "__main__":
    raise SystemExit(main(make_bot(sys.argv[1:])))
