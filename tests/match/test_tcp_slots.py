"""TCP handshake slots: an unauthenticated connection cannot hold the referee. Idle connections
are dropped at the hello limit, one address cannot take every slot, a new connection evicts a
silent one when the slots are full (so idle connections from several addresses cannot keep an
honest bot out), whatever a client sends before it is seated ends that connection only, every
refusal reaches the operator (rate-limited, safe for a terminal), and the kits retry ``busy``
and get in."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
import trio.testing

from referee.match.config import MatchConfig
from referee.match.play import TableOptions
from referee.names import printable
from referee.players import tcp
from referee.players.channel import Failure
from referee.players.connection import BotConnection, say_goodbye
from referee.players.connection import handshake as connection_handshake
from referee.players.tcp import Refusal, RefusalReport, TcpSeat, TcpSeatServer, address_key, describe
from tests.match.listening import listening_match, random_bots_for, seats_announced
from tests.match.scripted import Lines
from tests.match.test_tcp import GOOD, ROOT, SHORT, Client

CONFIG = MatchConfig(per_decision=2.0, bank=2.0, startup=10.0, grace=0.3)
HOSTILE = b"[" * 1000 + b"]" * 1000 + b"\n"
"""A 2 KB line nested 1000 deep, sent instead of a hello."""


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def first_line(stream: trio.SocketStream) -> dict[str, Any]:
    """The first line the referee sends on a connection."""
    lines = Lines(stream)
    line = await lines.next()
    if line is None:
        raise AssertionError(f"connection closed after {lines.buffer!r}")
    message: dict[str, Any] = json.loads(line)
    return message


async def lines_until_closed(stream: trio.SocketStream) -> list[dict[str, Any]]:
    buffer = b""
    with trio.move_on_after(30):
        while data := await stream.receive_some(65536):
            buffer += data
    return [json.loads(line) for line in buffer.splitlines() if line]


async def start_kit(nursery: trio.Nursery, command: list[str]) -> tuple[trio.Process, bytearray]:
    """A kit's bot started from the repository root, its stderr collected as it comes."""
    process = await trio.lowlevel.open_process(command, cwd=ROOT, stderr=subprocess.PIPE)
    stderr = bytearray()

    async def drain() -> None:
        assert process.stderr is not None
        while data := await process.stderr.receive_some(65536):
            stderr.extend(data)

    nursery.start_soon(drain)
    return process, stderr


async def hello_with(stream: trio.SocketStream, token: str | None) -> list[dict[str, Any]]:
    """Answer the referee's hello with ``token``; the lines that follow until the referee
    closes (a refusal) or, when seated, nothing is awaited."""
    assert (await first_line(stream))["type"] == "hello"
    await stream.send_all(json.dumps({"type": "hello", "version": 1, "name": "x", "token": token}).encode() + b"\n")
    return await lines_until_closed(stream)


async def open_server(
    nursery: trio.Nursery, seats: list[TcpSeat], **options: Any
) -> tuple[TcpSeatServer, tuple[str, int], list[Refusal]]:
    refused: list[Refusal] = []
    options.setdefault("squat_after", 60.0)  # a burst from one address is refused, whatever the machine's speed
    server = TcpSeatServer(seats, startup=options.pop("startup", 60.0), on_refusal=refused.append, **options)
    address = await nursery.start(server.serve, "127.0.0.1", 0)
    return server, address, refused


# ---------------------------------------------------------------------------------------------
# Slots
# ---------------------------------------------------------------------------------------------
async def test_one_address_cannot_take_every_slot() -> None:
    seat = TcpSeat(seat=0, name="a", token="tok")
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, [seat], hello_timeout=60.0)
        attackers = [await trio.open_tcp_stream(*address, local_address="127.0.0.2") for _ in range(20)]
        answers = [await first_line(stream) for stream in attackers]  # one by one: each is accepted in order
        assert [a["type"] for a in answers] == ["hello"] * 4 + ["error"] * 16
        assert {a["code"] for a in answers[4:]} == {"busy"}
        assert "from 127.0.0.2" in answers[4]["message"] and "per address" in answers[4]["message"]
        honest = await trio.open_tcp_stream(*address)  # from 127.0.0.1: slots are left for it
        assert (await first_line(honest))["type"] == "hello"
        await honest.send_all(b'{"type":"hello","version":1,"name":"honest","token":"tok"}\n')
        await seat.arrived.wait()
        assert seat.connection is not None and seat.connection.hello is not None
        assert seat.connection.hello.name == "honest"
        assert server.pending_by_address == {"127.0.0.2": 4}
        for stream in [*attackers, honest]:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert [r.reason for r in refused[:16]] == ["busy"] * 16  # then the attackers' hang-ups
    assert all(r.peer.startswith("127.0.0.2:") for r in refused)


async def test_silent_connections_from_the_bots_own_address_cannot_keep_it_out() -> None:
    """The squatter of issue 22: connections from 127.0.0.1, where the bots run too, that say
    nothing hold every slot of that address. A bot with its token still gets in at the first
    try: it takes the oldest silent connection's slot, and answers before its own turn comes."""
    seats = [TcpSeat(seat=n, name=f"s{n}") for n in range(4)]
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, seats, hello_timeout=60.0, squat_after=0.2)
        squatters = [await trio.open_tcp_stream(*address) for _ in range(4)]
        for stream in squatters:
            assert (await first_line(stream))["type"] == "hello"
        assert server.pending_by_address == {"127.0.0.1": 4}
        fifth = await trio.open_tcp_stream(*address)  # at once: a burst from one address is refused
        assert [m["code"] for m in await lines_until_closed(fifth)] == ["busy"]
        await trio.sleep(0.3)  # silent for longer than squat_after: squatters now
        bots = [await trio.open_tcp_stream(*address) for _ in seats]
        for stream, seat in zip(bots, seats, strict=True):
            assert (await first_line(stream))["type"] == "hello"
            hello = {"type": "hello", "version": 1, "name": seat.name, "token": seat.token}
            await stream.send_all(json.dumps(hello).encode() + b"\n")
            await seat.arrived.wait()
            assert seat.connection is not None and seat.connection.hello is not None
            assert seat.connection.hello.name == seat.name
        assert [[m["code"] for m in await lines_until_closed(stream)] for stream in squatters] == [["busy"]] * 4
        for stream in [*squatters, *bots, fifth]:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert [r.message for r in evictions(refused)] == [tcp.EVICTED_SILENT] * 4


ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]


async def reconnecting(host: str, port: int, local: str) -> None:
    """An idle connection from ``local`` that connects again as soon as it is closed."""
    while True:
        try:
            stream = await trio.open_tcp_stream(host, port, local_address=local)
        except OSError:
            await trio.sleep(0.01)
            continue
        async with stream:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                while await stream.receive_some(65536):
                    pass


async def start_attack(
    nursery: trio.Nursery, server: TcpSeatServer, address: tuple[str, int], per_address: int = 6
) -> None:
    """Open ``per_address`` reconnecting idle connections from each of ``ATTACKERS``; return
    once they hold every slot (nothing is evicted before an outsider comes: they stay full)."""
    for local in ATTACKERS:
        for _ in range(per_address):
            nursery.start_soon(reconnecting, *address, local)
    while server.pending_by_address != {local: server.max_pending_per_address for local in ATTACKERS}:
        await trio.sleep(0.01)


def evictions(refused: list[Refusal]) -> list[Refusal]:
    return [r for r in refused if r.message.startswith("dropped:")]


def hosts_of(refused: list[Refusal]) -> set[str]:
    return {r.peer.rpartition(":")[0] for r in refused}


@pytest.mark.process
async def test_an_honest_kit_bot_gets_its_seat_while_idle_connections_reconnect() -> None:
    seat = TcpSeat(seat=0, name="a")
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, [seat], hello_timeout=60.0)
        async with trio.open_nursery() as attack:
            await start_attack(attack, server, address)
            command = [sys.executable, "sample_bots/python/random_bot.py", "--seed", "1",
                       "--tcp", f"{address[0]}:{address[1]}", "--token", seat.token, "--retry-for", "10"]  # fmt: skip
            process, stderr = await start_kit(nursery, command)
            async with trio.open_nursery() as race:  # seated, or the kit gave up (a failure, not a hang)

                async def first_of(wait: Callable[[], Awaitable[object]]) -> None:
                    await wait()
                    race.cancel_scope.cancel()

                race.start_soon(first_of, seat.arrived.wait)
                race.start_soon(first_of, process.wait)
            attack.cancel_scope.cancel()
        assert seat.arrived.is_set(), stderr.decode(errors="replace")
        assert isinstance(seat.connection, BotConnection)
        await say_goodbye(seat.connection, 5.0)
        assert await process.wait() == 0
        nursery.cancel_scope.cancel()
    assert refused and hosts_of(refused) <= set(ATTACKERS)
    assert b"busy" not in stderr  # in at the first try: only the attackers' connections were refused


async def test_eviction_takes_the_oldest_silent_connection_of_the_address_with_most_slots(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(
            nursery,
            [TcpSeat(seat=0, name="a")],
            hello_timeout=60.0,
            max_pending=4,
            max_pending_per_address=3,
            squat_after=1.0,
        )

        async def connect(local: str) -> trio.SocketStream:
            stream = await trio.open_tcp_stream(*address, local_address=local)
            await first_line(stream)  # the referee's hello or a refusal: accepted in order
            return stream

        lone = await connect("127.0.0.3")  # the oldest of all
        crowd = [await connect("127.0.0.2") for _ in range(3)]
        assert server.pending == 4
        over = await lines_until_closed(await connect("127.0.0.2"))  # over its cap: refused, evicts nobody
        assert over == [] and refused[-1].reason == "busy" and "per address" in refused[-1].message
        assert server.pending_by_address == {"127.0.0.3": 1, "127.0.0.2": 3}
        await crowd[1].send_all(b'{"type":"hello"')  # part of a line: still silent
        await trio.sleep(2.0)  # silent for longer than squat_after: squatters now
        first = await connect("127.0.0.4")  # evicts the oldest of 127.0.0.2, which holds the most slots
        assert [m.get("code") for m in await lines_until_closed(crowd[0])] == ["busy"]
        second = await connect("127.0.0.5")  # 127.0.0.2 still holds the most: its next one goes
        assert [m.get("code") for m in await lines_until_closed(crowd[1])] == ["busy"]
        third = await connect("127.0.0.2")  # one slot each now: the oldest silent one goes
        assert [m.get("code") for m in await lines_until_closed(lone)] == ["busy"]
        assert server.pending_by_address == {"127.0.0.2": 2, "127.0.0.4": 1, "127.0.0.5": 1}
        for stream in [crowd[2], first, second, third]:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    dropped = evictions(refused)
    assert [r.peer.rpartition(":")[0] for r in dropped] == ["127.0.0.2", "127.0.0.2", "127.0.0.3"]
    assert [r.message for r in dropped] == [tcp.EVICTED_SILENT, tcp.EVICTED_PARTIAL, tcp.EVICTED_SILENT]
    assert {r.reason for r in dropped} == {"busy"}


async def test_a_connection_that_sent_its_hello_line_is_never_evicted(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = trio.Event()
    heard: list[bytes] = []
    checking = trio.Event()

    async def slow_check(connection: BotConnection, startup: float, admit: Any = None, since: Any = None) -> None:
        """A handshake whose check of the hello takes until ``gate``."""
        await connection.link.send(b'{"type":"hello"}\n')
        heard.append(await connection.link.receive_line())
        checking.set()
        await gate.wait()
        connection.failure = Failure("bad_token", "checked")
        await connection.link.close()

    monkeypatch.setattr(tcp, "handshake", slow_check)
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(
            nursery, [TcpSeat(seat=0, name="a")], max_pending=2, squat_after=0.0
        )

        async def connect(local: str, line: bytes | None = None) -> trio.SocketStream:
            nonlocal checking
            stream = await trio.open_tcp_stream(*address, local_address=local)
            assert (await first_line(stream))["type"] == "hello"
            if line is not None:
                checking = trio.Event()
                await stream.send_all(line)
                await checking.wait()
            return stream

        spoke = await connect("127.0.0.2", b"first\n")  # the oldest, being checked
        silent = await connect("127.0.0.3")
        newcomer = await connect("127.0.0.4")  # evicts the silent one, not the older one being checked
        assert [m["type"] for m in await lines_until_closed(silent)] == ["error"]
        await newcomer.send_all(b"second\n")
        await checking.wait()
        late = await lines_until_closed(await trio.open_tcp_stream(*address, local_address="127.0.0.5"))
        assert [(m["code"], m["message"]) for m in late] == [
            ("busy", "too many connections in their handshake (limit 2); try again")
        ]
        assert server.pending == 2 and heard == [b"first", b"second"]
        gate.set()
        for stream in [spoke, newcomer]:
            assert await lines_until_closed(stream) == []
        nursery.cancel_scope.cancel()
    seen = [(r.peer.rpartition(":")[0], r.reason, r.message) for r in refused]
    assert seen[:2] == [
        ("127.0.0.3", "busy", tcp.EVICTED_SILENT),
        ("127.0.0.5", "busy", "too many connections in their handshake (limit 2); try again"),
    ]
    assert sorted(seen[2:]) == [("127.0.0.2", "bad_token", "checked"), ("127.0.0.4", "bad_token", "checked")]
    assert server.pending == 0 and not server.pending_by_address


async def test_an_idle_connection_is_dropped_at_the_hello_limit(autojump_clock: trio.testing.MockClock) -> None:
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, [TcpSeat(seat=0, name="a")], hello_timeout=3.0)
        start = trio.current_time()
        idle = await trio.open_tcp_stream(*address)
        lines = await lines_until_closed(idle)
        waited = trio.current_time() - start
        nursery.cancel_scope.cancel()
    assert [m["type"] for m in lines] == ["hello", "error"]
    assert lines[1]["code"] == "timeout" and "3 s" in lines[1]["message"]
    assert waited < 60.0  # the start-up limit of the server is far longer than the hello limit
    assert [r.reason for r in refused] == ["timeout"]
    assert server.pending == 0 and not server.pending_by_address


def test_the_hello_limit_is_never_longer_than_the_startup_limit() -> None:
    assert TcpSeatServer([], startup=1.0, hello_timeout=5.0).hello_timeout == 1.0
    assert TcpSeatServer([], startup=10.0).hello_timeout == tcp.DEFAULT_HELLO_TIMEOUT < 10.0


def test_addresses_are_counted_by_host_and_ipv6_network() -> None:
    assert address_key("127.0.0.1") == "127.0.0.1"
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff") == "2001:db8::/64"
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("?") == "?"


# ---------------------------------------------------------------------------------------------
# Refusals reach the operator
# ---------------------------------------------------------------------------------------------
async def test_refusals_reach_on_refusal_with_a_reason() -> None:
    seat = TcpSeat(seat=0, name="a", token="tok")
    async with trio.open_nursery() as nursery:
        _, address, refused = await open_server(nursery, [seat])
        wrong = await hello_with(await trio.open_tcp_stream(*address), "nope")
        missing = await hello_with(await trio.open_tcp_stream(*address), None)
        empty = await hello_with(await trio.open_tcp_stream(*address), "")
        seated = await trio.open_tcp_stream(*address)
        assert (await first_line(seated))["type"] == "hello"
        await seated.send_all(b'{"type":"hello","version":1,"name":"ok","token":"tok"}\n')
        await seat.arrived.wait()
        twin = await hello_with(await trio.open_tcp_stream(*address), "tok")
        await seated.aclose()
        nursery.cancel_scope.cancel()
    assert [m["code"] for m in wrong + missing + empty + twin] == ["bad_token"] * 3 + ["seat_taken"]
    assert "your hello has no token" in missing[0]["message"] and "no token" in empty[0]["message"]
    assert [(r.reason, r.message) for r in refused] == [
        ("bad_token", "no seat has this token"),
        ("bad_token", missing[0]["message"]),
        ("bad_token", empty[0]["message"]),
        ("seat_taken", "seat 0 (a) already has a bot connected"),
    ]
    assert all(re.fullmatch(r"127\.0\.0\.1:\d+", r.peer) for r in refused)


async def test_a_hello_with_a_non_ascii_token_is_a_bad_token() -> None:
    async with trio.open_nursery() as nursery:
        _, address, refused = await open_server(nursery, [TcpSeat(seat=0, name="a", token="tok")])
        lines = await hello_with(await trio.open_tcp_stream(*address), "t\u00f6k\u202e")
        nursery.cancel_scope.cancel()
    assert [m["code"] for m in lines] == ["bad_token"]
    assert [r.reason for r in refused] == ["bad_token"]


def test_printed_refusals_are_safe_for_a_terminal() -> None:
    refusal = Refusal("127.0.0.1:5\r\n", "bad_json", "not JSON: \x1b[2J\x1b]0;owned\x07 \u202eevil\x00")
    line = describe(refusal)
    assert line.isprintable()
    assert line == ("refused 127.0.0.1:5\\r\\n: bad_json (not JSON: \\x1b[2J\\x1b]0;owned\\x07 \\u202eevil\\x00)")
    assert len(printable("x" * 10_000, 200)) <= 200


async def test_a_flood_of_refusals_prints_a_few_lines_and_a_count(autojump_clock: trio.testing.MockClock) -> None:
    printed: list[str] = []
    report = RefusalReport(printed.append, per_second=3)
    for i in range(50):
        report(Refusal(f"10.0.0.1:{i}", "busy" if i % 5 else "timeout", "m"))
    assert printed == [
        "refused 10.0.0.1:0: timeout (m)",
        "refused 10.0.0.1:1: busy (m)",
        "refused 10.0.0.1:2: busy (m)",
    ]
    await trio.sleep(1.5)  # the count comes when the second is over, without waiting for more refusals
    assert printed[3:] == ["refused 47 more connections in one second (busy 38, timeout 9)"]
    report(Refusal("10.0.0.1:99", "bad_token", "no seat has this token"))
    report.flush()
    assert printed[4:] == ["refused 10.0.0.1:99: bad_token (no seat has this token)"]


# ---------------------------------------------------------------------------------------------
# Nothing a client sends before it is seated crashes the referee
# ---------------------------------------------------------------------------------------------
@pytest.mark.process
async def test_a_deeply_nested_line_before_authenticating_is_refused_and_the_match_plays_on() -> None:
    refused: list[Refusal] = []
    attacker: list[dict[str, Any]] = []
    honest = Client("secret-token")
    seats = ["tcp:t:secret-token", GOOD, GOOD, GOOD]
    options = TableOptions(config=CONFIG, cwd=ROOT, on_refusal=refused.append, connect_timeout=20.0)
    async with listening_match(seats, SHORT, seed=3, options=options) as match:
        stream = await trio.open_tcp_stream(*match.address)
        assert (await first_line(stream))["type"] == "hello"
        await stream.send_all(HOSTILE)
        attacker.extend(await lines_until_closed(stream))
        await honest.run(match.address)
    assert [m["type"] for m in attacker] == ["error"] and attacker[0]["fatal"] is True
    assert [r.reason for r in refused] == [attacker[0]["code"]]
    assert [s.status for s in match.outcome.seats] == ["ok"] * 4
    assert "match_end" in [m["type"] for m in honest.received]


async def test_an_unexpected_exception_in_a_handshake_ends_that_connection_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = connection_handshake
    calls = 0

    async def explosive(connection: Any, startup: float, admit: Any = None, since: Any = None) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RecursionError("maximum recursion depth exceeded")
        await real(connection, startup, admit=admit, since=since)

    monkeypatch.setattr(tcp, "handshake", explosive)
    seat = TcpSeat(seat=0, name="a", token="tok")
    async with trio.open_nursery() as nursery:
        server, address, refused = await open_server(nursery, [seat])
        hostile = await lines_until_closed(await trio.open_tcp_stream(*address))
        honest = await trio.open_tcp_stream(*address)
        assert (await first_line(honest))["type"] == "hello"
        await honest.send_all(b'{"type":"hello","version":1,"name":"ok","token":"tok"}\n')
        await seat.arrived.wait()
        await honest.aclose()
        nursery.cancel_scope.cancel()
    assert [(m["type"], m["code"]) for m in hostile] == [("error", "protocol_violation")]
    assert [(r.reason, r.message) for r in refused] == [
        ("protocol_violation", "the referee could not handle this connection's handshake (RecursionError)")
    ]
    assert server.pending == 0 and seat.connection is not None and seat.connection.hello is not None
    assert seat.connection.hello.name == "ok"


# ---------------------------------------------------------------------------------------------
# The CLI prints refusals
# ---------------------------------------------------------------------------------------------
def raw_hello(host: str, port: str, line: bytes) -> list[dict[str, Any]]:
    """Connect, read the hello, send ``line``, and read until the referee closes."""
    with socket.create_connection((host, int(port)), timeout=10) as sock, sock.makefile("rwb") as stream:
        assert json.loads(stream.readline())["type"] == "hello"
        stream.write(line)
        stream.flush()
        return [json.loads(reply) for reply in stream]


@pytest.mark.process
def test_serve_prints_each_refusal_on_stderr() -> None:
    serve = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "--seed", "5", "--set", "end=rounds", "--set", "rounds=1",
         "n", "e", "s", "w"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    seats = seats_announced(serve)
    host, port = seats[0][2], seats[0][3]
    wrong = raw_hello(host, port, b'{"type":"hello","version":1,"name":"x","token":"nope"}\n')
    evil = raw_hello(host, port, b'{"type":"\\u001b[2J\\r\\nhacked","version":1}\n')
    deep = raw_hello(host, port, HOSTILE)
    assert [m["type"] for m in wrong + evil + deep] == ["error"] * 3
    bots = random_bots_for(seats)
    _, err = serve.communicate(timeout=60)
    assert serve.returncode == 0
    assert all(bot.wait(timeout=10) == 0 for bot in bots)
    refusals = [line for line in err.splitlines() if line.startswith("refused ")]
    assert len(refusals) == 3
    assert re.fullmatch(r"refused 127\.0\.0\.1:\d+: bad_token \(no seat has this token\)", refusals[0])
    assert " unknown_message " in refusals[1] and "\x1b" not in err and "\\x1b[2J\\r\\nhacked" in refusals[1]
    assert f": {deep[0]['code']} (" in refusals[2]


# ---------------------------------------------------------------------------------------------
# The kits retry busy and get in
# ---------------------------------------------------------------------------------------------
@pytest.mark.process
@pytest.mark.parametrize("kit", ["python", "javascript"])
async def test_a_kit_refused_busy_retries_and_gets_in(kit: str) -> None:
    if kit == "javascript" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    refused: list[Refusal] = []
    kit_refused = trio.Event()

    def on_refusal(refusal: Refusal) -> None:
        refused.append(refusal)
        if refusal.reason == "busy":
            kit_refused.set()

    options = TableOptions(config=CONFIG, cwd=ROOT, on_refusal=on_refusal, connect_timeout=30.0)
    async with listening_match(["tcp:kit", GOOD, GOOD, GOOD], SHORT, seed=6, options=options) as match:
        host, port = match.address
        # an attacker on the kit's own address holds its handshake slots until the kit is refused
        idle = [await trio.open_tcp_stream(host, port) for _ in range(tcp.MAX_PENDING_PER_ADDRESS)]
        for stream in idle:
            assert (await first_line(stream))["type"] == "hello"
        program = (
            [sys.executable, "sample_bots/python/random_bot.py", "--seed", "1"]
            if kit == "python"
            else ["node", "sample_bots/javascript/bot.js"]
        )
        command = [*program, "--tcp", f"{host}:{port}", "--token", match.seats[0].token, "--retry-for", "30"]
        process, stderr = await start_kit(match.nursery, command)
        with trio.fail_after(60):  # no hang: a kit slower than SQUAT_AFTER evicts an idle one instead
            await kit_refused.wait()
        for stream in idle:
            await stream.aclose()
        assert await process.wait() == 0
    assert [s.status for s in match.outcome.seats] == ["ok"] * 4
    assert refused[0].reason == "busy" and "per address" in refused[0].message
    assert b"busy" in stderr and b"trying again in" in stderr
