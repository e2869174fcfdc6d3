"""The search bot (``hearts_bots.search_bot``, docs/bots.md) as a program.

Run from the repository root::

    python3 sample_bots/python/search_bot.py [--seed N] [--playouts N] [--budget F]
        [--max-seconds S] [--tcp HOST:PORT --token T]
"""

import sys

from hearts_bots.search_bot import make_bot
from protocol.bot import main

if __name__ == "__main__":
    raise SystemExit(main(make_bot(sys.argv[1:])))
