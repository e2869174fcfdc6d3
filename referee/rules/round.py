"""One round (one deal) of Hearts as a state machine: pass -> declare -> tricks -> (moon) -> done.

The ``Round`` holds the hands as bit masks and checks every pass, declaration and play against
the ``Deck``. It does no I/O and never trusts its caller: an illegal action raises
``IllegalMove`` naming the broken rule and leaves the state unchanged. The legal plays (a mask)
are computed as each turn begins, so ``legal_plays`` and ``play`` only read them; the common
cases (follow suit, lead after the first trick) are inlined in ``play`` and ``_finish_trick``,
every other case goes through ``_compute_legal``. See docs/performance.md for the measurements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

import msgspec

from protocol.cards import COPY_STRIDE, QUEEN, SPADES, SUIT_NAMES, Card, card_code
from protocol.ruleset import MoonChoice, PassDirection
from referee.rules.cardset import CLUB_IDS, DIAMOND_IDS, HEART_IDS, RANK_BITS, SPADE_IDS, cards_of, mask_of
from referee.rules.deck import Deck
from referee.rules.errors import IllegalMove
from referee.rules.scoring import RoundResult, moon_rule_for, moon_shooter, revoke_result, score_round

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
_TWO_DECKS: Final = 2 * COPY_STRIDE
_SUIT_IDS: Final = (CLUB_IDS, DIAMOND_IDS, SPADE_IDS, HEART_IDS)
_BITS: Final = tuple(1 << card for card in range(_TWO_DECKS))
"""``1 << card`` by card id: a lookup costs less than the shift (card masks are wider than the
30 bits that CPython computes on fast)."""
_NO_BREAKS: Final = (False,) * COPY_STRIDE
"""``Round._breaks`` once hearts are broken: no card breaks them again."""
_SUIT_FACES: Final = tuple(RANK_BITS << (suit * 16 + 2) for suit in range(4))
"""The first-copy ids of each suit (ranks 2..14) as a mask."""


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
        "_breaks",
        "_carry",
        "_carry_points",
        "_declared_count",
        "_double",
        "_follow",
        "_follow_shift",
        "_legal",
        "_players",
        "_special",
        "broken",
        "dealer",
        "dealt",
        "deck",
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
        "taken",
        "trick",
        "trick_number",
        "tricks",
        "turn",
    )

    def __init__(
        self,
        deck: Deck,
        hands: Sequence[int],
        dealer: int,
        pass_direction: PassDirection = "hold",
        match_phase: int = 1,
    ) -> None:
        n = deck.players
        if len(hands) != n:
            raise ValueError(f"{len(hands)} hands for {n} players")
        self.deck = deck
        self.dealer = dealer % n
        self.match_phase = match_phase
        if deck.rules.pass_count == 0:
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
        self.broken = deck.rules.hearts_lead == "any_time"
        self._carry = 0
        self._carry_points = 0
        self._legal: int | None = None
        """The legal plays (a mask) of the seat to play while the phase is ``play``, else
        ``None``: computed as each turn begins, so ``legal_plays`` and ``play`` only read it."""
        self._follow = 0
        """The mask of the led suit once a trick is led."""
        self._follow_shift = 0
        """Once a trick is led, where the led suit's ranks start in a mask (``suit * 16 + 2``),
        else 0: the ``legal_plays`` of a seat that follows suit are one entry of that suit's
        table of card ids (see ``cardset``)."""
        self._special = False
        """Whether following suit needs ``_compute_legal`` (first-trick or queen rules) rather
        than "the led suit if held, else anything"."""
        self._players = n
        self._breaks = _NO_BREAKS if self.broken else deck.breakers
        """By face (``card & 63``), whether playing it breaks hearts: ``deck.breakers`` until
        they are broken, then nothing does (one tuple lookup a play, cheaper than a bit operation
        on a hand's mask)."""
        self._double = deck.double
        self.moon_shooter: int | None = None
        self.result: RoundResult | None = None
        self.phase: Phase = PASS
        if pass_direction == "hold":
            self._after_passing()

    def copy(self) -> Round:
        """An independent copy of this round in its current state, sharing only the immutable
        parts (the ``Deck``, finished ``Trick``s, the result): for search, where a position is
        copied once per candidate move. Cheaper than ``copy.deepcopy`` by far, and every slot is
        written out (a loop of ``getattr``/``setattr`` cost a playout 4%);
        ``tests/rules/test_round.py`` checks that no slot is left out."""
        twin = Round.__new__(Round)
        twin.deck = self.deck
        twin.dealer = self.dealer
        twin.match_phase = self.match_phase
        twin.pass_direction = self.pass_direction
        twin.phase = self.phase
        twin.turn = self.turn
        twin.leader = self.leader
        twin.trick_number = self.trick_number
        twin.broken = self.broken
        twin.moon_shooter = self.moon_shooter
        twin.result = self.result
        twin._declared_count = self._declared_count
        twin._carry = self._carry
        twin._carry_points = self._carry_points
        twin._legal = self._legal
        twin._follow = self._follow
        twin._follow_shift = self._follow_shift
        twin._special = self._special
        twin._players = self._players
        twin._breaks = self._breaks
        twin._double = self._double
        twin.dealt = self.dealt[:]
        twin.hands = self.hands[:]
        twin.passes = self.passes[:]
        twin.received = self.received[:]
        twin.declared = self.declared[:]
        twin.trick = self.trick[:]
        twin.tricks = self.tricks[:]
        twin.taken = self.taken[:]
        twin.points = self.points[:]
        return twin

    # -- who acts ----------------------------------------------------------------------------
    def awaiting(self) -> list[int]:
        """The seats that must act now: every seat yet to pass while passing (passing is
        simultaneous), else the one seat whose turn it is; empty when the round is done."""
        if self._legal is not None:
            return [self.turn]
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
        need = self.deck.rules.pass_count
        if len(cards) != need:
            raise IllegalMove("wrong_pass_count", f"must pass exactly {need} cards, not {len(cards)}", seat)
        hand = self.hands[seat]
        left = hand
        for card in cards:
            bit = _BITS[card] if 0 <= card < _TWO_DECKS else 0
            if not left & bit:
                bit = self._resolve(left, card, seat)
            left ^= bit
        passes = self.passes
        passes[seat] = hand ^ left
        if None not in passes:
            self._exchange()

    def _exchange(self) -> None:
        n = self._players
        offset = self.deck.pass_offset(self.pass_direction)
        hands = self.hands
        received = self.received
        for seat, passed in enumerate(self.passes):
            given = passed or 0
            to = (seat + offset) % n
            hands[seat] ^= given  # the passed cards leave the hand (they are in it)...
            hands[to] |= given  # ...and join the receiver's (distinct cards: the order is free)
            received[to] = given
        self._after_passing()

    def _after_passing(self) -> None:
        if self.deck.rules.declarations:
            self.phase = DECLARE
            self.turn = (self.dealer + 1) % self.deck.players
        else:
            self._start_play()

    # -- declarations ------------------------------------------------------------------------
    def declare(self, seat: int, declare: bool) -> None:
        """Declare (``True``) or not (``False``) to take no penalty points this round. Seats
        decide in turn from the dealer's left and see the earlier declarations."""
        self._expect(DECLARE, seat)
        self.declared[seat] = bool(declare)
        self._declared_count += 1
        if self._declared_count == self.deck.players:
            self._start_play()
        else:
            self.turn = (seat + 1) % self.deck.players

    def declarations_made(self) -> list[bool | None]:
        """Per seat: the declaration it made, or ``None`` where it has made none (yet)."""
        n = self.deck.players
        if not self.deck.rules.declarations or self.phase == PASS:
            return [None] * n
        made = self._declared_count
        return [self.declared[s] if (s - self.dealer - 1) % n < made else None for s in range(n)]

    # -- play --------------------------------------------------------------------------------
    def _start_play(self) -> None:
        self.phase = PLAY
        n = self.deck.players
        leader = (self.dealer + 1) % n
        both = self.deck.lead_mask
        if both:
            for i in range(n):
                seat = (self.dealer + 1 + i) % n
                if self.hands[seat] & both:
                    leader = seat
                    break
        self.leader = leader
        self.turn = leader
        self._special = self.deck.queen_must_drop or self.deck.first_trick_no_points
        self._legal = self._compute_legal()

    def legal_plays(self) -> list[Card]:
        """The cards the seat to play may play now (identical double-deck cards once)."""
        legal = self._legal
        if legal is None:
            return []
        if self._double:  # both copies of a card are one play, listed as the first copy
            legal = (legal | (legal >> COPY_STRIDE)) & _LOW64
        shift = self._follow_shift
        if shift:
            # Following suit: a legal play in the led suit means they all are in it.
            ids = _SUIT_IDS[shift >> 4][(legal >> shift) & RANK_BITS]
            if ids:
                return [*ids]
        return [  # cards_of, inlined
            *CLUB_IDS[(legal >> 2) & RANK_BITS],
            *DIAMOND_IDS[(legal >> 18) & RANK_BITS],
            *SPADE_IDS[(legal >> 34) & RANK_BITS],
            *HEART_IDS[(legal >> 50) & RANK_BITS],
        ]

    def legal_mask(self) -> int:
        """The legal plays as a mask over card ids (both copies of a double-deck card)."""
        legal = self._legal
        return 0 if legal is None else legal

    def _compute_legal(self) -> int:
        """The legal plays of the seat to play, every rule considered. ``play`` and
        ``_finish_trick`` inline the common cases (following suit without first-trick or queen
        rules; leading after the first trick)."""
        deck = self.deck
        rules = deck.rules
        hand = self.hands[self.turn]
        trick = self.trick
        first = self.trick_number == 0
        if not trick:
            if first and deck.lead_card is not None:
                legal = hand & ((1 << deck.lead_card) | (1 << (deck.lead_card + COPY_STRIDE)))
            else:
                legal = hand
                if not self.broken:
                    rest = legal & ~deck.hearts_mask
                    if rest:
                        legal = rest
                if first and rules.first_trick_no_points:
                    rest = legal & ~deck.penalty_mask
                    if rest:
                        legal = rest
        else:
            led = (trick[0] >> 4) & 3
            legal = hand & deck.suit_masks[led]
            if legal:
                if first and rules.first_trick_no_points:
                    rest = legal & ~deck.penalty_mask
                    if rest:
                        legal = rest
                if rules.queen_must_drop and led == SPADES and legal & deck.queen_mask and self._queen_loses():
                    legal &= deck.queen_mask
            else:
                legal = hand
                if first and rules.first_trick_no_points:
                    rest = hand & ~deck.penalty_mask
                    if rest:
                        legal = rest
                if rules.queen_must_drop and legal & deck.queen_mask:
                    legal &= deck.queen_mask
        return legal

    def _queen_loses(self) -> bool:
        """Whether a Q♠ added to the current (spade-led) trick could not win it: a higher spade
        is already in it and, in a double deck, not cancelled by its twin (or the queen's own
        twin is there to cancel her)."""
        trick = self.trick
        if not self.deck.double:
            return bool(mask_of(trick) & _HIGH_SPADES)
        faces = [c & 63 for c in trick if (c >> 4) & 3 == SPADES]
        queen = SPADES * 16 + QUEEN
        if self.deck.rules.identical_cards == "later_wins":
            return any(f > queen for f in faces)
        return queen in faces or any(f > queen and faces.count(f) == 1 for f in faces)

    def play(self, seat: int, card: Card) -> None:
        """Play ``card`` from ``seat`` to the current trick."""
        legal = self._legal
        if legal is None or seat != self.turn:  # _legal is None exactly when the phase is not play
            raise self._refusal(PLAY, seat)
        bit = _BITS[card] if 0 <= card < _TWO_DECKS else 0
        if not legal & bit:
            card = self._resolve_play(seat, card, legal)
            bit = _BITS[card]
        hands = self.hands
        hands[seat] ^= bit
        trick = self.trick
        trick.append(card)
        if self._breaks[card & 63]:
            self.broken = True
            self._breaks = _NO_BREAKS
        played = len(trick)
        n = self._players
        if played == n:
            self._finish_trick()
            return
        if played == 1:
            suit = (card >> 4) & 3
            self._follow = self.deck.suit_masks[suit]
            self._follow_shift = suit * 16 + 2
        seat += 1
        if seat == n:
            seat = 0
        self.turn = seat
        if self._special:
            self._legal = self._compute_legal()
        else:
            hand = hands[seat]
            self._legal = hand & self._follow or hand  # follow suit if you can

    def _resolve_play(self, seat: int, card: Card, legal: int) -> Card:
        """An illegal-looking play: accept the other copy of a double-deck card, or explain."""
        if self.deck.double and 0 <= card < 2 * COPY_STRIDE:
            twin = card ^ COPY_STRIDE
            if legal >> twin & 1:
                return twin
        raise self.explain_illegal(seat, card)

    def explain_illegal(self, seat: int, card: Card) -> IllegalMove:
        """Which rule ``seat`` playing ``card`` now breaks (the card is not legal), without
        playing it: the check names the rule of a card outside a request's legal list."""
        deck = self.deck
        hand = self.hands[seat]
        code = _code(card)
        bits = _bits(card, deck.double)
        if not hand & bits:
            return IllegalMove("card_not_in_hand", f"card not in hand: {code}", seat)
        first = self.trick_number == 0
        if not self.trick:
            if first and deck.lead_card is not None:
                lead = card_code(deck.lead_card)
                return IllegalMove("must_lead_card", f"the first trick must be led with {lead}", seat)
            if not self.broken and bits & deck.hearts_mask:
                return IllegalMove(
                    "hearts_not_broken",
                    "hearts are not broken: no heart may be led until one has been played",
                    seat,
                )
            return IllegalMove("no_points_first_trick", "no penalty cards on the first trick", seat)
        led = (self.trick[0] >> 4) & 3
        if hand & deck.suit_masks[led] and not bits & deck.suit_masks[led]:
            return IllegalMove("must_follow_suit", f"must follow suit: {SUIT_NAMES[led]}", seat)
        if first and deck.rules.first_trick_no_points and bits & deck.penalty_mask:
            return IllegalMove("no_points_first_trick", "no penalty cards on the first trick", seat)
        return IllegalMove(
            "queen_must_drop",
            "the queen of spades must be played now: she cannot win this trick",
            seat,
        )

    def _double_winner_index(self, mask: int) -> int | None:
        """The index in the current double-deck trick (``mask`` its cards) of the card that
        takes it: the highest face of the led suit, where two identical cards cancel each other
        (``None`` when every face of the led suit cancelled) or, under ``later_wins``, the later
        of the two wins."""
        trick = self.trick
        faces = _SUIT_FACES[(trick[0] >> 4) & 3]
        first = mask & faces  # the led suit's first-copy cards, as faces
        second = (mask >> COPY_STRIDE) & faces  # its second-copy cards, as faces
        if self.deck.rules.identical_cards == "cancel":
            single = first ^ second
            if not single:
                return None
            face = single.bit_length() - 1
            return trick.index(face if first >> face & 1 else face + COPY_STRIDE)
        face = (first | second).bit_length() - 1
        if not second >> face & 1:
            return trick.index(face)
        if not first >> face & 1:
            return trick.index(face + COPY_STRIDE)
        return max(trick.index(face), trick.index(face + COPY_STRIDE))

    def _finish_trick(self) -> None:
        deck = self.deck
        trick = self.trick
        points = deck.points
        bits = _BITS
        worth = 0
        mask = 0
        for card in trick:
            worth += points[card]
            mask |= bits[card]
        if self._double:
            winner = self._settle_double(mask, worth)
        else:
            leader = self.leader
            winner = leader + trick.index((mask & self._follow).bit_length() - 1)  # the highest of the led suit
            if winner >= self._players:
                winner -= self._players
            self.taken[winner] |= mask
            self.points[winner] += worth
            self.tricks.append(Trick(leader, trick, winner, worth))
        self.trick = []
        self._follow_shift = 0
        number = self.trick_number + 1
        self.trick_number = number
        if number == deck.hand_size:
            self._legal = None
            self._end_of_play()
            return
        self.leader = winner
        self.turn = winner
        self._special = deck.queen_must_drop
        hand = self.hands[winner]  # the lead of a later trick: no heart before they are broken
        self._legal = hand if self.broken else hand & deck.non_hearts_mask or hand

    def _settle_double(self, mask: int, worth: int) -> int:
        """Record a double-deck trick (``mask`` its cards, ``worth`` their points) and return
        the seat that leads next: a trick whose led suit cancelled out carries its cards to
        the next trick's winner."""
        trick = self.trick
        leader = self.leader
        index = self._double_winner_index(mask)
        if index is None and self.trick_number + 1 == self.deck.hand_size:
            index = 0  # the last trick cancelled out: nothing follows, so its leader takes it
        if index is None:
            self._carry |= mask
            self._carry_points += worth
            self.tricks.append(Trick(leader, trick, None, 0))
            return leader
        winner = (leader + index) % self._players
        worth += self._carry_points
        self.taken[winner] |= mask | self._carry
        self.points[winner] += worth
        self._carry = 0
        self._carry_points = 0
        self.tricks.append(Trick(leader, trick, winner, worth))
        return winner

    # -- moon and result ---------------------------------------------------------------------
    def _end_of_play(self) -> None:
        shooter = moon_shooter(self.deck, self.taken)
        self.moon_shooter = shooter
        if shooter is not None and moon_rule_for(self.deck, self.match_phase) == "shooter_choice":
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
            self.deck, self.match_phase, self.taken, self.points, declared=self.declared, moon_choice=choice
        )
        self.phase = DONE
        self.turn = -1

    def apply_revoke(self, seat: int) -> RoundResult:
        """End the round with the revoke penalty against ``seat`` (the referee's choice of
        answer to an illegal move): the revoker takes ``revoke_points``, the others 0."""
        self.result = revoke_result(self.deck, self.match_phase, seat)
        self.phase = DONE
        self.turn = -1
        self._legal = None
        return self.result

    # -- helpers -----------------------------------------------------------------------------
    def _expect(self, phase: Phase, seat: int) -> None:
        if not 0 <= seat < self._players or self.phase != phase or (phase != PASS and seat != self.turn):
            raise self._refusal(phase, seat)

    def _refusal(self, phase: Phase, seat: int) -> IllegalMove:
        """Why ``seat`` may not act in ``phase`` now (for a seat that may not)."""
        if not 0 <= seat < self._players:
            return IllegalMove("not_your_turn", f"there is no seat {seat}", seat)
        if self.phase != phase:
            return IllegalMove("wrong_phase", f"cannot {_VERB[phase]} now: the round is in phase {self.phase!r}", seat)
        return IllegalMove("not_your_turn", f"it is seat {self.turn}'s turn, not seat {seat}'s", seat)

    def _resolve(self, hand: int, card: Card, seat: int) -> int:
        """The bit of ``card`` (or its double-deck twin) in ``hand``."""
        for bit in _bit_list(card, self.deck.double):
            if hand & bit:
                return bit
        code = _code(card)
        if self.hands[seat] & _bits(card, self.deck.double):
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
