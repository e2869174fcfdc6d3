"""A ``Deck``: the cards of a rule set, made ready to play.

The ``RuleSet`` is plain data for the wire; the ``Deck`` derives from it, once per match, the
cards in play, their values as a list indexed by card id, and the masks that the legality
checks use (a suit, the penalty cards, the queen of spades). It also checks that the options
can be played together and raises ``InvalidRuleSet`` naming the conflict when they cannot.
"""

from __future__ import annotations

from functools import lru_cache

import msgspec

from protocol.cards import (
    CLUBS,
    COPY_STRIDE,
    DIAMONDS,
    HEARTS,
    QUEEN,
    SPADES,
    Card,
    make_card,
    parse_card,
    suit_of,
)
from protocol.ruleset import PassDirection, RuleSet
from referee.rules.cardset import cards_of, mask_of
from referee.rules.errors import InvalidRuleSet

_TRIM_ORDER = [make_card(suit, rank) for rank in range(2, 15) for suit in (DIAMONDS, SPADES)]
"""Cards removed, in this order, to deal a double deck evenly: low diamonds and spades first,
never hearts (they carry the points) and never clubs (the lowest club leads)."""


def pass_offset(direction: PassDirection, players: int) -> int:
    """How many seats clockwise a pass in ``direction`` travels (0 for ``hold``)."""
    if direction == "hold":
        return 0
    if direction == "left":
        return 1
    if direction == "right":
        return players - 1
    if direction == "left2":
        return 2
    if direction == "right2":
        return players - 2
    return players // 2  # across


class Deck:
    """Everything the round needs to know about the rules, precomputed for speed."""

    __slots__ = (
        "breaker_mask",
        "breakers",
        "card_bits",
        "cards",
        "double",
        "first_trick_no_points",
        "full_mask",
        "hand_size",
        "hearts_mask",
        "lead_card",
        "lead_mask",
        "moon_points",
        "non_hearts_mask",
        "penalty_mask",
        "penalty_total",
        "players",
        "points",
        "queen_mask",
        "queen_must_drop",
        "rules",
        "suit_masks",
    )

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.players = rules.players
        _check_options(rules)
        self.double = rules.copies == 2
        self.cards = _cards_in_play(rules)
        self.full_mask = mask_of(self.cards)
        self.hand_size = len(self.cards) // rules.players
        if not self.hand_size:
            raise InvalidRuleSet(f"{len(self.cards)} cards leave nothing to deal to {rules.players} players")
        if rules.pass_count > self.hand_size:
            raise InvalidRuleSet(f"pass_count {rules.pass_count} exceeds the hand of {self.hand_size}")
        points = [0] * (2 * COPY_STRIDE)
        for code, value in rules.card_points.items():
            try:
                card = parse_card(code)
            except ValueError as err:
                raise InvalidRuleSet(f"card_points: {err}") from None
            points[card] = value
            points[card + COPY_STRIDE] = value
        in_play = set(self.cards)
        self.points = [p if i in in_play else 0 for i, p in enumerate(points)]
        self.penalty_mask = mask_of(c for c in self.cards if self.points[c] > 0)
        self.penalty_total = sum(self.points[c] for c in self.cards if self.points[c] > 0)
        if not any(self.points[c] for c in self.cards):
            raise InvalidRuleSet("card_points: no card in play is worth points, so no score can change")
        self.suit_masks = [mask_of(c for c in self.cards if suit_of(c) == s) for s in range(4)]
        self.hearts_mask = self.suit_masks[HEARTS]
        self.non_hearts_mask = self.full_mask & ~self.hearts_mask
        queen = make_card(SPADES, QUEEN)
        self.queen_mask = self.full_mask & ((1 << queen) | (1 << (queen + COPY_STRIDE)))
        self.breaker_mask = self.hearts_mask | (self.queen_mask if rules.queen_breaks_hearts else 0)
        breaker_faces = self.breaker_mask | self.breaker_mask >> COPY_STRIDE
        self.breakers = tuple(bool(breaker_faces >> face & 1) for face in range(COPY_STRIDE))
        """By face (``card & 63``): whether playing it breaks hearts. ``Round.play`` reads one
        entry, cheaper than a bit operation on a mask wider than the 30 bits CPython computes
        on fast (and both copies of a double-deck card break alike)."""
        self.lead_card = self._opening_card()
        lead = self.lead_card
        self.lead_mask = 0 if lead is None else (1 << lead) | (1 << (lead + COPY_STRIDE))
        """Both copies of the opening card (0 for a free lead)."""
        self.moon_points = self.penalty_total if rules.moon_points is None else rules.moon_points
        self.card_bits = tuple(1 << c for c in self.cards)
        """``1 << card`` for each card in ``cards``: the deal shuffles these and adds them up."""
        self.first_trick_no_points = rules.first_trick_no_points
        self.queen_must_drop = rules.queen_must_drop

    def _opening_card(self) -> Card | None:
        """The card that must open the first trick, or ``None`` for a free lead."""
        lead = self.rules.opening_lead
        if lead == "left_of_dealer":
            return None
        if lead == "seven_of_clubs":
            seven = make_card(CLUBS, 7)
            if not self.full_mask >> seven & 1:
                raise InvalidRuleSet("opening_lead seven_of_clubs: the 7C is not in the deck")
            return seven
        clubs = cards_of(self.suit_masks[CLUBS])
        if not clubs:
            raise InvalidRuleSet("opening_lead lowest_club: the deck has no clubs")
        return min(clubs, key=lambda c: c & 63)

    def pass_offset(self, direction: PassDirection) -> int:
        """Seats clockwise from giver to receiver for a pass direction."""
        return pass_offset(direction, self.players)


def _cards_in_play(rules: RuleSet) -> list[Card]:
    low = 2 if rules.deck == "standard" else 7
    faces = [make_card(s, r) for s in range(4) for r in range(low, 15)]
    for code in rules.add:
        card = _parse(code, "add")
        if card in faces:
            raise InvalidRuleSet(f"add: {code} is already in the deck")
        faces.append(card)
    cards = [face + copy * COPY_STRIDE for copy in range(rules.copies) for face in faces]
    for code in rules.remove:
        card = _parse(code, "remove")
        if card in cards:
            cards.remove(card)
        elif card + COPY_STRIDE in cards:
            cards.remove(card + COPY_STRIDE)
        else:
            raise InvalidRuleSet(f"remove: {code} is not in the deck (or removed too often)")
    if rules.trim_to_deal_evenly:
        for face in _TRIM_ORDER:
            if len(cards) % rules.players == 0:
                break
            for copy in (1, 0):
                if face + copy * COPY_STRIDE in cards and len(cards) % rules.players:
                    cards.remove(face + copy * COPY_STRIDE)
    if len(cards) % rules.players:
        raise InvalidRuleSet(
            f"{len(cards)} cards do not deal evenly to {rules.players} players: "
            "remove cards (remove=[...]) or set trim_to_deal_evenly=true"
        )
    return sorted(cards)


def _parse(code: str, option: str) -> Card:
    try:
        return parse_card(code)
    except ValueError as err:
        raise InvalidRuleSet(f"{option}: {err}") from None


def _check_options(rules: RuleSet) -> None:
    if rules.players < 3:
        raise InvalidRuleSet(f"players must be 3 or more, not {rules.players}")
    if rules.copies not in (1, 2):
        raise InvalidRuleSet(f"copies must be 1 or 2, not {rules.copies}")
    if not 0 <= rules.pass_count <= 4:
        raise InvalidRuleSet(f"pass_count must be 0 to 4, not {rules.pass_count}")
    if not rules.pass_schedule:
        raise InvalidRuleSet("pass_schedule needs at least one direction (use ['hold'])")
    for direction in rules.pass_schedule:
        if direction == "across" and rules.players % 2:
            raise InvalidRuleSet(f"pass direction across needs an even number of players, not {rules.players}")
        if direction in ("left2", "right2") and rules.players < 5:
            raise InvalidRuleSet(f"pass direction {direction} needs 5 or more players")
    if not rules.deal_packets or any(p < 1 for p in rules.deal_packets):
        raise InvalidRuleSet("deal_packets must be positive packet sizes, like [1] or [3, 2, 3]")
    _check_numbers(rules)


MAX_ROUNDS = 10_000
"""Most rounds a match may be set to last (``rounds``, ``round_limit``)."""
MAX_POINTS = 1_000
"""Largest value, either sign, of a card, a moon, a declaration or a revoke."""
MAX_SCORE = 100_000
"""Largest ``target`` or ``threshold``."""


def _check_numbers(rules: RuleSet) -> None:
    """Every number must make a match that can be played and end: no target at or below 0
    (the match would end after one round), no round count of 0, no absurd size."""
    _in_range("round_limit", rules.round_limit, 1, MAX_ROUNDS)
    _in_range("rounds", rules.rounds, 1, MAX_ROUNDS)
    _in_range("target", rules.target, 1, MAX_SCORE)
    _in_range("threshold", rules.threshold, 1, MAX_SCORE)
    if rules.copies * 52 < max(rules.deal_packets):
        raise InvalidRuleSet(f"deal_packets: a packet of {max(rules.deal_packets)} is larger than the deck")
    for code, value in rules.card_points.items():
        _in_range(f"card_points[{code}]", value, -MAX_POINTS, MAX_POINTS)
    for name, optional in (("moon_points", rules.moon_points), ("revoke_points", rules.revoke_points)):
        if optional is not None:
            _in_range(name, optional, 0, MAX_POINTS)
    _in_range("declaration_points", rules.declaration_points, 0, MAX_POINTS)


def _in_range(name: str, value: int, low: int, high: int) -> None:
    if value < low:
        raise InvalidRuleSet(f"{name} must be at least {low}, not {value}")
    if value > high:
        raise InvalidRuleSet(f"{name} must be at most {high}, not {value}")


@lru_cache(maxsize=64)
def _deck_for(encoded: bytes) -> Deck:
    return Deck(msgspec.json.decode(encoded, type=RuleSet))


def deck_for(rules: RuleSet) -> Deck:
    """The ``Deck`` of a rule set, built once per distinct rule set and then reused."""
    return _deck_for(msgspec.json.encode(rules))
