"""No page input ends the referee (issue 24): the seat server under a storm of hostile
connections over real sockets while a real match plays (raw bytes, broken HTTP, WebSocket
frames of every kind and size, fragmented, compressed or not, connections cut at every point,
wrong and right tokens), then the person's own page plays the seat to the end. Every case is
drawn from a seeded random generator, so a failure names its seed."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any

import pytest
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import Message, Request
from wsproto.extensions import PerMessageDeflate
from wsproto.utilities import LocalProtocolError

from referee.match.config import MatchConfig
from referee.web.server import WebSeat
from referee.web.watch import WatchServer
from tests.shared import verified
from tests.web.client import WsClient
from tests.web.helpers import Person, play_web

CASES = 300
STORM = MatchConfig(per_decision=30.0, bank=60.0, startup=60.0, grace=0.3)
"""A clock the person cannot miss while the storm shares the machine."""


def _frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = True) -> bytes:
    """One WebSocket frame by hand (any opcode, any length, masked as a client must)."""
    head = bytearray([(0x80 if fin else 0) | (opcode & 0x0F)])
    mask_bit = 0x80 if masked else 0
    size = len(payload)
    if size < 126:
        head.append(mask_bit | size)
    elif size < 65536:
        head += bytes([mask_bit | 126]) + size.to_bytes(2, "big")
    else:
        head += bytes([mask_bit | 127]) + size.to_bytes(8, "big")
    if not masked:
        return bytes(head) + payload
    key = random.randbytes(4)
    return bytes(head) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def _handshake(stream: trio.SocketStream, host: str, token: str, rng: random.Random) -> WSConnection:
    ws = WSConnection(ConnectionType.CLIENT)
    extensions = [PerMessageDeflate()] if rng.random() < 0.5 else []
    await stream.send_all(ws.send(Request(host=host, target=f"/ws?token={token}", extensions=extensions)))
    with trio.move_on_after(5):
        data = await stream.receive_some(65536)
        if data:
            ws.receive_data(data)
            list(ws.events())
    return ws


async def hostile(url: str, seat: WebSeat, rng: random.Random) -> None:
    """One hostile connection, of a kind and shape drawn from ``rng``; whatever happens to it
    is its own business (the server may refuse or close it at any point)."""
    host = url.removeprefix("http://")
    address, _, port = host.rpartition(":")
    kind = rng.choice(["bytes", "http", "frames", "message", "big", "cut"])
    token = seat.token if rng.random() < 0.3 else rng.choice(["", "x", seat.token[:-1], "%00" * 10])
    try:
        stream = await trio.open_tcp_stream(address, int(port))
    except OSError:
        return
    try:
        if kind == "bytes":
            await stream.send_all(rng.randbytes(rng.randrange(1, 5000)))
        elif kind == "http":
            lines = [b"GET /" + rng.randbytes(rng.randrange(0, 200)).replace(b"\r\n", b"") + b" HTTP/1.1", b"Host: x"]
            lines += [rng.randbytes(rng.randrange(0, 100)) for _ in range(rng.randrange(0, 5))]
            await stream.send_all(b"\r\n".join(lines) + b"\r\n\r\n")
        else:
            ws = await _handshake(stream, host, token, rng)
            if kind == "frames":
                for _ in range(rng.randrange(1, 6)):
                    opcode = rng.choice([0, 1, 2, 3, 8, 9, 10, 11, 15])
                    payload = rng.randbytes(rng.choice([0, 1, 125, 126, 127, 1000, 70000]))
                    await stream.send_all(_frame(opcode, payload, fin=rng.random() < 0.7, masked=rng.random() < 0.9))
            elif kind == "message":
                text = rng.choice(['{"type":"hello"}', "{", "[]" * 500, '{"type":"play","id":1e999}', "\x00" * 50])
                event: Any = Message(data=text) if rng.random() < 0.7 else Message(data=text.encode())
                await stream.send_all(ws.send(event))
            elif kind == "big":  # over the message cap, compressed or not, then gone at once
                size = rng.choice([100_000, 1_000_000])
                await stream.send_all(ws.send(Message(data="x" * size)))
            else:  # a message cut anywhere: the connection ends mid-frame
                data = ws.send(Message(data='{"type":"hello","version":1,"name":"cut"}' * rng.randrange(1, 50)))
                await stream.send_all(data[: rng.randrange(0, len(data))])
        if rng.random() < 0.5:
            with trio.move_on_after(0.2):
                await stream.receive_some(65536)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, LocalProtocolError):
        pass  # the server closed or refused it: its right
    finally:
        await stream.aclose()


@pytest.mark.process
@pytest.mark.parametrize("seed", [1, 2])
async def test_a_storm_of_hostile_pages_cannot_end_the_referee(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    person = Person()

    async def players(url: str, seat: WebSeat, who: Person) -> None:
        async with trio.open_nursery() as storm:
            for _ in range(CASES):
                storm.start_soon(hostile, url, seat, random.Random(rng.random()))
                await trio.sleep(0)
        client = await who.join()  # after the storm, the person's own page takes the seat
        await who.play(client)

    outcome, log, server = await play_web(tmp_path, person, players=players, config=STORM, connect_timeout=120)
    assert outcome.rounds == 1  # the match played to its end
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    assert verified(log) == "verified"
    assert server.refusals  # the storm was seen, and refused or faulted by name


@pytest.mark.process
async def test_a_hundred_kilobytes_then_close_twenty_times(tmp_path: Path) -> None:
    """The reported crash: a page that sent 100 KB and closed its socket at once ended the
    referee twice in about 80 runs; here twenty in a row, then the person plays."""
    person = Person()

    async def players(url: str, seat: WebSeat, who: Person) -> None:
        host = url.removeprefix("http://")
        address, _, port = host.rpartition(":")
        for index in range(20):
            stream = await trio.open_tcp_stream(address, int(port))
            ws = await _handshake(stream, host, seat.token, random.Random(index))
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, LocalProtocolError):
                await stream.send_all(ws.send(Message(data="y" * 100_000)))
            await stream.aclose()
        client = await who.join()
        await who.play(client)

    outcome, log, _ = await play_web(tmp_path, person, players=players, config=STORM, connect_timeout=120)
    assert outcome.rounds == 1 and verified(log) == "verified"


async def test_a_storm_cannot_end_the_watch_server(tmp_path: Path) -> None:
    """The same storm at ``referee watch``'s server (right and wrong tokens), then a spectator
    still follows the log."""
    log = tmp_path / "live.jsonl"
    server = WatchServer(log, poll=0.01)
    rng = random.Random(3)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.serve)
        seat = WebSeat(seat=0, name="watch", reconnect=False)
        seat.token = server.token  # the storm's right token is the watch page's
        async with trio.open_nursery() as storm:
            for _ in range(CASES):
                storm.start_soon(hostile, url, seat, random.Random(rng.random()))
                await trio.sleep(0)
        client = await WsClient.connect(url, server.token, origin=url)
        first = await client.receive()
        assert first["type"] == "snapshot" and first["waiting"]
        nursery.cancel_scope.cancel()
