"""Small statistics without numpy or scipy: a mean with its standard error, and Student's t
distribution (for confidence intervals from a handful of duplicate sets)."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Estimate:
    """What a sample says about its mean."""

    n: int
    mean: float
    sd: float
    """Sample standard deviation (``n - 1`` in the denominator); 0 for fewer than two values."""

    @property
    def se(self) -> float:
        """Standard error of the mean; ``inf`` for fewer than two values."""
        return self.sd / math.sqrt(self.n) if self.n >= 2 else math.inf

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """A ``level`` confidence interval for the mean (Student's t, ``n - 1`` degrees)."""
        if self.n < 2:
            return (-math.inf, math.inf)
        if self.se == 0:
            return (self.mean, self.mean)
        half = t_quantile(0.5 + level / 2, self.n - 1) * self.se
        return (self.mean - half, self.mean + half)

    def probability_positive(self) -> float:
        """The probability that the true mean is above zero (with a flat prior, the t
        distribution of the mean around the sample mean); 0.5 when nothing is known."""
        if self.n < 2:
            return 0.5
        if self.se == 0:
            return 1.0 if self.mean > 0 else 0.0 if self.mean < 0 else 0.5
        return t_cdf(self.mean / self.se, self.n - 1)


def estimate(values: Sequence[float]) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(0, 0.0, 0.0)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(n, mean, 0.0)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return Estimate(n, mean, math.sqrt(variance))


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The ``t`` with ``t_cdf(t, df) == p``, to 12 significant digits (by bisection: about 55
    evaluations of ``t_cdf``, each slower as ``df`` grows, so the answer is kept for each
    ``(p, df)`` asked: a live view asks the same ones again)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be strictly between 0 and 1")
    low, high = -1e4, 1e4
    while high - low > 1e-12 * max(1.0, abs(low)):  # about 55 halvings
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2
