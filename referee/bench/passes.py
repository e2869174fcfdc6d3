"""``referee bench analyze --passes N``: how near the analysis's race of passes comes to the best
of all of them, and how far the old candidate set (every 3 of the 5 most dangerous cards, the
policy's pass, the pass made) fell short.

The pass decisions of greedy American matches (seeds from ``seed``) are each valued twice: by
``estimate`` with the default budget (the race: every legal pass 16 worlds, the 24 best on), and
by ``values_of``, every legal pass on the same ``worlds`` fresh worlds with no stopping: the
reference. The *regret* of a pick is the reference value of the pass it picked minus the
reference's best (points of the round, 0 when it found it); the reference's own noise makes
it a slight overestimate. Printed: the mean regret of the race and of the old set, how often
each found the reference's best, and the playouts each used (docs/analysis.md).
"""

from __future__ import annotations

import itertools
import math
import os
import random
from concurrent.futures import ProcessPoolExecutor

import msgspec

from referee.analysis.estimate import Budget, candidates, danger, estimate, values_of
from referee.analysis.infoset import Decision, match_decisions, pass_text
from referee.bench.analyze import greedy_match
from referee.rules.deck import deck_for


class PassesBench(msgspec.Struct, kw_only=True):
    decisions: int
    legal: int
    """Legal passes of a decision (286 in American Hearts)."""
    reference_worlds: int
    race_regret: float
    race_regret_half: float
    """Half-width of the 95% interval of the mean regret."""
    race_found: int
    """Decisions where the race picked the reference's best."""
    race_playouts: float
    """Mean playouts per decision."""
    old_regret: float
    old_regret_half: float
    old_found: int
    old_candidates: float
    """Mean size of the old candidate set."""


def _old_set(d: Decision) -> list[str]:
    """The candidates the analysis valued before the race: every 3 of the 5 most dangerous cards,
    the greedy policy's pass, the pass made."""
    deck = deck_for(d.info.rules)
    count = deck.rules.pass_count
    hand = sorted(d.info.view.hand, key=lambda c: danger(deck, c), reverse=True)
    found = [pass_text(combo) for combo in itertools.combinations(hand[: max(count, 5)], count)]
    found.append(pass_text(hand[:count]))
    return list(dict.fromkeys([*found, d.chosen]))


def _one(task: tuple[Decision, int, int]) -> tuple[float, bool, int, float, bool, int, int]:
    d, seed, worlds = task
    deck = deck_for(d.info.rules)
    every = candidates(d.info, d.chosen, deck, Budget(widest=10**6))
    reference = dict(zip(every, values_of(d.info, every, seed + 1, worlds), strict=True))
    floor = min(reference.values())
    raced = estimate(d.info, d.chosen, seed, Budget())
    old = _old_set(d)
    old_pick = min(old, key=lambda c: reference[c])  # the old set's best, judged by the reference itself
    return (
        reference[raced.best] - floor,
        reference[raced.best] == floor,
        raced.playouts,
        reference[old_pick] - floor,
        reference[old_pick] == floor,
        len(old),
        len(every),
    )


def _mean_half(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / max(1, n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def bench_passes(count: int, seed: int, worlds: int, workers: int | None) -> PassesBench:
    """Measure ``count`` pass decisions (see the module docstring)."""
    found: list[Decision] = []
    match_seed = seed
    while len(found) < count:
        record = greedy_match(match_seed)
        found += [d for d in match_decisions(record, range(4)) if d.info.kind == "pass"]
        match_seed += 1
    rng = random.Random(seed)
    tasks = [(d, rng.getrandbits(32), worlds) for d in found[:count]]
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        results = list(pool.map(_one, tasks))
    race, race_half = _mean_half([r[0] for r in results])
    old, old_half = _mean_half([r[3] for r in results])
    return PassesBench(
        decisions=count, legal=results[0][6],
        reference_worlds=worlds, race_regret=race, race_regret_half=race_half, race_found=sum(r[1] for r in results),
        race_playouts=sum(r[2] for r in results) / count, old_regret=old, old_regret_half=old_half,
        old_found=sum(r[4] for r in results), old_candidates=sum(r[5] for r in results) / count,
    )  # fmt: skip
