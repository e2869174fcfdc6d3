"""How many more sets would decide a pair, as it is told: a range, and none from too few sets.

The verdict's projection (:func:`referee.stats.evidence.more_sets_needed`) takes today's mean
and spread as the truth. Early on the mean is mostly noise: a pair whose difference is small
projects thousands of sets one day and a few hundred the next (a class ladder's top 3 read
13,732, then 94,280, 2,361, 838 ... over its first hundred sets). So what a person is told
(``Projection``) is

- nothing before ``MIN_PROJECTION_SETS`` sets with both, but how many are needed first;
- then a range: the sets the verdict would take if the truth were at either end of its
  ``RANGE_LEVEL`` intervals, the mean's (Student's t) for the confidence sequence and the share
  of sets won's (Wilson's) for the sign test, and "maybe never" for the far end when the mean's
  interval holds zero (no difference is sure yet).

``referee bench projection`` checks both on streams drawn from real duplicate sets with a known
true difference, and on whole ladders of bots with known strengths (the first range of the
order line against the ladder sets the order then took to be sure): docs/performance.md. The
share's interval is there because of it: with the sign test projected at today's share alone,
the first range of ladders 12 points a match apart held the truth in 47% of the runs, the
order made sure by a streak of sets won sooner than the range's low end; with it, 76% (20
points apart: 8% and 50%). Pure: no I/O.
The scheduler keeps ranking pairs by the point projection (``more_sets_needed``): there a rough
figure now beats none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist

from referee.stats.crossing import first_reached
from referee.stats.estimate import t_quantile
from referee.stats.evidence import MAX_PROJECTION, Evidence, sequence_alpha, sequence_sets_to_decide
from referee.stats.sequential import MIN_SETS
from referee.stats.signs import MAX_PROJECTION as SIGN_NEVER
from referee.stats.signs import SignTest, log_wealth, sign_sets_to_decide

MIN_PROJECTION_SETS = 30
"""No projection is told before this many sets with both (only the fewest sets that could
decide, a fact), where the confidence sequence starts (``MIN_SETS``) too. Measured (``referee
bench projection``, docs/performance.md): the point projection is within a factor of 2 of the
sets the verdict then took in only a fifth to two thirds of the runs at any first look, its
median off by up to 4 times for small differences; a range from 10 sets holds the truth less
often than one from 30."""
RANGE_LEVEL = 0.8
"""The level of the intervals (the mean's, the share of sets won's) whose ends give the range."""


@dataclass(frozen=True)
class Projection:
    """What is told of how many more sets with both would decide a pair."""

    sets: int
    """Sets with both so far."""
    low: int | None = None
    """The fewest more sets in the range (``None``: no projection yet, or none at all)."""
    high: int | None = None
    """The most; ``None`` with a ``low``: maybe never (the interval holds no difference)."""
    fewest: int | None = None
    """Before a projection: the fewest more sets that could decide (every one of them won by
    the bot ahead, for the sign test; ``MIN_SETS`` in all, for the confidence sequence): a
    fact, not a guess. ``None``: no bot is ahead."""

    @property
    def made(self) -> bool:
        return self.low is not None

    @property
    def waiting(self) -> int:
        """Sets with both still needed before a projection is made (0 once one can be)."""
        return max(0, MIN_PROJECTION_SETS - self.sets)

    def words(self) -> str:
        """``between 120 and 800 more sets with both``, ``at least 120 more sets with both
        (maybe never: ...)``, or ``no projection before 30 sets with both (18 so far)``."""
        if self.waiting and self.low is None:
            wait = f"no projection before {MIN_PROJECTION_SETS} sets with both ({self.sets} so far)"
            if self.fewest is None:
                return wait
            return f"at least {self.fewest} more set{'s' if self.fewest != 1 else ''} with both; {wait}"
        if self.low is None:
            return "no projection: no difference seen"
        if self.high is None:
            return f"at least {self.low} more sets with both (maybe never: no difference is sure yet)"
        if self.high == self.low:
            return f"about {self.low} more sets with both"
        return f"between {self.low} and {self.high} more sets with both"


def projection(evidence: Evidence, level: float = RANGE_LEVEL, min_sets: int = MIN_PROJECTION_SETS) -> Projection:
    """The projection told for a pair not decided yet (see the module's docstring); a decided
    pair's is ``0`` to ``0``. ``min_sets``: the fewest sets with both projected from (the
    benchmark measures it lower too)."""
    found = evidence.difference
    if evidence.decided:
        return Projection(found.n, 0, 0)
    if found.n < min_sets:
        return Projection(found.n, fewest=fewest_more(evidence))
    if found.mean == 0 or found.sd == 0:
        return Projection(found.n)
    half = t_quantile(0.5 + level / 2, found.n - 1) * found.se
    near, far = abs(found.mean) + half, abs(found.mean) - half
    signs_near, signs_far = _sign_ends(evidence.signs, level)
    low = _more(evidence, near, signs_near)
    high = _more(evidence, far, signs_far) if far > 0 else None
    if high is not None and high >= MAX_PROJECTION:
        high = None
    return Projection(found.n, low, high)


def fewest_more(evidence: Evidence) -> int | None:
    """The fewest more sets that could decide the pair: the sign test's if the bot ahead won
    every one of them, or the confidence sequence's first look (``MIN_SETS`` sets in all),
    whichever is sooner; ``None`` when neither bot is ahead."""
    signs = evidence.signs
    ahead, behind = max(signs.wins, signs.losses), min(signs.wins, signs.losses)
    if ahead == behind:
        return None
    by_sequence = max(MIN_SETS - evidence.difference.n, 1)
    for more in range(1, by_sequence):
        if log_wealth(ahead + more, behind) >= signs.threshold:
            return more
    return by_sequence


def _more(evidence: Evidence, mean: float, by_signs: int | None) -> int:
    """More sets the verdict would take at a true difference of ``mean`` (in size) and today's
    spread: the confidence sequence's projection, or the sign test's (``by_signs``, at the same
    end of the share's interval) when that is sooner."""
    found = replace(evidence.difference, mean=math.copysign(mean, evidence.difference.mean or 1.0))
    more = sequence_sets_to_decide(found, sequence_alpha(evidence.alpha), evidence.bound) - found.n
    return min(more, by_signs) if by_signs is not None else more


def _sign_ends(signs: SignTest, level: float) -> tuple[int | None, int | None]:
    """The sign test's more sets at either end of the ``level`` interval of the share of sets
    won by the bot ahead (Wilson's, among the sets not tied): the sooner if it wins more of
    the sets to come, the later (or never) if fewer. Its projection at today's share swings
    most near the share where it stops deciding (about 75%): there a streak of sets won
    decides it long before today's share says (``referee bench projection``)."""
    decisive = signs.wins + signs.losses
    if signs.decided or decisive == 0 or signs.wins == signs.losses:
        today = sign_sets_to_decide(signs)
        return today, today
    ahead = max(signs.wins, signs.losses) / decisive
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = (ahead + z * z / (2 * decisive)) / (1 + z * z / decisive)
    half = z * math.sqrt(ahead * (1 - ahead) / decisive + z * z / (4 * decisive * decisive)) / (1 + z * z / decisive)
    return _sign_more(signs, min(centre + half, 1.0)), _sign_more(signs, centre - half)


def _sign_more(signs: SignTest, ahead: float) -> int | None:
    """More sets until the sign test decides if the bot ahead won ``ahead`` of the sets not
    tied from now on (and the share of ties stayed); ``None``: never (a share of one half or
    less, or past ``SIGN_NEVER``). Its log-wealth is convex in the sets, so a bisection finds
    the first crossing, as ``sign_sets_to_decide`` finds it at today's share."""
    if ahead <= 0.5:
        return None
    up, down = max(signs.wins, signs.losses), min(signs.wins, signs.losses)
    per_set = (signs.wins + signs.losses) / signs.sets

    def reached(more: int) -> bool:
        played = more * per_set
        return log_wealth(up + ahead * played, down + (1 - ahead) * played) >= signs.threshold

    return first_reached(reached, 1, SIGN_NEVER + 1)
