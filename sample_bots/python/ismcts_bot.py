"""The OpenSpiel ISMCTS bot (``hearts_bots.ismcts_bot``, docs/bots.md) as a program.

Run from the repository root (OpenSpiel: ``pip install -e '.[compare]'``; without it the bot
plays as the heuristic bot)::

    python3 sample_bots/python/ismcts_bot.py [--seed N] [--simulations N] [--budget F]
        [--max-seconds S] [--uct-c C] [--rollouts N] [--world-samples N]
        [--final-policy max-visits|sample] [--tcp HOST:PORT --token T]
"""

import sys

from hearts_bots.ismcts_bot import make_bot
from protocol.bot import main

if __name__ == "__main__":
    raise SystemExit(main(make_bot(sys.argv[1:])))
