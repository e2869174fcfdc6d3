"""Errors of the rules engine: a rule set that cannot be played, and a move that breaks a rule."""

from __future__ import annotations

from referee.errors import RefereeError


class RulesError(RefereeError):
    """Base class of the rules engine's errors."""


class InvalidRuleSet(RulesError):
    """A rule set whose options cannot be played together (for example ``across`` passing with
    five players, or a deck that does not divide among the seats)."""


class IllegalMove(RulesError):
    """A pass, play or decision that the rules do not allow.

    ``rule`` is a stable machine-readable name (``must_follow_suit``, ``hearts_not_broken``,
    ``no_points_first_trick``, ``queen_must_drop``, ``card_not_in_hand``, ``must_lead_card``,
    ``wrong_pass_count``, ``duplicate_card``, ``not_your_turn``, ``wrong_phase``,
    ``bad_choice``); the message is a sentence for a bot author, for example
    "must follow suit: clubs".
    """

    def __init__(self, rule: str, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.seat = seat


class MachineMisuse(RulesError):
    """A driver of the round's or the match's machine (``turns``, ``match_turns``) answered an
    event with what it does not ask for (h11's ``LocalProtocolError``): a bug of the driver,
    named, never an ``assert`` that ``python -O`` would drop."""
