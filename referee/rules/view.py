"""What one seat may know: the public view of a round, as a player at a real table sees it.

A ``SeatView`` holds the seat's own hand, its own pass and (once every seat has passed) what it
received, the declarations made so far, every card played, each trick's winner and points,
and the points each seat has taken. It holds nothing of the other hands. The referee builds
the messages it sends a bot from this view only, so a leak would have to be written here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

from protocol.cards import COPY_STRIDE, card_code
from protocol.ruleset import PassDirection
from referee.rules.cardset import cards_of
from referee.rules.round import DONE, PASS, PLAY, Round


class TrickView(msgspec.Struct, frozen=True):
    """A completed trick as everyone saw it."""

    leader: int
    cards: list[str]
    winner: int | None
    points: int


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """Everything ``seat`` knows about the current round, with cards as wire codes."""

    seat: int
    players: int
    dealer: int
    match_phase: int
    phase: str
    pass_direction: PassDirection
    hand: list[str]
    passed: list[str] | None
    """The cards this seat gave; ``None`` before it has passed (or in a round without passing)."""
    received: list[str] | None
    """The cards this seat got; ``None`` until every seat has passed."""
    declared: list[bool | None]
    """Per seat: the declaration made, ``None`` where none has been made yet."""
    tricks: list[TrickView]
    trick_leader: int
    trick: list[str]
    """Cards played to the current trick, from the leader on."""
    hearts_broken: bool
    points_taken: list[int]
    turn: int
    """The seat to act (-1 while passing or when the round is done)."""
    legal: list[str]
    """The legal plays when it is this seat's turn to play, else empty."""


def _code_or_empty(card: int) -> str:
    try:
        return card_code(card)
    except ValueError:
        return ""


_CODE: Final = tuple(_code_or_empty(card) for card in range(2 * COPY_STRIDE))
"""``card_code`` by card id ("" for an id that is no card: ``card_code`` then explains)."""


def _code_list(cards: Iterable[int]) -> list[str]:
    return [_CODE[c] or card_code(c) for c in cards]


def _codes(mask: int | None) -> list[str] | None:
    return None if mask is None else _code_list(cards_of(mask))


def seat_view(round_: Round, seat: int) -> SeatView:
    """The view of ``round_`` from ``seat``."""
    n = round_.deck.players
    exchanged = round_.phase != PASS
    own_turn = round_.phase == PLAY and round_.turn == seat
    return SeatView(
        seat=seat,
        players=n,
        dealer=round_.dealer,
        match_phase=round_.match_phase,
        phase=round_.phase,
        pass_direction=round_.pass_direction,
        hand=_code_list(round_.hand(seat)),
        passed=_codes(round_.passes[seat]),
        received=_codes(round_.received[seat]) if exchanged else None,
        declared=round_.declarations_made(),
        tricks=[TrickView(t.leader, _code_list(t.cards), t.winner, t.points) for t in round_.tricks],
        trick_leader=round_.leader,
        trick=_code_list(round_.trick),
        hearts_broken=round_.broken,
        points_taken=list(round_.points),
        turn=round_.turn if round_.phase not in (PASS, DONE) else -1,
        legal=_code_list(round_.legal_plays()) if own_turn else [],
    )
