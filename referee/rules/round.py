"""One round (one deal) of Hearts as a state machine: pass -> declare -> tricks -> (moon) -> done.

The ``Round`` holds the hands as bit masks and checks every pass, declaration and play against
the ``Table``. It does no I/O and never trusts its caller: an illegal action raises
``IllegalMove`` naming the broken rule and leaves the state unchanged. Legal plays are computed
once per turn and cached, so a caller that asks for them and then plays pays for one check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

import msgspec

from protocol.cards import COPY_STRIDE, QUEEN, SPADES, SUIT_NAMES, Card, card_code
from protocol.ruleset import MoonChoice, PassDirection
from referee.rules.cardset import cards_of, mask_of
from referee.rules.errors import IllegalMove
from referee.rules.scoring import RoundResult, moon_rule_for, moon_shooter, revoke_result, score_round
from referee.rules.table import Table

Phase: TypeAlias = Literal["pass", "declare", "play", "moon", "done"]
PASS: Final = "pass"
DECLARE: Final = "declare"
PLAY: Final = "play"
MOON: Final = "moon"
DONE: Final = "done"

_HIGH_SPADES: Final = mask_of(
    SPADES * 16 + rank + copy * COPY_STRIDE for rank in range(QUEEN + 1, 15) for copy in (0, 1)
)
_LOW64: Final = (1 << COPY_STRIDE) - 1


class Trick(msgspec.Struct, frozen=True):
    """A completed trick: the cards in the order played, starting with the leader's."""

    leader: int
    cards: list[Card]
    winner: int | None
    """The seat that took the trick; ``None`` when every card of the led suit was cancelled
    (double deck) and the cards went on to the next trick's winner (on the last trick, where
    no trick follows, the leader takes them)."""
    points: int
    """Points the winner took with this trick (cards carried from a cancelled trick included)."""

    def seat_of(self, index: int, players: int) -> int:
        """The seat that played ``cards[index]``."""
        return (self.leader + index) % players


class Round:
    """A deal from passing to the round result. Seats are numbered 0..players-1 clockwise."""

    __slots__ = (
        "_carry",
        "_carry_points",
        "_declared_count",
        "_legal",
        "broken",
        "dealer",
        "dealt",
        "declared",
        "hands",
        "leader",
        "match_phase",
        "moon_shooter",
        "pass_direction",
        "passes",
        "phase",
        "points",
        "received",
        "result",
        "table",
        "taken",
        "trick",
        "trick_number",
        "tricks",
        "turn",
    )

    def __init__(
        self,
        table: Table,
        hands: Sequence[int],
        dealer: int,
        pass_direction: PassDirection = "hold",
        match_phase: int = 1,
    ) -> None:
        n = table.players
        if len(hands) != n:
            raise ValueError(f"{len(hands)} hands for {n} players")
        self.table = table
        self.dealer = dealer % n
        self.match_phase = match_phase
        if table.rules.pass_count == 0:
            pass_direction = "hold"
        self.pass_direction: PassDirection = pass_direction
        self.dealt = list(hands)
        self.hands = list(hands)
        self.passes: list[int | None] = [None] * n
        self.received: list[int | None] = [None] * n
        self.declared = [False] * n
        self._declared_count = 0
        self.turn = -1
        self.leader = -1
        self.trick: list[Card] = []
        self.trick_number = 0
        self.tricks: list[Trick] = []
        self.taken = [0] * n
        self.points = [0] * n
        self.broken = table.rules.hearts_lead == "any_time"
        self._carry = 0
        self._carry_points = 0
        self._legal = -1
        self.moon_shooter: int | None = None
        self.result: RoundResult | None = None
        self.phase: Phase = PASS
        if pass_direction == "hold":
            self._after_passing()

    # -- who acts ----------------------------------------------------------------------------
    def awaiting(self) -> list[int]:
        """The seats that must act now: every seat yet to pass while passing (passing is
        simultaneous), else the one seat whose turn it is; empty when the round is done."""
        if self.phase == PASS:
            return [s for s, given in enumerate(self.passes) if given is None]
        if self.phase == DONE:
            return []
        return [self.turn]

    def hand(self, seat: int) -> list[Card]:
        """The cards a seat holds now, lowest id first."""
        return cards_of(self.hands[seat])

    # -- passing -----------------------------------------------------------------------------
    def legal_passes(self, seat: int) -> list[Card]:
        """The cards ``seat`` may pass: any ``rules.pass_count`` distinct cards of its hand
        while it has not passed yet; empty otherwise."""
        if self.phase != PASS or self.passes[seat] is not None:
            return []
        return cards_of(self.hands[seat])

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> None:
        """Give ``cards`` to the seat in this round's pass direction. Nobody receives anything
        until every seat has passed."""
        self._expect(PASS, seat)
        if self.passes[seat] is not None:
            raise IllegalMove("wrong_phase", "you have already passed this round", seat)
        need = self.table.rules.pass_count
        if len(cards) != need:
            raise IllegalMove("wrong_pass_count", f"must pass exactly {need} cards, not {len(cards)}", seat)
        hand = self.hands[seat]
        given = 0
        for card in cards:
            bit = self._resolve(hand & ~given, card, seat)
            given |= bit
        self.passes[seat] = given
        if all(p is not None for p in self.passes):
            self._exchange()

    def _exchange(self) -> None:
        n = self.table.players
        offset = self.table.pass_offset(self.pass_direction)
        passes = [p or 0 for p in self.passes]
        for seat in range(n):
            self.hands[seat] &= ~passes[seat]
        for seat in range(n):
            to = (seat + offset) % n
            self.hands[to] |= passes[seat]
            self.received[to] = passes[seat]
        self._after_passing()

    def _after_passing(self) -> None:
        if self.table.rules.declarations:
            self.phase = DECLARE
            self.turn = (self.dealer + 1) % self.table.players
        else:
            self._start_play()

    # -- declarations ------------------------------------------------------------------------
    def declare(self, seat: int, declare: bool) -> None:
        """Declare (``True``) or not (``False``) to take no penalty points this round. Seats
        decide in turn from the dealer's left and see the earlier declarations."""
        self._expect(DECLARE, seat)
        self.declared[seat] = bool(declare)
        self._declared_count += 1
        if self._declared_count == self.table.players:
            self._start_play()
        else:
            self.turn = (seat + 1) % self.table.players

    def declarations_made(self) -> list[bool | None]:
        """Per seat: the declaration it made, or ``None`` where it has made none (yet)."""
        n = self.table.players
        if not self.table.rules.declarations or self.phase == PASS:
            return [None] * n
        made = self._declared_count
        return [self.declared[s] if (s - self.dealer - 1) % n < made else None for s in range(n)]

    # -- play --------------------------------------------------------------------------------
    def _start_play(self) -> None:
        self.phase = PLAY
        n = self.table.players
        leader = (self.dealer + 1) % n
        lead = self.table.lead_card
        if lead is not None:
            both = (1 << lead) | (1 << (lead + COPY_STRIDE))
            for i in range(n):
                seat = (self.dealer + 1 + i) % n
                if self.hands[seat] & both:
                    leader = seat
                    break
        self.leader = leader
        self.turn = leader

    def legal_plays(self) -> list[Card]:
        """The cards the seat to play may play now (identical double-deck cards once)."""
        if self.phase != PLAY:
            return []
        legal = self._legal if self._legal >= 0 else self._compute_legal()
        if self.table.double:
            legal = (legal | (legal >> COPY_STRIDE)) & _LOW64
        return cards_of(legal)

    def legal_mask(self) -> int:
        """The legal plays as a mask over card ids (both copies of a double-deck card)."""
        if self.phase != PLAY:
            return 0
        return self._legal if self._legal >= 0 else self._compute_legal()

    def _compute_legal(self) -> int:
        table = self.table
        rules = table.rules
        hand = self.hands[self.turn]
        trick = self.trick
        first = self.trick_number == 0
        if not trick:
            if first and table.lead_card is not None:
                legal = hand & ((1 << table.lead_card) | (1 << (table.lead_card + COPY_STRIDE)))
            else:
                legal = hand
                if not self.broken:
                    rest = legal & ~table.hearts_mask
                    if rest:
                        legal = rest
                if first and rules.first_trick_no_points:
                    rest = legal & ~table.penalty_mask
                    if rest:
                        legal = rest
        else:
            led = (trick[0] >> 4) & 3
            legal = hand & table.suit_masks[led]
            if legal:
                if first and rules.first_trick_no_points:
                    rest = legal & ~table.penalty_mask
                    if rest:
                        legal = rest
                if rules.queen_must_drop and led == SPADES and legal & table.queen_mask and self._queen_loses():
                    legal &= table.queen_mask
            else:
                legal = hand
                if first and rules.first_trick_no_points:
                    rest = hand & ~table.penalty_mask
                    if rest:
                        legal = rest
                if rules.queen_must_drop and legal & table.queen_mask:
                    legal &= table.queen_mask
        self._legal = legal
        return legal

    def _queen_loses(self) -> bool:
        """Whether a Q♠ added to the current (spade-led) trick could not win it: a higher spade
        is already in it and, in a double deck, not cancelled by its twin (or the queen's own
        twin is there to cancel her)."""
        trick = self.trick
        if not self.table.double:
            return bool(mask_of(trick) & _HIGH_SPADES)
        faces = [c & 63 for c in trick if (c >> 4) & 3 == SPADES]
        queen = SPADES * 16 + QUEEN
        if self.table.rules.identical_cards == "later_wins":
            return any(f > queen for f in faces)
        return queen in faces or any(f > queen and faces.count(f) == 1 for f in faces)

    def play(self, seat: int, card: Card) -> None:
        """Play ``card`` from ``seat`` to the current trick."""
        if self.phase != PLAY or seat != self.turn:
            self._expect(PLAY, seat)
        legal = self._legal if self._legal >= 0 else self._compute_legal()
        if card < 0 or not legal >> card & 1:
            card = self._resolve_play(seat, card, legal)
        table = self.table
        self.hands[seat] ^= 1 << card
        trick = self.trick
        trick.append(card)
        if table.breaker_mask >> card & 1:
            self.broken = True
        self._legal = -1
        if len(trick) == table.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % table.players

    def _resolve_play(self, seat: int, card: Card, legal: int) -> Card:
        """An illegal-looking play: accept the other copy of a double-deck card, or explain."""
        if self.table.double and 0 <= card < 2 * COPY_STRIDE:
            twin = card ^ COPY_STRIDE
            if legal >> twin & 1:
                return twin
        raise self._explain(seat, card)

    def _explain(self, seat: int, card: Card) -> IllegalMove:
        table = self.table
        hand = self.hands[seat]
        code = _code(card)
        bits = _bits(card, table.double)
        if not hand & bits:
            return IllegalMove("card_not_in_hand", f"card not in hand: {code}", seat)
        first = self.trick_number == 0
        if not self.trick:
            if first and table.lead_card is not None:
                lead = card_code(table.lead_card)
                return IllegalMove("must_lead_card", f"the first trick must be led with {lead}", seat)
            if not self.broken and bits & table.hearts_mask:
                return IllegalMove(
                    "hearts_not_broken",
                    "hearts are not broken: no heart may be led until one has been played",
                    seat,
                )
            return IllegalMove("no_points_first_trick", "no penalty cards on the first trick", seat)
        led = (self.trick[0] >> 4) & 3
        if hand & table.suit_masks[led] and not bits & table.suit_masks[led]:
            return IllegalMove("must_follow_suit", f"must follow suit: {SUIT_NAMES[led]}", seat)
        if first and table.rules.first_trick_no_points and bits & table.penalty_mask:
            return IllegalMove("no_points_first_trick", "no penalty cards on the first trick", seat)
        return IllegalMove(
            "queen_must_drop",
            "the queen of spades must be played now: she cannot win this trick",
            seat,
        )

    def _winner_index(self) -> int | None:
        trick = self.trick
        led = (trick[0] >> 4) & 3
        if not self.table.double:
            best = trick[0]
            best_i = 0
            for i in range(1, len(trick)):
                card = trick[i]
                if card > best and (card >> 4) & 3 == led:
                    best = card
                    best_i = i
            return best_i
        faces = [c & 63 if (c >> 4) & 3 == led else -1 for c in trick]
        if self.table.rules.identical_cards == "cancel":
            best_face = max((f for f in faces if f >= 0 and faces.count(f) == 1), default=-1)
            return faces.index(best_face) if best_face >= 0 else None
        best_face = max(faces)
        return len(faces) - 1 - faces[::-1].index(best_face)

    def _finish_trick(self) -> None:
        table = self.table
        n = table.players
        trick = self.trick
        points = table.points
        worth = 0
        mask = 0
        for card in trick:
            worth += points[card]
            mask |= 1 << card
        index = self._winner_index()
        leader = self.leader
        if index is None and self.trick_number + 1 == table.hand_size:
            index = 0  # the last trick cancelled out: nothing follows, so its leader takes it
        if index is None:
            self._carry |= mask
            self._carry_points += worth
            self.tricks.append(Trick(leader, trick, None, 0))
            winner = leader
        else:
            winner = (leader + index) % n
            worth += self._carry_points
            self.taken[winner] |= mask | self._carry
            self.points[winner] += worth
            self._carry = 0
            self._carry_points = 0
            self.tricks.append(Trick(leader, trick, winner, worth))
        self.trick = []
        self.trick_number += 1
        if self.trick_number == table.hand_size:
            self._end_of_play()
        else:
            self.leader = winner
            self.turn = winner

    # -- moon and result ---------------------------------------------------------------------
    def _end_of_play(self) -> None:
        shooter = moon_shooter(self.table, self.taken)
        self.moon_shooter = shooter
        if shooter is not None and moon_rule_for(self.table, self.match_phase) == "shooter_choice":
            self.phase = MOON
            self.turn = shooter
            return
        self._finish(None)

    def choose_moon(self, seat: int, choice: MoonChoice) -> None:
        """The shooter's choice where the moon rule is ``shooter_choice``: ``add_to_others``
        or ``subtract_from_shooter``."""
        self._expect(MOON, seat)
        if choice not in ("add_to_others", "subtract_from_shooter"):
            raise IllegalMove(
                "bad_choice", f"moon choice must be add_to_others or subtract_from_shooter, not {choice!r}", seat
            )
        self._finish(choice)

    def _finish(self, choice: MoonChoice | None) -> None:
        self.result = score_round(
            self.table, self.match_phase, self.taken, self.points, declared=self.declared, moon_choice=choice
        )
        self.phase = DONE
        self.turn = -1

    def apply_revoke(self, seat: int) -> RoundResult:
        """End the round with the revoke penalty against ``seat`` (the referee's choice of
        answer to an illegal move): the revoker takes ``revoke_points``, the others 0."""
        self.result = revoke_result(self.table, self.match_phase, seat)
        self.phase = DONE
        self.turn = -1
        return self.result

    # -- helpers -----------------------------------------------------------------------------
    def _expect(self, phase: Phase, seat: int) -> None:
        if not 0 <= seat < self.table.players:
            raise IllegalMove("not_your_turn", f"there is no seat {seat}", seat)
        if self.phase != phase:
            raise IllegalMove("wrong_phase", f"cannot {_VERB[phase]} now: the round is in phase {self.phase!r}", seat)
        if phase != PASS and seat != self.turn:
            raise IllegalMove("not_your_turn", f"it is seat {self.turn}'s turn, not seat {seat}'s", seat)

    def _resolve(self, hand: int, card: Card, seat: int) -> int:
        """The bit of ``card`` (or its double-deck twin) in ``hand``."""
        for bit in _bit_list(card, self.table.double):
            if hand & bit:
                return bit
        code = _code(card)
        if self.hands[seat] & _bits(card, self.table.double):
            raise IllegalMove("duplicate_card", f"card passed twice: {code}", seat)
        raise IllegalMove("card_not_in_hand", f"card not in hand: {code}", seat)


_VERB: Final = {PASS: "pass", DECLARE: "declare", PLAY: "play", MOON: "choose the moon", DONE: "act"}


def _code(card: Card) -> str:
    try:
        return card_code(card)
    except ValueError:
        return repr(card)


def _bit_list(card: Card, double: bool) -> list[int]:
    if not 0 <= card < 2 * COPY_STRIDE:
        return []
    bits = [1 << card]
    if double:
        bits.append(1 << (card ^ COPY_STRIDE))
    return bits


def _bits(card: Card, double: bool) -> int:
    mask = 0
    for bit in _bit_list(card, double):
        mask |= bit
    return mask
