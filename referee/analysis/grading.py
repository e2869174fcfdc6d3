"""Grades: how bad a decision was, judged only where the sampled loss is real.

A decision's *loss* is the expected points of the round (the seat's own score change, which
it wants low) of the choice made minus that of the best choice, both estimated on the same
sampled worlds, with a 95% interval of that paired difference. The same is done for the
chance of finishing first (``winchance``): the *chance lost*.

A grade is given only where the interval excludes zero: a loss the samples cannot tell from
noise is no mistake. Then the grade is the larger of two gradings:

- by points of the round: ``INACCURACY`` 1 point (a heart taken that could be avoided),
  ``MISTAKE`` 3 points, ``BLUNDER`` 7 points (half the Q♠: taking her when you could duck
  costs more than that);
- by the chance of finishing first (percentage points): 2, 5 and 10 (in a four-player match
  the chance starts at 25%; as lichess grades by winning chances, a loss that settles the
  match counts more than the same points early on). At the start of an American match one
  point of the round is worth about 1.2 percentage points of that chance, 3 near the end at
  85 points each (docs/analysis.md): the chance grading takes over as the match closes.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

Grade: TypeAlias = Literal["best", "good", "inaccuracy", "mistake", "blunder"]
GRADES: Final[tuple[Grade, ...]] = ("best", "good", "inaccuracy", "mistake", "blunder")
POINT_THRESHOLDS: Final = (1.0, 3.0, 7.0)
CHANCE_THRESHOLDS: Final = (0.02, 0.05, 0.10)
Z95: Final = 1.96


def _level(value: float, thresholds: tuple[float, float, float]) -> int:
    return sum(value >= t for t in thresholds)


def grade(chosen_is_best: bool, loss: tuple[float, float, float], chance: tuple[float, float, float]) -> Grade:
    """The grade of a decision from its loss in points and in chance, each ``(mean, low,
    high)`` of the 95% interval."""
    if chosen_is_best:
        return "best"
    level = 0
    if loss[1] > 0:
        level = _level(loss[0], POINT_THRESHOLDS)
    if chance[1] > 0:
        level = max(level, _level(chance[0], CHANCE_THRESHOLDS))
    return GRADES[1 + level]
