"""A whole match as one sans-I/O machine: the deal, every round's decisions, the scores, every
way a match ends, and the result, with no clock, socket or log in it.

Above the round it was written four times (the referee's match, the replay verifier, the check's
table, the scripted loop of the vectors and the tests), each dealing, telling the start of the
match and of each round, recording, telling the round's end and deciding when to stop in its
own words; the rule that ends a match when every bot has dropped lived twice, and the
illegal-move policy (forgive up to the cap) was decided by the match and re-derived by the
replay. Here it is one generator of events, the round's machine (``turns.py``) inside it, and
each driver only does I/O around it: the match over trio, the verifier against the log, the
check answering its scripted seats, the vectors answering every seat by a function.

The events of the round's machine pass through unchanged; the match adds:

- ``Dealing(number)``: answer with the hands to deal (card ids by seat) or ``None`` for the
  seed's deal (a log's deals, a check's crafted hands);
- ``Dealt(number, round)``: the round is dealt (``Tell``\\ s of its ``round_start`` follow);
- ``Scored(number, result, scores)``: the round is scored (its ``round_end`` is told next, then
  ``Settled("round")``);
- ``Outcomes(reason)``: the match ends (``reason``: ``None`` for its own end, else
  ``all_bots_dropped`` or ``interrupted``): answer with each seat's ``SeatOutcome``;
- ``Ended(end)``: the ``match_end`` told to every seat just before; the machine is done.

An illegal move meets the policy here (``IllegalPolicy``): the ``Illegal`` event carries the
action the policy takes, and the driver answers with it once it has done its part (told the
bot, logged the fault, dropped a forfeited seat). Only a replay of an old log, whose header
lacks the cap, answers with the log's own action (``action`` is then ``None``).

A driver that answers out of turn gets ``MachineMisuse``, named as h11's ``LocalProtocolError``
is, never an ``assert``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Literal, TypeAlias

import msgspec

from protocol.messages import MatchEnd, SeatOutcome, TimeControl
from referee.rules import telling
from referee.rules.errors import MachineMisuse
from referee.rules.match import Match
from referee.rules.round import Round
from referee.rules.scoring import RoundResult
from referee.rules.turns import Event, IllegalPolicy, Settled, Tell, round_turns

EndOverride: TypeAlias = Literal["all_bots_dropped", "interrupted"]


class Dealing(msgspec.Struct, frozen=True, gc=False):
    """Round ``number`` is to be dealt: answer with the hands (card ids by seat) or ``None``."""

    number: int


class Dealt(msgspec.Struct, frozen=True, gc=False):
    number: int
    round: Round


class Scored(msgspec.Struct, frozen=True, gc=False):
    number: int
    result: RoundResult
    scores: list[int]
    """The match scores after the round."""


class Outcomes(msgspec.Struct, frozen=True, gc=False):
    """The match ends: answer with every seat's ``SeatOutcome`` (its status, its forgiven moves)."""

    reason: EndOverride | None


class Ended(msgspec.Struct, frozen=True, gc=False):
    end: MatchEnd


MatchEvent: TypeAlias = Event | Dealing | Dealt | Scored | Outcomes | Ended
MatchTurnsGen: TypeAlias = Generator[MatchEvent, object, None]


def match_turns(
    match: Match,
    match_id: str,
    *,
    names: Sequence[str],
    clock: TimeControl,
    active: Callable[[int], bool],
    policy: IllegalPolicy,
    records: bool = True,
) -> MatchTurnsGen:
    """Every event of ``match`` (new) from its start to its end (see the module docstring)."""
    players = match.rules.players
    for seat in range(players):
        yield Tell(seat, telling.match_start(match_id, seat, list(names), match.rules, clock))
    reason: EndOverride | None = None
    while not match.over:
        if not any(active(s) for s in range(players)):
            reason = "all_bots_dropped"
            break
        yield from _round(match, active, policy, records)
    yield from ending(match, match_id, reason)


def _round(match: Match, active: Callable[[int], bool], policy: IllegalPolicy, records: bool) -> MatchTurnsGen:
    number = len(match.results)
    hands = yield Dealing(number)
    if hands is not None and not isinstance(hands, Sequence):
        raise MachineMisuse(f"a Dealing is answered with hands by seat or None, not {hands!r}")
    round_ = match.next_round(hands)
    yield Dealt(number, round_)
    scores = list(match.scores)
    for seat in range(match.rules.players):
        yield Tell(seat, telling.round_start(round_, seat, number, scores))
    try:
        yield from round_turns(round_, active, records, policy)
    except Revoke as revoke:  # a check's scripted penalty: the round ends with it
        round_.apply_revoke(revoke.seat)
    result = match.record(round_)
    yield Scored(number, result, list(match.scores))
    yield Tell(None, telling.round_end(number, result, match.scores, match.phase))
    yield Settled("round")


class Revoke(Exception):
    """Thrown into the machine by ``MatchTurns.revoke``."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


def ending(match: Match, match_id: str, reason: EndOverride | None) -> MatchTurnsGen:
    """The end of the match: the seats' outcomes asked, ``match_end`` told, ``Ended``."""
    outcomes = yield Outcomes(reason)
    if not isinstance(outcomes, list) or not all(isinstance(o, SeatOutcome) for o in outcomes):
        raise MachineMisuse(f"Outcomes is answered with a list of SeatOutcome, not {outcomes!r}")
    end = telling.match_end(match, match_id, outcomes, reason)
    yield Tell(None, end)
    yield Ended(end)


class MatchTurns:
    """The machine of one match, one event at a time (``event``, ``answer``, ``next``, as
    ``RoundTurns``); ``interrupt`` ends it now, the round in play unscored."""

    def __init__(
        self,
        match: Match,
        match_id: str,
        *,
        names: Sequence[str],
        clock: TimeControl,
        active: Callable[[int], bool],
        policy: IllegalPolicy,
        records: bool = True,
    ) -> None:
        self.match, self.match_id = match, match_id
        self._turns = match_turns(
            match, match_id, names=names, clock=clock, active=active, policy=policy, records=records
        )
        self.event: MatchEvent | None = next(self._turns)

    def next(self) -> MatchEvent | None:
        """Step past the current event (one that asks for nothing)."""
        return self.answer(None)

    def answer(self, value: object) -> MatchEvent | None:
        """Give the current event what it asks for and step to the next one."""
        try:
            self.event = self._turns.send(value)
        except StopIteration:
            self.event = None
        return self.event

    def revoke(self, seat: int) -> MatchEvent | None:
        """End the round in play with the revoke penalty on ``seat`` (what a check scripts for
        a bot that made no illegal move: the rules engine would never judge one); the round is
        scored next."""
        try:
            self.event = self._turns.throw(Revoke(seat))
        except StopIteration:
            self.event = None
        return self.event

    def interrupt(self) -> MatchEvent | None:
        """End the match now (a signal, a check that has seen enough, the rounds asked for):
        ``interrupted``, the round in play unscored. The first event of the end."""
        self._turns.close()
        self._turns = ending(self.match, self.match_id, "interrupted")
        self.event = next(self._turns)
        return self.event
