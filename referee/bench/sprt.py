"""``referee bench sprt``: do the sequential test and the confidence sequence keep their error
rates on the set differences real bots produce?

Each simulated run draws set differences, with replacement, from a measured sample of real
duplicate sets (``data/sets-american.json``, made by ladders of the sample bots: see its
``made`` field), shifted so that their true mean is exactly the value under test:

- **the SPRT** (:func:`referee.ladder.sequential.sprt`) at the true mean ``d0`` (how often it
  accepts H1: the false positive rate, promised at most ``alpha``) and at ``d1`` (how often it
  accepts H0: the false negative rate, promised at most ``beta``), with the number of sets it
  took;
- **repeated looks** at a true difference of 0: the confidence sequence and, for contrast, the
  fixed 95% t interval, each checked after every set up to a horizon: how often they ever
  exclude zero (what "stop when it excludes zero" gets wrong).

Figures go to docs/testing-bots.md; no test asserts them (a quick, small run in
tests/bench/test_bench_sprt.py only checks that they are sane).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

from referee.ladder.sequential import (
    MIN_SETS,
    RunningMoments,
    SprtBounds,
    confidence_radius,
    sprt_steps,
)
from referee.ladder.stats import estimate, t_quantile

DATA = Path(__file__).resolve().parent / "data" / "sets-american.json"
PAIRS: tuple[tuple[float, float], ...] = ((0.0, 1.0), (0.0, 2.0), (0.0, 5.0))
"""The (d0, d1) pairs simulated by default, in points a match."""
MAX_SETS = 1_000_000
"""A run that has not decided by then counts as undecided (the SPRT stops with probability 1;
this only bounds a run on a degenerate sample)."""


class SetSample(msgspec.Struct, frozen=True, kw_only=True):
    """Per-set differences of two real bots at one table: OLD's score minus NEW's, per match on
    the same cards, averaged over the set's rotations (positive: NEW better)."""

    name: str
    new: str
    old: str
    opponents: list[str]
    differences: list[float]


class SetData(msgspec.Struct, frozen=True, kw_only=True):
    variant: str
    made: list[str]
    """How the samples were made: the commands, in order."""
    samples: list[SetSample]


class SampleShape(msgspec.Struct, frozen=True, kw_only=True):
    """What a measured sample looks like: its simulated runs keep its shape, moved to a mean."""

    name: str
    new: str
    old: str
    sets: int
    mean: float
    sd: float
    skewness: float
    """The third standardized moment: a long tail on one side (negative: to the left) makes the
    sample variance small exactly when the mean is high, which the normal approximation does
    not know (docs/testing-bots.md)."""


class SprtCase(msgspec.Struct, frozen=True, kw_only=True):
    sample: str
    spread: float
    """The sample's standard deviation per set (the shift keeps it)."""
    d0: float
    d1: float
    alpha: float
    beta: float
    min_sets: int
    truth: float
    """The true mean difference the runs were drawn at: d0 or d1."""
    wrong: str
    """The wrong verdict at this truth: ``H1`` at d0, ``H0`` at d1."""
    runs: int
    error_rate: float
    error_se: float
    """The binomial standard error of ``error_rate``: sqrt(p (1 - p) / runs)."""
    undecided: int
    mean_sets: float
    p95_sets: int


class PeekCase(msgspec.Struct, frozen=True, kw_only=True):
    sample: str
    method: str
    """``confidence sequence`` or ``fixed 95% t interval``."""
    first_look: int
    horizon: int
    """Checked after every set from ``first_look`` to ``horizon``, true difference 0."""
    runs: int
    ever_excluded: float
    """The share of runs in which it excluded zero at some look (a false "you can stop")."""
    se: float


class SprtBench(msgspec.Struct, frozen=True, kw_only=True):
    variant: str
    runs: int
    seed: int
    samples: list[SampleShape]
    sprt: list[SprtCase]
    peeking: list[PeekCase]
    seconds: float


def load_sets(path: Path = DATA) -> SetData:
    return msgspec.json.decode(path.read_bytes(), type=SetData)


def shape(sample: SetSample) -> SampleShape:
    found = estimate(sample.differences)
    third = math.fsum((v - found.mean) ** 3 for v in sample.differences) / found.n
    return SampleShape(
        name=sample.name,
        new=sample.new,
        old=sample.old,
        sets=found.n,
        mean=found.mean,
        sd=found.sd,
        skewness=third / found.sd**3 if found.sd > 0 else 0.0,
    )


def _draws(centred: Sequence[float], truth: float, rng: random.Random) -> Iterator[float]:
    """Endless set differences drawn from the sample, moved to mean ``truth``."""
    while True:
        yield truth + rng.choice(centred)


def _centred(values: Sequence[float]) -> list[float]:
    mean = math.fsum(values) / len(values)
    return [v - mean for v in values]


def _rate(hits: int, runs: int) -> tuple[float, float]:
    p = hits / runs
    return p, math.sqrt(p * (1 - p) / runs)


def simulate_sprt(
    sample: SetSample, bounds: SprtBounds, truth: float, runs: int, rng: random.Random, *, min_sets: int = MIN_SETS
) -> SprtCase:
    """``runs`` sequential tests on sets drawn at mean ``truth`` (``bounds.d0`` or ``bounds.d1``)."""
    centred = _centred(sample.differences)
    wrong = "H1" if truth == bounds.d0 else "H0"
    errors = undecided = 0
    lengths = []
    for _ in range(runs):
        for state in sprt_steps(_draws(centred, truth, rng), bounds, min_sets):
            if state.verdict != "continue" or state.sets >= MAX_SETS:
                break
        errors += state.verdict == wrong
        undecided += state.verdict == "continue"
        lengths.append(state.sets)
    lengths.sort()
    rate, se = _rate(errors, runs)
    return SprtCase(
        sample=sample.name,
        spread=estimate(sample.differences).sd,
        d0=bounds.d0,
        d1=bounds.d1,
        alpha=bounds.alpha,
        beta=bounds.beta,
        min_sets=min_sets,
        truth=truth,
        wrong=wrong,
        runs=runs,
        error_rate=rate,
        error_se=se,
        undecided=undecided,
        mean_sets=sum(lengths) / runs,
        p95_sets=lengths[min(runs - 1, math.ceil(0.95 * runs) - 1)],
    )


LOOKS: tuple[tuple[str, int], ...] = (
    ("confidence sequence", MIN_SETS),
    ("fixed 95% t interval", 2),
    ("fixed 95% t interval", MIN_SETS),
)
"""The ways of looking compared: what ``ladder compare`` stops on now, and the fixed interval it
stopped on before, from the second set and from ``MIN_SETS``."""


def simulate_peeking(
    sample: SetSample, horizon: int, runs: int, rng: random.Random, alpha: float = 0.05
) -> list[PeekCase]:
    """``runs`` streams of ``horizon`` sets at a true difference of 0, every way of looking
    checked after every set of the same stream: how often each ever excluded zero."""
    centred = _centred(sample.differences)
    # half-widths in standard deviations, per number of sets (index n), computed once
    sequence = [math.inf, math.inf] + [confidence_radius(n, alpha) for n in range(2, horizon + 1)]
    fixed = [math.inf, math.inf] + [t_quantile(1 - alpha / 2, n - 1) / math.sqrt(n) for n in range(2, horizon + 1)]
    widths = [sequence if method == "confidence sequence" else fixed for method, _ in LOOKS]
    hits = [0] * len(LOOKS)
    for _ in range(runs):
        moments = RunningMoments()
        excluded = [False] * len(LOOKS)
        for x in _draws(centred, 0.0, rng):
            moments.add(x)
            n = moments.n
            if n >= 2:
                distance = abs(moments.mean) / math.sqrt(moments.variance) if moments.variance > 0 else 0.0
                for i, (_, first) in enumerate(LOOKS):
                    excluded[i] = excluded[i] or (n >= first and distance > widths[i][n])
            if n >= horizon:
                break
        hits = [h + e for h, e in zip(hits, excluded, strict=True)]
    return [
        PeekCase(
            sample=sample.name,
            method=method,
            first_look=first,
            horizon=horizon,
            runs=runs,
            ever_excluded=_rate(h, runs)[0],
            se=_rate(h, runs)[1],
        )
        for (method, first), h in zip(LOOKS, hits, strict=True)
    ]


def bench_sprt(
    *,
    runs: int = 2000,
    seed: int = 1,
    pairs: Sequence[tuple[float, float]] = PAIRS,
    alpha: float = 0.05,
    beta: float = 0.05,
    min_sets: int = MIN_SETS,
    horizon: int = 1000,
    peek_runs: int | None = None,
    data: SetData | None = None,
) -> SprtBench:
    """Every measured sample: the SPRT at d0 and d1 for every pair, then repeated looks."""
    data = data if data is not None else load_sets()
    rng = random.Random(seed)
    started = time.perf_counter()
    cases = []
    for sample in data.samples:
        for d0, d1 in pairs:
            bounds = SprtBounds(d0, d1, alpha, beta)
            for truth in (d0, d1):
                cases.append(simulate_sprt(sample, bounds, truth, runs, rng, min_sets=min_sets))
    peeking = [
        case
        for sample in data.samples
        for case in simulate_peeking(sample, horizon, peek_runs if peek_runs is not None else runs, rng, alpha)
    ]
    return SprtBench(
        variant=data.variant,
        runs=runs,
        seed=seed,
        samples=[shape(sample) for sample in data.samples],
        sprt=cases,
        peeking=peeking,
        seconds=time.perf_counter() - started,
    )
