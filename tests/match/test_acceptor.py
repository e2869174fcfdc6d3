"""The acceptor that the match's TCP seats and the check's ``tcp:`` bots share: an ``accept``
that fails because the process is out of file descriptors (EMFILE, ENFILE) is retried, not
the end of the listening, for both of them."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

import pytest
import trio
import trio.testing

from referee.check.listener import CheckListener, TcpTarget
from referee.players.acceptor import ACCEPT_RETRY, accept_loop
from referee.players.tcp import TcpSeat, TcpSeatServer


class FailingListener(trio.abc.Listener[trio.SocketStream]):
    """A listener whose ``accept`` fails with each of ``errors`` first, then hands out
    ``stream`` once and then waits forever."""

    def __init__(self, errors: list[OSError], stream: Any) -> None:
        self.errors = list(errors)
        self.stream = stream
        self.given = False

    async def accept(self) -> trio.SocketStream:
        await trio.lowlevel.checkpoint()
        if self.errors:
            raise self.errors.pop(0)
        if self.given:
            await trio.sleep_forever()
        self.given = True
        return self.stream  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


@pytest.mark.parametrize("code", [errno.EMFILE, errno.ENFILE, errno.ENOBUFS], ids=["EMFILE", "ENFILE", "ENOBUFS"])
def test_the_accept_loop_waits_and_accepts_again_after_a_failed_accept(code: int) -> None:
    stream = object()
    taken: list[tuple[object, float]] = []

    async def run() -> None:
        listener = FailingListener([OSError(code, "out of descriptors")] * 2, stream)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(accept_loop, listener, lambda s, _: taken.append((s, trio.current_time())), nursery)
            while not taken:
                await trio.sleep(ACCEPT_RETRY / 10)
            nursery.cancel_scope.cancel()

    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [s for s, _ in taken] == [stream]
    assert taken[0][1] >= 2 * ACCEPT_RETRY  # it waited after each failure before trying again


@pytest.fixture
def accept_fails_once(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every listening socket's first ``accept`` fails with EMFILE; the list counts them."""
    failed: list[int] = []
    accept = trio.SocketListener.accept

    async def flaky(self: trio.SocketListener) -> trio.SocketStream:
        if not failed:
            failed.append(errno.EMFILE)
            await trio.lowlevel.checkpoint()
            raise OSError(errno.EMFILE, "Too many open files")
        return await accept(self)

    monkeypatch.setattr(trio.SocketListener, "accept", flaky)
    yield failed


async def first_line(stream: trio.SocketStream) -> bytes:
    data = b""
    while b"\n" not in data:
        chunk = await stream.receive_some()
        if not chunk:
            break
        data += chunk
    return data


def test_the_tcp_seats_keep_listening_after_running_out_of_descriptors(accept_fails_once: list[int]) -> None:
    async def run() -> bytes:
        server = TcpSeatServer([TcpSeat(seat=0, name="bot")], startup=5.0)
        async with trio.open_nursery() as nursery:
            address = await nursery.start(server.serve, "127.0.0.1", 0)
            with trio.fail_after(10):
                stream = await trio.open_tcp_stream(*address)
                line = await first_line(stream)  # the referee's hello: the connection was accepted
            await stream.aclose()
            nursery.cancel_scope.cancel()
        return line

    assert b'"hello"' in trio.run(run)
    assert accept_fails_once == [errno.EMFILE]


def test_the_check_keeps_listening_after_running_out_of_descriptors(accept_fails_once: list[int]) -> None:
    async def run() -> bytes:
        listener = CheckListener(TcpTarget(name="bot", token="T"))
        address = await listener.listen()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(listener.serve)
            with trio.fail_after(10):
                stream = await trio.open_tcp_stream(*address)
                link = await listener.next_link()
                assert link is not None
                await link.send(b"ping\n")
                line = await first_line(stream)
                await link.close()
            await stream.aclose()
            nursery.cancel_scope.cancel()
        return line

    assert trio.run(run) == b"ping\n"
    assert accept_fails_once == [errno.EMFILE]
