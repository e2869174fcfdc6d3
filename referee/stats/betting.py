"""A confidence sequence for the mean of bounded set differences that holds exactly, whatever
their spread and skew: the predictable plug-in empirical-Bernstein confidence sequence of
I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting",
J. R. Stat. Soc. B 2023 (their Theorem 2, with the ``λ`` of their equation (13)).

Why not the normal-mixture boundary with the sample variance plugged in (what the ladder used
before issue 32): that one is only asymptotically valid, and on the skewed sets real bots give
(a moon shot is a long tail) it was measured at 5.2% to 5.5% for a promised 5%, and 7.5% over
10,000 looks. This one needs what a set difference has anyway, a bound (``SET_BOUND``): the
values, moved into [0, 1], feed a bettor whose wealth is a nonnegative supermartingale for
every candidate mean, and Ville's inequality bounds the chance that it ever reaches
``2 / alpha``, at every number of sets at once, for every law on the bounded range.

Its bets use only past sets (predictable), so the interval depends on the order of the sets;
it is the running intersection of every interval so far (also valid: the true mean is in all
of them at once). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from protocol.ruleset import RuleSet
from referee.rules.spread import difference_bound

SET_BOUND = 125.0
"""The largest possible absolute difference of one set, in points a match. In a match to 100
with 26 points a round (the American, Omnibus-free game the duel and ladder play by default) a
score ends between 0 and 99 + 26 = 125, so NEW's score minus OLD's on the same cards lies in
[-125, 125], and so does its average over a set's rotations. Rules whose scores reach further
(a higher target, more points a round, negative cards) can give larger differences: a value
found outside the bound widens it to that value (:func:`bound_for`), which keeps the interval
honest in practice though no longer exact, since the bound was not known before the sets."""

MAX_BET = 0.75
"""The largest share of wealth staked on one set (the ``c`` of Waudby-Smith and Ramdas, who use
1/2 or 3/4). On real sets the spread is a tenth of the range, so the bets they would make are
larger and the cap is what binds early on: at 1/2 the interval after 100 sets of the sample
bots is about ±19 points, at 3/4 ±13 (±4 to ±6 with the normal mixture, which is not valid)."""


def rules_bound(rules: RuleSet) -> float:
    """The bound of a set difference under ``rules``: the widest two final scores can lie apart
    (:func:`referee.rules.spread.difference_bound`: 125 in the American game, 79 in the Dutch
    one), or ``SET_BOUND`` where the rules set none (bonus cards, a moon that subtracts)."""
    found = difference_bound(rules)
    return SET_BOUND if found is None else found


def bound_for(values: Iterable[float], bound: float = SET_BOUND) -> float:
    """``bound``, or the largest absolute value if one lies beyond it."""
    return max([bound, *(abs(v) for v in values)])


def _psi(bet: float) -> float:
    """``ψ_E(λ) = (-log(1 - λ) - λ) / 4``: the empirical-Bernstein penalty of a stake ``λ``."""
    return (-math.log1p(-bet) - bet) / 4


class BettingSequence:
    """The confidence sequence, one set at a time (O(1) each): add values, read ``interval``."""

    __slots__ = (
        "alpha",
        "bound",
        "high",
        "low",
        "n",
        "sum_bets",
        "sum_penalty",
        "sum_squares",
        "sum_values",
        "sum_weighted",
    )

    def __init__(self, alpha: float = 0.05, bound: float = SET_BOUND) -> None:
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be strictly between 0 and 1 (got {alpha})")
        if not bound > 0:
            raise ValueError(f"the bound must be positive (got {bound})")
        self.alpha, self.bound = alpha, bound
        self.n = 0
        self.sum_values = 0.5
        """``1/2 + Σ y_i``: the running mean ``μ̂`` is this over ``n + 1`` (a prior of 1/2)."""
        self.sum_squares = 0.25
        """``1/4 + Σ (y_i - μ̂_i)²``: the running variance ``σ̂²`` is this over ``n + 1``."""
        self.sum_bets = self.sum_weighted = self.sum_penalty = 0.0
        self.low, self.high = 0.0, 1.0
        """The running intersection, on the [0, 1] scale."""

    def add(self, x: float) -> None:
        """One more set difference (clipped to the bound: see ``SET_BOUND``)."""
        y = min(1.0, max(0.0, (x + self.bound) / (2 * self.bound)))
        t = self.n + 1
        log_two_alpha = math.log(2 / self.alpha)
        variance = self.sum_squares / t  # σ̂²_{t-1}
        bet = min(math.sqrt(2 * log_two_alpha / (variance * t * math.log1p(t))), MAX_BET)
        previous_mean = self.sum_values / t  # μ̂_{t-1}
        self.sum_bets += bet
        self.sum_weighted += bet * y
        self.sum_penalty += 4 * (y - previous_mean) ** 2 * _psi(bet)
        self.n = t
        self.sum_values += y
        self.sum_squares += (y - self.sum_values / (t + 1)) ** 2
        centre = self.sum_weighted / self.sum_bets
        half = (log_two_alpha + self.sum_penalty) / self.sum_bets
        self.low, self.high = max(self.low, centre - half), min(self.high, centre + half)

    @property
    def interval(self) -> tuple[float, float]:
        """The interval for the mean, in points (``(-bound, bound)`` before any set). On a
        sample that contradicts itself (the intersection is empty, which happens at most
        ``alpha`` of the time) it is the single point where the last bounds crossed."""
        low, high = self.low, max(self.low, self.high)
        return (low * 2 * self.bound - self.bound, high * 2 * self.bound - self.bound)


def betting_sequence(values: Iterable[float], alpha: float = 0.05, bound: float = SET_BOUND) -> tuple[float, float]:
    """The ``1 - alpha`` confidence sequence of the mean of ``values`` (in their order) after
    all of them: see :class:`BettingSequence`."""
    sequence = BettingSequence(alpha, bound)
    for x in values:
        sequence.add(x)
    return sequence.interval


def projected_radius(n: int, sd: float, alpha: float = 0.05, bound: float = SET_BOUND) -> float:
    """About the half-width, in points, the confidence sequence would have after ``n`` sets whose
    spread is ``sd`` (each set's squared deviation taken at its expected value ``sd²``): what
    the projections of "how many more sets" use. Exact sums up to ``EXACT_TERMS`` sets, then
    geometric blocks summed at their middle, so that it costs O(log n)."""
    if n < 1:
        return math.inf
    variance = (sd / (2 * bound)) ** 2
    log_two_alpha = math.log(2 / alpha)
    bets = penalty = 0.0
    t = 1
    while t <= n:
        width = 1 if t <= EXACT_TERMS else min(n - t + 1, max(1, int(t * 0.02)))
        middle = t + (width - 1) / 2
        estimated = (0.25 + (middle - 1) * variance) / middle
        bet = min(math.sqrt(2 * log_two_alpha / (estimated * middle * math.log1p(middle))), MAX_BET)
        bets += width * bet
        penalty += width * 4 * variance * _psi(bet)
        t += width
    return (log_two_alpha + penalty) / bets * 2 * bound


EXACT_TERMS = 2000
"""Sets summed one by one in :func:`projected_radius` before it sums blocks."""
