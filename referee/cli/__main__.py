"""``python -m referee.cli``: the command line (as ``python -m referee``)."""

from referee.cli.group import main

main()
