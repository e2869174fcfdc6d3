"""Protocol events built from rules results, once for everyone who sends them (the runner,
the conformance check) or checks them (the replay verifier)."""

from __future__ import annotations

from protocol.messages import RoundEnd
from referee.rules.scoring import RoundResult


def round_end(number: int, result: RoundResult, scores: list[int], next_phase: int) -> RoundEnd:
    """The ``round_end`` event of round ``number``: its result and the scores after it."""
    return RoundEnd(
        round=number,
        points_taken=result.points_taken,
        score_changes=result.score_changes,
        scores=list(scores),
        moon=result.moon,
        moon_scoring=result.moon_scoring,
        declared=result.declared,
        declaration_success=result.declaration_success,
        revoke=result.revoke,
        match_phase=result.match_phase,
        next_match_phase=next_phase,
    )
