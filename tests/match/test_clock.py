"""The match clock's watchdog (one task per match instead of a cancel scope per decision) and
the links' interrupt: a wait past its deadline is interrupted exactly at the deadline, an
earlier deadline armed later is not missed, an answered wait is never interrupted, and a
real bot process blocked in a read or a write is woken. Time is trio's MockClock."""

from __future__ import annotations

import sys

import pytest
import trio
import trio.testing

from referee.match.clock import DecisionClock, Wait
from referee.match.config import MatchConfig
from referee.match.seat import LiveSeat
from referee.players.channel import BotLink, LinkClosed
from referee.players.connection import BotConnection
from referee.players.process import ProcessLink


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


class RecordingLink(BotLink):
    """A link that only notes when it is interrupted, and at what time."""

    def __init__(self) -> None:
        super().__init__()
        self.interrupted: list[float] = []

    def interrupt(self) -> None:
        self.interrupted.append(trio.current_time())


def seat(index: int, bank: float, link: BotLink) -> LiveSeat:
    return LiveSeat(index, BotConnection(link=link, command="x"), bank)


async def test_a_wait_past_its_deadline_is_interrupted_at_the_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    clock = DecisionClock(MatchConfig(per_decision=1.0, bank=2.0))
    link = RecordingLink()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(clock.watch)
        start = trio.current_time()
        wait = clock.arm(seat(0, 2.0, link), link)
        await trio.sleep(5)
        nursery.cancel_scope.cancel()
    assert wait.fired
    assert link.interrupted and link.interrupted[0] == pytest.approx(start + 3.0)


async def test_an_answered_wait_is_never_interrupted(autojump_clock: trio.testing.MockClock) -> None:
    clock = DecisionClock(MatchConfig(per_decision=1.0, bank=0.0))
    link = RecordingLink()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(clock.watch)
        for _ in range(5):
            s = seat(0, 0.0, link)
            wait = clock.arm(s, link)
            await trio.sleep(0.9)
            clock.disarm(s)
            assert not wait.fired
        await trio.sleep(10)
        nursery.cancel_scope.cancel()
    assert link.interrupted == []


async def test_an_earlier_deadline_armed_later_is_not_missed(autojump_clock: trio.testing.MockClock) -> None:
    """A seat with a full bank arms first (the watchdog plans to wake in 11 s), then one with
    no bank (due in 1 s): the second is interrupted at 1 s, not at 11."""
    clock = DecisionClock(MatchConfig(per_decision=1.0, bank=10.0))
    rich, poor = RecordingLink(), RecordingLink()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(clock.watch)
        await trio.sleep(0)  # the watchdog is asleep with its first plan
        start = trio.current_time()
        clock.arm(seat(0, 10.0, rich), rich)
        await trio.sleep(0.1)
        late = clock.arm(seat(1, 0.0, poor), poor)
        await trio.sleep(2)
        assert late.fired and poor.interrupted[0] == pytest.approx(start + 1.1)
        assert rich.interrupted == []
        await trio.sleep(10)
        nursery.cancel_scope.cancel()
    assert rich.interrupted[0] == pytest.approx(start + 11.0)


async def test_a_fired_wait_still_armed_is_interrupted_again(autojump_clock: trio.testing.MockClock) -> None:
    """An interrupt that found the task between two reads is repeated until the wait ends."""
    clock = DecisionClock(MatchConfig(per_decision=1.0, bank=0.0))
    link = RecordingLink()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(clock.watch)
        s = seat(0, 0.0, link)
        clock.arm(s, link)
        await trio.sleep(1.05)
        clock.disarm(s)
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert len(link.interrupted) >= 2
    assert all(1.0 <= t <= 1.06 for t in link.interrupted)


SILENT = [sys.executable, "-c", "import sys, time\nsys.stdin.readline()\ntime.sleep(600)"]
DEAF = [sys.executable, "-c", "import time\ntime.sleep(600)"]


async def timed_exchange(command: list[str], data: bytes, bank: float) -> tuple[Wait, str, float]:
    """Ask a real process with ``exchange`` under the watchdog; what the link raised, and when."""
    config = MatchConfig(per_decision=1.0, bank=bank)
    clock = DecisionClock(config)
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start(command, nursery)
        nursery.start_soon(clock.watch)
        start = trio.current_time()
        wait = clock.arm(seat(0, bank, link), link)
        with trio.fail_after(100), pytest.raises(LinkClosed) as raised:  # never woken: fails at 100 s
            await link.exchange(data)
        elapsed = trio.current_time() - start
        await link.close(0.1)
        nursery.cancel_scope.cancel()
    return wait, str(raised.value), elapsed


@pytest.mark.process
async def test_a_silent_process_is_woken_in_its_read(autojump_clock: trio.testing.MockClock) -> None:
    wait, message, elapsed = await timed_exchange(SILENT, b'{"type":"play_request"}\n', bank=0.5)
    assert wait.fired and "cannot read from the bot" in message
    assert elapsed == pytest.approx(1.5, abs=0.02)


@pytest.mark.process
async def test_a_process_that_does_not_read_is_woken_in_its_write(autojump_clock: trio.testing.MockClock) -> None:
    """More than a pipe holds, to a program that never reads: the write blocks, then is woken."""
    wait, message, elapsed = await timed_exchange(DEAF, b"x" * (1 << 20) + b"\n", bank=0.0)
    assert wait.fired and "cannot write to the bot" in message
    assert elapsed == pytest.approx(1.0, abs=0.02)


@pytest.mark.process
async def test_interrupting_a_closed_process_link_does_nothing() -> None:
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start(DEAF, nursery)
        await link.close(0.1)
        link.interrupt()  # its descriptors are gone: nothing to wake, nothing to raise
    assert link.exit_code() is not None
