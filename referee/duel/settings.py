"""What a duel or a gauntlet measures, kept in its database's ``meta`` under ``duel``: who is
under test, against whom, at a table with which opponents, and the sequential test asked for.
A run resumed with other settings would change the question half-way, so it is refused
(``referee.duel.setup``)."""

from __future__ import annotations

from typing import Literal

import msgspec

from referee.stats.sequential import SprtBounds

Contest = Literal["duel", "gauntlet"]
"""A duel: NEW against OLD; a gauntlet: NEW against each bot of a pool."""

META_KEY = "duel"
"""The ``meta`` entry that holds a duel's settings (absent in a ladder's database)."""

DEFAULT_MAX_SETS = 400
"""Duplicate sets against each bot when ``--max-sets`` is not given: the test stops earlier
when it decides."""


class DuelSettings(msgspec.Struct, frozen=True, kw_only=True):
    """A duel (one bot in ``olds``) or a gauntlet (the pool in ``olds``)."""

    kind: Contest
    new: str
    """The bot under test."""
    olds: tuple[str, ...]
    """What NEW is measured against: OLD in a duel, every bot of the pool in a gauntlet."""
    opponents: tuple[str, ...]
    """The fixed opponents that fill the other seats of every table, in table order."""
    sprt: SprtBounds | None = None
    """The sequential test of each pairing; ``None``: sets are played up to ``--max-sets`` and
    the estimate shown, with no verdict."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every bot of the run, each once: NEW, the ones it is measured against, the opponents."""
        return (self.new, *self.olds, *self.opponents)


def encode_settings(settings: DuelSettings) -> object:
    """The settings as plain data for the database's ``meta``."""
    return msgspec.to_builtins(settings)


def decode_settings(stored: object) -> DuelSettings:
    """Settings as stored; raises ``msgspec.ValidationError`` for anything else."""
    return msgspec.convert(stored, DuelSettings)
