"""How far apart two final scores of a match can lie under a rule set: the bound that makes the
duel's and the ladder's confidence sequence exact (``referee.stats.betting``).

A set difference is one bot's final score minus another's on the same cards, averaged, so it
lies within ``high - low`` of :func:`score_range`. That range is derived from the rules, not
from scores seen, because the betting sequence is exact only for a bound fixed before the sets.

Each phase of a match moves a seat's score by at most ``up`` and ``down`` in one round
(:func:`round_steps`, a little wide on purpose: card points or the moon, then a declaration
added without asking whether it can be kept in that round). Then:

- ``target``: every score is below the target before the last round, and never falls when no
  round can lower it: ``[0, target - 1 + up]``;
- ``rounds``: ``[-rounds · down, rounds · up]``;
- ``two_phase`` to zero or below: the first phase only rises, the second only falls, and every
  score is above zero before the last round: ``[-down₂, threshold - 1 + up₁]``.

Anything else (a target match with bonus cards, an exact finish) has no bound short of
``round_limit`` rounds, which would be too wide to use: ``None``, and the caller falls back to
a fixed bound widened by any larger value seen (``referee.stats.betting.bound_for``). A revoke
penalty (the ``penalty`` policy for illegal moves, at most ``--illegal-move-cap`` a seat) is left out:
its round does not count toward ``rounds`` and it raises a score in the second phase, so a match
with one can end beyond the range; the values seen widen the bound then, as in the fallback. Pure: no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.ruleset import RuleSet
from referee.rules.deck import deck_for


class Steps(NamedTuple):
    """The most one round can raise (``up``) and lower (``down``) a seat's score, both >= 0."""

    up: int
    down: int


def round_steps(rules: RuleSet, phase: int) -> Steps:
    """``Steps`` of one round in ``phase`` (1, or 2 of a two-phase match, where points taken
    count down), without a revoke penalty (see the module)."""
    deck = deck_for(rules)
    sign = 1 if phase == 1 else -1
    penalty = deck.penalty_total
    bonus = -sum(min(0, deck.points[c]) for c in deck.cards)
    # Cards alone: every penalty card, or every bonus card, to one seat.
    up = max(0, sign * penalty) + max(0, -sign * bonus)
    down = max(0, -sign * penalty) + max(0, sign * bonus)
    # A moon: the others take the moon's amount beside their bonus cards; the shooter counts
    # only its bonus cards, less the amount when it subtracts.
    with_bonus_up, with_bonus_down = max(0, -sign * bonus), max(0, sign * bonus)
    amount = deck.moon_points
    moon = rules.moon if phase == 1 else rules.moon_phase2
    if moon in ("add_to_others", "shooter_choice"):
        up, down = max(up, with_bonus_up + amount), max(down, with_bonus_down - amount)
    if moon in ("subtract_from_shooter", "shooter_choice"):
        up, down = max(up, with_bonus_up - amount), max(down, with_bonus_down + amount)
    if rules.declarations:
        up, down = up + abs(rules.declaration_points), down + abs(rules.declaration_points)
    return Steps(up, down)


def score_range(rules: RuleSet) -> tuple[int, int] | None:
    """The lowest and highest final score a seat can have (see the module), or ``None`` when the
    rules set no usable bound."""
    first = round_steps(rules, 1)
    if rules.end == "target":
        return (0, rules.target - 1 + first.up) if first.down == 0 else None
    if rules.end == "rounds":
        return (-rules.rounds * first.down, rules.rounds * first.up)
    second = round_steps(rules, 2)
    if rules.finish == "zero_or_below" and first.down == 0 and second.up == 0:
        return (-second.down, rules.threshold - 1 + first.up)
    return None


def difference_bound(rules: RuleSet) -> float | None:
    """The largest possible absolute difference of two final scores, or ``None``."""
    found = score_range(rules)
    return None if found is None else float(found[1] - found[0])
