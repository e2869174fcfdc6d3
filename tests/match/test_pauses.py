"""The pauses a person's table makes between cards (``MatchConfig.card_pause`` and
``trick_pause``, set by `referee play`): a person's seat is told each card a pause apart, and
the finished trick a longer one; no bot's clock runs during a pause; a table of bots alone never
waits, whatever the configuration. Time is trio's MockClock."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import msgspec
import pytest
import trio
import trio.testing

from referee.match.config import MatchConfig
from referee.players.connection import BotConnection
from tests.match.scripted import MemoryLink, ScriptedBot, first_legal
from tests.match.test_runner import run

PACED = MatchConfig(per_decision=1.0, bank=0.0, startup=5.0, card_pause=0.5, trick_pause=2.0)


class LiveLink(MemoryLink):
    """A person's seat, as the referee tells it apart: ``live`` (as ``WebLink``)."""

    live = True


class Timed(ScriptedBot):
    """A bot that notes when (on the match's clock) each message reached it."""

    def __init__(self) -> None:
        super().__init__(self.note)
        self.times: list[tuple[float, str]] = []

    async def note(self, message: dict[str, Any]) -> list[bytes] | None:
        self.times.append((trio.current_time(), message["type"]))
        return first_legal(message)


async def test_a_person_is_told_each_card_a_pause_apart(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = [Timed() for _ in range(4)]

    async def connect(bot: ScriptedBot, nursery: trio.Nursery, max_line: int = 64 * 1024) -> BotConnection:
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(bot.serve, theirs)
        link = (LiveLink if bot is bots[0] else MemoryLink)(ours, max_line)
        return BotConnection(link=link, command="scripted")

    monkeypatch.setattr("tests.match.test_runner.connect", connect)
    outcome = await run(bots, config=PACED)
    assert [s.status for s in outcome.seats] == ["ok"] * 4  # no clock ran during a pause (bank 0)
    after_card: list[float] = []
    after_trick: list[float] = []
    told = [(t, kind) for t, kind in bots[0].times if kind in ("card_played", "trick_end")]
    for (before, kind), (after, next_kind) in pairwise(told):
        if next_kind == "card_played":  # the gap before a card: a card's pause, or a trick's
            (after_trick if kind == "trick_end" else after_card).append(after - before)
    assert len(after_card) > 40 and len(after_trick) > 20
    assert min(after_card) >= 0.5 and min(after_trick) >= 2.0, (after_card, after_trick)


async def test_a_table_of_bots_never_waits(autojump_clock: trio.testing.MockClock) -> None:
    bots = [Timed() for _ in range(4)]
    start = trio.current_time()
    outcome = await run(bots, config=PACED)
    assert outcome.reason == "rounds_played"
    assert trio.current_time() == start  # bots that answer at once: no time passed at all


async def test_a_paced_table_of_bots_waits_for_its_watchers(autojump_clock: trio.testing.MockClock) -> None:
    """`referee match --pace`: a table of bots alone makes the pauses too (a match to watch at a
    person's speed): a card's pause after each card, a trick's after each trick; no clock runs
    meanwhile."""
    bots = [Timed() for _ in range(4)]
    start = trio.current_time()
    outcome = await run(bots, config=msgspec.structs.replace(PACED, paced=True))
    assert [s.status for s in outcome.seats] == ["ok"] * 4  # bank 0: no clock ran during a pause
    assert trio.current_time() - start >= 39 * 0.5 + 13 * 2.0  # one round: 39 cards, then 13 trick ends
