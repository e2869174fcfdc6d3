"""The versions of the ladder's entrants as the pages show them: every bot by its ``bots.name``
(what results, ratings and faults are kept under: ``NAME`` for an entrant's first version,
``NAME@2`` for the next, ...), with its entrant and whether it is retired (schema 6,
``referee.ladder.pool``)."""

from __future__ import annotations

from referee.store.reader import LadderReader
from referee.store.records import BotVersion


def versions(reader: LadderReader) -> dict[str, BotVersion]:
    """Every version of every entrant by name, in config order."""
    return {v.name: v for v in reader.versions()}


def of_entrant(found: dict[str, BotVersion], entrant: str) -> list[BotVersion]:
    """The versions of one entrant, first to last."""
    return sorted((v for v in found.values() if v.entrant == entrant), key=lambda v: v.version)
