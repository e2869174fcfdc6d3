"""The ``referee`` command line: one module per command group, joined in ``main``."""

from referee.cli.group import main

__all__ = ["main"]
