"""Issue 31: silent connections from many loopback addresses (all of 127.0.0.0/8 is one's to
use) held the handshake slots of ``referee serve`` while the machine's cores were busy, and 3 of
4 bots with valid tokens never got in: each was evicted before it could answer, its address
(every bot's, 127.0.0.1) holding the most slots. A valid token always gets in now: a connection
keeps its slot for ``SQUAT_AFTER`` after the referee's hello whatever arrives, its hello line
keeps it even unread, its hello limit counts from the accept, and the pool is far larger than
what the addresses of a few squatters may hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
import trio.testing

from referee.players import tcp
from referee.players.channel import Failure, SocketLink
from referee.players.connection import BotConnection
from referee.players.connection import handshake as connection_handshake
from referee.players.tcp import TcpSeat
from tests.match.test_tcp_slots import evictions, first_line, lines_until_closed, open_server, reconnecting


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


def hello_line(seat: TcpSeat) -> bytes:
    return json.dumps({"type": "hello", "version": 1, "name": seat.name, "token": seat.token}).encode() + b"\n"


def hosts(refusals: list[tcp.Refusal]) -> set[str]:
    return {r.peer.rpartition(":")[0] for r in refusals}


async def test_bots_keep_their_slots_until_they_answer_however_many_addresses_arrive(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The attack of issue 31 step by step: squatters from 8 addresses fill the pool; 4 slow
    bots from 127.0.0.1 push out 4 of them, and their address now holds the most slots; 40
    connections from 40 more addresses arrive while the bots think. The newcomers push out the
    other squatters, then are refused: a bot greeted less than ``squat_after`` ago is no
    squatter, so every bot answers late and still gets its seat."""
    seats = [TcpSeat(seat=n, name=f"s{n}") for n in range(4)]
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(
            nursery, seats, hello_timeout=60.0, max_pending=8, max_pending_per_address=4, squat_after=2.0
        )

        async def connect(local: str) -> tuple[trio.SocketStream, str]:
            stream = await trio.open_tcp_stream(*address, local_address=local)
            return stream, (await first_line(stream))["type"]

        squatters = [await connect(f"127.0.0.{n}") for n in range(2, 10)]
        assert [kind for _, kind in squatters] == ["hello"] * 8 and server.pending == 8
        await trio.sleep(3.0)  # silent for longer than squat_after: squatters now
        bots = [await connect("127.0.0.1") for _ in seats]
        assert [kind for _, kind in bots] == ["hello"] * 4
        assert server.pending_by_address.most_common(1) == [("127.0.0.1", 4)]
        wave = [await connect(f"127.0.1.{n}") for n in range(1, 41)]
        assert [kind for _, kind in wave] == ["hello"] * 4 + ["error"] * 36
        await trio.sleep(1.5)  # the bots are slow (a loaded machine), yet within squat_after
        for (stream, _), seat in zip(bots, seats, strict=True):
            await stream.send_all(hello_line(seat))
            await seat.arrived.wait()
        squatted = [await lines_until_closed(stream) for stream, _ in squatters]
        for stream, _ in [*squatters, *bots, *wave]:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert all(isinstance(seat.connection, BotConnection) and seat.connection.alive for seat in seats)
    assert [[m["code"] for m in lines] for lines in squatted] == [["busy"]] * 8
    dropped = evictions(refused)
    assert [r.message for r in dropped] == [tcp.EVICTED_SILENT] * 8
    assert hosts(dropped) == {f"127.0.0.{n}" for n in range(2, 10)}
    full = [r for r in refused if r.message == "too many connections in their handshake (limit 8); try again"]
    assert len(full) == 36 and {r.reason for r in full} == {"busy"}
    assert "127.0.0.1" not in hosts(refused)


async def test_reconnecting_squatters_from_many_addresses_leave_room_for_the_bots() -> None:
    """128 silent connections from 16 addresses, each connecting again as soon as it is dropped
    or refused, hold every slot those addresses may have (4 each) and hammer for more; the 4
    bots, answering after a pause as on a loaded machine, get in at the first try."""
    seats = [TcpSeat(seat=n, name=f"s{n}") for n in range(4)]
    attackers = [f"127.0.{n}.{n + 2}" for n in range(16)]
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, seats, hello_timeout=60.0, squat_after=tcp.SQUAT_AFTER)
        async with trio.open_nursery() as attack:
            for local in attackers:
                for _ in range(8):
                    attack.start_soon(reconnecting, *address, local)
            while server.pending_by_address != dict.fromkeys(attackers, 4):
                await trio.sleep(0.01)
            assert server.pending == 64 and refused  # the other 64 are refused, and come back

            async def bot(seat: TcpSeat) -> None:
                stream = await trio.open_tcp_stream(*address)
                assert (await first_line(stream))["type"] == "hello"
                await trio.sleep(0.3)
                await stream.send_all(hello_line(seat))
                async with trio.open_nursery() as race:  # seated, or dropped (a failure, not a hang)

                    async def dropped() -> None:
                        lost.extend(await lines_until_closed(stream))
                        race.cancel_scope.cancel()

                    race.start_soon(dropped)
                    await seat.arrived.wait()
                    race.cancel_scope.cancel()

            lost: list[dict[str, Any]] = []
            async with trio.open_nursery() as bots:
                for seat in seats:
                    bots.start_soon(bot, seat)
            during = list(refused)  # then the squatters hang up (``disconnect``)
            attack.cancel_scope.cancel()
        nursery.cancel_scope.cancel()
    assert not lost and all(isinstance(s.connection, BotConnection) and s.connection.alive for s in seats)
    assert hosts(refused) <= set(attackers)  # no bot was refused or dropped
    assert {r.reason for r in during} == {"busy"}
    assert any("from 127.0.0.2 in their handshake (limit 4 per address)" in r.message for r in refused)


async def test_a_hello_line_the_referee_has_not_read_yet_keeps_its_slot(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.testing.MockClock
) -> None:
    """A referee behind on a loaded machine has not read a bot's hello line when a newcomer
    needs the bot's slot: the line waiting in the socket keeps it, where a silent connection's
    is taken."""
    reading = trio.Event()

    async def behind(connection: BotConnection, startup: float, admit: Any = None, since: Any = None) -> None:
        """A handshake that greets and then reads nothing until ``reading``."""
        await connection.link.send(b'{"type":"hello"}\n')
        await reading.wait()
        connection.failure = Failure("bad_token", "not read")
        await connection.link.close()

    monkeypatch.setattr(tcp, "handshake", behind)
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(
            nursery, [TcpSeat(seat=0, name="a")], max_pending=2, squat_after=1.0
        )
        answered = await trio.open_tcp_stream(*address, local_address="127.0.0.2")
        silent = await trio.open_tcp_stream(*address, local_address="127.0.0.3")
        for stream in (answered, silent):
            assert (await first_line(stream))["type"] == "hello"
        await answered.send_all(b'{"type":"hello","version":1,"name":"a","token":"t"}\n')
        await trio.sleep(2.0)
        first = await trio.open_tcp_stream(*address, local_address="127.0.0.4")
        assert (await first_line(first))["type"] == "hello"  # the silent one gave way
        second = await lines_until_closed(await trio.open_tcp_stream(*address, local_address="127.0.0.5"))
        assert [m["code"] for m in second] == ["busy"]  # the one with a line waiting did not
        assert [m["code"] for m in await lines_until_closed(silent)] == ["busy"]
        reading.set()
        for stream in (answered, first):
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert [(r.peer.rpartition(":")[0], r.message) for r in refused[:2]] == [
        ("127.0.0.3", tcp.EVICTED_SILENT),
        ("127.0.0.5", "too many connections in their handshake (limit 2); try again"),
    ]
    assert server.pending == 0


async def test_the_hello_limit_counts_from_the_accept(autojump_clock: trio.testing.MockClock) -> None:
    """A handshake the referee starts late (a loaded machine) gives the peer no more time."""
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    theirs = await trio.open_tcp_stream(*listener.socket.getsockname())
    connection = BotConnection(link=SocketLink(await listener.accept()), command="tcp")
    accepted = trio.current_time()
    await trio.sleep(4.0)
    await connection_handshake(connection, 5.0, since=accepted)
    assert connection.failure is not None and connection.failure.reason == "timeout"
    assert trio.current_time() - accepted == pytest.approx(5.0)
    await theirs.aclose()
    await listener.aclose()
