"""The ladder's verdict on a pair of bots from their duplicate sets, and how many more sets it
would take: two anytime-valid tests, each at its share of the promised error rate.

- the confidence sequence of the mean difference (:mod:`referee.stats.sequential`), at
  ``alpha - SIGN_ALPHA``: it sees small differences, given enough sets (at least ``MIN_SETS``);
- the sign test (:mod:`referee.stats.signs`) at ``SIGN_ALPHA``: it sees one bot winning nearly
  every set, from the seventh set on.

The pair is decided when either excludes "no difference" and they do not point opposite ways.
By the union bound, stopping on the first decision is wrong at most ``alpha`` of the time
(``SIGN_ALPHA + (alpha - SIGN_ALPHA)``), however often it is looked at; ``referee bench sprt``
measures it on real sets (docs/testing-bots.md). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.stats.betting import SET_BOUND, projected_radius
from referee.stats.crossing import first_reached
from referee.stats.estimate import Estimate, estimate
from referee.stats.sequential import MIN_SETS, confidence_sequence
from referee.stats.signs import SIGN_ALPHA, SignTest, sign_sets_to_decide, sign_test

ALPHA = 0.05
"""The error rate promised for "decided": 5%, however often it is looked at."""


def sequence_alpha(alpha: float = ALPHA) -> float:
    """The confidence sequence's share of ``alpha``: what the sign test leaves."""
    if not SIGN_ALPHA < alpha < 1.0:
        raise ValueError(f"alpha must be between the sign test's {SIGN_ALPHA} and 1 (got {alpha})")
    return alpha - SIGN_ALPHA


@dataclass(frozen=True)
class Evidence:
    """What the duplicate sets of A and B say (differences: positive when A was better)."""

    difference: Estimate
    sequence_low: float
    sequence_high: float
    """The confidence sequence at ``1 - sequence_alpha(alpha)``; infinite below ``MIN_SETS``."""
    signs: SignTest
    alpha: float
    bound: float = SET_BOUND
    """The bound of a set difference under the ladder's rules (``betting.rules_bound``)."""

    @property
    def sequence_direction(self) -> int:
        """+1: the confidence sequence is above zero (A better); -1: below; 0: it holds zero."""
        return 1 if self.sequence_low > 0 else -1 if self.sequence_high < 0 else 0

    @property
    def direction(self) -> int:
        """+1: decided that A is stronger; -1: that B is; 0: not decided (or the two tests point
        opposite ways, which on real sets only a skewed spread could do: then neither is
        trusted)."""
        found = {self.sequence_direction, self.signs.direction} - {0}
        return found.pop() if len(found) == 1 else 0

    @property
    def decided(self) -> bool:
        return self.direction != 0

    @property
    def by(self) -> str:
        """What decided, in words (empty when nothing did)."""
        if not self.decided:
            return ""
        reasons = []
        if self.signs.direction == self.direction:
            won, of = max(self.signs.wins, self.signs.losses), self.signs.wins + self.signs.losses
            reasons.append(f"won {won} of {of} sets" + (f", {self.signs.ties} tied" if self.signs.ties else ""))
        if self.sequence_direction == self.direction:
            reasons.append("the confidence sequence excludes zero")
        return "; ".join(reasons)


def weigh(differences: Sequence[float], alpha: float = ALPHA, bound: float = SET_BOUND) -> Evidence:
    """Both tests on the set differences of a pair (positive: A better)."""
    low, high = confidence_sequence(differences, sequence_alpha(alpha), bound=bound)
    return Evidence(estimate(differences), low, high, sign_test(differences), alpha, bound)


def sequence_sets_to_decide(found: Estimate, alpha: float, bound: float = SET_BOUND) -> int:
    """The smallest number of sets in all (more than now, and at least ``MIN_SETS``) whose
    ``1 - alpha`` confidence sequence would exclude zero if the mean and the spread stayed as
    they are (:func:`referee.stats.betting.projected_radius`): its radius shrinks as the sets
    grow, so a bisection finds it."""
    low = max(found.n + 1, MIN_SETS)

    def excludes(n: int) -> bool:
        return abs(found.mean) > projected_radius(n, found.sd, alpha, bound)

    if excludes(low):
        return low
    if found.mean == 0:
        return MAX_PROJECTION
    found_at = first_reached(excludes, low, MAX_PROJECTION)
    return MAX_PROJECTION if found_at is None else found_at


MAX_PROJECTION = 100_000_000
"""Sets beyond which a projection stops looking (a difference too small to ever see)."""


def more_sets_needed(evidence: Evidence) -> int | None:
    """About how many more sets with both would decide the pair, at the current mean, spread,
    win share and share of ties: the sooner of the two tests' projections. ``0`` when it is
    decided; ``None`` when neither test ever would at these figures (no difference seen) or
    nothing is known yet (fewer than two sets)."""
    if evidence.decided:
        return 0
    if evidence.sequence_direction * evidence.signs.direction < 0:
        return None  # the tests point opposite ways: no projection of one would settle it
    found = evidence.difference
    options = []
    if found.n >= 2 and found.mean != 0:
        options.append(sequence_sets_to_decide(found, sequence_alpha(evidence.alpha), evidence.bound) - found.n)
    by_signs = sign_sets_to_decide(evidence.signs)
    if by_signs is not None and found.n >= 2:
        options.append(by_signs)
    return min(options) if options else None
