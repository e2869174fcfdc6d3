"""``referee bench projection``: is "how many more sets" worth telling, and from when?

Streams of set differences are drawn, with replacement, from the measured samples of real
duplicate sets (``data/sets-american.json``, as ``referee bench sprt`` draws them), moved to a
known true difference: the sample's own mean, and a half and a quarter of it (harder pairs).
On each stream the projection is made after ``first`` sets (the point projection, which the
ladder told from the second set before issue 42, and the range told now,
:mod:`referee.stats.projection`), then the verdict's two tests run on until they decide
(:func:`referee.bench.sprt.verdict_stream`) or ``horizon`` sets: the sets it actually took after
``first`` are set beside the projection. Reported per first look: the median ratio of the point
projection to the truth, the share of runs within a factor of 2, and the share whose truth lay
inside the range. Runs decided before ``first`` (nothing left to project) and runs not decided
by ``horizon`` (censored) are counted apart. Figures go to docs/performance.md; no test asserts
them."""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from referee.bench.sprt import DATA, centred_values, load_sets, sign_margins, verdict_stream
from referee.stats.estimate import estimate
from referee.stats.evidence import more_sets_needed, sequence_alpha, weigh
from referee.stats.projection import projection

FIRST_LOOKS = (10, 20, 30, 50)
FRACTIONS = (1.0, 0.5, 0.25)
"""The true differences simulated, as fractions of each sample's own mean."""


@dataclass(frozen=True)
class ProjectionCase:
    """One first look over every stream of one true difference."""

    sample: str
    truth: float
    first: int
    runs: int
    decided_before: int
    """Runs the verdict had decided by ``first`` sets: nothing to project."""
    censored: int
    """Runs not decided by the horizon (their truth is only "more than")."""
    median_ratio: float | None
    """Median of point projection / sets actually taken, over the runs projected and decided."""
    within_2: float | None
    """Share of those runs whose point projection was within a factor of 2."""
    in_range: float | None
    """Share of the runs projected (censored ones included) whose sets actually taken lay inside
    the told range (a censored run: when the range reaches past the horizon)."""
    no_point: int
    """Runs where the point projection made none (no difference seen)."""


def projection_cases(
    runs: int = 100, horizon: int = 5000, seed: int = 1, first_looks: tuple[int, ...] = FIRST_LOOKS, alpha: float = 0.05
) -> list[ProjectionCase]:
    rng = random.Random(seed)
    margins = sign_margins(horizon, alpha - sequence_alpha(alpha))
    cases = []
    for sample in load_sets(DATA).samples:
        mean = estimate(sample.differences).mean
        if abs(mean) < 0.05:
            continue  # no difference to find: every projection is "never"
        centred = centred_values(sample.differences)
        for fraction in FRACTIONS:
            truth = mean * fraction
            streams = [[truth + rng.choice(centred) for _ in range(horizon)] for _ in range(runs)]
            decided = [_decided_at(stream, horizon, alpha, margins) for stream in streams]
            cases += [
                _case(sample.name, truth, first, streams=streams, decided=decided, alpha=alpha, horizon=horizon)
                for first in first_looks
            ]
    return cases


def _decided_at(stream: list[float], horizon: int, alpha: float, margins: list[float]) -> int | None:
    by_signs, by_sequence, _ = verdict_stream(iter(stream), horizon, sequence_alpha(alpha), margins)
    return min((n for n in (by_signs, by_sequence) if n is not None), default=None)


def _case(
    name: str,
    truth: float,
    first: int,
    *,
    streams: list[list[float]],
    decided: list[int | None],
    alpha: float,
    horizon: int,
) -> ProjectionCase:
    ratios: list[float] = []
    inside = 0
    before = censored = no_point = 0
    for stream, at in zip(streams, decided, strict=True):
        if at is not None and at <= first:
            before += 1
            continue
        evidence = weigh(stream[:first], alpha)
        point = more_sets_needed(evidence)
        told = projection(evidence, min_sets=0)
        if at is None:  # taken more than the horizon allowed: the range holds it if it reaches past
            censored += 1
            inside += told.low is not None and (told.high is None or told.high > horizon - first)
            continue
        actual = at - first
        if point is None or point == 0:
            no_point += 1
        else:
            ratios.append(point / actual)
        if told.low is not None and told.low <= actual and (told.high is None or actual <= told.high):
            inside += 1
    judged = len(ratios)
    projected = len(streams) - before
    return ProjectionCase(
        sample=name,
        truth=truth,
        first=first,
        runs=len(streams),
        decided_before=before,
        censored=censored,
        median_ratio=statistics.median(ratios) if ratios else None,
        within_2=sum(0.5 <= r <= 2 for r in ratios) / judged if judged else None,
        in_range=inside / projected if projected else None,
        no_point=no_point,
    )
