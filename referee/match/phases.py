"""The decisions of one round at a live table: the match's driver of the round's machine
(``referee.rules.turns``), which decides what to ask, judge and tell. Here each of its events
meets trio and the table: a request is sent and its reply awaited and timed (``Asker``; the
passes of every seat at once), an illegal move meets the policy (``Faults``), a fallback and
every message are recorded in the log, and a person at the table gets its pauses."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from referee.match.asking import Asker
from referee.match.faults import Faults
from referee.match.outbox import Outbox
from referee.match.recorder import MatchRecorder
from referee.match.seat import SeatState
from referee.rules.round import Round
from referee.rules.turns import Ask, AskAll, Event, Fallback, Illegal, Reply, RoundTurns, Settled, Tell


class RoundPhases:
    """Plays the decisions of one round at a table of seats."""

    def __init__(
        self,
        seats: Sequence[SeatState],
        asker: Asker,
        outbox: Outbox,
        faults: Faults,
        recorder: MatchRecorder,
        *,
        pauses: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        self._seats = seats
        self._card_pause, self._trick_pause = pauses  # for a person at the table: MatchConfig
        self._asker = asker
        self._outbox = outbox
        self._faults = faults
        self._recorder = recorder

    async def play(self, round_: Round) -> None:
        """Every decision of the round, until it is over (scored by the caller)."""
        turns = RoundTurns(round_, lambda seat: self._seats[seat].active)
        while turns.event is not None:
            turns.answer(await self._meet(turns.event))

    async def _meet(self, event: Event) -> object:
        """Do what ``event`` says; what it asks for (a reply, replies, an action), else None."""
        if isinstance(event, Ask):
            return await self._asker.ask(self._seats[event.seat], event.request, event.expect)
        if isinstance(event, AskAll):
            return await self._ask_all(event)
        if isinstance(event, Illegal):
            return await self._faults.illegal(self._seats[event.seat], event.error, event.reply.id)
        if isinstance(event, Fallback):
            self._recorder.fallback(event.seat, event.decision, event.move)
        elif isinstance(event, Tell):
            if event.seat is None:
                self._outbox.broadcast(event.message)
                self._recorder.flush()  # a spectator of the log (referee watch) sees each card as it is played
            else:
                self._outbox.post(self._seats[event.seat], event.message)
        elif isinstance(event, Settled):
            # a person sees what they received before the first card, and each card and trick
            pause = {"card": self._card_pause, "trick": self._trick_pause}.get(event.after, 0.0)
            await self._outbox.flush_live(pause)
        return None

    async def _ask_all(self, event: AskAll) -> dict[int, Reply | None]:
        replies: dict[int, Reply | None] = {}

        async def ask(one: Ask) -> None:
            replies[one.seat] = await self._asker.ask(self._seats[one.seat], one.request, one.expect)

        async with trio.open_nursery() as nursery:
            for one in event.asks:
                nursery.start_soon(ask, one)
        return replies
