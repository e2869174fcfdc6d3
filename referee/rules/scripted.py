"""A whole match driven synchronously through the round's machine (``turns.py``), every seat
answered at once by a function: the table that the rules' vectors (``vectors.py``) and the
tests' table driver play on. There is no clock and no process: a reply the machine refuses is a
bug of the function, raised as ``RefusedReply``, never a fault to forgive.

The referee's match (over trio), the replay verifier and the check each drive the machine in
their own way (a seat may time out, a log line may disagree, the bot under check is a process);
these two drive it the same way, so they share this one loop.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from protocol.messages import RefereeMessage, SeatOutcome, TimeControl
from referee.rules import telling
from referee.rules.match import Match
from referee.rules.round import Round
from referee.rules.scoring import RoundResult
from referee.rules.turns import Ask, AskAll, Fallback, Illegal, Reply, RoundTurns, Tell

Answer = Callable[[Ask, int, Round], Reply]
"""A seat's reply to the machine's ``Ask`` (given the request's id and the round)."""
Told = Callable[[int | None, RefereeMessage], None]
"""A message for one seat, or for every seat (``None``)."""


class RefusedReply(AssertionError):
    """The machine refused a scripted reply (``Illegal`` or ``Fallback``): the script is wrong."""


def play_round(round_: Round, answer: Answer, tell: Told, ids: Callable[[], int]) -> None:
    """One round through the machine: each request answered by ``answer`` (the requests of a
    simultaneous phase in seat order, before the machine hears any), each message told."""
    turns = RoundTurns(round_, lambda seat: True, records=False)
    while (event := turns.event) is not None:
        if isinstance(event, AskAll):
            turns.answer({one.seat: answer(one, ids(), round_) for one in event.asks})
        elif isinstance(event, Ask):
            turns.answer(answer(event, ids(), round_))
        elif isinstance(event, Tell):
            tell(event.seat, event.message)
            turns.next()
        elif isinstance(event, (Illegal, Fallback)):
            raise RefusedReply(f"the machine refused a scripted reply: {event}")
        else:
            turns.next()


def play_scripted(
    match: Match,
    names: Sequence[str],
    match_id: str,
    answer: Answer,
    tell: Told,
    *,
    clock: TimeControl,
    max_rounds: int | None = None,
    on_round: Callable[[RoundResult], None] | None = None,
) -> int:
    """Play ``match`` (new) to its end: the messages of its start, of each round (``play_round``)
    and of its end told, every request answered by ``answer`` (``match.scores`` are the scores
    before the round being played); at most ``max_rounds`` rounds (a match cut short ends as
    ``interrupted``, as a referee's would). ``on_round``: called with each round's result once
    it is recorded, before its end is told. The number of rounds played."""
    rules = match.rules
    ids = itertools.count(1).__next__
    for seat in range(rules.players):
        tell(seat, telling.match_start(match_id, seat, list(names), rules, clock))
    number = 0
    while not match.over and (max_rounds is None or number < max_rounds):
        round_ = match.next_round()
        scores = list(match.scores)
        for seat in range(rules.players):
            tell(seat, telling.round_start(round_, seat, number, scores))
        play_round(round_, answer, tell, ids)
        result = match.record(round_)
        if on_round is not None:
            on_round(result)
        tell(None, telling.round_end(number, result, match.scores, match.phase))
        number += 1
    outcomes = [SeatOutcome(seat=s, name=name, status="ok") for s, name in enumerate(names)]
    tell(None, telling.match_end(match, match_id, outcomes))
    return number
