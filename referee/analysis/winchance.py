"""The chance of finishing first, from the match scores after a round: how the analysis turns
points into their effect on the match (as lichess turns an engine's evaluation into winning
chances).

The model. When the match ends with the round (the target is reached, or the last round of a
match of so many rounds is played), the seat finishes first when its score is the best (a tie
shares). Otherwise ``r`` rounds remain: ``rounds - played`` for a match of so many rounds, else
the rounds the leader needs to reach the target at half the points of a round each
(``(target - max) / (penalty_total / 2)``, at least one). Each seat's points over the rest of the
match are then taken as independent and normal, with mean ``r * penalty_total / players`` and
variance ``r * (SPREAD * penalty_total) ** 2`` (``SPREAD``: a seat's points in one round have a
standard deviation of about 0.3 of the round's penalty total under the playout policy, whose
rounds the samples are), and the chance that the seat ends with the lowest total is computed by
Gauss-Hermite quadrature. Where points count down (phase 2 of a two-phase match) the model is
not made: the chance is then that of the best score now. The model is crude (scores are not
independent, the end of a match is a boundary), but it is monotone in every score and it
weighs a point by the match situation, which is what grading needs.
"""

from __future__ import annotations

import functools
import math
from typing import Final, NamedTuple

from protocol.ruleset import RuleSet
from referee.rules.deck import deck_for

SPREAD: Final = 0.3
_NODES: Final = (
    (-3.4361591188377374, 7.640432855232621e-06),
    (-2.5327316742327897, 0.0013436457467812327),
    (-1.7566836492998817, 0.033874394455481),
    (-1.0366108297895136, 0.24013861108231468),
    (-0.3429013272237046, 0.6108626337353258),
    (0.3429013272237046, 0.6108626337353258),
    (1.0366108297895136, 0.24013861108231468),
    (1.7566836492998817, 0.033874394455481),
    (2.5327316742327897, 0.0013436457467812327),
    (3.4361591188377374, 7.640432855232621e-06),
)
"""Gauss-Hermite nodes and weights (10 points) for the integral against exp(-x^2)."""


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class Shape(NamedTuple):
    """What the model reads of a rule set (hashable, so the chances are cached)."""

    end: str
    target: int
    rounds: int
    penalty_total: int


def shape_of(rules: RuleSet) -> Shape:
    return Shape(rules.end, rules.target, rules.rounds, max(1, deck_for(rules).penalty_total))


def remaining_rounds(shape: Shape, scores: tuple[int, ...], played: int) -> float:
    """Rounds still to play after ``played`` rounds ending at ``scores``; 0 when the match is over."""
    if shape.end == "rounds":
        return float(max(0, shape.rounds - played))
    if shape.end == "target":
        if max(scores) >= shape.target:
            return 0.0
        return max(1.0, (shape.target - max(scores)) / max(1.0, shape.penalty_total / 2))
    return 0.0


@functools.lru_cache(maxsize=1 << 16)
def first_chance(shape: Shape, scores: tuple[int, ...], played: int, seat: int) -> float:
    """The chance that ``seat`` finishes first, from ``scores`` after ``played`` rounds."""
    rounds = remaining_rounds(shape, scores, played)
    if rounds <= 0:
        best = min(scores)
        return 1.0 / scores.count(best) if scores[seat] == best else 0.0
    sigma = SPREAD * shape.penalty_total * math.sqrt(rounds)
    # P(X_seat + s_seat < X_j + s_j for every j): X_seat = sqrt(2) sigma x, integrated over x.
    total = 0.0
    for x, w in _NODES:
        mine = scores[seat] + math.sqrt(2.0) * sigma * x
        p = 1.0
        for j, s in enumerate(scores):
            if j != seat:
                p *= 1.0 - _phi((mine - s) / sigma)
        total += w * p
    return total / math.sqrt(math.pi)
