"""Sequential tests on duplicate sets: "is NEW better than OLD?" answered as the sets come in,
with error rates that hold however often the answer is looked at.

Two tools, both on per-set differences (one duplicate set = one independent paired difference,
points a match NEW is better than OLD on the same cards; positive: NEW better):

- :func:`sprt`, a generalized sequential probability ratio test (GSPRT) of H0 "the mean
  difference is ``d0``" against H1 "it is ``d1``" on the normal approximation of the set
  differences, the way fishtest tests chess engines on pentanomial game pairs
  (``LLR_alt2`` in fishtest's ``server/fishtest/stats/LLRcalc.py``; M. Van den Bergh, "A
  Gaussian approximation of the GSPRT", cantate.be/Fishtest/GSPRT_approximation.pdf), with
  Wald's bounds (A. Wald, *Sequential Analysis*, 1947) drawn at half the promised rates
  (``MARGIN``). It stops as soon as the data allow, with false positive rate at most ``alpha``
  at ``d0`` and false negative rate at most ``beta`` at ``d1``, as measured on real sets. Its
  variance starts from a prior at the widest spread a set can have (``PRIOR_SETS``), so that a
  run of equal sets cannot decide at once.
- :func:`confidence_sequence`, an interval for the mean that holds at every number of sets at
  once (anytime-valid), so that "stop once it excludes zero" keeps its error rate under
  repeated looks, which a fixed-sample 95% interval does not: exactly, on any law of sets
  within ``SET_BOUND`` (:mod:`referee.stats.betting`).

Pure: no I/O; the figures that show the error rates are measured by ``referee bench sprt``
(docs/testing-bots.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.stats.betting import SET_BOUND, BettingSequence, betting_sequence, bound_for

MIN_SETS = 30
"""No verdict, and no finite confidence sequence, on fewer sets. Both divide by the sample
variance, and on a handful of sets it is often far too small (a run of near-equal sets makes
them overconfident). Measured (``referee bench sprt``, docs/testing-bots.md): an SPRT allowed
to stop from the second set is wrong up to 27% of the time for a promised 5%, from the tenth up
to 12%, from the thirtieth about as promised. It costs nothing when the difference is small
(the test needs hundreds of sets) and a few sets when it is large."""

MARGIN = 0.5
"""Wald's bounds are drawn at this share of the promised ``alpha`` and ``beta``. On the normal
approximation his bounds at the promised rates are only about right: measured on real duplicate
sets (``referee bench sprt``, docs/testing-bots.md), close or equal bots gave 4% to 6.5% for a
promised 5%, and strongly skewed sets (a strong bot against a random one) up to 9% false
positives, since a long tail makes the sample variance small exactly when the mean looks too
good. At half the rates every measured sample keeps the promise (at most 5.1% over 2,000
runs, within one standard error of 5%), for about a third more sets: a promise kept is worth
more to a bot author than the sets."""

PRIOR_SETS = 1.0
"""The weight, in sets, of a prior guess of the spread that the SPRT's variance starts from: the
widest spread a set can have, ``SET_BOUND`` (a set at +bound and one at -bound). Without it a
run of equal sets has a sample variance of 0, the log-likelihood ratio is infinite and the
test decides at ``MIN_SETS``: right for a deterministic bot against itself, wrong for a change
that matters only in rare sets (+50 points in 2% of the sets, a true mean of +1: H0 accepted
in 56% of the runs at ``--sprt 0,1`` for a promised 5%, measured by ``referee bench sprt``,
docs/testing-bots.md). To keep ``beta`` on every law of bounded sets the test must not accept
H0 on k equal sets while a rare set worth the bound could still bring the mean to ``d1``, i.e.
about ``bound · log(1 / beta) / d1`` sets; one prior set at the widest spread makes equal sets
accept H0 after ``bound · sqrt(2 · |lower| / (d1 · (d1 - d0)))`` sets when d0 = 0, the same
order (at d0 = 0: 339 sets for d1 = 1, 170 for d1 = 2, 68 for d1 = 5). Its weight fades as
1 / n: after a few hundred real sets it moves the variance by a few percent."""

Verdict = Literal["H1", "H0", "continue"]


class SprtBoundsError(ValueError):
    """Hypotheses or error rates a sequential test cannot be run with."""


@dataclass(frozen=True)
class SprtBounds:
    """The two hypotheses (mean difference per set, NEW minus OLD in points a match, positive:
    NEW better) and the error rates promised: ``alpha`` of accepting H1 when the truth is
    ``d0``, ``beta`` of accepting H0 when it is ``d1``."""

    d0: float
    d1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.d0) and math.isfinite(self.d1)) or self.d1 <= self.d0:
            raise SprtBoundsError(f"the SPRT needs finite d0 < d1 (got d0={self.d0}, d1={self.d1})")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise SprtBoundsError(f"{name} must be strictly between 0 and 0.5 (got {rate})")

    @property
    def lower(self) -> float:
        """Wald's lower bound, drawn at ``MARGIN`` times the promised rates: at or below it,
        H0 is accepted."""
        alpha, beta = self.alpha * MARGIN, self.beta * MARGIN
        return math.log(beta / (1.0 - alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound, drawn at ``MARGIN`` times the promised rates: at or above it,
        H1 is accepted."""
        alpha, beta = self.alpha * MARGIN, self.beta * MARGIN
        return math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands after ``sets`` sets."""

    sets: int
    mean: float
    sd: float
    """Sample standard deviation of the set differences (``n - 1`` in the denominator)."""
    llr: float
    """The log-likelihood ratio of H1 against H0, with the variance of ``prior_variance``
    (finite: equal sets no longer make it infinite)."""
    lower: float
    upper: float
    verdict: Verdict


class RunningMoments:
    """The count, mean and sample variance of a stream, one value at a time (Welford's update:
    no catastrophic cancellation over thousands of sets)."""

    __slots__ = ("mean", "n", "squares")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.squares = 0.0
        """The sum of squared deviations from the running mean."""

    def add(self, x: float) -> None:
        self.n += 1
        step = x - self.mean
        self.mean += step / self.n
        self.squares += step * (x - self.mean)

    @property
    def variance(self) -> float:
        """The sample variance (``n - 1`` in the denominator); 0 below two values."""
        return self.squares / (self.n - 1) if self.n >= 2 else 0.0


def prior_variance(moments: RunningMoments, prior_sets: float = PRIOR_SETS, bound: float = SET_BOUND) -> float:
    """The variance the SPRT uses: the sum of squared deviations and ``prior_sets`` sets at the
    widest spread, ``bound²``, over ``n - 1 + prior_sets`` (see ``PRIOR_SETS``); the plain
    sample variance when ``prior_sets`` is 0."""
    weight = moments.n - 1 + prior_sets
    if moments.n < 2 or weight <= 0:
        return moments.variance
    return (moments.squares + prior_sets * bound * bound) / weight


class SprtRun:
    """The test fed one set at a time (O(1) a set): ``add`` a difference, read ``state``. The
    state stays at the set where the test first decided: sets played after a decision (tables
    still busy) are not judged. ``prior_sets`` and ``bound``: the prior on the spread
    (``PRIOR_SETS``; 0 for the plain sample variance)."""

    __slots__ = ("bound", "bounds", "min_sets", "moments", "prior_sets", "state")

    def __init__(
        self, bounds: SprtBounds, min_sets: int = MIN_SETS, *, prior_sets: float = PRIOR_SETS, bound: float = SET_BOUND
    ) -> None:
        self.bounds, self.min_sets, self.prior_sets, self.bound = bounds, min_sets, prior_sets, bound
        self.moments = RunningMoments()
        self.state = SprtState(0, 0.0, 0.0, 0.0, bounds.lower, bounds.upper, "continue")

    def step(self, x: float) -> SprtState:
        """The state after one more set, judged on every set so far (whether or not the test
        had decided before)."""
        moments, bounds = self.moments, self.bounds
        moments.add(x)
        n = moments.n
        llr = _llr(n, moments.mean, prior_variance(moments, self.prior_sets, self.bound), bounds)
        return SprtState(
            sets=n,
            mean=moments.mean,
            sd=math.sqrt(moments.variance),
            llr=llr,
            lower=bounds.lower,
            upper=bounds.upper,
            verdict=_verdict(n, llr, bounds, self.min_sets),
        )

    def add(self, x: float) -> None:
        """One more set; ``state`` moves only while the test has not decided."""
        state = self.step(x)
        if self.state.verdict == "continue":
            self.state = state


def sprt_steps(
    differences: Iterable[float],
    bounds: SprtBounds,
    min_sets: int = MIN_SETS,
    *,
    prior_sets: float = PRIOR_SETS,
    bound: float = SET_BOUND,
) -> Iterator[SprtState]:
    """The test's state after each set of ``differences`` (in order, read lazily, so an endless
    stream can be tested until it decides), each prefix judged on its own. ``prior_sets`` and
    ``bound``: the prior on the spread (``PRIOR_SETS``; 0 for the plain sample variance)."""
    run = SprtRun(bounds, min_sets, prior_sets=prior_sets, bound=bound)
    for x in differences:
        yield run.step(x)


def sprt_path(
    differences: Sequence[float],
    bounds: SprtBounds,
    min_sets: int = MIN_SETS,
    *,
    prior_sets: float = PRIOR_SETS,
    bound: float = SET_BOUND,
) -> list[SprtState]:
    """The test's state after every prefix of ``differences``: for plotting the log-likelihood
    ratio against its bounds, or a live view."""
    return list(sprt_steps(differences, bounds, min_sets, prior_sets=prior_sets, bound=bound))


def sprt(
    differences: Sequence[float],
    bounds: SprtBounds,
    min_sets: int = MIN_SETS,
    *,
    prior_sets: float = PRIOR_SETS,
    bound: float = SET_BOUND,
) -> SprtState:
    """The sequential test run on ``differences`` in order: the state at the first set where it
    decided (sets played after a decision, e.g. by tables still busy, do not change it), or,
    without a decision, the state after every set."""
    run = SprtRun(bounds, min_sets, prior_sets=prior_sets, bound=bound)
    for x in differences:
        run.add(x)
        if run.state.verdict != "continue":
            break
    return run.state


def _llr(n: int, mean: float, variance: float, bounds: SprtBounds) -> float:
    """``(d1 - d0) / s² · Σ (x_i - (d0 + d1) / 2)``: the log-likelihood ratio of two normal laws
    with the variance ``s²`` (the sample variance with its prior), fishtest's Gaussian
    approximation of the generalized LLR. ``±inf`` only without a prior, on equal sets."""
    if n < 2:
        return 0.0
    drift = n * (mean - (bounds.d0 + bounds.d1) / 2)
    if variance > 0:
        return (bounds.d1 - bounds.d0) * drift / variance
    if drift == 0:
        return 0.0
    return math.copysign(math.inf, drift)


def _verdict(n: int, llr: float, bounds: SprtBounds, min_sets: int) -> Verdict:
    if n < max(min_sets, 2):
        return "continue"
    if llr >= bounds.upper:
        return "H1"
    if llr <= bounds.lower:
        return "H0"
    return "continue"


class ConfidenceRun:
    """:func:`confidence_sequence` fed one set at a time: ``add`` a value (O(1), but for a value
    beyond the bound, which starts the sequence again at the wider bound), read ``interval``."""

    __slots__ = ("alpha", "betting", "min_values", "values")

    def __init__(self, alpha: float = 0.05, min_values: int = MIN_SETS, *, bound: float = SET_BOUND) -> None:
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be strictly between 0 and 1 (got {alpha})")
        self.alpha, self.min_values = alpha, min_values
        self.values: list[float] = []
        """Every value so far: the sequence is built again from them if one widens the bound."""
        self.betting = BettingSequence(alpha, bound)

    def add(self, x: float) -> None:
        self.values.append(x)
        if abs(x) <= self.betting.bound:
            self.betting.add(x)
            return
        self.betting = BettingSequence(self.alpha, abs(x))  # bound_for: the widest value so far
        for value in self.values:
            self.betting.add(value)

    @property
    def interval(self) -> tuple[float, float]:
        if len(self.values) < max(self.min_values, 2):
            return (-math.inf, math.inf)
        return self.betting.interval


def confidence_sequence(
    values: Sequence[float], alpha: float = 0.05, min_values: int = MIN_SETS, *, bound: float = SET_BOUND
) -> tuple[float, float]:
    """A ``1 - alpha`` confidence sequence for the mean of ``values``: the chance that the true
    mean is ever outside it, at any number of values, is at most ``alpha``, for any law of sets
    within ``bound`` (the betting confidence sequence of :mod:`referee.stats.betting`), so it
    may be checked after every set. ``(-inf, inf)`` below ``min_values``: it would be valid
    there too, but too wide to say anything the sign test does not say sooner."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1 (got {alpha})")
    if len(values) < max(min_values, 2):
        return (-math.inf, math.inf)
    return betting_sequence(values, alpha, bound_for(values, bound))


CS_OPTIMAL_SETS = 100
"""The number of sets at which the normal-mixture radius is made tightest."""


def confidence_radius(n: int, alpha: float = 0.05, optimal_at: int = CS_OPTIMAL_SETS) -> float:
    """The half-width, in standard deviations, after ``n`` values, of the confidence sequence
    the ladder used before issue 32, kept for ``referee bench sprt`` to measure against:
    Robbins' two-sided normal-mixture boundary (H. Robbins, 1970; S. R. Howard, A. Ramdas,
    J. McAuliffe, J. Sekhon, Ann. Statist. 2021) with the sample variance plugged in, the
    asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas (Ann.
    Statist. 2024, Theorem 2.2), tightest at ``optimal_at`` values. Only asymptotically valid:
    measured at 5.2% to 7.5% for a promised 5% on skewed sets (docs/testing-bots.md)."""
    log_alpha = -2 * math.log(alpha)
    rho2 = (log_alpha + math.log(log_alpha + 1)) / optimal_at
    grown = n * rho2 + 1
    return math.sqrt(2 * grown / (n * n * rho2) * math.log(math.sqrt(grown) / alpha))
