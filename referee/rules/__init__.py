"""The rules of Hearts as pure code: no I/O, no trio, no click.

Start from a preset (``ruleset("american")``), make a ``Match``, deal ``Round``s and apply
passes and plays; every illegal action raises ``IllegalMove`` naming the broken rule.
"""

from referee.rules.deck import Deck, deck_for
from referee.rules.errors import IllegalMove, InvalidRuleSet, RulesError
from referee.rules.match import Match, MatchResult
from referee.rules.presets import PRESETS, ruleset, with_options
from referee.rules.round import Round, Trick
from referee.rules.scoring import RoundResult
from referee.rules.view import SeatView, seat_view

__all__ = [
    "PRESETS",
    "Deck",
    "IllegalMove",
    "InvalidRuleSet",
    "Match",
    "MatchResult",
    "Round",
    "RoundResult",
    "RulesError",
    "SeatView",
    "Trick",
    "deck_for",
    "ruleset",
    "seat_view",
    "with_options",
]
