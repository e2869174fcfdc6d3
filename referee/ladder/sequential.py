"""Sequential tests on duplicate sets: "is NEW better than OLD?" answered as the sets come in,
with error rates that hold however often the answer is looked at.

Two tools, both on per-set differences (one duplicate set = one independent paired difference,
points a match NEW is better than OLD on the same cards; positive: NEW better):

- :func:`sprt`, a generalized sequential probability ratio test (GSPRT) of H0 "the mean
  difference is ``d0``" against H1 "it is ``d1``" on the normal approximation of the set
  differences, the way fishtest tests chess engines on pentanomial game pairs
  (``LLR_alt2`` in fishtest's ``server/fishtest/stats/LLRcalc.py``; M. Van den Bergh, "A
  Gaussian approximation of the GSPRT", cantate.be/Fishtest/GSPRT_approximation.pdf), with
  Wald's bounds (A. Wald, *Sequential Analysis*, 1947). It stops as soon as the data allow, with
  false positive rate about ``alpha`` at ``d0`` and false negative rate about ``beta`` at ``d1``
  (measured: 4% to 6.5% for 5% on the real sets of close or equal bots; strongly skewed sets
  push one side higher, up to 9%).
- :func:`confidence_sequence`, an interval for the mean that holds at every number of sets at
  once (anytime-valid), so that "stop once it excludes zero" keeps its error rate under
  repeated looks, which a fixed-sample 95% interval does not.

Pure: no I/O; the figures that show the error rates are measured by ``referee bench sprt``
(docs/testing-bots.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.ladder.stats import estimate

MIN_SETS = 30
"""No verdict, and no finite confidence sequence, on fewer sets. Both divide by the sample
variance, and on a handful of sets it is often far too small (a run of near-equal sets makes
them overconfident). Measured (``referee bench sprt``, docs/testing-bots.md): an SPRT allowed
to stop from the second set is wrong up to 27% of the time for a promised 5%, from the tenth up
to 12%, from the thirtieth about as promised. It costs nothing when the difference is small
(the test needs hundreds of sets) and a few sets when it is large."""

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
        """Wald's lower bound: at or below it, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound: at or above it, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands after ``sets`` sets."""

    sets: int
    mean: float
    sd: float
    """Sample standard deviation of the set differences (``n - 1`` in the denominator)."""
    llr: float
    """The log-likelihood ratio of H1 against H0; ``±inf`` when every set gave the same
    difference (zero variance) and it is not exactly halfway between d0 and d1."""
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


def sprt_steps(differences: Iterable[float], bounds: SprtBounds, min_sets: int = MIN_SETS) -> Iterator[SprtState]:
    """The test's state after each set of ``differences`` (in order, read lazily, so an endless
    stream can be tested until it decides), each prefix judged on its own."""
    moments = RunningMoments()
    for x in differences:
        moments.add(x)
        n, variance = moments.n, moments.variance
        llr = _llr(n, moments.mean, variance, bounds)
        yield SprtState(
            sets=n,
            mean=moments.mean,
            sd=math.sqrt(variance),
            llr=llr,
            lower=bounds.lower,
            upper=bounds.upper,
            verdict=_verdict(n, llr, bounds, min_sets),
        )


def sprt_path(differences: Sequence[float], bounds: SprtBounds, min_sets: int = MIN_SETS) -> list[SprtState]:
    """The test's state after every prefix of ``differences``: for plotting the log-likelihood
    ratio against its bounds, or a live view."""
    return list(sprt_steps(differences, bounds, min_sets))


def sprt(differences: Sequence[float], bounds: SprtBounds, min_sets: int = MIN_SETS) -> SprtState:
    """The sequential test run on ``differences`` in order: the state at the first set where it
    decided (sets played after a decision, e.g. by tables still busy, do not change it), or,
    without a decision, the state after every set."""
    state = SprtState(0, 0.0, 0.0, 0.0, bounds.lower, bounds.upper, "continue")
    for state in sprt_steps(differences, bounds, min_sets):
        if state.verdict != "continue":
            break
    return state


def _llr(n: int, mean: float, variance: float, bounds: SprtBounds) -> float:
    """``(d1 - d0) / s² · Σ (x_i - (d0 + d1) / 2)``: the log-likelihood ratio of two normal laws
    with the sample variance, fishtest's Gaussian approximation of the generalized LLR."""
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


CS_OPTIMAL_SETS = 100
"""The number of sets at which the confidence sequence is made tightest (its mixing variance);
it is valid at every number of sets whatever this is, only a little wider far from it."""


def confidence_sequence(
    values: Sequence[float],
    alpha: float = 0.05,
    min_values: int = MIN_SETS,
    optimal_at: int = CS_OPTIMAL_SETS,
) -> tuple[float, float]:
    """A ``1 - alpha`` confidence sequence for the mean of ``values``: the chance that the true
    mean is ever outside it, at any number of values, is about ``alpha``, so it may be checked
    after every set. ``(-inf, inf)`` below ``min_values``.

    Robbins' two-sided normal-mixture boundary (H. Robbins, "Statistical methods related to the
    law of the iterated logarithm", 1970; S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon,
    "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 2021) with
    the sample variance plugged in, which makes it the asymptotic confidence sequence of
    I. Waudby-Smith, D. Arbour, R. Sinha, E. H. Kennedy, A. Ramdas, "Time-uniform central limit
    theory and asymptotic confidence sequences", Ann. Statist. 2024 (their Theorem 2.2):
    ``mean ± sd · sqrt(2 (n ρ² + 1) / (n² ρ²) · log(sqrt(n ρ² + 1) / alpha))``, with ``ρ``
    chosen to make it tightest at ``optimal_at`` values.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1 (got {alpha})")
    if len(values) < max(min_values, 2):
        return (-math.inf, math.inf)
    found = estimate(values)
    half = found.sd * confidence_radius(found.n, alpha, optimal_at)
    return (found.mean - half, found.mean + half)


def confidence_radius(n: int, alpha: float = 0.05, optimal_at: int = CS_OPTIMAL_SETS) -> float:
    """The confidence sequence's half-width after ``n`` values, in standard deviations."""
    log_alpha = -2 * math.log(alpha)
    rho2 = (log_alpha + math.log(log_alpha + 1)) / optimal_at
    grown = n * rho2 + 1
    return math.sqrt(2 * grown / (n * n * rho2) * math.log(math.sqrt(grown) / alpha))
