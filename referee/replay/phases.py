"""The decisions of one re-played round: the replay's driver of the round's machine
(``referee.rules.turns``), the same machine the match drives.

Each of its events meets the log: a request is checked against the logged one and the seat's
reply or fault is read from it (``LoggedAsker``), the policy's logged answer to an illegal move is
checked (``LoggedPolicy``), a fallback move is checked in the log, what every seat was told is
checked, and the round is recorded as it goes.
"""

from __future__ import annotations

from protocol.cards import card_code
from protocol.messages import TimeLeft
from referee.replay.asking import LoggedAsker
from referee.replay.policy import LoggedPolicy
from referee.replay.record import DeclarationRecord, MoonRecord, PassRecord, PlayRecord, ReplayedTrick, RoundRecord
from referee.replay.seats import Seats
from referee.rules.round import PASS, Round
from referee.rules.turns import (
    Ask,
    AskAll,
    DeclarationMade,
    Event,
    Exchanged,
    FallbackMove,
    Illegal,
    MoonChosen,
    PassMade,
    Phase,
    PlayMade,
    PlayTurn,
    Reply,
    Settled,
    Tell,
    TrickTaken,
)
from referee.rules.wire import codes_of

_NO_TIME = TimeLeft(decision_ms=0, bank_ms=0)
"""Placeholder time in an expected request: the logged one is checked on its own."""


class LoggedRound:
    """Checks the round's events of the match's machine against the log, from the deal to
    the score (``meet``: the walk's loop calls it)."""

    def __init__(
        self, seats: Seats, asker: LoggedAsker, policy: LoggedPolicy, round_: Round, record: RoundRecord
    ) -> None:
        self.seats = seats
        self.cursor = seats.cursor
        self.asker = asker
        self.policy = policy
        self.round = round_
        self.rec = record
        self.players = round_.deck.players
        self.offset = round_.deck.pass_offset(round_.pass_direction)
        self.lines: dict[int, str] = {}
        """Each seat's last reply line, as the log holds it (the policy's check quotes it)."""
        if round_.phase != PASS:
            record.hands_after_passing = record.hands

    def meet(self, event: Event) -> object:
        """Check ``event`` against the log; what it asks for (a reply, replies, an action)."""
        if isinstance(event, Ask):
            return self._ask(event)
        if isinstance(event, AskAll):
            return {one.seat: self._ask(one) for one in event.asks}
        if isinstance(event, Illegal):
            return self.policy.illegal(event.seat, event.error, event.reply.id, self.lines[event.seat], event.action)
        if isinstance(event, FallbackMove):
            self.seats.fallback(event.seat, event.decision, event.move)
        elif isinstance(event, Tell):
            self.seats.told(event.seat, event.message)
        else:
            self._record(event)
        return None

    def _ask(self, event: Ask) -> Reply | None:
        found = self.asker.ask(event.seat, event.request(0, _NO_TIME), event.expect)
        if found is None:
            return None
        reply, self.lines[event.seat] = found
        return reply

    def _record(self, event: Event) -> None:
        """Record the round as it goes, and say where the log is."""
        cursor, rec = self.cursor, self.rec
        if isinstance(event, Phase):
            cursor.phase = event.name
            if event.name == "moon":
                cursor.trick = None
        elif isinstance(event, PassMade):
            cards = codes_of(self.round.passes[event.seat] or 0)
            to_seat = (event.seat + self.offset) % self.players
            rec.passes.append(PassRecord(seat=event.seat, to_seat=to_seat, cards=cards, fallback=event.fallback))
        elif isinstance(event, Exchanged):
            rec.hands_after_passing = [[card_code(c) for c in self.round.hand(s)] for s in range(self.players)]
        elif isinstance(event, DeclarationMade):
            rec.declarations.append(DeclarationRecord(seat=event.seat, declared=event.declare, fallback=event.fallback))
        elif isinstance(event, PlayTurn):
            cursor.trick = event.number
            if event.leads:
                rec.tricks.append(ReplayedTrick(number=event.number, leader=self.round.leader))
        elif isinstance(event, PlayMade):
            play = PlayRecord(seat=event.seat, card=card_code(event.card), fallback=event.fallback)
            rec.tricks[-1].plays.append(play)
        elif isinstance(event, TrickTaken):
            trick, end = rec.tricks[-1], event.end
            trick.winner, trick.points, trick.complete = end.winner, end.points, True
            cursor.position = f"round {cursor.round} trick {end.trick_number}"
        elif isinstance(event, MoonChosen):
            rec.moon = MoonRecord(seat=event.seat, choice=event.choice, fallback=event.fallback)
            cursor.position = f"round {cursor.round} moon choice"
        elif isinstance(event, Settled) and event.after in ("passing", "declaration"):
            cursor.position = f"round {cursor.round} {'passing' if event.after == 'passing' else 'declarations'}"
