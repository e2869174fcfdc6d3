"""The roll call before a ladder's first match or a duel's first set: each bot of the run is
started once, as its matches will start it (its folder, its sandbox, its limits), and must
answer the referee's ``hello`` within ``--startup``; then it is told goodbye. A bot whose
command fails at once, that exits before its hello or never sends one is named now, with its
fault explained as ``referee match`` explains a failed start (the referee's message, how its
program ended, its last stderr lines), instead of being dropped from every seat of the sets
that would follow. A ladder leaves such a bot out of its run, as it leaves out a bot whose
build was refused (``refusal`` says why)."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Mapping, Sequence

import trio

from referee.ladder.runner import RunOptions, limits_among
from referee.match.faults import start_report
from referee.match.text import why_lines
from referee.players.connection import BotConnection, handshake, say_goodbye
from referee.players.process import BotLimits, BotStartError, ProcessLink
from referee.shared import FaultReport


def roll_call(commands: Mapping[str, str], names: Sequence[str], options: RunOptions) -> dict[str, FaultReport]:
    """Start each of ``names`` (all at once) and take its hello; the ones that failed, with
    what went wrong. Each bot is ended before this returns."""
    return trio.run(take_roll, commands, names, options)


async def take_roll(commands: Mapping[str, str], names: Sequence[str], options: RunOptions) -> dict[str, FaultReport]:
    """``roll_call`` in a trio run already going (a running ladder's new versions)."""
    failed: dict[str, FaultReport] = {}

    async def answer(name: str) -> None:
        report = await _answer(name, commands[name], options, limits_among(options, commands, name))
        if report is not None:
            failed[name] = report

    async with trio.open_nursery() as nursery:
        for name in names:
            nursery.start_soon(answer, name)
    return {name: failed[name] for name in names if name in failed}


async def _answer(name: str, command: str, options: RunOptions, limits: BotLimits) -> FaultReport | None:
    """One bot's start and hello, with the ``limits`` its matches will have; ``None`` when it
    answered."""
    folder = started_in(limits, options)
    async with trio.open_nursery() as nursery:
        try:
            link = await ProcessLink.start(command, nursery, cwd=options.cwd, limits=limits)
        except BotStartError as err:
            return FaultReport(
                seat=0, name=name, reason="start", message=str(err), action="forfeit", command=command, folder=folder
            )
        connection = BotConnection(link=link, command=command, label=name)
        await handshake(connection, options.config.startup)
        await say_goodbye(connection, options.config.grace)
        await link.wait_exit(3 * options.config.grace + 1)
    return None if connection.alive else start_report(connection, folder)


def started_in(limits: BotLimits, options: RunOptions) -> str:
    """The folder a bot's program starts in: its own (``folder =``, ``dir=``), else the run's."""
    return os.path.abspath(limits.cwd or options.cwd or os.getcwd())


def refusal(name: str, report: FaultReport) -> str:
    """Why a ladder leaves ``name`` out: its failed start explained as ``referee match``
    explains one (what it printed, how its program ended, the path its sandbox hid)."""
    return "\n".join([f"bot {name} refused: it failed its start-up check ({report.reason})", *why_lines(report)])


Crowded = dict[str, tuple[list[str], list[str]]]
"""Each folder shown whole to none of the bots that start in it: (those bots, what lies in it
that is not theirs; empty when that is only another bot starting there)."""


def crowding(commands: Mapping[str, str], names: Sequence[str], options: RunOptions) -> tuple[Crowded, set[str]]:
    """The folders that bots of ``names`` start in and use but that are shown whole to none of
    them, because other bots' files or the referee's lie in it (``Sandbox.crowded``), and the
    referee's own hidden files among what lies there (its database and logs): each such bot
    sees only the paths its command names, which is safe but may hide a data file it reads by
    a relative path. The ladder (``crowded_folders``) and the duel (``referee.duel.folders``)
    each say it with their own fixes."""
    crowded: Crowded = {}
    referees: set[str] = set()
    for name in names:
        limits = limits_among(options, commands, name)
        if limits.sandbox is None:
            continue
        referees.update(limits.sandbox.hidden)
        with contextlib.suppress(ValueError):
            folder = started_in(limits, options)
            found = limits.sandbox.crowded(shlex.split(commands[name]), folder, limits.environment() or {})
            if found:
                bots, paths = crowded.setdefault(folder, ([], []))
                bots.append(name)
                # the folder itself is there when another bot starts in it too: not a file it holds
                paths.extend(p for p in found if p not in paths and p != folder)
    return crowded, referees


def crowded_folders(commands: Mapping[str, str], names: Sequence[str], options: RunOptions) -> list[str]:
    """One line for each folder ``crowding`` finds, with the ladder's fix: a folder of its own
    per bot (docs/ladder.md)."""
    crowded, _ = crowding(commands, names, options)
    return [
        f"the folder {folder} is used by {', '.join(bots)} but holds {some(paths) or OTHER_BOTS}: it is shown whole "
        "to none of them, only the paths each command names (give each bot a folder of its own: `folder =`, "
        "docs/ladder.md)"
        for folder, (bots, paths) in crowded.items()
    ]


OTHER_BOTS = "other bots' files"
"""What a crowded folder holds when no path of it can be named: another bot starts in it too."""


def some(paths: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")
