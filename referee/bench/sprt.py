"""``referee bench sprt``: do the sequential test and the confidence sequence keep their error
rates on the set differences real bots produce?

Each simulated run draws set differences, with replacement, from a measured sample of real
duplicate sets (``data/sets-american.json``, made by ladders of the sample bots: see its
``made`` field), shifted so that their true mean is exactly the value under test:

- **the SPRT** (:func:`referee.stats.sequential.sprt`) at the true mean ``d0`` (how often it
  accepts H1: the false positive rate, promised at most ``alpha``) and at ``d1`` (how often it
  accepts H0: the false negative rate, promised at most ``beta``), with the number of sets it
  took;
- **repeated looks** at a true difference of 0: the confidence sequence (the betting one of
  :mod:`referee.stats.betting`) and, for contrast, the normal-mixture sequence the ladder used
  before issue 32 and the fixed 95% t interval, each checked after every set up to a horizon:
  how often they ever exclude zero (what "stop when it excludes zero" gets wrong);
- **the verdict of ``ladder compare``** (:mod:`referee.stats.evidence`): the sign test and the
  confidence sequence at 2.5% each, stopped on the first that decides, at a true difference of
  0 (how often it is ever wrong, promised at most 5%) and at the sample's own mean (how many
  sets it takes, against the confidence sequence alone).

Besides the measured samples, a made-up one, ``rare-difference`` (``RARE``: NEW gains 50 points
in 2% of the sets and nothing in the others), is run through the SPRT and the looks: equal sets
for long stretches, what a test that trusts its early sample variance gets wrong.

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

from referee.stats.betting import BettingSequence
from referee.stats.estimate import estimate, t_quantile
from referee.stats.evidence import sequence_alpha
from referee.stats.sequential import (
    MIN_SETS,
    PRIOR_SETS,
    RunningMoments,
    SprtBounds,
    confidence_radius,
    sprt_steps,
)
from referee.stats.signs import SIGN_ALPHA, log_wealth

DATA = Path(__file__).resolve().parent / "data" / "sets-american.json"
PAIRS: tuple[tuple[float, float], ...] = ((0.0, 1.0), (0.0, 2.0), (0.0, 5.0))
"""The (d0, d1) pairs simulated by default, in points a match."""
SPEED_HORIZON = 300
"""Sets drawn per run when measuring how long the verdict takes (a run not decided by then
counts as longer than any)."""
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


RARE = SetSample(
    name="rare-difference",
    new="made up",
    old="made up",
    opponents=[],
    differences=[0.0] * 49 + [50.0],
)
"""A made-up sample: NEW gains 50 points in one set of 50 (2%) and ties the others, a true mean
of +1. Before issue 32 the SPRT's early sets were all equal, its sample variance 0, and it
accepted H0 at ``--sprt 0,1`` in 56% to 59% of the runs for a promised 5%."""


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
    prior_sets: float = PRIOR_SETS
    """The weight of the SPRT's prior on the spread (0: the plain sample variance, as before
    issue 32)."""
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


class VerdictSpeed(msgspec.Struct, frozen=True, kw_only=True):
    """Sets until the verdict, at the sample's own mean (its true difference, resampled)."""

    sample: str
    truth: float
    horizon: int
    runs: int
    decided: float
    """The share of runs decided by the horizon (the right way round)."""
    median_sets: int | None
    """The median number of sets to a decision, of all runs (``None``: most never decided)."""
    sequence_decided: float
    sequence_median_sets: int | None
    """The same with the confidence sequence alone at the whole ``alpha`` (before the sign
    test)."""


class SprtBench(msgspec.Struct, frozen=True, kw_only=True):
    variant: str
    runs: int
    seed: int
    samples: list[SampleShape]
    sprt: list[SprtCase]
    peeking: list[PeekCase]
    verdict: list[PeekCase] = msgspec.field(default_factory=list)
    """The verdict's tests, each alone and together, looked at after every set at a true
    difference of 0."""
    speed: list[VerdictSpeed] = msgspec.field(default_factory=list)
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


def centred_values(values: Sequence[float]) -> list[float]:
    mean = math.fsum(values) / len(values)
    return [v - mean for v in values]


def _rate(hits: int, runs: int) -> tuple[float, float]:
    p = hits / runs
    return p, math.sqrt(p * (1 - p) / runs)


def simulate_sprt(
    sample: SetSample,
    bounds: SprtBounds,
    truth: float,
    runs: int,
    rng: random.Random,
    *,
    min_sets: int = MIN_SETS,
    prior_sets: float = PRIOR_SETS,
) -> SprtCase:
    """``runs`` sequential tests on sets drawn at mean ``truth`` (``bounds.d0`` or ``bounds.d1``)."""
    centred = centred_values(sample.differences)
    wrong = "H1" if truth == bounds.d0 else "H0"
    errors = undecided = 0
    lengths = []
    for _ in range(runs):
        for state in sprt_steps(_draws(centred, truth, rng), bounds, min_sets, prior_sets=prior_sets):
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
        prior_sets=prior_sets,
        truth=truth,
        wrong=wrong,
        runs=runs,
        error_rate=rate,
        error_se=se,
        undecided=undecided,
        mean_sets=sum(lengths) / runs,
        p95_sets=lengths[min(runs - 1, math.ceil(0.95 * runs) - 1)],
    )


SEQUENCE = "confidence sequence"
NORMAL_MIXTURE = "normal-mixture sequence"
LOOKS: tuple[tuple[str, int], ...] = (
    (SEQUENCE, MIN_SETS),
    (NORMAL_MIXTURE, MIN_SETS),
    ("fixed 95% t interval", 2),
    ("fixed 95% t interval", MIN_SETS),
)
"""The ways of looking compared: what ``ladder compare`` stops on now (the betting sequence),
the normal-mixture sequence it stopped on before issue 32, and the fixed interval it stopped on
before that, from the second set and from ``MIN_SETS``."""


def simulate_peeking(
    sample: SetSample, horizon: int, runs: int, rng: random.Random, alpha: float = 0.05
) -> list[PeekCase]:
    """``runs`` streams of ``horizon`` sets at a true difference of 0, every way of looking
    checked after every set of the same stream: how often each ever excluded zero."""
    centred = centred_values(sample.differences)
    # half-widths in standard deviations, per number of sets (index n), computed once
    mixture = [math.inf, math.inf] + [confidence_radius(n, alpha) for n in range(2, horizon + 1)]
    fixed = [math.inf, math.inf] + [t_quantile(1 - alpha / 2, n - 1) / math.sqrt(n) for n in range(2, horizon + 1)]
    never = [math.inf] * (horizon + 1)  # the betting sequence is checked on its own
    widths = [{SEQUENCE: never, NORMAL_MIXTURE: mixture}.get(method, fixed) for method, _ in LOOKS]
    hits = [0] * len(LOOKS)
    for _ in range(runs):
        moments = RunningMoments()
        betting = BettingSequence(alpha)
        excluded = [False] * len(LOOKS)
        for x in _draws(centred, 0.0, rng):
            moments.add(x)
            betting.add(x)
            n = moments.n
            if n >= LOOKS[0][1] and not excluded[0]:
                low, high = betting.interval
                excluded[0] = low > 0 or high < 0
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


def sign_margins(horizon: int, alpha: float = SIGN_ALPHA) -> list[float]:
    """For every number ``n`` of sets won by either (index ``n``), the fewest won by the leader
    that make the sign test decide (``inf``: none): the test is one comparison a set."""
    threshold = math.log(1 / alpha)
    margins = []
    for n in range(horizon + 1):
        found = next((w for w in range((n + 1) // 2, n + 1) if log_wealth(w, n - w) >= threshold), None)
        margins.append(math.inf if found is None else float(found))
    return margins


VERDICT_LOOKS = ("sign test", "confidence sequence", "either: the verdict")
"""The verdict's tests measured alone (each at its share of ``alpha``) and together."""


def verdict_stream(
    draws: Iterator[float], horizon: int, alpha: float, margins: Sequence[float]
) -> tuple[int | None, int | None, int]:
    """The first set at which the sign test and the confidence sequence at ``alpha`` decide
    (``None``: not by ``horizon``), and the direction of the first decision of either (+1, -1;
    0: none)."""
    moments = RunningMoments()
    sequence = BettingSequence(alpha)
    wins = losses = 0
    by_signs = by_sequence = None
    direction = 0
    for x in draws:
        moments.add(x)
        sequence.add(x)
        n = moments.n
        wins += x > 0
        losses += x < 0
        if by_signs is None and max(wins, losses) >= margins[wins + losses]:
            by_signs = n
            direction = direction or (1 if wins > losses else -1)
        low, high = sequence.interval
        if by_sequence is None and n >= MIN_SETS and (low > 0 or high < 0):
            by_sequence = n
            direction = direction or (1 if low > 0 else -1)
        if n >= horizon or (by_signs is not None and by_sequence is not None):
            break
    return by_signs, by_sequence, direction


def _symmetric_draws(centred: Sequence[float], rng: random.Random) -> Iterator[float]:
    """Endless set differences drawn from the sample, centred and given a random sign: mean and
    median 0, the null of both of the verdict's tests at once."""
    while True:
        yield rng.choice(centred) * rng.choice((-1.0, 1.0))


def simulate_verdict(
    sample: SetSample, horizon: int, runs: int, rng: random.Random, alpha: float = 0.05, *, symmetric: bool = False
) -> list[PeekCase]:
    """``runs`` streams of ``horizon`` sets at a true difference of 0, the verdict's two tests
    checked after every set (the sign test from the first, the confidence sequence from
    ``MIN_SETS``): how often each, and either, ever decided (every decision is wrong here).

    The sets are the sample moved to a mean of 0, which leaves a skewed sample's median off 0
    (heuristic-random: 56% of its sets above its mean), so the sign test's null does not hold
    there; ``symmetric`` draws them with a random sign too, which makes both nulls hold."""
    centred = centred_values(sample.differences)
    suffix = " (symmetric)" if symmetric else ""
    margins = sign_margins(horizon, alpha - sequence_alpha(alpha))
    hits = [0, 0, 0]
    for _ in range(runs):
        draws = _symmetric_draws(centred, rng) if symmetric else _draws(centred, 0.0, rng)
        by_signs, by_sequence, _ = verdict_stream(draws, horizon, sequence_alpha(alpha), margins)
        hits[0] += by_signs is not None
        hits[1] += by_sequence is not None
        hits[2] += by_signs is not None or by_sequence is not None
    return [
        PeekCase(
            sample=sample.name,
            method=method + suffix,
            first_look=MIN_SETS if method == "confidence sequence" else 1,
            horizon=horizon,
            runs=runs,
            ever_excluded=_rate(h, runs)[0],
            se=_rate(h, runs)[1],
        )
        for method, h in zip(VERDICT_LOOKS, hits, strict=True)
    ]


def verdict_speed(sample: SetSample, horizon: int, runs: int, rng: random.Random, alpha: float = 0.05) -> VerdictSpeed:
    """``runs`` streams at the sample's own mean: the sets the verdict takes, and the sets the
    confidence sequence alone at the whole ``alpha`` takes on the same streams."""
    centred = centred_values(sample.differences)
    truth = estimate(sample.differences).mean
    sign = 1 if truth > 0 else -1
    margins = sign_margins(horizon, alpha - sequence_alpha(alpha))
    never = [math.inf] * (horizon + 1)
    verdicts, alone = [], []
    for _ in range(runs):
        stream = [truth + rng.choice(centred) for _ in range(horizon)]
        by_signs, by_sequence, direction = verdict_stream(iter(stream), horizon, sequence_alpha(alpha), margins)
        first = min((n for n in (by_signs, by_sequence) if n is not None), default=None)
        verdicts.append(first if first is not None and direction == sign else None)
        _, by_whole, whole_direction = verdict_stream(iter(stream), horizon, alpha, never)
        alone.append(by_whole if whole_direction == sign else None)
    return VerdictSpeed(
        sample=sample.name,
        truth=truth,
        horizon=horizon,
        runs=runs,
        decided=sum(n is not None for n in verdicts) / runs,
        median_sets=_median(verdicts),
        sequence_decided=sum(n is not None for n in alone) / runs,
        sequence_median_sets=_median(alone),
    )


def _median(sets: Sequence[int | None]) -> int | None:
    """The median, counting a run never decided as longer than any; ``None`` if that is one."""
    ordered = sorted(sets, key=lambda n: math.inf if n is None else n)
    return ordered[(len(ordered) - 1) // 2]


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
    verdict_only: bool = False,
    prior_sets: float = PRIOR_SETS,
    rare: bool = True,
) -> SprtBench:
    """Every measured sample (and ``RARE`` with ``rare``): the SPRT at d0 and d1 for every pair,
    then repeated looks, then ``ladder compare``'s verdict on the measured samples (only that
    with ``verdict_only``)."""
    data = data if data is not None else load_sets()
    rng = random.Random(seed)
    started = time.perf_counter()
    tested = [] if verdict_only else [*data.samples, *([RARE] if rare else [])]
    cases = []
    for sample in tested:
        for d0, d1 in pairs:
            bounds = SprtBounds(d0, d1, alpha, beta)
            for truth in (d0, d1):
                cases.append(simulate_sprt(sample, bounds, truth, runs, rng, min_sets=min_sets, prior_sets=prior_sets))
    looks = peek_runs if peek_runs is not None else runs
    peeking = [case for sample in tested for case in simulate_peeking(sample, horizon, looks, rng, alpha)]
    verdict = [
        case
        for symmetric in (False, True)
        for sample in data.samples
        for case in simulate_verdict(sample, horizon, looks, rng, alpha, symmetric=symmetric)
    ]
    speed = [verdict_speed(sample, min(horizon, SPEED_HORIZON), looks, rng, alpha) for sample in data.samples]
    return SprtBench(
        variant=data.variant,
        runs=runs,
        seed=seed,
        samples=[shape(sample) for sample in [*data.samples, *([RARE] if rare and not verdict_only else [])]],
        sprt=cases,
        peeking=peeking,
        verdict=verdict,
        speed=speed,
        seconds=time.perf_counter() - started,
    )
