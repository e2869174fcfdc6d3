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
from referee.names import MAX_NAME, printable, safe_name


class BotConfigError(RefereeError):
    """A bot list that cannot be read, or a build step that failed."""


class BotEntry(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    command: str
    build: str | None = None


class BotList(msgspec.Struct, frozen=True, kw_only=True):
    bot: list[BotEntry]


def command_words(command: str) -> list[str]:
    """A bot's command line split as the referee runs it (shell-style quoting, no shell);
    raises ``BotConfigError`` for a line that cannot be run: empty, an unclosed quote, or a
    NUL character (which no program argument can hold)."""
    if "\0" in command:
        raise BotConfigError(f"{command!r} holds a NUL character")
    try:
        words = shlex.split(command)
    except ValueError as err:
        raise BotConfigError(f"{command!r}: {str(err).lower()}") from None
    if not words:
        raise BotConfigError("empty command line")
    return words


def read_bots(path: str | Path) -> list[BotEntry]:
    """The bots listed in a TOML file; raises ``BotConfigError`` naming the file and what is
    wrong (for a syntax error, tomllib's line and column), before any bot is started."""
    try:
        data = tomllib.loads(Path(path).read_bytes().decode("utf-8"))
        entries = msgspec.convert(data, BotList).bot
    except UnicodeDecodeError as err:
        raise BotConfigError(f"{path}: not a UTF-8 text file (byte {err.start}): a bot list is TOML") from None
    except (OSError, tomllib.TOMLDecodeError, msgspec.ValidationError) as err:
        raise BotConfigError(f"{path}: {err}") from None
    except RecursionError:
        raise BotConfigError(f"{path}: nested too deeply to be a bot list") from None
    for entry in entries:
        if not entry.name.strip():
            raise BotConfigError(f"{path}: a bot has an empty name")
        if safe_name(entry.name, "") != entry.name:
            shown = printable(entry.name, 80)
            raise BotConfigError(
                f"{path}: bot name '{shown}': use at most {MAX_NAME} printable characters, no leading,"
                " trailing or repeated spaces"
            )
        for field, line in (("command", entry.command), ("build", entry.build)):
            try:
                if line is not None:
                    command_words(line)
            except BotConfigError as err:
                raise BotConfigError(f"{path}: bot {entry.name}, {field}: {err}") from None
    return entries


def runnable(entry: BotEntry) -> bool:
    """Whether the programs a bot needs (its command's and its build's first word) exist here."""
    words = [command_words(entry.command)[0]]
    if entry.build:
        words.append(command_words(entry.build)[0])
    return all(shutil.which(w) or w.startswith(("./", "/")) for w in words)


def build(entry: BotEntry, cwd: str | Path) -> None:
    """Run a bot's build step (if any) in ``cwd``; raises ``BotConfigError`` when it fails."""
    if not entry.build:
        return
    done = subprocess.run(command_words(entry.build), cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BotConfigError(f"building {entry.name} failed ({entry.build}):\n{done.stdout}{done.stderr}")
