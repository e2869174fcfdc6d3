"""The decisions of one round as a sans-I/O machine: what to ask whom, what to tell, and what
follows from each reply, with no clock, socket or log in it.

Every part of the referee that plays a round drives this one machine: the match (over trio,
``referee.match.phases``), the replay verifier (reading a log, ``referee.replay.phases``) and
the tests' tables. It is modelled on h11 and wsproto, which keep a protocol's decisions apart
from its I/O so that every transport drives the same code: here the machine says "ask seat S
this request", "tell seat S (or every seat) this", "a fallback was played", and takes a reply,
``None`` for no reply (the seat is dropped, or its reply was not readable), or the answer to an
illegal move. The judge (the rules engine), the revoke penalty and the fallback moves are
applied here, so a new request type or variant rule is one edit.

The machine is a generator of ``Event``s; :class:`RoundTurns` wraps it: ``event`` is the
current one, ``answer(value)`` gives what it asks for (an ``Ask``'s reply, an ``AskAll``'s
replies by seat, an ``Illegal``'s action) and ``next()`` steps past one that asks nothing. The
order of the events is the order of the match: the replay checks a log against it, so it must
not change (the whole-match digests of ``tests/match`` pin it).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Literal, TypeAlias

import msgspec

from protocol.cards import Card, card_code
from protocol.messages import Declare, Moon, Pass, Play, RefereeMessage, TimeLeft, TrickEnd
from protocol.ruleset import MoonChoice
from referee.rules import telling
from referee.rules.errors import IllegalMove, MachineMisuse
from referee.rules.fallback import fallback_declare, fallback_moon, fallback_pass, fallback_play
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round
from referee.rules.wire import bot_card, bot_cards

Decision: TypeAlias = Literal["pass", "declare", "play", "moon"]
Reply: TypeAlias = Pass | Declare | Play | Moon
Action: TypeAlias = Literal["forfeit", "penalty", "substitute"]
"""The answer to an illegal move (``MatchConfig.policy`` within its cap, else ``forfeit``):
``penalty`` ends the round with the revoke penalty; the others play the fallback move."""
Checkpoint: TypeAlias = Literal["passing", "declaration", "card", "trick", "round"]

EXPECT: dict[Decision, type[Reply]] = {"pass": Pass, "declare": Declare, "play": Play, "moon": Moon}
"""The reply each decision expects."""

MakeRequest: TypeAlias = Callable[[int, TimeLeft], RefereeMessage]
"""A request for a seat, given the request id and the time left, which belong to the driver's
connection and clock."""


class Ask(msgspec.Struct, frozen=True, gc=False):
    """Ask ``seat`` for a decision: answer with its reply of type ``expect``, or ``None``."""

    seat: int
    decision: Decision
    request: MakeRequest
    expect: type[Reply]


class AskAll(msgspec.Struct, frozen=True, gc=False):
    """Ask these seats at once (passing): answer with a mapping from seat to reply or ``None``
    (a seat missing from it gave none)."""

    asks: tuple[Ask, ...]


class Illegal(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s reply ``reply`` broke a rule: answer with the policy's ``Action``. ``action``:
    what the match's policy takes (``IllegalPolicy``), to be answered; ``None``
    when the policy's cap is unknown (an old log, or the round's machine driven alone)."""

    seat: int
    error: IllegalMove
    reply: Reply
    action: Action | None = None


class FallbackMove(msgspec.Struct, frozen=True, gc=False):
    """The referee made ``seat``'s decision (no reply, or an illegal one): ``move`` as logged."""

    seat: int
    decision: Decision
    move: object


class Tell(msgspec.Struct, frozen=True, gc=False):
    """Tell ``seat`` this message; ``seat`` is ``None`` for every seat at the table."""

    seat: int | None
    message: RefereeMessage


class Phase(msgspec.Struct, frozen=True, gc=False):
    """A phase of the round begins (``declare`` and ``play`` always, ``pass`` and ``moon`` only
    when the round has them): a reader of a log says where it is by it."""

    name: Decision


class PassMade(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s pass was made (``fallback``: by the referee)."""

    seat: int
    fallback: bool


class Exchanged(msgspec.Struct, frozen=True, gc=False):
    """Every pass is made and the cards have changed hands."""


class DeclarationMade(msgspec.Struct, frozen=True, gc=False):
    seat: int
    declare: bool
    fallback: bool


class PlayTurn(msgspec.Struct, frozen=True, gc=False):
    """``seat`` is to play to trick ``number``; ``leads``: the trick is empty."""

    seat: int
    number: int
    leads: bool


class PlayMade(msgspec.Struct, frozen=True, gc=False):
    seat: int
    card: Card
    number: int
    fallback: bool


class TrickTaken(msgspec.Struct, frozen=True, gc=False):
    end: TrickEnd


class MoonChosen(msgspec.Struct, frozen=True, gc=False):
    seat: int
    choice: MoonChoice
    fallback: bool


class Settled(msgspec.Struct, frozen=True, gc=False):
    """A point where the table may pause for a person (after the passes, a declaration, a
    card, a trick) and a spectator of the log should see all so far."""

    after: Checkpoint


PolicyName: TypeAlias = Literal["forfeit", "penalty", "substitute"]


class IllegalPolicy:
    """The match's answer to an illegal move: ``policy`` (``penalty`` or ``substitute``)
    forgives each seat up to ``cap`` illegal moves, then forfeits it; ``forfeit`` forgives
    none. ``cap`` ``None``: unknown (an old log's replay), the driver answers."""

    def __init__(self, policy: PolicyName, cap: int | None) -> None:
        self.policy, self.cap = policy, cap
        self.forgiven: dict[int, int] = {}

    def action(self, seat: int) -> Action | None:
        """What the policy does to ``seat``'s next illegal move (``None``: the cap is unknown)."""
        if self.policy == "forfeit":
            return "forfeit"
        if self.cap is None:
            return None
        return self.policy if self.forgiven.get(seat, 0) < self.cap else "forfeit"

    def taken(self, seat: int, action: Action) -> None:
        if action != "forfeit":
            self.forgiven[seat] = self.forgiven.get(seat, 0) + 1


Event: TypeAlias = (
    Ask
    | AskAll
    | Illegal
    | FallbackMove
    | Tell
    | Phase
    | PassMade
    | Exchanged
    | DeclarationMade
    | PlayTurn
    | PlayMade
    | TrickTaken
    | MoonChosen
    | Settled
)
Turns: TypeAlias = Generator[Event, object, None]


def round_turns(
    round_: Round, active: Callable[[int], bool], records: bool = True, policy: IllegalPolicy | None = None
) -> Turns:
    """Every decision of ``round_`` until it is over (the caller scores it). ``active(seat)``:
    whether a seat is still asked (a dropped seat's moves are the fallbacks). ``records``:
    yield the events that only record the round (``Phase``, ``PassMade``, ``Exchanged``,
    ``DeclarationMade``, ``PlayTurn``, ``PlayMade``, ``TrickTaken``, ``MoonChosen``), which the
    match, whose log records the lines themselves, does without. ``policy``: the match's
    illegal-move policy, whose action each ``Illegal`` carries (and must be answered with)."""
    judge = policy or IllegalPolicy("forfeit", None)
    if round_.phase == PASS:
        if records:
            yield Phase("pass")
        yield from _passing(round_, active, records, judge)
    if records:
        yield Phase("declare")
    while round_.phase == DECLARE:
        yield from _declaring(round_, active, records)
    if records:
        yield Phase("play")
    while round_.phase == PLAY:
        yield from _playing(round_, active, records, judge)
    if round_.phase == MOON:
        if records:
            yield Phase("moon")
        yield from _moon(round_, active, records)


def _passing(round_: Round, active: Callable[[int], bool], records: bool, judge: IllegalPolicy) -> Turns:
    players = round_.deck.players
    asks = tuple(Ask(s, "pass", _pass_request(round_, s), Pass) for s in range(players) if active(s))
    replies = yield AskAll(asks)
    if not isinstance(replies, Mapping):
        raise MachineMisuse(f"an AskAll is answered with the replies by seat, not {replies!r}")
    for seat in range(players):
        if round_.phase != PASS:
            return  # a revoke penalty ended the round
        reply = replies.get(seat)
        if reply is not None:
            try:
                round_.pass_cards(seat, bot_cards(reply.cards))
            except IllegalMove as err:
                if (yield from _illegal(round_, seat, err, reply, judge)):
                    return
            else:
                if records:
                    yield PassMade(seat, fallback=False)
                continue
        cards = fallback_pass(round_, seat)
        yield FallbackMove(seat, "pass", [card_code(c) for c in cards])
        round_.pass_cards(seat, cards)
        if records:
            yield PassMade(seat, fallback=True)
    if records:
        yield Exchanged()
    for seat in range(players):
        yield Tell(seat, telling.passed(round_, seat))
    yield Settled("passing")


def _pass_request(round_: Round, seat: int) -> MakeRequest:
    return lambda rid, time: telling.pass_request(round_, seat, rid, time)


def _declaring(round_: Round, active: Callable[[int], bool], records: bool) -> Turns:
    seat = round_.turn
    reply = yield from _ask(seat, "declare", lambda rid, time: telling.declare_request(round_, rid, time), active)
    if reply is None:
        declare = fallback_declare()
        yield FallbackMove(seat, "declare", declare)
    else:
        assert isinstance(reply, Declare)
        declare = reply.declare
    round_.declare(seat, declare)
    if records:
        yield DeclarationMade(seat, declare, fallback=reply is None)
    yield Tell(None, telling.declared(seat, declare))
    yield Settled("declaration")


def _playing(round_: Round, active: Callable[[int], bool], records: bool, judge: IllegalPolicy) -> Turns:
    seat = round_.turn
    number = round_.trick_number
    if records:
        yield PlayTurn(seat, number, leads=not round_.trick)
    reply = yield from _ask(seat, "play", lambda rid, time: telling.play_request(round_, rid, time), active)
    card: Card | None = None
    if reply is not None:
        assert isinstance(reply, Play)
        try:
            card = bot_card(reply.card)
            round_.play(seat, card)
        except IllegalMove as err:
            card = None
            if (yield from _illegal(round_, seat, err, reply, judge)):
                return
    fallback = card is None
    if card is None:
        card = fallback_play(round_)
        yield FallbackMove(seat, "play", card_code(card))
        round_.play(seat, card)
    if records:
        yield PlayMade(seat, card, number, fallback)
    yield Tell(None, telling.card_played(seat, card, number))
    end = telling.trick_end(round_, number)
    if end is not None:
        yield Tell(None, end)
        if records:
            yield TrickTaken(end)
    yield Settled("card" if end is None else "trick")


def _moon(round_: Round, active: Callable[[int], bool], records: bool) -> Turns:
    seat = round_.turn
    reply = yield from _ask(seat, "moon", lambda rid, time: telling.moon_request(round_, rid, time), active)
    if reply is None:
        choice = fallback_moon()
        yield FallbackMove(seat, "moon", choice)
    else:
        assert isinstance(reply, Moon)
        choice = reply.choice
    round_.choose_moon(seat, choice)
    if records:
        yield MoonChosen(seat, choice, fallback=reply is None)


def _ask(
    seat: int, decision: Decision, request: MakeRequest, active: Callable[[int], bool]
) -> Generator[Event, object, Reply | None]:
    """One seat's reply, or ``None`` for a dropped seat (not asked) or no reply."""
    if not active(seat):
        return None
    expect = EXPECT[decision]
    reply = yield Ask(seat, decision, request, expect)
    if reply is not None and not isinstance(reply, expect):
        raise MachineMisuse(f"an Ask for {decision} is answered with a {expect.__name__} or None, not {reply!r}")
    return reply


def _illegal(
    round_: Round, seat: int, err: IllegalMove, reply: Reply, judge: IllegalPolicy
) -> Generator[Event, object, bool]:
    """The policy's answer to an illegal reply; True when it ended the round (the revoke
    penalty), else the caller plays the fallback."""
    decided = judge.action(seat)
    action = yield Illegal(seat, err, reply, decided)
    if action not in ("forfeit", "penalty", "substitute"):
        raise MachineMisuse(f"an Illegal is answered with an action, not {action!r}")
    if decided is not None and action != decided:
        raise MachineMisuse(f"an Illegal is answered with its action {decided!r}, not {action!r}")
    judge.taken(seat, action)
    if action == "penalty":
        round_.apply_revoke(seat)
        return True
    return False


class RoundTurns:
    """The machine of one round, one event at a time."""

    def __init__(self, round_: Round, active: Callable[[int], bool], *, records: bool = True) -> None:
        self._turns = round_turns(round_, active, records)
        self.event: Event | None = None
        self.next()

    def next(self) -> Event | None:
        """Step past the current event (one that asks for nothing) to the next; ``None`` when
        the round's decisions are over."""
        return self.answer(None)

    def answer(self, value: object) -> Event | None:
        """Give the current event what it asks for and step to the next one."""
        try:
            self.event = self._turns.send(value) if self.event is not None else next(self._turns)
        except StopIteration:
            self.event = None
        return self.event
