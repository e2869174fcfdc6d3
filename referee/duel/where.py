"""Where a duel's or a gauntlet's database goes when ``--db`` is not given: ``duel.db`` (or
``gauntlet.db``) in the current folder, as before, unless that folder is a bot's: the folder a
bot of the run starts in and uses, or one its command names (``referee.sandbox.sight.footprint``).
A database there would be the referee's file in the bot's folder, which the sandbox then shows
whole to no bot (``referee.sandbox.sight.own_folder``): the bot would see only the files its
command names. Then the database goes to the user's state folder
(``$XDG_STATE_HOME/hearts-referee/``, by default ``~/.local/state/hearts-referee/``), named
from a digest of the run's bots (their roles, commands and folders), so that the same command
from the same folder resumes the same duel; the command prints where it is."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from referee.duel.settings import Contest
from referee.players.bot_config import BotEntry, command_words
from referee.sandbox.sight import footprint, inside

STATE_NAME = "hearts-referee"
"""The referee's folder in the user's state folder."""


class DefaultDb(NamedTuple):
    """The default database and, when it is not in the current folder, why (the bots whose
    folder the current folder is)."""

    path: Path
    crowded: tuple[str, ...] = ()


def state_folder() -> Path:
    """``$XDG_STATE_HOME/hearts-referee`` (an absolute ``XDG_STATE_HOME`` only, as the XDG base
    directory specification says), else ``~/.local/state/hearts-referee``."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / STATE_NAME


def bots_holding(path: str | Path, entries: Sequence[BotEntry]) -> list[str]:
    """The bots of ``entries`` (each with its folder) in whose folder ``path`` would lie."""
    path = os.path.abspath(path)
    found = []
    for entry in entries:
        folder = os.path.abspath(entry.folder or ".")
        if any(inside(path, place) for place in footprint(command_words(entry.command), folder)):
            found.append(entry.name)
    return found


def default_db(kind: Contest, entries: Sequence[BotEntry], here: Path | None = None) -> DefaultDb:
    """Where the run of ``entries`` (each with its absolute folder) keeps its database when
    ``--db`` is not given; ``here``: the current folder."""
    local = (here or Path.cwd()) / f"{kind}.db"
    holding = bots_holding(local, entries)
    if not holding:
        return DefaultDb(Path(f"{kind}.db") if here is None else local)
    identity = [kind, *([e.name, e.command, os.path.abspath(e.folder or "."), e.build] for e in entries)]
    digest = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:12]
    return DefaultDb(state_folder() / f"{kind}-{digest}.db", tuple(holding))


def moved_note(kind: Contest, found: DefaultDb) -> str:
    """The line that says where the default database went, and why."""
    whose = ", ".join(found.crowded)
    return (
        f"{kind} database: {found.path} (not {kind}.db here: the current folder is the folder of {whose}, and a "
        f"bot's folder holds none of the referee's files; the same command resumes it; --db FILE chooses another)"
    )
