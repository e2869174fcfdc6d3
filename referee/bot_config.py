"""Bot lists in TOML (the format of ``sample_bots/bots.toml``): a name, the command that runs
the bot from the config's base folder, and an optional build step run first."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import msgspec

from referee.errors import RefereeError


class BotConfigError(RefereeError):
    """A bot list that cannot be read, or a build step that failed."""


class BotEntry(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    command: str
    build: str | None = None


class BotList(msgspec.Struct, frozen=True, kw_only=True):
    bot: list[BotEntry]


def read_bots(path: str | Path) -> list[BotEntry]:
    """The bots listed in a TOML file; raises ``BotConfigError`` naming what is wrong."""
    try:
        data = tomllib.loads(Path(path).read_text())
        return msgspec.convert(data, BotList).bot
    except (OSError, tomllib.TOMLDecodeError, msgspec.ValidationError) as err:
        raise BotConfigError(f"{path}: {err}") from None


def runnable(entry: BotEntry) -> bool:
    """Whether the programs a bot needs (its command's and its build's first word) exist here."""
    words = [shlex.split(entry.command)[0]]
    if entry.build:
        words.append(shlex.split(entry.build)[0])
    return all(shutil.which(w) or w.startswith(("./", "/")) for w in words)


def build(entry: BotEntry, cwd: str | Path) -> None:
    """Run a bot's build step (if any) in ``cwd``; raises ``BotConfigError`` when it fails."""
    if not entry.build:
        return
    done = subprocess.run(shlex.split(entry.build), cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BotConfigError(f"building {entry.name} failed ({entry.build}):\n{done.stdout}{done.stderr}")
