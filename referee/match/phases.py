"""The decisions of one round, phase by phase: passing (all seats at once), declarations,
play, the moon shooter's choice. Each asks a seat, checks the answer with the rules engine,
applies the policy to an illegal one, plays the fallback for a dropped seat, and broadcasts
what every player at the table sees."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from protocol.cards import Card, card_code
from protocol.messages import Declare, Moon, Pass, Play
from referee.match.asking import Asker
from referee.match.faults import Faults
from referee.match.outbox import Outbox
from referee.match.recorder import MatchRecorder
from referee.match.seat import SeatState
from referee.rules import telling
from referee.rules.errors import IllegalMove
from referee.rules.fallback import fallback_declare, fallback_moon, fallback_pass, fallback_play
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round
from referee.rules.wire import bot_card, bot_cards


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
        if round_.phase == PASS:
            await self._passing(round_)
        while round_.phase == DECLARE:
            await self._declaring(round_)
        while round_.phase == PLAY:
            await self._playing(round_)
        if round_.phase == MOON:
            await self._moon(round_)

    async def _passing(self, round_: Round) -> None:
        replies: dict[int, Pass | None] = {}

        async def ask(seat: SeatState) -> None:
            replies[seat.index] = await self._asker.ask(
                seat, lambda rid, t: telling.pass_request(round_, seat.index, rid, t), Pass
            )

        async with trio.open_nursery() as nursery:
            for seat in self._seats:
                if seat.active:
                    nursery.start_soon(ask, seat)
        for seat in self._seats:
            if round_.phase != PASS:
                return  # a revoke penalty ended the round
            reply = replies.get(seat.index)
            if reply is not None:
                try:
                    round_.pass_cards(seat.index, bot_cards(reply.cards))
                    continue
                except IllegalMove as err:
                    if not await self._faults.illegal(seat, round_, err, reply.id):
                        return
            cards = fallback_pass(round_, seat.index)
            self._recorder.fallback(seat.index, "pass", [card_code(c) for c in cards])
            round_.pass_cards(seat.index, cards)
        for seat in self._seats:
            self._outbox.post(seat, telling.passed(round_, seat.index))
        await self._outbox.flush_live()  # a person sees what they received before the first card

    async def _declaring(self, round_: Round) -> None:
        seat = self._seats[round_.turn]
        reply = await self._asker.ask(seat, lambda rid, t: telling.declare_request(round_, rid, t), Declare)
        if reply is None:
            declare = fallback_declare()
            self._recorder.fallback(seat.index, "declare", declare)
        else:
            declare = reply.declare
        round_.declare(seat.index, declare)
        self._outbox.broadcast(telling.declared(seat.index, declare))
        await self._outbox.flush_live()

    async def _playing(self, round_: Round) -> None:
        seat = self._seats[round_.turn]
        trick_number = round_.trick_number
        reply = await self._asker.ask(seat, lambda rid, t: telling.play_request(round_, rid, t), Play)
        card: Card | None = None
        if reply is not None:
            try:
                card = bot_card(reply.card)
                round_.play(seat.index, card)
            except IllegalMove as err:
                card = None
                if not await self._faults.illegal(seat, round_, err, reply.id):
                    return
        if card is None:
            card = fallback_play(round_)
            self._recorder.fallback(seat.index, "play", card_code(card))
            round_.play(seat.index, card)
        self._outbox.broadcast(telling.card_played(seat.index, card, trick_number))
        self._recorder.flush()  # a spectator of the log (referee watch) sees each card as it is played
        end = telling.trick_end(round_, trick_number)
        if end is not None:
            self._outbox.broadcast(end)
            self._recorder.flush()
        await self._outbox.flush_live(self._card_pause if end is None else self._trick_pause)

    async def _moon(self, round_: Round) -> None:
        seat = self._seats[round_.turn]
        reply = await self._asker.ask(seat, lambda rid, t: telling.moon_request(round_, rid, t), Moon)
        choice = fallback_moon() if reply is None else reply.choice
        if reply is None:
            self._recorder.fallback(seat.index, "moon", choice)
        round_.choose_moon(seat.index, choice)
