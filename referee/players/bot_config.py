"""Bot lists in TOML (the format of ``sample_bots/bots.toml``): a name, the command that runs
the bot, an optional build step run first, and an optional folder of its own.

Both run from the bot's ``folder`` (``bot_folder``), taken from the list's folder: the config
file's own folder, or the folder its top-level ``cwd`` names relative to it
(``config_folder``), unless the caller chooses another (``referee ladder run --cwd``), so a
list works from wherever it is run. A command is split shell-style and started without a
shell (its program, the first word, is looked up on PATH, or from that folder when it holds a
``/``); a build is the author's shell line, run with ``sh -c`` (``cd bot && cargo build``
works) by ``referee.players.building``."""

from __future__ import annotations

import os
import shlex
import shutil
import tomllib
from pathlib import Path

import msgspec

from referee.errors import BotConfigError as BotConfigError  # noqa: PLC0414 - re-exported: callers import it from here
from referee.names import MAX_NAME, printable, safe_name
from referee.players.bot_list_keys import key_problems, where_in_list
from referee.players.list_file import read_list_file
from referee.shared import BotEntry as BotEntry  # noqa: PLC0414 - re-exported: the list's entries, imported from here by some 30 modules

PATH_SEGMENTS = frozenset({".", ".."})
"""Names that are path segments, refused: a bot's name is a segment of its page's address
(``/bot/NAME``), which every browser and proxy resolves (``/bot/..`` is ``/``), so the page of a
bot so named could never be reached; nor should a name ever mean "this folder" or "the one above"
where it is used in a path."""


class BotList(msgspec.Struct, frozen=True, kw_only=True):
    bot: list[BotEntry]
    cwd: str | None = None
    """The folder the commands and builds run from, relative to the list's own folder (a
    list kept in a subfolder of its bots' project says ``cwd = ".."``); default: that folder."""


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
    wrong (for a syntax error, tomllib's line and column), before any bot is started. The file
    is read as ``read_list_file`` reads it: a regular file of a bounded size, or nothing."""
    return bots_in(read_list_file(path), path)


def bots_in(data: bytes, path: str | Path) -> list[BotEntry]:
    """The bots of a list already read (``read_list_file``) from ``path``, which errors name:
    ``read_bots`` without the reading, for a caller that reads once for several uses (a
    running ladder compares the bytes with what it last saw)."""
    entries = _parse_list(data, path).bot
    for index, entry in enumerate(entries):
        if not entry.name.strip():
            raise BotConfigError(f"{path}: bot entry {index + 1} has an empty name")
        if entry.name in PATH_SEGMENTS:
            raise BotConfigError(
                f"{path}: bot entry {index + 1}: the name {entry.name!r} is a path segment (its page /bot/{entry.name}"
                " would be another address); give the bot another name"
            )
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


def _parse_list(raw: bytes, path: str | Path) -> BotList:
    """The list, strictly (``bot_list_keys``): an unknown key or a name used twice is an
    error naming the entry (and the key it was probably meant to be)."""
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as err:
        raise BotConfigError(f"{path}: not a UTF-8 text file (byte {err.start}): a bot list is TOML") from None
    except tomllib.TOMLDecodeError as err:
        raise BotConfigError(f"{path}: {err}") from None
    except RecursionError:
        raise BotConfigError(f"{path}: nested too deeply to be a bot list") from None
    problems = key_problems(data, text)
    if problems:
        raise BotConfigError(f"{path}: " + "; ".join(problems))
    try:
        return msgspec.convert(data, BotList)
    except msgspec.ValidationError as err:
        raise BotConfigError(f"{path}: {where_in_list(str(err), data, text)}") from None


SHELL_BUILTINS = frozenset(
    {"cd", ".", ":", "export", "set", "unset", "exec", "eval", "command", "test", "[", "true", "false"}
    | {"umask", "ulimit", "if", "for", "while", "case", "{", "("}
)
"""First words of a build line that ``sh`` runs itself: no program of that name is needed."""

FOLDER_RULE = "commands and builds run from the config file's folder, or from its cwd or --cwd DIR when given"
"""Where a relative program or file of a bot list is looked up from: said in every error."""

SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".jar", ".sh", ".R")
"""Arguments with these endings name a file the bot's interpreter must find (``python3 bot.py``)."""


def config_folder(path: str | Path) -> Path:
    """The folder a bot list's commands and builds run from (unless ``--cwd`` says
    otherwise): the list's own folder, or its ``cwd`` taken from there; absolute, symlinks
    kept as written. Raises ``BotConfigError`` when the list cannot be read or its ``cwd``
    is no folder."""
    own = Path(os.path.abspath(path)).parent
    chosen = _parse_list(read_list_file(path), path).cwd
    if chosen is None:
        return own
    folder = Path(os.path.normpath(own / chosen))
    if not folder.is_dir():
        raise BotConfigError(f"{path}: cwd = {chosen!r}: there is no folder {folder} (taken from {own})")
    return folder


def bot_folder(entry: BotEntry, cwd: str | Path) -> Path:
    """The folder a bot's command and build run from: its ``folder`` taken from ``cwd``, or
    ``cwd``; raises ``BotConfigError`` when that is no folder."""
    base = Path(os.path.abspath(cwd))
    if entry.folder is None:
        return base
    folder = Path(os.path.normpath(base / entry.folder))
    if not folder.is_dir():
        shown = f"folder = {entry.folder!r}"
        raise BotConfigError(f"bot {entry.name}: {shown}: there is no folder {folder} (taken from {base})")
    return folder


def runnable(entry: BotEntry) -> bool:
    """Whether the programs a bot needs exist here: its command's program (one given as a
    path counts: a build may make it) and, for a build, ``sh`` and the build line's first
    program unless ``sh`` runs that word itself (``cd``, ``export``, ...)."""
    words = [command_words(entry.command)[0]]
    if entry.build:
        words.append("sh")
        first = command_words(entry.build)[0]
        if first not in SHELL_BUILTINS and "=" not in first:
            words.append(first)
    return all(shutil.which(w) or "/" in w for w in words)


def missing_program(command: str, folder: Path, copy: Path | None = None) -> str | None:
    """Why a bot's command cannot be started from ``folder``, naming exactly the program (or
    the script it names) that is missing and where it was looked for; ``None`` when nothing
    is missing. A program without a ``/`` is looked up on PATH; one with a ``/``, and a
    script argument (``bot.py``, ``bot.js``, ...), relative to ``folder``: in ``copy``, the
    copy its sandboxed build made, which the bot sees in place of its folder."""

    def host(path: Path) -> Path:
        if copy is not None and path.is_relative_to(folder):
            return copy / path.relative_to(folder)
        return path

    words = command_words(command)
    program = words[0]
    if "/" not in program:
        if shutil.which(program) is None:
            return f"needs the program {program!r}, which is not installed here (not found on PATH)"
    else:
        path = Path(os.path.normpath(folder / program))
        where = "" if os.path.isabs(program) else f", looked up from {folder} ({FOLDER_RULE})"
        if copy is not None:
            where += " after its build"
        if not host(path).exists():
            return f"needs the program {program!r}: there is no {path}{where}"
        if not host(path).is_file() or not os.access(host(path), os.X_OK):
            return f"needs the program {program!r}: {os.path.normpath(path)} is not an executable file (chmod +x?)"
    for word in words[1:]:
        if word.startswith("-") or not word.endswith(SCRIPT_SUFFIXES) or any(c.isspace() for c in word):
            continue  # an option, or a shell line (sh -c '... bot.py'): not a file to find
        path = Path(os.path.normpath(folder / word))
        if not host(path).exists():
            where = "" if os.path.isabs(word) else f", looked up from {folder} ({FOLDER_RULE})"
            return f"names the file {word!r}, but there is no {os.path.normpath(path)}{where}"
    return None
