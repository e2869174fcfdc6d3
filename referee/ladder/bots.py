"""The ladder's bots before any match: every program must exist and every build succeed, so a
bot that could never start is named at once (on the coordinator of a local run, on each worker
of a cluster run) rather than found crashing in every match."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from referee.ladder.errors import LadderError
from referee.match.seats.bot_config import BotEntry, build, command_words, missing_program
from referee.sandbox.bwrap import Sandbox


def prepare_bots(entries: Sequence[BotEntry], cwd: Path | None, sandbox: Sandbox | None = None) -> None:
    """Before any match: every bot's programs must exist and its build (if any) succeed, so a
    bot that could never start is named now rather than found crashing in every match.
    Programs looked up on PATH are checked before any build runs; a program or a script given
    as a path after the builds (a build may make it), relative to ``cwd`` (default: the
    current folder). Raises ``LadderError`` naming the bot, the program and where it was
    looked for, or ``BotConfigError`` for a failed build."""
    folder = cwd or Path.cwd()
    for entry in entries:
        if "/" not in command_words(entry.command)[0]:
            _refuse_missing(entry, folder)
    for entry in entries:
        build(entry, folder, sandbox)
    for entry in entries:
        _refuse_missing(entry, folder)


def _refuse_missing(entry: BotEntry, folder: Path) -> None:
    problem = missing_program(entry.command, folder)
    if problem is not None:
        raise LadderError(f"bot {entry.name}: its command {entry.command!r} {problem}")
