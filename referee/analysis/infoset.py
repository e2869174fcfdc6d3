"""The decisions of a logged match, each seen from the deciding seat's information alone.

An ``InfoSet`` is what one seat knew at one decision: the engine's ``SeatView`` (its own hand,
its own pass and what it received, every card played, each trick's winner and points, the
declarations made) and the match scores before the round. It has no field that could hold
another seat's hand, so an estimate computed from it cannot read one: the honesty of the
analysis is a property of this type, and ``tests/analysis`` checks it by changing the unseen
hands of a match and getting the same figures.

``match_decisions`` walks a verified ``MatchRecord`` through the rules engine (the true hands
are needed to replay the round, and stay in the walk) and yields, for each decision of the
chosen seats, its ``InfoSet`` and what the seat chose.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, TypeAlias

import msgspec

from protocol.cards import parse_card
from protocol.ruleset import MoonChoice, RuleSet
from referee.replay.record import MatchRecord, RoundRecord
from referee.rules.deck import Deck, deck_for
from referee.rules.errors import IllegalMove
from referee.rules.match import hands_to_masks
from referee.rules.round import PASS, PLAY, Round
from referee.rules.view import SeatView, seat_view

Kind: TypeAlias = Literal["pass", "declare", "play", "moon"]
Phase: TypeAlias = Literal["pass", "lead", "follow", "discard", "declare", "moon"]
PHASES: tuple[Phase, ...] = ("pass", "lead", "follow", "discard", "declare", "moon")


class InfoSet(msgspec.Struct, frozen=True, kw_only=True):
    """What ``view.seat`` knew when it decided: nothing of the other hands."""

    rules: RuleSet
    view: SeatView
    scores: list[int]
    """Match scores before the round."""
    round: int
    rounds_played: int
    """Rounds scored before this one (redeals included): the match's progress."""
    kind: Kind


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """One decision of the log: the information it was made on and the choice made."""

    info: InfoSet
    chosen: str
    """A card code (``QS``); a pass: its codes sorted, joined by spaces; ``yes``/``no`` for
    a declaration; the moon choice's name."""
    phase: Phase
    trick: int | None
    fallback: bool
    """The referee made this move for the seat (a forfeit or an illegal move): not graded."""
    outcomes: dict[str, list[int]] | None = None
    """A moon choice: what each choice adds to every seat's match score (nothing is hidden
    then: the round is played, and the rules say what each choice does)."""


MOON_CHOICES: tuple[MoonChoice, ...] = ("add_to_others", "subtract_from_shooter")


def pass_text(cards: Sequence[str]) -> str:
    """A pass as one choice: its codes in card order, joined by spaces."""
    return " ".join(sorted(cards, key=parse_card))


class _Walk:
    """One round replayed from its record, the decisions of ``seats`` yielded as it goes."""

    def __init__(self, record: MatchRecord, deck: Deck, rec: RoundRecord, scores: list[int], seats: set[int]) -> None:
        self.record, self.deck, self.rec, self.scores, self.seats = record, deck, rec, scores, seats
        masks = hands_to_masks(deck, [[parse_card(c) for c in hand] for hand in rec.hands])
        self.round = Round(deck, masks, rec.dealer, rec.pass_direction, rec.match_phase)  # type: ignore[arg-type]

    def info(self, seat: int, kind: Kind) -> InfoSet:
        return InfoSet(
            rules=self.record.rules,
            view=seat_view(self.round, seat),
            scores=list(self.scores),
            round=self.rec.round,
            rounds_played=self.rec.round,
            kind=kind,
        )

    def decisions(self) -> Iterator[Decision]:
        round_, rec = self.round, self.rec
        if round_.phase == PASS:
            for p in rec.passes:
                if p.seat in self.seats:
                    chosen = pass_text(p.cards)
                    yield Decision(
                        info=self.info(p.seat, "pass"), chosen=chosen, phase="pass", trick=None, fallback=p.fallback
                    )
                round_.pass_cards(p.seat, [parse_card(c) for c in p.cards])
        for d in rec.declarations:
            if d.seat in self.seats:
                chosen = "yes" if d.declared else "no"
                yield Decision(
                    info=self.info(d.seat, "declare"), chosen=chosen, phase="declare", trick=None, fallback=d.fallback
                )
            round_.declare(d.seat, d.declared)
        for trick in rec.tricks:
            for play in trick.plays:
                if play.seat in self.seats and round_.phase == PLAY:
                    yield self._play(play.seat, play.card, play.fallback, trick.number)
                round_.play(play.seat, parse_card(play.card))
        if rec.moon is not None and rec.moon.seat in self.seats:
            info = self.info(rec.moon.seat, "moon")
            outcomes: dict[str, list[int]] | None = {}
            try:
                for choice in MOON_CHOICES:
                    after = self.round.copy()
                    after.choose_moon(rec.moon.seat, choice)
                    assert after.result is not None and outcomes is not None
                    outcomes[choice] = list(after.result.score_changes)
            except IllegalMove:  # the rules do not replay this round to its moon: not analysed
                outcomes = None
            yield Decision(info=info, chosen=rec.moon.choice, phase="moon", trick=None, fallback=rec.moon.fallback,
                           outcomes=outcomes)  # fmt: skip

    def _play(self, seat: int, card: str, fallback: bool, number: int) -> Decision:
        round_ = self.round
        if not round_.trick:
            phase: Phase = "lead"
        else:
            led = (round_.trick[0] >> 4) & 3
            phase = "follow" if round_.hands[seat] & self.deck.suit_masks[led] else "discard"
        return Decision(info=self.info(seat, "play"), chosen=card, phase=phase, trick=number, fallback=fallback)


def match_decisions(record: MatchRecord, seats: Sequence[int]) -> Iterator[Decision]:
    """Every decision of ``seats`` in a verified match, in the order made."""
    deck = deck_for(record.rules)
    scores = [0] * record.rules.players
    chosen = set(seats)
    for rec in record.rounds:
        if rec.result is None:
            break  # the log ends in this round
        yield from _Walk(record, deck, rec, scores, chosen).decisions()
        scores = list(rec.scores or scores)


def deal_views(record: MatchRecord, seat: int) -> Iterator[tuple[int, list[int], SeatView, SeatView | None, int]]:
    """Per finished round: its number, the scores before it, ``seat``'s view as dealt (before
    its pass), its view once play begins (``None`` in a round ended before), and the points
    the round gave it."""
    deck = deck_for(record.rules)
    scores = [0] * record.rules.players
    for rec in record.rounds:
        if rec.result is None:
            break
        walk = _Walk(record, deck, rec, scores, set())
        dealt = seat_view(walk.round, seat)
        for p in rec.passes if walk.round.phase == PASS else ():
            walk.round.pass_cards(p.seat, [parse_card(c) for c in p.cards])
        start = seat_view(walk.round, seat) if walk.round.phase != PASS else None
        yield rec.round, list(scores), dealt, start, rec.result.score_changes[seat]
        scores = list(rec.scores or scores)
