"""The rules of Hearts as pure code: no I/O, no trio, no click.

Start from a preset (``ruleset("american")``), make a ``Match``, deal ``Round``s and apply
passes and plays; every illegal action raises ``IllegalMove`` naming the broken rule.
"""

import warnings
from typing import Any

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

_RENAMED = {"Table": "Deck", "table_for": "deck_for"}
"""Names this package had before issue 45, still answered (with a warning) for older bots."""


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        warnings.warn(f"referee.rules.{name} is now referee.rules.{_RENAMED[name]}", DeprecationWarning, 2)
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module 'referee.rules' has no attribute {name!r}")
