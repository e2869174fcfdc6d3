"""``referee bench duel-feed``: what choosing a duel's next set costs as the duel grows. A duel
of ``sets`` sets is played through its feed (``referee.duel.feed.DuelFeed``) on a real database,
each match recorded at once with made-up scores (NEW and OLD alike, so the test never decides
and every set is asked for): the time of each call of the feed (where the tests are brought up
to date and the next set scheduled) is kept, and the median over the first and the last tenth
of the sets is reported. Before issue 33 it read every set again at every call; it now reads
the new sets only (``referee.duel.tally``). The figures are in docs/performance.md; no test
asserts a speed."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from referee.duel.feed import DuelFeed
from referee.duel.settings import DuelSettings
from referee.duel.store import DuelStore
from referee.rules.presets import ruleset
from referee.stats.ratings import finishing_ranks
from referee.stats.sequential import SprtBounds
from referee.store.fixtures import speed_over_safety
from referee.store.records import LadderSettings, ScheduledMatch, SeatResult, StoredMatch

DUEL = DuelSettings(kind="duel", new="new", olds=("old",), opponents=("x",), sprt=SprtBounds(0, 0.001))
"""A test that cannot decide on made-up sets (D1 a thousandth of a point): every set is asked for."""


@dataclass(frozen=True)
class FeedTimes:
    """Milliseconds a call of the feed, median over the first and the last tenth of the sets."""

    sets: int
    first_ms: float
    last_ms: float
    total_s: float
    """The feed's calls in all, in seconds (recording the matches left out)."""


def bench_duel_feed(path: Path, sets: int, seed: int = 1) -> FeedTimes:
    """Play ``sets`` sets of a duel through its feed in a new database at ``path``."""
    store = DuelStore(path)
    draw = random.Random(seed)
    try:
        speed_over_safety(store)
        settings = LadderSettings(seed, ruleset("american"), 0, "2026-12-01T00:00:00+00:00")
        store.create(settings, DUEL, [(name, f"./{name}") for name in DUEL.names])
        feed = DuelFeed(store, DUEL, max_sets=sets)
        calls: list[float] = []
        while True:
            start = time.perf_counter()
            group = feed()
            calls.append(time.perf_counter() - start)
            if group is None:
                break
            for match in group:
                store.record(_record(match, draw))
    finally:
        store.close()
    tenth = max(1, sets // 10)
    return FeedTimes(
        sets=sets,
        first_ms=1000 * statistics.median(calls[:tenth]),
        last_ms=1000 * statistics.median(calls[sets - tenth : sets]),
        total_s=sum(calls),
    )


def _record(match: ScheduledMatch, draw: random.Random) -> StoredMatch:
    scores = [draw.randrange(0, 100) for _ in match.seats]
    ranks = finishing_ranks(scores, [False] * len(scores))
    winners = [i for i, r in enumerate(ranks) if r == 0]
    seats = [
        SeatResult(seat=i, bot=name, score=score, status="ok", moons=0, win=1 / len(winners) if i in winners else 0.0)
        for i, (name, score) in enumerate(zip(match.seats, scores, strict=True))
    ]
    return StoredMatch(
        match=match, match_id=f"m{match.key}", reason="target_reached", rounds=9, decisions=250, log=None, seats=seats
    )
