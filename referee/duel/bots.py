"""The bots of a duel or a gauntlet, from what the command line names.

A bot is a command line (as ``referee match`` takes: run from the current folder, or
``--cwd``), named ``new``, ``old`` and ``opponent``, ``opponent-2``, ...; a first word
``dir=FOLDER`` (as cutechess's ``dir=``; taken from the current folder or ``--cwd``) gives it a
folder of its own: its command runs there, and the sandbox shows it that folder whole when
nothing else lies in it (``referee.sandbox.sight.own_folder``). Or, with ``--bots FILE``, the
name of a bot in that TOML bot list (as ``referee ladder run`` takes: its command, build and
folder). A gauntlet's pool is such a list (``--pool``); when ``--bots`` is the pool itself, NEW
and the opponents are left out of the pool. The default opponent is the sample
heuristic bot of ``sample_bots/bots.toml``, named ``opponent``. Every bot keeps the folder it
runs from, made absolute, so that bots from several lists run each from its own."""

from __future__ import annotations

import io
import os
import shlex
from collections.abc import Sequence
from pathlib import Path

import msgspec

from referee.duel.settings import Contest, DuelSettings
from referee.errors import LadderError
from referee.players.bot_config import BotConfigError, BotEntry, bot_folder, command_words, config_folder, read_bots
from referee.stats.sequential import SprtBounds

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "bots.toml"
"""The sample bots' list: the default opponent is its ``heuristic``."""
DEFAULT_OPPONENT = "heuristic"
OPPONENT = "opponent"
"""The default opponent's name in a duel."""
DIR_WORD = "dir="
"""The first word of a command-line bot that names its folder: ``dir=../previous php bin/bot``."""


class ListedBots:
    """The bots of a TOML bot list (``bot_config.BotList``) by name, each with its folder made absolute."""

    def __init__(self, path: str | Path) -> None:
        folder = config_folder(path)
        self.path = path
        self.entries = {e.name: _located(e, folder) for e in read_bots(path)}

    def named(self, name: str) -> BotEntry:
        entry = self.entries.get(name)
        if entry is None:
            raise LadderError(f"{self.path}: no bot named {name!r} (bots: {', '.join(self.entries)})")
        return entry


def _located(entry: BotEntry, folder: Path) -> BotEntry:
    return msgspec.structs.replace(entry, folder=str(bot_folder(entry, folder)))


def chosen_bot(given: str, name: str, bots: ListedBots | None, cwd: Path) -> BotEntry:
    """The bot ``given`` names: a bot of ``bots``, or (without a list) a command line, named ``name``."""
    if bots is not None:
        return bots.named(given)
    folder, command = split_dir(given)
    command_words(command)  # a command line that cannot be run is refused now
    if folder is None:
        return BotEntry(name=name, command=command, folder=str(cwd.absolute()))
    place = Path(os.path.normpath(cwd.absolute() / os.path.expanduser(folder)))
    if not place.is_dir():
        raise BotConfigError(f"bot {name}: {DIR_WORD}{folder}: there is no folder {place} (taken from {cwd})")
    return BotEntry(name=name, command=relative_inside(command, place), folder=str(place))


def split_dir(given: str) -> tuple[str | None, str]:
    """A command-line bot's ``dir=FOLDER`` (``None`` when its first word is no ``dir=``) and the
    rest of its line as written. The folder may be quoted as any word (``'dir=my bots/old'``)."""
    if "\0" in given:
        return None, given  # refused by command_words with the whole line
    stream = io.StringIO(given)
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        first = lexer.get_token()
    except ValueError:
        return None, given  # an unclosed quote: refused by command_words
    if first is None or not first.startswith(DIR_WORD):
        return None, given
    rest = given[stream.tell() :].strip()
    if not first[len(DIR_WORD) :]:
        raise BotConfigError(f"{given!r}: {DIR_WORD} names no folder ({DIR_WORD}FOLDER, then the command)")
    if not rest:
        raise BotConfigError(f"{given!r}: no command after {first}")
    return first[len(DIR_WORD) :], rest


def relative_inside(command: str, folder: Path) -> str:
    """``command`` with each word that is an absolute path to an existing file or folder inside
    ``folder`` made relative to it (``./bot`` for the program): the command runs from there,
    and ``dir=../old php /abs/old/bin/bot`` is then the same bot as ``dir=../old php bin/bot``,
    shown the same folder whole by the sandbox. ``command`` as written when no word is such."""
    words = command_words(command)
    changed = False
    for index, word in enumerate(words):
        path = os.path.normpath(word)
        if not os.path.isabs(word) or not os.path.exists(path):
            continue
        if path == str(folder) or path.startswith(str(folder).rstrip("/") + "/"):
            relative = os.path.relpath(path, folder)
            words[index] = f"./{relative}" if index == 0 and "/" not in relative else relative
            changed = True
    return shlex.join(words) if changed else command


def default_opponent() -> BotEntry:
    """The sample heuristic bot, named ``opponent``. Raises ``LadderError`` when the sample bots
    are not beside the referee (an install from a copy of the repository has them)."""
    if not SAMPLE_BOTS.is_file():
        raise LadderError(
            f"the default opponent is the sample heuristic bot of {SAMPLE_BOTS}, which is not there (install the"
            " referee from a copy of its repository, pip install -e .); or name the opponents with --opponents"
        )
    entry = ListedBots(SAMPLE_BOTS).named(DEFAULT_OPPONENT)
    return msgspec.structs.replace(entry, name=OPPONENT)


def opponents(given: Sequence[str], bots: ListedBots | None, cwd: Path) -> list[BotEntry]:
    """The opponents named (``opponent``, ``opponent-2``, ... for command lines), or the default."""
    if not given:
        return [default_opponent()]
    names = [OPPONENT if i == 0 else f"{OPPONENT}-{i + 1}" for i in range(len(given))]
    return [chosen_bot(g, n, bots, cwd) for g, n in zip(given, names, strict=True)]


def duel_bots(
    kind: Contest, new: BotEntry, olds: Sequence[BotEntry], others: Sequence[BotEntry], sprt: SprtBounds | None
) -> tuple[list[BotEntry], DuelSettings]:
    """Every bot of the run, once each, and the duel's settings; raises ``LadderError`` when two
    roles share a name (a bot cannot be both NEW and its own opponent)."""
    seen: dict[str, BotEntry] = {}
    for entry in (new, *olds, *others):
        if entry.name in seen and seen[entry.name] != entry:
            raise LadderError(f"two bots named {entry.name!r}: give each role a bot of its own name")
        seen[entry.name] = entry
    roles = [new.name, *(o.name for o in olds)]
    if len(set(roles)) != len(roles) or set(roles) & {o.name for o in others}:
        raise LadderError("NEW, the bots it is measured against and the opponents must be different bots (by name)")
    settings = DuelSettings(
        kind=kind,
        new=new.name,
        olds=tuple(o.name for o in olds),
        opponents=tuple(o.name for o in others),
        sprt=sprt,
    )
    return list(seen.values()), settings


def pool(path: str | Path, new: BotEntry, others: Sequence[BotEntry]) -> list[BotEntry]:
    """A gauntlet's pool: the bots of the list at ``path`` but NEW and the opponents (by name)."""
    left_out = {new.name, *(o.name for o in others)}
    found = [e for e in ListedBots(path).entries.values() if e.name not in left_out]
    if not found:
        raise LadderError(f"{path}: no bot in the pool besides NEW and the opponents")
    return found
