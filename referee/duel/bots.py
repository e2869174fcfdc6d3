"""The bots of a duel or a gauntlet, from what the command line names.

A bot is a command line (as ``referee match`` takes: run from the current folder, or
``--cwd``), named ``new``, ``old`` and ``opponent``, ``opponent-2``, ...; or, with ``--bots
FILE``, the name of a bot in that TOML bot list (as ``referee ladder run`` takes: its command,
build and folder). A gauntlet's pool is such a list (``--pool``); when ``--bots`` is the pool
itself, NEW and the opponents are left out of the pool. The default opponent is the sample
heuristic bot of ``sample_bots/bots.toml``, named ``opponent``. Every bot keeps the folder it
runs from, made absolute, so that bots from several lists run each from its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from referee.duel.settings import Contest, DuelSettings
from referee.errors import LadderError
from referee.players.bot_config import BotEntry, bot_folder, command_words, config_folder, read_bots
from referee.stats.sequential import SprtBounds

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "bots.toml"
"""The sample bots' list: the default opponent is its ``heuristic``."""
DEFAULT_OPPONENT = "heuristic"
OPPONENT = "opponent"
"""The default opponent's name in a duel."""


class BotList:
    """A TOML bot list, each bot with its folder made absolute."""

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


def chosen_bot(given: str, name: str, bots: BotList | None, cwd: Path) -> BotEntry:
    """The bot ``given`` names: a bot of ``bots``, or (without a list) a command line, named ``name``."""
    if bots is not None:
        return bots.named(given)
    command_words(given)  # a command line that cannot be run is refused now
    return BotEntry(name=name, command=given, folder=str(cwd.absolute()))


def default_opponent() -> BotEntry:
    """The sample heuristic bot, named ``opponent``. Raises ``LadderError`` when the sample bots
    are not beside the referee (an install from a copy of the repository has them)."""
    if not SAMPLE_BOTS.is_file():
        raise LadderError(
            f"the default opponent is the sample heuristic bot of {SAMPLE_BOTS}, which is not there (install the"
            " referee from a copy of its repository, pip install -e .); or name the opponents with --opponents"
        )
    entry = BotList(SAMPLE_BOTS).named(DEFAULT_OPPONENT)
    return msgspec.structs.replace(entry, name=OPPONENT)


def opponents(given: Sequence[str], bots: BotList | None, cwd: Path) -> list[BotEntry]:
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
    found = [e for e in BotList(path).entries.values() if e.name not in left_out]
    if not found:
        raise LadderError(f"{path}: no bot in the pool besides NEW and the opponents")
    return found
