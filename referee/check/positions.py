"""Crafted deals for ``referee check``, and how the check plays the seats that are not the bot's.

Pure: the rules engine only, no I/O. A ``Position`` is a deal (the bot's hand and whichever
other hands matter, the rest dealt from a seed) plus the cards the check's seats must play to
reach one rule's situation. The bot's own moves before that situation are forced (a legal list
of one card), so every bot that follows the rules reaches it; ``simulate`` walks a position
without a bot, so the tests can show that each one tests what its step says it does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from protocol.cards import COPY_STRIDE, Card, card_code, parse_card
from protocol.ruleset import RuleSet
from referee.rules.deck import deck_for
from referee.rules.match import Match
from referee.rules.presets import ruleset, with_options
from referee.rules.round import DECLARE, DONE, MOON, PASS, PLAY, Round


class Opponents:
    """The check's players: a deterministic pseudo-random legal choice for every decision,
    unless a step names the card (``plays`` by trick and seat, ``passes`` by seat). Each choice
    depends only on the seed and where it is made, never on earlier calls, so a deal always
    unfolds the same way for the same bot moves."""

    def __init__(
        self,
        seed: int = 1,
        *,
        plays: Mapping[tuple[int, int], str] | None = None,
        passes: Mapping[int, str] | None = None,
        declarations: Mapping[int, bool] | None = None,
    ) -> None:
        self.seed = seed
        self.plays = dict(plays or {})
        self.passes = dict(passes or {})
        self.declarations = dict(declarations or {})

    def _rng(self, *where: object) -> random.Random:
        return random.Random(":".join(str(w) for w in (self.seed, *where)))

    def play(self, round_: Round, seat: int, round_number: int) -> Card:
        planned = self.plays.get((round_.trick_number, seat))
        if planned is not None:
            return parse_card(planned)
        return self._rng("play", round_number, round_.trick_number, seat).choice(round_.legal_plays())

    def pass_cards(self, round_: Round, seat: int, round_number: int) -> list[Card]:
        planned = self.passes.get(seat)
        if planned is not None:
            return [parse_card(code) for code in planned.split()]
        hand = round_.hand(seat)
        return self._rng("pass", round_number, seat).sample(hand, round_.deck.rules.pass_count)

    def declare(self, seat: int) -> bool:
        return self.declarations.get(seat, False)


def deal_hands(rules: RuleSet, fixed: Mapping[int, str], seed: int = 1) -> list[list[Card]]:
    """Hands by seat: the ``fixed`` seats get the cards named (codes separated by spaces), the
    others the rest of the deck, shuffled by ``seed``."""
    deck = deck_for(rules)
    pool = list(deck.cards)
    hands: list[list[Card]] = [[] for _ in range(deck.players)]
    for seat, text in fixed.items():
        for code in text.split():
            face = parse_card(code)
            copy = next((c for c in (face, face + COPY_STRIDE) if c in pool), None)
            if copy is None:
                raise ValueError(f"seat {seat}: {code} is not in the deck, or dealt twice")
            pool.remove(copy)
            hands[seat].append(copy)
    random.Random(seed).shuffle(pool)
    for seat in range(deck.players):
        if seat not in fixed:
            hands[seat], pool = pool[: deck.hand_size], pool[deck.hand_size :]
    for seat, hand in enumerate(hands):
        if len(hand) != deck.hand_size:
            raise ValueError(f"seat {seat}: {len(hand)} cards, a hand is {deck.hand_size}")
    return hands


def hold_only(rules: RuleSet) -> RuleSet:
    """The rules without passing: a crafted hand reaches the play as dealt."""
    return with_options(rules, {"pass_schedule": ["hold"]})


def one_round(rules: RuleSet, rounds: int = 1) -> RuleSet:
    """The rules with a match that ends after ``rounds`` rounds."""
    return with_options(rules, {"end": "rounds", "rounds": rounds})


@dataclass(frozen=True)
class Position:
    """A deal and the moves that lead to the bot's decisions that a step is about."""

    rules: RuleSet
    seat: int
    """The bot's seat."""
    dealer: int
    hands: Mapping[int, str]
    """Fixed hands by seat (codes separated by spaces); the other seats get the rest."""
    expect: Mapping[int, tuple[str, ...]]
    """The bot's play decisions that matter, counted from 1 in the round, and the legal list
    each must have. The bot's earlier play decisions are forced."""
    plays: Mapping[tuple[int, int], str] = field(default_factory=dict)
    """Cards the check's seats play, by (trick number, seat)."""
    passes: Mapping[int, str] = field(default_factory=dict)
    """Cards the check's seats pass, by seat."""
    seed: int = 1

    @property
    def decisions(self) -> int:
        """The bot's play decisions up to the last one that matters."""
        return max(self.expect)

    def opponents(self) -> Opponents:
        return Opponents(self.seed, plays=self.plays, passes=self.passes)

    def deal(self) -> list[list[Card]]:
        return deal_hands(self.rules, self.hands, self.seed)

    def match(self) -> Match:
        return Match(self.rules, self.seed, first_dealer=self.dealer)


_AMERICAN = ruleset("american")
_HOLD = hold_only(_AMERICAN)
_QUEEN = hold_only(with_options(_AMERICAN, {"queen_must_drop": True}))

POSITIONS: dict[str, Position] = {
    "lead_two_of_clubs": Position(
        _HOLD,
        seat=2,
        dealer=1,
        hands={2: "2C 7C JC 4D 9D KD 3S 8S QS 5H 9H JH AH"},
        expect={1: ("2C",)},
    ),
    "lead_three_of_clubs": Position(
        hold_only(ruleset("american-3", {"remove": ["2C"]})),
        seat=0,
        dealer=2,
        hands={0: "3C 8C KC 2D 5D 9D QD 4S 6S TS KS 3H 6H 8H TH QH AH"},
        expect={1: ("3C",)},
    ),
    "follow_suit": Position(
        _HOLD,
        seat=1,
        dealer=3,
        hands={0: "2C 3C 4C 2D 3D 4D 2S 3S 4S 2H 3H 4H 5H", 1: "6C 9C QC 5D 8D TD 5S 7S 9S JS 6H 8H KH"},
        expect={1: ("6C", "9C", "QC")},
    ),
    "first_trick_no_points": Position(
        _HOLD,
        seat=2,
        dealer=0,
        hands={1: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", 2: "2D 7D JD 4S 8S QS KS 3H 5H 9H TH QH AH"},
        expect={1: ("2D", "7D", "JD", "4S", "8S", "KS")},
    ),
    "first_trick_only_points": Position(
        _HOLD,
        seat=3,
        dealer=0,
        hands={2: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", 3: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"},
        expect={1: ("QS", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH")},
    ),
    "hearts_not_broken": Position(
        _HOLD,
        seat=1,
        dealer=3,
        hands={0: "2C 3C 4C 5C 2D 4D 3S 4S 6S 2H 3H 5H 6H", 1: "AC 3D 6D 9D QD 2S 5S 8S JS 4H 7H TH KH"},
        expect={1: ("AC",), 2: ("3D", "6D", "9D", "QD", "2S", "5S", "8S", "JS")},
    ),
    "only_hearts_left": Position(
        _HOLD,
        seat=1,
        dealer=3,
        hands={0: "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S AH", 1: "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"},
        expect={1: ("AC",), 2: ("2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH")},
    ),
    "hearts_broken": Position(
        _HOLD,
        seat=1,
        dealer=3,
        hands={
            0: "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 6S",
            1: "AC 6D 9D QD KD AD 7S 8S 9S TS JS KS 5H",
            3: "QS 2H 3H 4H 6H 7H 8H 9H TH JH QH KH AH",
        },
        plays={(0, 3): "2H"},
        expect={1: ("AC",), 2: ("6D", "9D", "QD", "KD", "AD", "7S", "8S", "9S", "TS", "JS", "KS", "5H")},
    ),
    "void_discard": Position(
        _HOLD,
        seat=2,
        dealer=0,
        hands={
            0: "AC 6D 7D 8D 9D TD JD QD KD AD 3H 4H 5H",
            1: "2C 4C 5C 6C 2D 3D 4D 5D 2S 3S 6S 7S 9S",
            2: "3C 4S 5S 8S TS QS AS 2H 6H 9H JH QH KH",
        },
        plays={(1, 0): "KD"},
        expect={1: ("3C",), 2: ("4S", "5S", "8S", "TS", "QS", "AS", "2H", "6H", "9H", "JH", "QH", "KH")},
    ),
    "queen_must_drop_follow": Position(
        _QUEEN,
        seat=2,
        dealer=0,
        hands={
            0: "AC KS AS 6D 7D 9D 2H 4H 5H 6H 8H 9H QH",
            1: "2C 4C 5C 6C 7C 2S 3S 5S 6S 3D 4D TD QD",
            2: "3C QS 4S 9S 2D 5D 8D JD 3H 7H TH JH KH",
        },
        plays={(1, 0): "KS"},
        expect={1: ("3C",), 2: ("QS",)},
    ),
    "queen_must_drop_void": Position(
        _QUEEN,
        seat=2,
        dealer=0,
        hands={
            0: "AC 6D 7D 8D 9D TD JD QD KD AD 2S 3S 5S",
            1: "2C 4C 5C 6C 7C 2D 3D 4D 5D 6S 7S 8S TS",
            2: "3C QS 4S 9S 2H 3H 4H 5H 6H 7H TH JH KH",
        },
        plays={(1, 0): "KD"},
        expect={1: ("3C",), 2: ("QS",)},
    ),
    # Double deck: seats 0 and 1 hold every club; the two 2C cancel on the first trick (its
    # winner is null) and seat 0 leads again. The bot discards its only non-penalty card,
    # then, void in clubs, may play any of its hearts.
    "cancelled_trick": Position(
        hold_only(ruleset("double-deck")),
        seat=3,
        dealer=5,
        hands={
            0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3C 4C 5C 6C",
            1: "2C 7C 8C 9C TC JC QC KC AC 3D 4D 5D 6D 7D 8D 9D TD",
            3: "2H 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H 8H 9H 9H JD",
        },
        plays={(0, 1): "2C"},
        expect={1: ("JD",), 2: ("2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H")},
    ),
    # Passing left: seat 0 gives the bot (seat 1) the 2C and its only diamond; the bot must
    # lead the 2C, then follow the diamond led by seat 0 with the 9D: received cards only.
    "hand_after_pass": Position(
        _AMERICAN,
        seat=1,
        dealer=0,
        hands={0: "2C AC 9D TD JD QD KD AD 3S 5S 3H 5H 7H", 1: "3C 5C 8C 4S 7S 9S JS 2H 4H 6H 8H TH QH"},
        passes={0: "2C 9D 3H"},
        plays={(0, 0): "AC", (1, 0): "TD"},
        expect={1: ("2C",), 2: ("9D",)},
    ),
}
"""The crafted positions, by the step they serve (``play.<name>``, ``state.<name>``)."""


def moon_position(rules: RuleSet) -> Position:
    """A deal in which the bot takes every trick whatever it plays: it holds every club and
    leads the first trick, and nobody else can follow a club. ``rules`` are used when their
    moon is the shooter's choice and the clubs make up exactly one hand; otherwise the
    American game with the shooter's choice."""
    deck = deck_for(rules)
    clubs = [c for c in deck.cards if c >> 4 & 3 == 0]
    if rules.moon != "shooter_choice" or deck.double or len(clubs) != deck.hand_size:
        rules = ruleset("american-moon-choice")
        deck = deck_for(rules)
        clubs = [c for c in deck.cards if c >> 4 & 3 == 0]
    rules = hold_only(one_round(rules))
    seat = 1
    return Position(
        rules,
        seat=seat,
        dealer=seat - 1,  # the bot leads when the player left of the dealer does, too
        hands={seat: " ".join(card_code(c) for c in clubs)},
        expect={1: tuple(card_code(c) for c in clubs if c == deck.lead_card) or tuple(map(card_code, clubs))},
    )


def simulate(position: Position, choose: int = 0) -> dict[int, list[str]]:
    """Walk a position with the rules engine alone, the bot taking ``legal[choose]`` (or the
    last card) at every decision: the legal list at each of the bot's play decisions, by
    decision number, up to the last one that matters."""
    match = position.match()
    round_ = match.next_round(position.deal())
    opponents = position.opponents()
    seat = position.seat
    need = round_.deck.rules.pass_count
    seen: dict[int, list[str]] = {}
    while round_.phase != DONE and len(seen) < position.decisions:
        if round_.phase == PASS:
            for other in round_.awaiting():
                mine = other == seat
                cards = _pick(round_.hand(seat), need, choose) if mine else opponents.pass_cards(round_, other, 0)
                round_.pass_cards(other, cards)
        elif round_.phase == DECLARE:
            round_.declare(round_.turn, False)
        elif round_.phase == MOON:
            round_.choose_moon(round_.turn, "add_to_others")
        elif round_.phase == PLAY and round_.turn == seat:
            legal = round_.legal_plays()
            seen[len(seen) + 1] = [card_code(c) for c in legal]
            round_.play(seat, legal[min(choose, len(legal) - 1)])
        else:
            round_.play(round_.turn, opponents.play(round_, round_.turn, 0))
    return seen


def _pick(hand: Sequence[Card], count: int, choose: int) -> list[Card]:
    return list(hand[:count]) if choose == 0 else list(hand[-count:])
