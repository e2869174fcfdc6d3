"""The ladder's pool as it changes: which versions of which entrants play, worked out from the
bot list each time it is read (pure: no database, no files).

An *entrant* is a name in the bot list; a *version* is one row of the ladder's ``bots`` table
(``referee.store.schema``), what results, ratings and faults are kept under. An entrant's
first version is named as the entrant; when its entry's command, build or folder changes, or
the files it runs from (their hash, ``BotEntry.content``), the
version that played is retired and a new one is added, ``NAME@2``, ``NAME@3``, ...: its own
rating from the start, linked to the one it replaces. History is never rewritten: a retired
version keeps every row, and the sets it had begun are finished with it (``referee.ladder.feed``).
An entrant removed from the list is retired; put back unchanged, the same version plays again.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.players.bot_config import BotEntry
from referee.store.records import BotVersion, PoolChange

VERSION_MARK = "@"
"""Between an entrant's name and the number of a later version: ``heuristic@2``."""


def same_bot(entry: BotEntry, version: BotVersion) -> bool:
    """Whether ``entry`` runs what ``version`` ran: the same command, build and folder (a time
    limit for the build is not the bot), and the same files when both know their ``content``
    (``referee.players.bot_content``; a version that did not know it learns it, the same
    version). A version from before schema 6 knew its command only: the same command is the
    same bot."""
    if entry.command != version.command:
        return False
    if version.entry is None:
        return True
    if entry.content is not None and version.entry.content is not None and entry.content != version.entry.content:
        return False  # the same command, other files: another program
    return (entry.build, entry.folder) == (version.entry.build, version.entry.folder)


def pool_change(stored: Sequence[BotVersion], entries: Sequence[BotEntry], now: str) -> PoolChange:
    """What the ladder must change so that exactly ``entries`` play: ``stored`` are the ladder's
    versions, ``now`` the time to stamp. Raises ``ValueError`` when an entrant's name is
    already the name of another entrant's version (``a@2`` in the list beside a second
    version of ``a``)."""
    change = PoolChange(now)
    taken = {v.name: v for v in stored}
    listed = {e.name for e in entries}
    for position, entry in enumerate(entries):
        clash = taken.get(entry.name)
        if clash is not None and clash.entrant != entry.name:
            raise ValueError(f"bot {entry.name!r}: that is the name of version {clash.version} of {clash.entrant!r}")
        versions = sorted((v for v in stored if v.entrant == entry.name), key=lambda v: v.version)
        _follow(change, entry, position, versions, taken)
    for version in stored:
        if version.active and version.entrant not in listed:
            change.retired.append(version.name)
    return change


def _follow(
    change: PoolChange,
    entry: BotEntry,
    position: int,
    versions: Sequence[BotVersion],
    taken: dict[str, BotVersion],
) -> None:
    """One entry of the list against its entrant's versions (oldest first)."""
    if not versions:
        added = BotVersion(entry.name, entry.name, 1, entry.command, entry, position, added=change.at)
        change.added.append(added)
        taken[added.name] = added
        return
    latest = versions[-1]
    if same_bot(entry, latest):
        if not latest.active:
            change.back.append(latest.name)
        if latest.entry != entry:
            change.entries[latest.name] = entry
        if latest.position != position:
            change.positions[latest.name] = position
        return
    if latest.active:
        change.retired.append(latest.name)
    number = latest.version + 1
    while f"{entry.name}{VERSION_MARK}{number}" in taken:
        number += 1
    name = f"{entry.name}{VERSION_MARK}{number}"
    added = BotVersion(name, entry.name, number, entry.command, entry, position, replaces=latest.name, added=change.at)
    change.added.append(added)
    taken[name] = added
