"""Why a bot never completed its handshake: the hint that fits the cause, not a guess.

A failed first step used to say "in the sandbox: ... --sandbox-bind PATH" whatever went wrong,
and for an unflushed hello, a slow start or the wrong Python that points the wrong way. The
sandbox is named as the cause only when it is known to be one: the bot's stderr names a path
outside every place its sandbox showed it, or one it was refused inside such a place
(``referee.sandbox.misses``: from its words and those places, never a look at this machine), or
the same step passes when the bot is started once more without the sandbox (with the
sandbox's clean environment and every other limit as before). Otherwise the step keeps the hint of its own fault, and a
Python bot that cannot import ``protocol`` is told that its Python is not the referee's.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from referee.check.results import StepResult
from referee.sandbox.misses import bind_hint

MISSING_KIT: Final = re.compile(r"ModuleNotFoundError: No module named '(protocol)(?:\.\w+)*'")
"""What a Python bot writes when the kit (the ``protocol`` package) is not in its Python."""
WRONG_PYTHON: Final = (
    "the bot's Python cannot import protocol (the kit): run it with the referee's Python "
    "(sys.executable of the referee, e.g. .venv/bin/python) or `pip install -e` this repository into its Python"
)
NEEDS_SANDBOX_PATH: Final = (
    "it passes when started without the sandbox, so the sandbox keeps something from it: a path "
    "outside its folder (show it with --sandbox-bind PATH, read-only) or the network"
)


def kit_hint(stderr: str) -> str | None:
    """The hint for a Python bot whose Python is not the one the kit is installed in, or ``None``."""
    return WRONG_PYTHON if MISSING_KIT.search(stderr) else None


async def explain_sandboxed_start(
    result: StepResult, shown: Sequence[str], passes_bare: Callable[[], Awaitable[bool]], *, stranger: bool
) -> None:
    """Give the failed first step of a sandboxed bot the hint that fits: the path it missed
    (``shown``: the places its sandbox showed it; ``stranger``: it ran as a user of its own),
    or (``passes_bare``: the same step once more without the sandbox) that the sandbox is the
    cause; else its own hint stays."""
    missed = bind_hint(result.stderr, shown, stranger=stranger)
    if missed is not None:
        result.hint = missed
    elif await passes_bare():
        result.hint = NEEDS_SANDBOX_PATH
        result.message += " (it passes without the sandbox)"
