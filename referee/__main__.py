"""``python -m referee``: the command line."""

from referee.cli import main

main()
