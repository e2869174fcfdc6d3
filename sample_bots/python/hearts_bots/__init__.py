"""The Python sample bots, as a package: the random, heuristic, search and ISMCTS bots.

The programs are the scripts beside this folder (``sample_bots/python/search_bot.py``...):
Python puts a script's own folder on ``sys.path``, so they import this package as they find
it. The package imports the kit (``protocol``) and the rules engine (``referee.rules``) as any
Python bot does: from the referee installed with pip in the Python that runs the bot
(docs/bots.md, "The engine as a library").
"""
