"""``referee bench ladder-pool``: what a living ladder's own decisions cost on a big database,
timed: drawing the next set from the pool as it is (``referee.ladder.feed``: the sets so far,
the ratings, versions behind first, the least sure pair), and taking an edited bot list (a new
version of one bot and a late entrant: ``referee.ladder.pool`` and ``LadderStore.change_pool``
with its catch-up sets). Each is made on its own copy of a ladder of ``matches`` finished
matches (``referee.bench.ladder_web.make_ladder``). The figures are in docs/performance.md; no
test asserts a speed."""

from __future__ import annotations

import shutil
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from referee.ladder.feed import LadderFeed
from referee.ladder.pool import pool_change
from referee.ladder.setup import sets_for_newcomers
from referee.players.bot_config import BotEntry
from referee.store.fixtures import room_to_draw
from referee.store.writer import LadderStore


@dataclass(frozen=True)
class PoolTimes:
    """Medians and maxima in milliseconds over the repeats."""

    matches: int
    draw_ms: float
    draw_max_ms: float
    change_ms: float
    change_max_ms: float


def bench_ladder_pool(ladder: Path, repeats: int) -> PoolTimes:
    """Time ``repeats`` draws and ``repeats`` pool changes, each on a fresh copy of ``ladder``."""
    draws, changes = [], []
    for number in range(repeats):
        copy = ladder.with_name(f"copy-{number}.db")
        shutil.copyfile(ladder, copy)
        store = LadderStore(copy)
        try:
            room_to_draw(store, 1_000_000)
            start = time.perf_counter()
            if LadderFeed(store)() is None:
                raise RuntimeError("the feed drew no set from a ladder with room for more")
            draws.append(time.perf_counter() - start)
            start = time.perf_counter()
            _edit(store)
            changes.append(time.perf_counter() - start)
            matches = store.progress()[0]
        finally:
            store.close()
            copy.unlink()
    return PoolTimes(
        matches=matches,
        draw_ms=1000 * statistics.median(draws),
        draw_max_ms=1000 * max(draws),
        change_ms=1000 * statistics.median(changes),
        change_max_ms=1000 * max(changes),
    )


def _edit(store: LadderStore) -> None:
    """What saving a bot list does: its first bot changed (a new version) and a late entrant."""
    versions = [v for v in store.versions() if v.active]
    entries = [BotEntry(name=v.entrant, command=v.command) for v in versions]
    entries[0] = BotEntry(name=entries[0].name, command=entries[0].command + " --v2")
    entries.append(BotEntry(name="late", command="./late"))
    change = pool_change(store.versions(), entries, "2026-12-03T00:00:00+00:00")
    store.change_pool(change, store.settings().games + sets_for_newcomers(store, change))
