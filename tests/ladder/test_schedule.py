"""The schedule: every bot plays about equally often and meets every other about equally
often, every set holds every rotation, and the schedule is a pure function of its inputs."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from referee.ladder.schedule import draw_sets, extend_sets
from referee.store.records import DuplicateSet


def tallies(sets: list[DuplicateSet], bots: list[str]) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    appearances: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for duplicate_set in sets:
        appearances.update(set(duplicate_set.table))
        pairs.update(combinations(sorted(set(duplicate_set.table)), 2))
    for pair in combinations(sorted(bots), 2):
        pairs.setdefault(pair, 0)
    return appearances, pairs


@pytest.mark.parametrize(("pool", "seats"), [(5, 4), (6, 4), (7, 4), (8, 4), (6, 3), (9, 5), (12, 4)])
def test_every_bot_plays_and_meets_every_other_about_equally_often(pool: int, seats: int) -> None:
    bots = [f"bot{i}" for i in range(pool)]
    sets = draw_sets(bots, seats, ladder_seed=11, count=120)
    appearances, pairs = tallies(sets, bots)
    assert max(appearances.values()) - min(appearances.values()) <= 1
    mean = sum(pairs.values()) / len(pairs)
    assert min(pairs.values()) >= 0.75 * mean
    assert max(pairs.values()) <= 1.25 * mean
    assert all(len(set(s.table)) == seats for s in sets)  # enough bots: nobody sits twice


def test_every_set_holds_every_rotation_and_every_bot_every_seat() -> None:
    sets = draw_sets(["a", "b", "c", "d", "e"], 4, ladder_seed=3, count=10)
    for duplicate_set in sets:
        matches = duplicate_set.matches()
        assert [m.rotation for m in matches] == [0, 1, 2, 3]
        assert {m.seed for m in matches} == {duplicate_set.seed}
        for seat in range(4):
            assert sorted(m.seats[seat] for m in matches) == sorted(duplicate_set.table)
        for m in matches:  # the cyclic order (who passes to whom) is kept
            start = m.seats.index(duplicate_set.table[0])
            assert [m.seats[(start + k) % 4] for k in range(4)] == list(duplicate_set.table)


def test_fewer_bots_than_seats_share_the_extra_seats() -> None:
    sets = draw_sets(["heuristic", "random"], 4, ladder_seed=1, count=6)
    for duplicate_set in sets:
        assert Counter(duplicate_set.table) == {"heuristic": 2, "random": 2}
    extra: Counter[str] = Counter()
    for duplicate_set in draw_sets(["a", "b", "c"], 4, ladder_seed=1, count=30):
        (doubled,) = [b for b, n in Counter(duplicate_set.table).items() if n == 2]
        extra[doubled] += 1
    assert sorted(extra.values()) == [10, 10, 10]


def test_the_schedule_is_a_function_of_names_seats_and_seed() -> None:
    bots = ["a", "b", "c", "d", "e", "f"]
    first = draw_sets(bots, 4, ladder_seed=42, count=20)
    assert draw_sets(list(reversed(bots)), 4, ladder_seed=42, count=20) == first  # config order is irrelevant
    assert draw_sets(bots, 4, ladder_seed=43, count=20) != first
    assert len({s.seed for s in first}) == 20


def test_extending_keeps_the_sets_already_drawn() -> None:
    bots = ["a", "b", "c", "d", "e", "f"]
    whole = draw_sets(bots, 4, ladder_seed=5, count=30)
    more = extend_sets(bots, 4, 5, whole[:12], 30)
    assert whole[:12] + more == whole
    assert extend_sets(bots, 4, 5, whole, 10) == []


def test_bad_pools_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        draw_sets(["a", "a"], 4, 1, 1)
    with pytest.raises(ValueError, match="two bots"):
        draw_sets(["a"], 4, 1, 1)
