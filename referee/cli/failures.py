"""How a command fails: an unexpected error as one line (never a traceback, unless
``REFEREE_DEBUG`` is set), and, for the commands whose exit status is an answer (``referee
duel`` and ``referee gauntlet``: 0, 1 and 3 say what the test decided), every failure as exit
status 2, so that a script never reads an error as "H0 accepted"."""

from __future__ import annotations

import os
from typing import Any

import click

EXIT_ERROR = 2
"""What a command whose exit status is an answer exits with when it fails."""


def internal_error_line(err: BaseException) -> str:
    """An error no check turned into a usage error, as one line for stderr."""
    message = " ".join(str(err).split())
    return f"referee: internal error: {type(err).__name__}: {message} (set REFEREE_DEBUG=1 for the traceback)"


class AnswerError(click.ClickException):
    """A failure of a command whose exit status is an answer: exit status 2."""

    exit_code = EXIT_ERROR


class AnswerCommand(click.Command):
    """A command whose exit status is an answer: anything unforeseen that it raises becomes
    the one-line internal error with exit status 2 (not the group's 1, which it uses for an
    answer), unless ``REFEREE_DEBUG`` asks for the traceback. Usage errors are click's, exit
    status 2 already."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as err:
            if os.environ.get("REFEREE_DEBUG"):
                raise
            raise AnswerError(internal_error_line(err).removeprefix("referee: ")) from None
