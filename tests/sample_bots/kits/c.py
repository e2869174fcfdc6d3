"""The sample C bot (``sample_bots/c/bot.c``): no kit, one file that keeps the plumbing a bot
needs (its own JSON scanner), built in place with ``make`` as ``sample_bots/bots.toml`` says
(``tests/conftest.py`` builds it before the first test). It passes and plays the first legal
cards."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from tests.sample_bots.bot_matches import BOTS, sample_bot_command
from tests.sample_bots.kits.spec import ROOT, Built, Kit, Position, run

FOLDER = ROOT / "sample_bots" / "c"
FLAGS = "-O2 -Wall -Wextra -std=c99"
"""The Makefile's flags."""


def build(_: Path) -> Built:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler (gcc or cc) is installed")
    entry = BOTS["c"]
    return Built(folder=FOLDER, command=entry.command, argv=shlex.split(sample_bot_command(entry)))


def lint(_: Built, scratch: Path) -> str:
    """bot.c compiled with the Makefile's flags, ``-pedantic`` and ``-Werror``."""
    compiler = shutil.which("gcc")
    if compiler is None:
        pytest.skip("gcc is not installed")
    result = run([compiler, *FLAGS.split(), "-pedantic", "-Werror", "-o", str(scratch / "bot"), "bot.c"], FOLDER)
    assert result.returncode == 0, result.stderr
    return result.stderr


C = Kit(
    name="c",
    language="C",
    folder=FOLDER,
    build=build,
    tools=("make",),
    lint=lint,
    build_line=("Makefile", FLAGS),
    passes=("2C", "5C", "9C"),  # the first three cards of the hand
    plays=(
        Position(("9D",), ("TD", "KD", "2D"), "TD"),
        Position((), ("5C", "3H", "9S"), "5C"),
    ),
    max_id=2**63 - 1,  # a long long
    fatal_log=None,  # it logs the error's line
    line_limit=False,  # its buffer holds a longer line than the protocol's
)
