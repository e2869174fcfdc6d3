"""The wire contract between the referee and bots: card codes, the rule set and (from protocol
v1) the messages. Depends on msgspec only, so a Python bot can import it without the referee."""

from protocol.cards import Card, card_code, parse_card
from protocol.ruleset import RuleSet

__all__ = ["Card", "RuleSet", "card_code", "parse_card"]
