"""Scoring one round: card points, the moon, declarations and the revoke penalty.

Points are counted from the cards each seat took. The moon is judged by those cards, never by
the score: a seat shoots the moon when it took every penalty card (every card worth more than
0), so a bonus card such as the Omnibus J♦ neither makes nor spoils a moon. In the second
phase of a two-phase match every point taken is subtracted from the taker's score.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.ruleset import MoonChoice, MoonRule
from referee.rules.deck import Deck


class RoundResult(msgspec.Struct, frozen=True, kw_only=True):
    """What a round added to the match: per-seat lists are indexed by seat."""

    points_taken: list[int]
    """Card points in the tricks each seat took (bonus cards included, before the moon)."""
    score_changes: list[int]
    """What this round adds to each seat's match score (negative lowers it)."""
    match_phase: int = 1
    """1, or 2 in the count-down phase of a two-phase match."""
    moon: int | None = None
    """The seat that took every penalty card, if one did."""
    moon_scoring: MoonRule | None = None
    """How that moon was scored (``none`` when the phase has no moon)."""
    declared: list[bool] = msgspec.field(default_factory=list)
    """Which seats declared to take no penalty points (Achterhoeks miezen)."""
    declaration_success: list[bool | None] = msgspec.field(default_factory=list)
    """Per seat: ``True``/``False`` for a declaration kept or broken, ``None`` if none made."""
    revoke: int | None = None
    """The seat that took the revoke penalty; the hand is dealt again."""


def moon_shooter(deck: Deck, taken: Sequence[int]) -> int | None:
    """The seat that took every penalty card, or ``None``."""
    penalty = deck.penalty_mask
    if not penalty:
        return None
    for seat, mask in enumerate(taken):
        if mask & penalty == penalty:
            return seat
    return None


def moon_rule_for(deck: Deck, match_phase: int) -> MoonRule:
    """The moon rule in force in a phase of the match."""
    return deck.rules.moon if match_phase == 1 else deck.rules.moon_phase2


def score_round(
    deck: Deck,
    match_phase: int,
    taken: Sequence[int],
    points: Sequence[int],
    *,
    declared: Sequence[bool],
    moon_choice: MoonChoice | None = None,
) -> RoundResult:
    """Score a finished round. ``moon_choice`` is the shooter's decision where the rule is
    ``shooter_choice`` (required then)."""
    sign = 1 if match_phase == 1 else -1
    changes = list(points) if sign == 1 else [-p for p in points]
    shooter = moon_shooter(deck, taken)
    scoring: MoonRule | None = None
    if shooter is not None:
        scoring = moon_rule_for(deck, match_phase)
        if scoring == "shooter_choice":
            if moon_choice is None:
                raise ValueError("the shooter's moon choice is needed to score this round")
            scoring = moon_choice
        penalty_taken = deck.penalty_total
        amount = deck.moon_points
        if scoring == "add_to_others":
            changes[shooter] -= sign * penalty_taken
            for seat in range(deck.players):
                if seat != shooter:
                    changes[seat] += amount
        elif scoring == "subtract_from_shooter":
            changes[shooter] -= sign * penalty_taken + amount
    success: list[bool | None] = [None] * len(declared)
    if any(declared):
        for seat, made in enumerate(declared):
            if made:
                kept = not taken[seat] & deck.penalty_mask
                success[seat] = kept
                changes[seat] += -deck.rules.declaration_points if kept else deck.rules.declaration_points
    return RoundResult(
        points_taken=list(points),
        score_changes=changes,
        match_phase=match_phase,
        moon=shooter,
        moon_scoring=scoring,
        declared=list(declared),
        declaration_success=success,
    )


def revoke_result(deck: Deck, match_phase: int, seat: int) -> RoundResult:
    """The round result when ``seat`` revoked and the revoke penalty applies: the revoker
    takes ``revoke_points`` (default the round's penalty total), the others nothing."""
    amount = deck.penalty_total if deck.rules.revoke_points is None else deck.rules.revoke_points
    changes = [0] * deck.players
    changes[seat] = amount
    return RoundResult(
        points_taken=[0] * deck.players,
        score_changes=changes,
        match_phase=match_phase,
        revoke=seat,
        declared=[False] * deck.players,
        declaration_success=[None] * deck.players,
    )
