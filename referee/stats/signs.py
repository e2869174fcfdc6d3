"""The sign test as a betting martingale: an anytime-valid test that can decide on a handful of
duplicate sets when one bot wins nearly all of them.

The confidence sequence (:func:`referee.stats.sequential.confidence_sequence`) divides by the
sample variance, which is unreliable on few sets, so it says nothing below ``MIN_SETS`` sets,
even when one bot is 70 points a match better in every set. The sign of each set needs no
variance. Under H0 "each set is as likely won by A as by B" (a set won by A: a positive
difference; ties dropped) a gambler who stakes a share ``λ`` of their wealth on A at even odds
every set holds ``Π (1 + λ·sign_i)``: a nonnegative martingale with mean 1, and so is any fixed
mixture of such gamblers. Ville's inequality (J. Ville, *Étude critique de la notion de
collectif*, 1939) gives P(the wealth ever reaches 1/α) ≤ α, however often it is looked at: the
test of G. Shafer and V. Vovk (*Game-Theoretic Foundations for Probability and Finance*, 2019)
and of the "testing by betting" line of A. Ramdas, P. Grünwald, V. Vovk and G. Shafer
("Game-theoretic statistics and safe anytime-valid inference", Statist. Sci. 2023).

The mixture is over ``±λ`` for every ``λ`` of ``BETS``, with equal weights: half the gamblers
back A, half back B, so the test is two-sided. The wealth depends only on the counts of sets won
and lost, not their order (a product commutes), so it is computed from the counts. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.stats.crossing import first_reached

BETS: tuple[float, ...] = (0.8, 0.95)
"""The shares of wealth staked per set. They are large on purpose: this test is for the
overwhelming case, which the confidence sequence cannot see on few sets; close bots are the
confidence sequence's. With ``SIGN_ALPHA`` = 0.025 the wealth must reach 40. Seven sets of
seven won by one bot give ``((1.8⁷ + 0.2⁷) + (1.95⁷ + 0.05⁷)) / 4 = (61.22 + 107.18) / 4 =
42.1``: decided. Six of six give 22.2 and seven of eight 4.4: not decided (no mixture can
decide six of six at 0.025: even ``λ = 1`` gives ``2⁶ / 2 = 32``). At a steady win share the
test decides after about 7 sets at 95%, 12 at 90%, 32 at 80%, and never below about 75% (the
confidence sequence takes over there). A grid with small bets too would see 70% win shares but
dilutes the mixture: with (0.25, 0.5, 0.75, 0.95), seven of seven reach only 22.4."""

SIGN_ALPHA = 0.025
"""The sign test's share of the 5% error rate the ladder promises; the confidence sequence has
the rest (a union bound: "decided when either says so" is wrong at most 2.5% + 2.5%)."""


@dataclass(frozen=True)
class SignTest:
    """Where the sign test stands: sets won by A (positive difference), won by B, tied."""

    wins: int
    losses: int
    ties: int
    log_wealth: float
    """The natural log of the mixture's wealth (1 at the start: log 0)."""
    alpha: float

    @property
    def threshold(self) -> float:
        """The log-wealth at which it decides: ``log(1 / alpha)``."""
        return math.log(1 / self.alpha)

    @property
    def decided(self) -> bool:
        return self.log_wealth >= self.threshold

    @property
    def direction(self) -> int:
        """+1: decided that A wins more sets than B; -1: that B does; 0: not decided."""
        if not self.decided or self.wins == self.losses:
            return 0
        return 1 if self.wins > self.losses else -1

    @property
    def sets(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def wealth(self) -> float:
        """The wealth itself (``inf`` past what a float holds)."""
        return math.exp(self.log_wealth) if self.log_wealth < 700 else math.inf


def sign_counts(differences: Iterable[float]) -> tuple[int, int, int]:
    """(positive, negative, zero) differences: sets won by A, won by B, tied."""
    wins = losses = ties = 0
    for x in differences:
        if x > 0:
            wins += 1
        elif x < 0:
            losses += 1
        else:
            ties += 1
    return wins, losses, ties


def log_wealth(wins: float, losses: float, bets: Sequence[float] = BETS) -> float:
    """The log of the mixture's wealth after ``wins`` sets won by A and ``losses`` won by B:
    ``log(mean over λ in ±bets of (1 + λ)^wins (1 - λ)^losses)`` (counts may be fractional,
    for projections). Each bet must be in [0, 1)."""
    terms = []
    for bet in bets:
        up, down = math.log1p(bet), math.log1p(-bet)
        terms.append(wins * up + losses * down)
        terms.append(wins * down + losses * up)
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms) / len(terms))


def sign_test(differences: Iterable[float], alpha: float = SIGN_ALPHA, bets: Sequence[float] = BETS) -> SignTest:
    """The sign test on the set differences so far (positive: A better)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1 (got {alpha})")
    wins, losses, ties = sign_counts(differences)
    return SignTest(wins, losses, ties, log_wealth(wins, losses, bets), alpha)


MAX_PROJECTION = 10_000_000
"""More sets than this count as never (the projection gives ``None``)."""


def sign_sets_to_decide(test: SignTest, bets: Sequence[float] = BETS) -> int | None:
    """About how many more sets would make the sign test decide if A's share of the sets won and
    the share of ties stayed as they are (``0`` if it already has); ``None`` when it never would
    at this share (a share near one half: the wealth of every bet shrinks) or nothing is known.

    The projected log-wealth is a log-sum-exp of lines in the number of sets, hence convex; it
    is below the threshold now, so past the first crossing it stays above, and a bisection
    finds the crossing."""
    if test.decided:
        return 0
    decisive = test.wins + test.losses
    if decisive == 0 or test.wins == test.losses:
        return None
    share = test.wins / decisive
    per_set = decisive / test.sets  # the share of sets not tied

    def reached(more: int) -> bool:
        ahead = more * per_set
        return log_wealth(test.wins + share * ahead, test.losses + (1 - share) * ahead, bets) >= test.threshold

    return first_reached(reached, 1, MAX_PROJECTION + 1)
