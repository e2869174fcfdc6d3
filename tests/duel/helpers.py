"""Duels for tests: a duel's database with synthetic results, and the commands of real runs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.duel.feed import DuelFeed
from referee.duel.settings import DuelSettings
from referee.duel.store import DuelStore
from referee.rules import ruleset
from referee.stats.sequential import SprtBounds
from referee.store.records import LadderSettings, ScheduledMatch
from tests.ladder.helpers import ROOT, record_of
from tests.shared import quick_bot

PY = sys.executable
RANDOM = f"{PY} {ROOT}/sample_bots/python/random_bot.py"
HEURISTIC = f"{PY} {ROOT}/sample_bots/python/heuristic_bot.py"
FIRST = f"{PY} {ROOT}/tests/bots/first_legal_bot.py"


def quick_first() -> str:
    """``FIRST`` as a quick process (``tests.shared.quick_bot``; asked when a test runs, once
    the C bot is built): for runs whose bots' language does not matter."""
    return quick_bot(FIRST)


def quick_random() -> str:
    """``RANDOM`` as a quick process (see ``quick_first``)."""
    return quick_bot(RANDOM, random_seed=1)


SHORT = ["--set", "end=rounds", "--set", "rounds=1"]
"""One round a match: a duel's matches as quick as they come."""


TEST = SprtBounds(0, 2)
"""H0: NEW better by at most 0 points a match; H1: by at least 2."""


def duel_settings(olds: Sequence[str] = ("old",), sprt: SprtBounds | None = TEST) -> DuelSettings:
    kind = "duel" if len(olds) == 1 else "gauntlet"
    return DuelSettings(kind=kind, new="new", olds=tuple(olds), opponents=("x",), sprt=sprt)


def duel_store(path: Path, duel: DuelSettings) -> DuelStore:
    store = DuelStore(path)
    settings = LadderSettings(ladder_seed=4, rules=ruleset("american"), games=0, created="2026-01-01T00:00:00+00:00")
    store.create(settings, duel, [(name, f"cmd {name}") for name in dict.fromkeys(duel.names)])
    return store


Scores = Callable[[ScheduledMatch], list[int]]


def scored(new: int, old: int, other: int = 6) -> Scores:
    """Every match: NEW takes ``new`` points, OLD ``old``, each opponent ``other``."""

    def scores(match: ScheduledMatch) -> list[int]:
        return [new if bot == "new" else old if bot.startswith("old") else other for bot in match.seats]

    return scores


def play_set(store: DuelStore, group: Sequence[ScheduledMatch], scores: Scores) -> None:
    for match in group:
        store.record(record_of(match, scores(match)))


def play_until_done(feed: DuelFeed, store: DuelStore, scores: Callable[[int], Scores]) -> int:
    """Take sets from the feed and record each at once, until it has none; sets played."""
    played = 0
    while (group := feed()) is not None:
        play_set(store, group, scores(group[0].set_index))
        played += 1
    return played


def undecided_duel(path: Path, sets: int = 5) -> Path:
    """A duel's database at ``path`` with ``sets`` sets played and no verdict yet: NEW scores 5,
    OLD 8 and 6 by turns (a mean difference of +1.8 over 5 sets)."""
    settings = duel_settings()
    store = duel_store(path, settings)
    feed = DuelFeed(store, settings, max_sets=100)
    for index in range(sets):
        group = feed()
        assert group is not None
        play_set(store, group, scored(new=5, old=8 if index % 2 else 6))
    store.close()
    return path
