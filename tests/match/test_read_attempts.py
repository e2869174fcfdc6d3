"""A decision's reply read at once when it is there (``FdLink``'s read attempts), and waited for
in trio when it is not: a link over a pair of real pipes, the bot's end written by the test."""

from __future__ import annotations

import os

import pytest
import trio

from referee.players import channel
from referee.players.channel import ATTEMPTS_SKIPPED, FdLink, LinkClosed


class PipeLink(FdLink):
    """The referee's end of two pipes; ``bot_in``/``bot_out`` are the bot's."""

    def __init__(self) -> None:
        super().__init__()
        self.bot_in, self.out = os.pipe()
        self.into, self.bot_out = os.pipe()
        for fd in (self.out, self.into):
            os.set_blocking(fd, False)

    def fds(self) -> tuple[int, int]:
        return self.out, self.into

    def close_all(self) -> None:
        for fd in (self.bot_in, self.out, self.into, self.bot_out):
            os.close(fd)


@pytest.fixture
def link() -> PipeLink:
    return PipeLink()


def count_waits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How often the link waits in trio's I/O manager (a list of the descriptors)."""
    waits: list[int] = []
    wait = trio.lowlevel.wait_readable

    async def counted(fd: int) -> None:
        waits.append(fd)
        await wait(fd)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", counted)
    return waits


async def test_a_reply_already_there_is_read_without_a_wait(link: PipeLink, monkeypatch: pytest.MonkeyPatch) -> None:
    waits = count_waits(monkeypatch)
    os.write(link.bot_out, b'{"type":"play","id":1,"card":"2C"}\n')
    assert await link.exchange(b'{"type":"play_request","id":1}\n') == b'{"type":"play","id":1,"card":"2C"}'
    assert waits == []
    assert os.read(link.bot_in, 100) == b'{"type":"play_request","id":1}\n'
    link.close_all()


async def test_a_late_reply_is_waited_for_and_attempts_pause_for_a_while(
    link: PipeLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits = count_waits(monkeypatch)

    async def answer_later() -> None:
        await trio.sleep(0.01)
        os.write(link.bot_out, b"late\n")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer_later)
        assert await link.exchange(b"ask\n") == b"late"
    assert waits == [link.into]
    assert link._skip_attempts == ATTEMPTS_SKIPPED
    # the next decisions wait in trio at once, even with the reply there, until the pause ends
    for left in range(ATTEMPTS_SKIPPED, 0, -1):
        os.write(link.bot_out, b"quick\n")
        assert await link.exchange(b"ask\n") == b"quick"
        assert link._skip_attempts == left - 1
    assert len(waits) == 1 + ATTEMPTS_SKIPPED
    os.write(link.bot_out, b"quick\n")
    assert await link.exchange(b"ask\n") == b"quick"
    assert len(waits) == 1 + ATTEMPTS_SKIPPED  # tried at once again: found without a wait
    link.close_all()


async def test_a_bot_that_closed_its_output_is_named_by_the_attempts(link: PipeLink) -> None:
    os.close(link.bot_out)
    with pytest.raises(LinkClosed, match="closed its output"):
        await link.exchange(b"ask\n")
    for fd in (link.bot_in, link.out, link.into):
        os.close(fd)


async def test_a_reply_found_at_once_still_lets_other_tasks_run(link: PipeLink) -> None:
    """A table whose bot always answers at once gives the others a turn at each decision."""
    turns = 0

    async def other_table() -> None:
        nonlocal turns
        while True:
            turns += 1
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other_table)
        await trio.lowlevel.checkpoint()
        before = turns
        for _ in range(10):
            os.write(link.bot_out, b"quick\n")
            assert await link.exchange(b"ask\n") == b"quick"
        assert turns - before >= 5  # about one turn a decision (trio may order a batch either way); 0 if starved
        nursery.cancel_scope.cancel()
    assert channel.READ_ATTEMPTS >= 1
    link.close_all()
