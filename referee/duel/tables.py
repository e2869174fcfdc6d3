"""A duel's table and its duplicate set: NEW and OLD at one table with fixed opponents, dealt
the same cards in every seat.

NEW sits at table position 0 and OLD opposite, at position ``n // 2``; the opponents fill the
other positions in order (repeated when there are fewer of them than seats left). A set is the
table played in every seat rotation on one seed, as a ladder's set is: the deal depends only on
the seed and the deal number, so over the set NEW and OLD each hold every seat's cards once.

Rotations alone leave one asymmetry: who passes to whom. At ``[NEW, X, OLD]`` NEW passes left
to X and OLD to NEW, so a one-round match (left passes only) would measure the passing order as
much as the bots. So a set also plays the *mirrored* table, NEW and OLD swapped, in every
rotation, unless the mirror is one of the rotations already (``[NEW, X, OLD, X]``: four seats
and one kind of opponent, or any even table whose opponents repeat every half table). Either
way the set is symmetric in NEW and OLD: two copies of one deterministic bot differ by exactly
zero in every set (``tests/duel/test_tables.py`` and the duel of a bot against itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.duel.settings import DuelSettings
from referee.store.records import DuplicateSet


class TableError(ValueError):
    """Bots that cannot make a duel's table (named in the message)."""


def duel_table(new: str, old: str, opponents: Sequence[str], seats: int) -> tuple[str, ...]:
    """The table by position: NEW at 0, OLD at ``seats // 2``, the opponents in the other
    positions in order, repeated as needed. Raises ``TableError`` when there are more opponents
    than seats left, or none for seats that need one."""
    if seats < 2:
        raise TableError("a duel needs a table of at least two seats")
    room = seats - 2
    if len(opponents) > room:
        raise TableError(f"a table of {seats} seats has room for {room} opponents, not {len(opponents)}")
    if room and not opponents:
        raise TableError(f"a table of {seats} seats needs at least one opponent beside NEW and OLD")
    others = iter([opponents[i % len(opponents)] for i in range(room)])
    return tuple(new if p == 0 else old if p == seats // 2 else next(others) for p in range(seats))


def mirror(table: Sequence[str]) -> tuple[str, ...]:
    """The table with NEW (position 0) and OLD (position ``n // 2``) swapped."""
    swapped = list(table)
    half = len(table) // 2
    swapped[0], swapped[half] = table[half], table[0]
    return tuple(swapped)


@dataclass(frozen=True)
class PairedSet(DuplicateSet):
    """A duel's duplicate set: its ``table`` (from ``duel_table``), and its mirror unless that
    is a rotation of it, each played in every rotation on the set's seed."""

    @property
    def halves(self) -> tuple[tuple[str, ...], ...]:
        """The tables the set plays: the table, and its mirror when that is not a rotation of it."""
        plain = DuplicateSet(self.index, self.table, self.seed)
        swapped = mirror(self.table)
        if any(plain.seating(r) == swapped for r in range(len(self.table))):
            return (self.table,)
        return (self.table, swapped)

    @property
    def rotations(self) -> int:
        return len(self.table) * len(self.halves)

    def seating(self, rotation: int) -> tuple[str, ...]:
        """Bot names by seat: rotations ``0 .. n-1`` of the table, then (when mirrored) ``n ..
        2n-1``, the same rotations of its mirror."""
        seats = len(self.table)
        half = self.halves[rotation // seats]
        return DuplicateSet(self.index, half, self.seed).seating(rotation % seats)


def matches_per_set(duel: DuelSettings, seats: int) -> int:
    """Matches in each set of ``duel`` at a table of ``seats`` (the same for every bot of a
    gauntlet's pool: the mirror depends only on the positions of the opponents)."""
    table = duel_table(duel.new, duel.olds[0], duel.opponents, seats)
    return PairedSet(0, table, 0).rotations
