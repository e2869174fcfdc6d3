"""The ladder's bots before any match: every program must exist and every build succeed, so a
bot that could never start is named at once (on the coordinator of a local run, on each worker
of a cluster run) rather than found crashing in every match."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

import msgspec

from referee.errors import LadderError, RefereeError
from referee.players.bot_config import BotEntry, bot_folder, command_words, missing_program
from referee.players.building import BuildRefused, BuiltBot, build
from referee.sandbox.bwrap import Sandbox

LEAST = 2
"""Bots a ladder needs to play."""


def prepare_bots(
    entries: Sequence[BotEntry],
    cwd: Path | None,
    sandbox: Sandbox | None = None,
    private: Sequence[Path] = (),
    refused: list[RefereeError] | None = None,
) -> dict[str, BuiltBot]:
    """Before any match: every bot's programs must exist and its build (if any) succeed, so a
    bot that could never start is named now rather than found crashing in every match.
    Programs looked up on PATH are checked before any build runs; a program or a script given
    as a path after the builds (a build may make it), relative to the bot's folder (taken
    from ``cwd``, default: the current folder). Returns where each bot runs from (a sandboxed
    build's copy among it); ``private`` are the referee's files, which no build may write or
    see. Raises ``LadderError`` naming the bot, the program and where it was looked for, or
    ``BotConfigError`` for a failed build. With ``refused`` (a ladder's start), a bot whose
    program is missing, or whose files cannot be copied for its build or whose build's output
    cannot be sealed (``BuildRefused``): that bot's fault, not the others', is put there and
    left out of what is returned, instead of raised: one entrant's missing file does not stop
    a class's ladder at its next start."""
    base = cwd or Path.cwd()
    left_out: set[str] = set()

    def missing(entry: BotEntry, folder: Path, copy: Path | None) -> None:
        problem = missing_program(entry.command, folder, copy)
        if problem is None:
            return
        err = LadderError(f"bot {entry.name}: its command {entry.command!r} {problem}")
        if refused is None:
            raise err
        refused.append(err)
        left_out.add(entry.name)

    for entry in entries:
        program = command_words(entry.command)[0]
        if "/" not in program:  # its program only: the files it names may be what the build makes
            missing(entry if not entry.build else _program_only(entry, program), bot_folder(entry, base), None)
    if refused is not None and len(entries) - len(left_out) < LEAST:  # no build for a ladder that cannot play
        raise LadderError(
            f"{'; '.join(map(str, refused))}; a ladder needs at least {LEAST} bots, {len(entries) - len(left_out)} left"
        )
    built = {}
    for entry in entries:
        if entry.name in left_out:
            continue
        try:
            built[entry.name] = build(entry, base, sandbox, private)
        except BuildRefused as err:
            if refused is None:
                raise
            refused.append(err)
    for entry in entries:
        if entry.name in built:
            missing(entry, built[entry.name].folder, built[entry.name].copy)
            if entry.name in left_out:
                del built[entry.name]
    return built


def _program_only(entry: BotEntry, program: str) -> BotEntry:
    """The entry with its command cut to its program (``java -jar bot.jar`` -> ``java``)."""
    return msgspec.structs.replace(entry, command=shlex.quote(program))
