"""A whole match driven synchronously through the match's machine (``match_turns.py``), every seat
answered at once by a function: the table that the rules' vectors (``vectors.py``) and the
tests' table driver play on. There is no clock and no process: a reply the machine refuses is a
bug of the function, raised as ``RefusedReply``, never a fault to forgive.

The referee's match (over trio), the replay verifier and the check drive the same machine in
their own way (a seat may time out, a log line may disagree, the bot under check is a process);
these two drive it the same way, so they share this one loop.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from protocol.messages import RefereeMessage, SeatOutcome, TimeControl
from referee.rules import telling
from referee.rules.match import Match
from referee.rules.match_turns import Dealing, MatchTurns, Outcomes, Scored
from referee.rules.round import Round
from referee.rules.scoring import RoundResult
from referee.rules.turns import Ask, AskAll, FallbackMove, Illegal, IllegalPolicy, Reply, Tell

Answer = Callable[[Ask, int, Round], Reply]
"""A seat's reply to the machine's ``Ask`` (given the request's id and the round)."""
Told = Callable[[int | None, RefereeMessage], None]
"""A message for one seat, or for every seat (``None``)."""


class RefusedReply(AssertionError):
    """The machine refused a scripted reply (``Illegal`` or ``FallbackMove``): the script is wrong."""


def play_scripted(
    match: Match,
    names: Sequence[str],
    match_id: str,
    answer: Answer,
    tell: Told,
    *,
    clock: TimeControl,
    max_rounds: int | None = None,
    max_tricks: int | None = None,
    on_round: Callable[[RoundResult], None] | None = None,
    policy: IllegalPolicy | None = None,
) -> int:
    """Play ``match`` (new) to its end through the match's machine (``match_turns``): every
    message told, every request answered by ``answer`` (the requests of a simultaneous phase in
    seat order, before the machine hears any; ``match.scores`` are the scores before the round
    being played); at most ``max_rounds`` rounds, the last of them cut after ``max_tricks`` tricks
    (a match cut short ends as ``interrupted``, as a referee's would). ``on_round``: called with
    each round's result once recorded, before its end is told. ``policy`` ``penalty``: an illegal
    reply is told its ``error`` and ends the round (else it is the script's bug, ``RefusedReply``)."""
    ids = itertools.count(1).__next__
    penalties: dict[int, int] = {}
    turns = MatchTurns(
        match,
        match_id,
        names=names,
        clock=clock,
        active=lambda seat: True,
        policy=policy or IllegalPolicy("forfeit", 0),
        records=False,
    )
    rounds = 0
    while (event := turns.event) is not None:
        if _cut_here(event, match, max_rounds, max_tricks, rounds):
            turns.interrupt()  # ``interrupted``, the round in play unscored, as a referee stopped by a signal
        elif isinstance(event, Dealing):
            turns.answer(None)
        elif isinstance(event, AskAll):
            round_ = _current(match)
            turns.answer({one.seat: answer(one, ids(), round_) for one in event.asks})
        elif isinstance(event, Ask):
            turns.answer(answer(event, ids(), _current(match)))
        elif isinstance(event, Tell):
            tell(event.seat, event.message)
            turns.next()
        elif isinstance(event, Illegal) and event.action == "penalty":
            tell(event.seat, telling.illegal_move(event.error, event.reply.id))
            penalties[event.seat] = penalties.get(event.seat, 0) + 1
            turns.answer(event.action)
        elif isinstance(event, (Illegal, FallbackMove)):
            raise RefusedReply(f"the machine refused a scripted reply: {event}")
        elif isinstance(event, Outcomes):
            turns.answer(_seat_outcomes(names, penalties))
        else:
            if isinstance(event, Scored):
                rounds += 1
                if on_round is not None:
                    on_round(event.result)
            turns.next()
    return rounds


def _seat_outcomes(names: Sequence[str], penalties: dict[int, int]) -> list[SeatOutcome]:
    """Every seat ``ok`` (none is dropped here), with the revoke penalties it was given."""
    return [SeatOutcome(seat=s, name=name, status="ok", penalties=penalties.get(s, 0)) for s, name in enumerate(names)]


def _cut_here(event: object, match: Match, max_rounds: int | None, max_tricks: int | None, scored: int) -> bool:
    """Whether the match is cut short at ``event``, after ``scored`` rounds: the deal of a round
    past ``max_rounds``, or a play request once ``max_tricks`` tricks of the last are played."""
    if isinstance(event, Dealing):
        return max_rounds is not None and event.number >= max_rounds and not match.over
    last = scored == (max_rounds or 1) - 1
    trick = _current(match).trick_number if isinstance(event, Ask) and event.decision == "play" else -1
    return max_tricks is not None and last and trick >= max_tricks


def _current(match: Match) -> Round:
    assert match.current is not None  # an Ask comes only inside a dealt round
    return match.current
