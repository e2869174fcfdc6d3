"""The decisions of one round at a live table: the match's driver of the round's machine
(``referee.rules.turns``), which decides what to ask, judge and tell. Here each of its events
meets trio and the table: a request is sent and its reply awaited and timed (``Asker``; the
passes of every seat at once), an illegal move meets the policy (``Faults``), a fallback and
every message are recorded in the log, and a person at the table gets its pauses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from protocol.messages import MatchEnd, RoundEnd, TrickEnd
from referee.match.asking import Asker
from referee.match.faults import Faults
from referee.match.outbox import Outbox
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat
from referee.rules.turns import Action, Ask, AskAll, Event, FallbackMove, Illegal, Reply, Settled, Tell

FLUSHED_AFTER = frozenset({TrickEnd, RoundEnd, MatchEnd})
"""The messages after which the log is flushed before any bot is told them: every trick a bot
learns of is in the log of a referee killed at any moment. Between them the log is flushed by
time (``MatchLog.keep_flushed``, 50 ms): a card is in the log at most that long after it is
played (a flush per card cost a system call a decision: issue 46)."""


class RoundPhases:
    """What the round's events do at a table of seats (``meet``: the runner's loop over the
    match's machine calls them)."""

    def __init__(
        self,
        seats: Sequence[LiveSeat],
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
        self.meet: dict[type[Event], Callable[[Any], Awaitable[object]]] = {
            Ask: self._ask,
            AskAll: self._ask_all,
            Illegal: self._illegal,
            FallbackMove: self._fallback,
            Tell: self._tell,
            Settled: self._settled,
        }
        """What each event the machine gives the match (``records=False``) does here."""

    async def _ask(self, event: Ask) -> Reply | None:
        return await self._asker.ask(self._seats[event.seat], event.request, event.expect)

    async def _illegal(self, event: Illegal) -> Action:
        assert event.action is not None  # the match's policy knows its cap
        return await self._faults.illegal(self._seats[event.seat], event.error, event.reply.id, event.action)

    async def _fallback(self, event: FallbackMove) -> None:
        self._recorder.fallback(event.seat, event.decision, event.move)

    async def _tell(self, event: Tell) -> None:
        if event.seat is None:
            self._outbox.broadcast(event.message)
            if type(event.message) in FLUSHED_AFTER:
                self._recorder.flush()
        else:
            self._outbox.post(self._seats[event.seat], event.message)

    async def _settled(self, event: Settled) -> None:
        # a person sees what they received before the first card, and each card and trick
        pause = self._card_pause if event.after == "card" else self._trick_pause if event.after == "trick" else 0.0
        await self._outbox.flush_live(pause)

    async def _ask_all(self, event: AskAll) -> dict[int, Reply | None]:
        replies: dict[int, Reply | None] = {}

        async def ask(one: Ask) -> None:
            replies[one.seat] = await self._asker.ask(self._seats[one.seat], one.request, one.expect)

        async with trio.open_nursery() as nursery:
            for one in event.asks:
                nursery.start_soon(ask, one)
        return replies
