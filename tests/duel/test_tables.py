"""A duel's table and its set (``referee/duel/tables.py``): NEW and OLD hold every seat's cards
equally often, in both places relative to each other, so the set is symmetric in the two."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.duel.tables import PairedSet, TableError, duel_table, mirror


def seat_counts(paired: PairedSet, bot: str) -> Counter[int]:
    return Counter(m.seats.index(bot) for m in paired.matches())


@pytest.mark.parametrize(
    ("seats", "opponents", "table", "matches"),
    [
        (4, ["x"], ("new", "x", "old", "x"), 4),  # the mirror is the rotation by two
        (4, ["x", "y"], ("new", "x", "old", "y"), 8),  # NEW passes left to x, OLD to y: mirrored
        (3, ["x"], ("new", "old", "x"), 6),
        (5, ["x"], ("new", "x", "old", "x", "x"), 10),
        (6, ["x"], ("new", "x", "x", "old", "x", "x"), 6),
        (6, ["x", "y"], ("new", "x", "y", "old", "x", "y"), 6),  # opponents repeat every half table
        (6, ["x", "y", "z", "w"], ("new", "x", "y", "old", "z", "w"), 12),
        (2, [], ("new", "old"), 2),
    ],
)
def test_every_set_is_symmetric_in_new_and_old(
    seats: int, opponents: list[str], table: tuple[str, ...], matches: int
) -> None:
    assert duel_table("new", "old", opponents, seats) == table
    paired = PairedSet(3, table, 99)
    played = paired.matches()
    assert len(played) == matches == paired.rotations
    assert {m.seed for m in played} == {99} and [m.rotation for m in played] == list(range(matches))
    assert len({m.seats for m in played}) == matches  # no match twice
    # NEW and OLD each hold every seat (so every seat's cards) equally often
    assert (
        seat_counts(paired, "new")
        == seat_counts(paired, "old")
        == Counter(dict.fromkeys(range(seats), matches // seats))
    )
    # and for every match, the one with NEW and OLD swapped is in the set too
    swapped = {tuple({"new": "old", "old": "new"}.get(b, b) for b in m.seats) for m in played}
    assert swapped == {m.seats for m in played}


def test_the_mirror_swaps_new_and_old_only() -> None:
    assert mirror(("new", "x", "old", "y")) == ("old", "x", "new", "y")
    assert mirror(("new", "old", "x")) == ("old", "new", "x")


@pytest.mark.parametrize(
    ("seats", "opponents", "message"),
    [(4, ["a", "b", "c"], "room for 2 opponents, not 3"), (4, [], "needs at least one opponent"), (1, [], "two seats")],
)
def test_a_table_that_cannot_be_made_is_refused(seats: int, opponents: list[str], message: str) -> None:
    with pytest.raises(TableError, match=message):
        duel_table("new", "old", opponents, seats)
