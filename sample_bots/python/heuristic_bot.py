"""The heuristic bot (``hearts_bots.heuristic_bot``) as a program.

Run from the repository root::

    python3 sample_bots/python/heuristic_bot.py [--tcp HOST:PORT --token T]
"""

from hearts_bots.heuristic_bot import HeuristicBot
from protocol.bot import main

if __name__ == "__main__":
    raise SystemExit(main(HeuristicBot))
