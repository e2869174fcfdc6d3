"""Possible worlds: deals of the hidden cards consistent with what one seat knows.

A search bot that cannot see the other hands plays in *sampled worlds* (determinization): it
deals the unseen cards to the other seats in a way that agrees with everything its
``SeatView`` shows, then searches each world as if the cards were face up.

What a seat knows, and how it constrains the other hands (``knowledge``):

- its own hand, every card played, and so how many cards each other seat holds now;
- the cards it passed, and to whom: the receiver holds them until it plays them;
- the cards it received (they are in its own hand);
- voids shown: a seat that did not follow suit holds none of the led suit;
- a heart led before hearts were broken (where the rules require breaking): the leader held
  only hearts; a penalty card played to the first trick where the rules forbid it: the seat
  held nothing else that it could play; a Q♠ not dropped where she must drop: the seat does
  not hold her (single deck);
- the opening lead: the seat to lead the first trick holds the opening card, the seats
  before it (from the dealer's left) do not.

``sample_round`` deals the unseen cards under those constraints (the most constrained cards
first, each to a seat chosen with weight its free room, starting again on a dead end), then
*replays* the round's history from the sampled deal through ``Round`` (``replay``): every
declaration and play must be legal and every trick must end as the view shows. A world that
fails is dropped and another is drawn, so every world returned is consistent with the view by
construction; the deal is close to uniform over the consistent deals, not exactly uniform.

Cards are handled as faces (``card & 63``): the two copies of a double-deck card are the
same card to a player, and the replay gives each seat the copies in deck order.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from typing import Final, TypeAlias

from protocol.cards import HEARTS, QUEEN, SPADES, Card, make_card, parse_card
from referee.rules.cardset import cards_of
from referee.rules.deck import Deck
from referee.rules.errors import IllegalMove, RulesError
from referee.rules.round import PASS, Round
from referee.rules.view import SeatView

_QS: Final = make_card(SPADES, QUEEN)
_Plan: TypeAlias = tuple[tuple[Card, ...], dict[Card, list[int]], dict[Card, int]]
"""What every deal of ``sample_hidden`` starts from (see ``_plan``)."""


class SamplingError(RulesError):
    """No world consistent with the view was found (the view contradicts the rules, or the
    tries ran out)."""


class Knowledge:
    """What a seat knows about the hidden hands, as constraints on each other seat's hand now."""

    __slots__ = ("_plan", "counts", "forbid", "must", "own", "played_by", "pool", "seat")

    def __init__(
        self,
        *,
        seat: int,
        own: list[Card],
        counts: list[int],
        must: list[list[Card]],
        forbid: list[int],
        pool: list[Card],
        played_by: list[list[Card]],
    ) -> None:
        self.seat = seat
        self.own = own
        """The seat's own hand now (faces)."""
        self.counts = counts
        """Cards each seat holds now (the seat's own count included)."""
        self.must = must
        """Per seat: faces it is known to hold now (a face twice: both copies)."""
        self.forbid = forbid
        """Per seat: a mask of faces it cannot hold now."""
        self.pool = pool
        """The hidden cards (faces, a double-deck face twice when both copies are hidden)."""
        self.played_by = played_by
        """Per seat: the faces it played this round, in order."""
        self._plan: _Plan | None = None

    def plan(self) -> _Plan:
        """What ``sample_hidden`` deals from (see ``_plan``), found on its first deal: a bot
        deals many worlds from one ``Knowledge``."""
        if self._plan is None:
            self._plan = _plan(self)
        return self._plan

    def admits(self, hidden: Sequence[Sequence[Card]]) -> bool:
        """Whether the hidden hands (faces by seat; the own seat's entry is ignored) meet every
        constraint: sizes, the cards each must hold, the cards none may hold, the pool."""
        dealt: Counter[Card] = Counter()
        for s, hand in enumerate(hidden):
            if s == self.seat:
                continue
            held = Counter(c & 63 for c in hand)
            if len(hand) != self.counts[s] or Counter(self.must[s]) - held:
                return False
            if any(self.forbid[s] >> face & 1 for face in held):
                return False
            dealt += held
        return dealt == Counter(self.pool)


def knowledge(deck: Deck, view: SeatView) -> Knowledge:
    """The constraints ``view`` puts on the other hands (see the module docstring)."""
    n = view.players
    me = view.seat
    rules = deck.rules
    own = [parse_card(c) for c in view.hand]
    history: list[tuple[int, list[Card]]] = [(t.leader, [parse_card(c) for c in t.cards]) for t in view.tricks]
    if view.trick:
        history.append((view.trick_leader, [parse_card(c) for c in view.trick]))
    played_by: list[list[Card]] = [[] for _ in range(n)]
    for leader, cards in history:
        for i, card in enumerate(cards):
            played_by[(leader + i) % n].append(card)
    before_exchange = view.phase == PASS
    counts = [deck.hand_size - len(played) for played in played_by]
    counts[me] = len(own)
    pool_count = Counter(_deck_faces(deck))
    pool_count.subtract(own)
    for played in played_by:
        pool_count.subtract(played)
    if any(v < 0 for v in pool_count.values()):
        raise SamplingError("the view holds or plays more copies of a card than the deck has")
    pool = sorted(pool_count.elements())
    must: list[list[Card]] = [[] for _ in range(n)]
    forbid = [0] * n
    offset = deck.pass_offset(view.pass_direction) if rules.pass_count else 0
    if view.passed and offset and not before_exchange:
        receiver = (me + offset) % n
        left = Counter(parse_card(c) for c in view.passed)
        left.subtract(played_by[receiver])
        must[receiver] += sorted(left.elements())
    if not before_exchange:
        _forbid_from_play(deck, view, history, forbid)
        lead = deck.lead_card
        if lead is not None and not history and view.phase == "play" and view.turn not in (-1, me):
            if lead & 63 not in must[view.turn]:  # not when the seat passed it there (known once)
                must[view.turn].append(lead & 63)
            for i in range(n):
                seat = (view.dealer + 1 + i) % n
                if seat == view.turn:
                    break
                forbid[seat] |= 1 << (lead & 63)
    return Knowledge(seat=me, own=own, counts=counts, must=must, forbid=forbid, pool=pool, played_by=played_by)


@functools.lru_cache(maxsize=64)
def _deck_faces(deck: Deck) -> Mapping[Card, int]:
    """By face, how many copies the deck holds (read, never changed: ``knowledge`` counts a
    copy of it down)."""
    return dict(Counter(c & 63 for c in deck.cards))


def _faces(mask: int) -> int:
    return (mask | mask >> 64) & ((1 << 64) - 1)


def _forbid_from_play(deck: Deck, view: SeatView, history: list[tuple[int, list[Card]]], forbid: list[int]) -> None:
    """Add to ``forbid`` what each play of another seat shows it no longer holds."""
    rules = deck.rules
    n = view.players
    suits = [_faces(m) for m in deck.suit_masks]
    every = _faces(deck.full_mask)
    penalty = _faces(deck.penalty_mask)
    non_penalty = every & ~penalty
    non_hearts = every & ~suits[HEARTS]
    breaker = _faces(deck.breaker_mask)
    ftnp = rules.first_trick_no_points
    queen_penalty = bool(penalty >> _QS & 1)
    broken = rules.hearts_lead == "any_time"
    for number, (leader, cards) in enumerate(history):
        first = number == 0
        led = (cards[0] >> 4) & 3
        for i, card in enumerate(cards):
            seat = (leader + i) % n
            bit = 1 << card
            if seat != view.seat:
                none = 0  # faces the seat's hand held none of when it played
                is_penalty = bool(penalty & bit)
                if i == 0:
                    if not (first and deck.lead_card is not None):
                        domain = every
                        if not broken:
                            if suits[HEARTS] & bit:
                                none |= non_hearts
                            else:
                                domain = non_hearts
                        if first and ftnp and is_penalty:
                            none |= domain & non_penalty
                else:
                    queen_held_back = not (first and ftnp and not is_penalty and queen_penalty)
                    if suits[led] & bit:
                        if first and ftnp and is_penalty:
                            none |= suits[led] & non_penalty
                        drop = rules.queen_must_drop and led == SPADES and card != _QS and queen_held_back
                        beaten = any(c >> 4 & 3 == SPADES and c & 15 > QUEEN for c in cards[:i])
                        if drop and beaten and not deck.double:
                            none |= 1 << _QS
                    else:
                        none |= suits[led]
                        if first and ftnp and is_penalty:
                            none |= non_penalty
                        if rules.queen_must_drop and card != _QS and queen_held_back:
                            none |= 1 << _QS
                forbid[seat] |= none
            if breaker & bit:
                broken = True


def replay(deck: Deck, view: SeatView, hands: Sequence[Sequence[Card]]) -> Round:
    """The round at ``view``'s point, replayed from ``hands``: each seat's cards (faces) as the
    round's play began (after passing; before it, in the pass phase, as dealt). Raises
    ``IllegalMove`` when a declaration or play of the view's history is illegal with these
    hands, ``SamplingError`` when the replay ends elsewhere than the view (another trick
    winner, another seat to act, other hands)."""
    n = view.players
    masks = _masks(deck, hands)
    if view.phase == PASS:
        round_ = Round(deck, masks, view.dealer, view.pass_direction, view.match_phase)
        if view.passed is not None:
            round_.pass_cards(view.seat, [parse_card(c) for c in view.passed])
        return round_
    round_ = Round(deck, masks, view.dealer, "hold", view.match_phase)
    if deck.rules.declarations:
        for i in range(n):
            seat = (view.dealer + 1 + i) % n
            made = view.declared[seat]
            if made is None:
                break
            round_.declare(seat, made)
    for number, trick in enumerate(view.tricks):
        for i, code in enumerate(trick.cards):
            round_.play((trick.leader + i) % n, parse_card(code))
        done = round_.tricks[number]
        if done.winner != trick.winner or done.points != trick.points:
            raise SamplingError(f"trick {number} ends otherwise in this world")
    for i, code in enumerate(view.trick):
        round_.play((view.trick_leader + i) % n, parse_card(code))
    if round_.phase != view.phase or (view.turn >= 0 and round_.turn != view.turn):
        raise SamplingError("the replay reaches another phase or turn")
    if sorted(c & 63 for c in round_.hand(view.seat)) != sorted(parse_card(c) for c in view.hand):
        raise SamplingError("the replay leaves the seat another hand")
    if round_.points != view.points_taken or round_.broken != view.hearts_broken:
        raise SamplingError("the replay reaches other points or hearts")
    return round_


def _masks(deck: Deck, hands: Sequence[Sequence[Card]]) -> list[int]:
    """Hands of faces as masks of card ids, each face's copies handed out in deck order."""
    copies = _copy_bits(deck)
    given: dict[Card, int] = {}
    masks: list[int] = []
    for hand in hands:
        mask = 0
        for card in hand:
            face = card & 63
            k = given.get(face, 0)
            bits = copies.get(face, ())
            if k >= len(bits):
                raise SamplingError("a world deals a card more often than the deck holds it")
            given[face] = k + 1
            mask |= bits[k]
        masks.append(mask)
    return masks


@functools.lru_cache(maxsize=64)
def _copy_bits(deck: Deck) -> Mapping[Card, tuple[int, ...]]:
    """By face: the bits (``1 << id``) of its copies in the deck, in deck order (built once per
    deck: a sampled world reads it for every card)."""
    copies: dict[Card, tuple[int, ...]] = {}
    for card in deck.cards:
        copies[card & 63] = (*copies.get(card & 63, ()), 1 << card)
    return copies


def start_hands(round_: Round) -> list[list[Card]]:
    """The true hands (faces) as play began, or as dealt while passing: what ``replay`` takes
    to reach ``round_`` again (the true deal is always one of the possible worlds)."""
    if round_.phase == PASS:
        return [[c & 63 for c in cards_of(m)] for m in round_.dealt]
    n = round_.deck.players
    hands = [[c & 63 for c in round_.hand(s)] for s in range(n)]
    for trick in [*round_.tricks]:
        for i, card in enumerate(trick.cards):
            hands[trick.seat_of(i, n)].append(card & 63)
    for i, card in enumerate(round_.trick):
        hands[(round_.leader + i) % n].append(card & 63)
    return hands


def sample_hidden(know: Knowledge, rng: random.Random, tries: int = 200) -> list[list[Card]]:
    """Deal the pool to the other seats under the constraints (the own seat gets its hand):
    the most constrained cards first, each to a seat with room, weighted by that room."""
    n = len(know.counts)
    me = know.seat
    dealt, allowed, choices = know.plan()
    free = list(dealt)
    for _ in range(tries):
        rng.shuffle(free)
        free.sort(key=choices.__getitem__)
        room = [know.counts[s] - len(know.must[s]) for s in range(n)]
        room[me] = 0
        if any(r < 0 for r in room):
            raise SamplingError("a seat must hold more cards than it has")
        hands = [list(know.must[s]) if s != me else list(know.own) for s in range(n)]
        for face in free:
            seats = [s for s in allowed[face] if room[s] > 0]
            if not seats:
                break
            if len(seats) == 1:
                seat = seats[0]
            else:
                pick = rng.randrange(sum([room[s] for s in seats]))
                for seat in seats:
                    pick -= room[seat]
                    if pick < 0:
                        break
            hands[seat].append(face)
            room[seat] -= 1
        else:
            return hands
    raise SamplingError(f"no deal of the hidden cards meets the constraints in {tries} tries")


def _plan(know: Knowledge) -> _Plan:
    """What every deal of ``sample_hidden`` starts from: the hidden cards no seat is known to
    hold (faces, in pool order), by face the seats that may hold it, and how many those are."""
    others = [s for s in range(len(know.counts)) if s != know.seat]
    rest: dict[Card, int] = {}
    for face in know.pool:
        rest[face] = rest.get(face, 0) + 1
    for s in others:
        for face in know.must[s]:
            rest[face] = rest.get(face, 0) - 1
    if any(v < 0 for v in rest.values()):
        raise SamplingError("a seat must hold a card that is not hidden")
    free = tuple(chain.from_iterable(map(repeat, rest, rest.values())))  # as Counter.elements
    allowed: dict[Card, list[int]] = {face: [] for face in rest}
    for s in others:  # seat by seat, so each list is in seat order
        forbid = know.forbid[s]
        for face, seats in allowed.items():
            if not forbid >> face & 1:
                seats.append(s)
    return free, allowed, {face: len(seats) for face, seats in allowed.items()}


def sample_round(deck: Deck, view: SeatView, rng: random.Random, tries: int = 200) -> Round:
    """A world consistent with ``view``: the round at the view's point, with the hidden cards
    dealt at random under every constraint the view shows, replayed and checked (see the
    module docstring). Raises ``SamplingError`` when ``tries`` deals all fail."""
    know = knowledge(deck, view)
    return sample_round_from(deck, view, know, rng, tries)


def sample_round_from(deck: Deck, view: SeatView, know: Knowledge, rng: random.Random, tries: int = 200) -> Round:
    """``sample_round`` with the knowledge computed once (a bot samples many worlds per
    decision). At most ``tries`` deals are drawn and replayed, so a view no world fits costs
    a bounded time (a few milliseconds) before ``SamplingError``."""
    for _ in range(tries):  # each try: one deal (a dead end counts) and its replay
        try:
            hidden = sample_hidden(know, rng, 1)
            hands = [hand + know.played_by[s] for s, hand in enumerate(hidden)]
            return replay(deck, view, hands)
        except (IllegalMove, SamplingError):
            continue
    raise SamplingError(f"no world consistent with the view in {tries} tries")


__all__ = [
    "Knowledge",
    "SamplingError",
    "knowledge",
    "replay",
    "sample_hidden",
    "sample_round",
    "sample_round_from",
    "start_hands",
]
