"""Every step of ``referee check``, in the order they run.

The first step is the plain handshake: a bot that fails it is reported as failing there and
every later step (which all begin with that handshake) as skipped. The timing steps come last
because they judge what the others measured; the sandbox step comes just before them, after
every step about the game, so that a mistake in the game is named by its own step first.
"""

from __future__ import annotations

from referee.check.steps import compat, decisions, errors, handshake, matches, passing, playing, sandboxed, timing
from referee.check.steps.base import AnyStep, Step, SummaryStep

STEPS: tuple[AnyStep, ...] = (
    *handshake.STEPS,
    *passing.STEPS,
    *playing.STEPS,
    *passing.STATE_STEPS,
    *decisions.STEPS,
    *compat.STEPS,
    *errors.STEPS,
    *matches.STEPS,
    *sandboxed.STEPS,
    *timing.STEPS,
)
FIRST = STEPS[0].name

__all__ = ["FIRST", "STEPS", "AnyStep", "Step", "SummaryStep"]
