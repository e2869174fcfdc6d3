"""What a seat is told: every event and request of a match, built from the engine's state.

One function per message type, and the only place each is built, so the match runner (which
sends them), the conformance check's scripted table (which sends them to one bot), the replay
verifier (which checks that a log holds them) and the tests' tables cannot drift apart. A
request takes its ``id`` and ``time`` from the caller: they belong to the connection and the
clock, not to the rules. Built from a ``Round`` as it is when the message is sent: a request
before the seat's decision is applied, an event after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from protocol.cards import CODES, Card
from protocol.messages import (
    CardPlayed,
    Declared,
    DeclareRequest,
    Error,
    MatchEnd,
    MatchStart,
    MoonRequest,
    Passed,
    PassRequest,
    Player,
    PlayRequest,
    RoundEnd,
    RoundStart,
    SeatOutcome,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import MoonChoice, RuleSet
from referee.rules.errors import IllegalMove
from referee.rules.match import Match
from referee.rules.round import Round
from referee.rules.scoring import RoundResult
from referee.rules.wire import codes_of

MOON_OPTIONS: Final[tuple[MoonChoice, ...]] = ("add_to_others", "subtract_from_shooter")
"""Every way of scoring a moon, as a ``moon_request`` offers them."""


def _codes(cards: Sequence[Card]) -> list[str]:
    """Wire codes of card ids the engine gave (all cards: no check needed on this hot path)."""
    return [CODES[c] for c in cards]


def _pass_offset(round_: Round) -> int:
    return round_.deck.pass_offset(round_.pass_direction)


# -- the match ---------------------------------------------------------------------------------
def match_start(match_id: str, seat: int, names: Sequence[str], rules: RuleSet, time: TimeControl) -> MatchStart:
    """The ``match_start`` of ``seat``: the players by seat (``names``), the rules and the clock."""
    players = [Player(seat=s, name=name) for s, name in enumerate(names)]
    return MatchStart(match_id=match_id, seat=seat, players=players, rules=rules, time=time)


def match_end(match: Match, match_id: str, seats: Sequence[SeatOutcome], reason: str | None = None) -> MatchEnd:
    """The ``match_end`` event: the match's own end, or ``reason`` when it ended otherwise
    (``all_bots_dropped``, ``interrupted``; a match not over without a reason is
    ``interrupted``, and then nobody wins). A dropped seat (its outcome not ``ok``) cannot win:
    when every winner was dropped, the live seats with the best score win."""
    scores = list(match.scores)
    if reason is None and match.result is not None:
        reason = match.result.reason
        live = [outcome.seat for outcome in seats if outcome.status == "ok"]
        winners = [w for w in match.result.winners if w in live]
        if not winners:
            best = min((scores[i] for i in live), default=0)
            winners = [i for i in live if scores[i] == best]
    else:
        reason = reason or "interrupted"
        winners = []
    return MatchEnd(
        match_id=match_id, scores=scores, winners=winners, reason=reason, rounds=len(match.results), seats=list(seats)
    )


# -- a round -----------------------------------------------------------------------------------
def round_start(round_: Round, seat: int, number: int, scores: Sequence[int]) -> RoundStart:
    """The ``round_start`` of round ``number`` for ``seat``: the hand it holds now (the dealt
    hand, or the current one when a reconnected bot is told the round again) and the match
    ``scores`` before the round."""
    offset = _pass_offset(round_)
    return RoundStart(
        round=number,
        dealer=round_.dealer,
        hand=_codes(round_.hand(seat)),
        pass_direction=round_.pass_direction,
        pass_count=0 if offset == 0 else round_.deck.rules.pass_count,
        pass_to=None if offset == 0 else (seat + offset) % round_.deck.players,
        match_phase=round_.match_phase,
        scores=list(scores),
    )


def round_end(number: int, result: RoundResult, scores: Sequence[int], next_phase: int) -> RoundEnd:
    """The ``round_end`` event of round ``number``: its result and the scores after it."""
    return RoundEnd(
        round=number,
        points_taken=result.points_taken,
        score_changes=result.score_changes,
        scores=list(scores),
        moon=result.moon,
        moon_scoring=result.moon_scoring,
        declared=result.declared,
        declaration_success=result.declaration_success,
        revoke=result.revoke,
        match_phase=result.match_phase,
        next_match_phase=next_phase,
    )


# -- passing -----------------------------------------------------------------------------------
def pass_request(round_: Round, seat: int, rid: int, time: TimeLeft) -> PassRequest:
    """``seat``'s ``pass_request``: its hand to choose from, and where the cards go."""
    return PassRequest(
        id=rid,
        count=round_.deck.rules.pass_count,
        legal=_codes(round_.legal_passes(seat)),
        to_seat=(seat + _pass_offset(round_)) % round_.deck.players,
        time=time,
    )


def passed(round_: Round, seat: int) -> Passed:
    """``seat``'s ``passed`` event once every seat has passed: given, received, the new hand."""
    offset = _pass_offset(round_)
    n = round_.deck.players
    return Passed(
        given=codes_of(round_.passes[seat] or 0),
        to_seat=(seat + offset) % n,
        received=codes_of(round_.received[seat] or 0),
        from_seat=(seat - offset) % n,
        hand=_codes(round_.hand(seat)),
    )


# -- declarations ------------------------------------------------------------------------------
def declare_request(round_: Round, rid: int, time: TimeLeft) -> DeclareRequest:
    """The ``declare_request`` of the seat to declare (the earlier seats' decisions in it)."""
    points = round_.deck.rules.declaration_points
    return DeclareRequest(id=rid, declarations=round_.declarations_made(), points=points, time=time)


def declared(seat: int, declare: bool) -> Declared:
    """The ``declared`` event: ``seat`` made its declaration."""
    return Declared(seat=seat, declared=declare)


# -- play --------------------------------------------------------------------------------------
def play_request(round_: Round, rid: int, time: TimeLeft) -> PlayRequest:
    """The ``play_request`` of the seat to play: every legal card, the trick so far."""
    return PlayRequest(
        id=rid,
        legal=_codes(round_.legal_plays()),
        trick=_codes(round_.trick),
        leader=round_.leader,
        trick_number=round_.trick_number,
        hearts_broken=round_.broken,
        time=time,
    )


def card_played(seat: int, card: Card, trick_number: int) -> CardPlayed:
    """The ``card_played`` event: ``seat`` played ``card`` to trick ``trick_number``."""
    return CardPlayed(seat=seat, card=CODES[card], trick_number=trick_number)


def trick_end(round_: Round, number: int) -> TrickEnd | None:
    """The ``trick_end`` event of trick ``number`` if the card just played completed it,
    else ``None``."""
    if round_.trick_number == number:
        return None
    done = round_.tricks[-1]
    return TrickEnd(
        trick_number=number, leader=done.leader, cards=_codes(done.cards), winner=done.winner, points=done.points
    )


def moon_request(round_: Round, rid: int, time: TimeLeft) -> MoonRequest:
    """The shooter's ``moon_request``: every way of scoring the moon, and its worth."""
    return MoonRequest(id=rid, options=list(MOON_OPTIONS), points=round_.deck.moon_points, time=time)


def illegal_move(error: IllegalMove, request_id: int | None) -> Error:
    """What a seat is told when the match's policy forgives its illegal reply to request
    ``request_id`` (the round then ends with the revoke penalty, or the fallback plays for it):
    the rule broken, by name and in a sentence; not fatal."""
    return Error(code="illegal_move", message=error.message, fatal=False, rule=error.rule, request_id=request_id)
