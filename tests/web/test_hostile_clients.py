"""The ladder's pages against clients that hold what they are given (issue 41), each attack
made with a real client on a real socket against the real server (Hypercorn, in this trio
run), and a legitimate viewer served during and after each:

- HTTP/2 with a flow-control window of zero, 32 streams opened, the attacker gone (the ``h2``
  library): the server speaks HTTP/1.1 only, the preface is refused 505, no slot is held;
- an ``Upgrade: h2c`` request is answered in HTTP/1.1;
- connections that pipeline requests and never read (a tiny receive buffer): no slot is held
  while an answer waits to be sent, and each such connection is closed after the write
  deadline;
- Hypercorn's own error answers (400, 431) carry the pages' security headers;
- and in-process: the token and the ``Host`` are checked before a slot is taken, one address
  cannot take every slot, and a token in a path of two slashes redirects on this site only."""

from __future__ import annotations

import contextlib
import inspect
import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import h2.config
import h2.connection
import h2.settings
import pytest
import trio

from referee.bench.web_attacks import bench_web_attacks
from referee.errors import RefereeError
from referee.store.database import read_only
from referee.store.reader import LadderReader
from referee.store.records import match_key
from referee.web import hypercorn_bounds
from referee.web.asgi import hypercorn_config, lifespan, listen
from referee.web.ladder import queries
from referee.web.ladder.answers import SECURITY_HEADERS
from referee.web.ladder.budget import MAX_OPEN, MAX_OPEN_PER_CLIENT
from referee.web.ladder.server import serve_ladder_web
from tests.web.ladder_helpers import View

DEADLINE = 1.0
"""The write deadline the server is given here (10 s by default)."""
TCP_CLOSE_WAIT, TCP_CLOSE = 8, 7


@pytest.fixture
async def port(db: Path) -> AsyncIterator[int]:
    async with trio.open_nursery() as nursery:
        address = await nursery.start(lambda task_status: serve_ladder_web(
            db, "127.0.0.1", 0, send_seconds=DEADLINE, task_status=task_status))  # fmt: skip
        yield int(address.split(":")[2].split("/")[0])
        nursery.cancel_scope.cancel()


async def ask(port: int, request: bytes) -> bytes:
    """One request on a connection of its own, the whole answer (the server closes it)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(request)
        data = b""
        with trio.fail_after(30):  # a hang guard, not a measure
            while chunk := await stream.receive_some(65536):
                data += chunk
        return data


def page(port: int, target: str = "/") -> bytes:
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()


async def served(port: int) -> bool:
    """Whether a legitimate viewer gets the leaderboard."""
    answer = await ask(port, page(port))
    return answer.startswith(b"HTTP/1.1 200") and b"Leaderboard" in answer


def headers_of(answer: bytes) -> dict[bytes, bytes]:
    head = answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
    return {name.strip().lower(): value.strip() for name, _, value in (line.partition(b":") for line in head)}


def tcp_state(sock: socket.socket) -> int:
    return struct.unpack("B", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]


async def test_http2_with_a_closed_window_holds_nothing(port: int) -> None:
    """The attack of the issue: HTTP/2's preface, a window of zero, 32 requests, gone."""
    attackers = []
    for _ in range(3):
        client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        client.initiate_connection()
        client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        for stream_id in range(1, 65, 2):  # 32 streams
            authority = f"127.0.0.1:{port}"
            client.send_headers(stream_id, [(":method", "GET"), (":path", "/"), (":scheme", "http"),
                                            (":authority", authority)], end_stream=True)  # fmt: skip
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(client.data_to_send())
        attackers.append(stream)
    first = b""
    with trio.fail_after(30):
        while b"\r\n\r\n" not in first:
            first += await attackers[0].receive_some(65536)
    assert first.startswith(b"HTTP/1.1 505") and b"HTTP/1.1 only" in first  # named, in HTTP/1.1
    assert await served(port)  # while the attackers are connected
    for stream in attackers:
        await stream.aclose()
    assert await served(port) and await served(port)  # and after they left


async def test_an_h2c_upgrade_is_answered_in_http1(port: int) -> None:
    request = (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade, HTTP2-Settings, close\r\n"
               "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n").encode()  # fmt: skip
    answer = await ask(port, request)
    assert answer.startswith(b"HTTP/1.1 200") and b"Leaderboard" in answer


async def test_connections_that_never_read_hold_no_slot_and_are_closed(port: int) -> None:
    """More connections than there are slots, each with a tiny receive buffer and hundreds of
    pipelined requests it never reads: the answers wait to be sent, the viewers are served, and
    each such connection is closed once a write has waited ``DEADLINE``."""
    pipelined = page(port).replace(b"Connection: close\r\n", b"") * 400
    hogs = []
    for _ in range(MAX_OPEN + 8):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.send(pipelined)  # as much as the server takes; never read
        hogs.append(sock)
    await trio.sleep(0.2)  # the server has the requests and is writing its answers
    assert await served(port)
    assert await served(port)
    with trio.fail_after(60):  # a hang guard: each closes after DEADLINE
        while any(tcp_state(sock) not in (TCP_CLOSE_WAIT, TCP_CLOSE) for sock in hogs):
            await trio.sleep(0.1)
    for sock in hogs:
        sock.close()
    assert await served(port)


async def test_a_write_to_a_client_that_does_not_read_ends_after_the_deadline() -> None:
    """The deadline alone, on any of our servers: ten megabytes to a client that reads none."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        body = b"x" * 10_000_000
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"10000000")]})
        await send({"type": "http.response.body", "body": body})

    async with trio.open_nursery() as nursery:
        url = await listen(app, hypercorn_config("127.0.0.1", 0, 4096, send_seconds=0.5), nursery)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with trio.fail_after(30):
            while tcp_state(sock) not in (TCP_CLOSE_WAIT, TCP_CLOSE):
                await trio.sleep(0.05)
        sock.close()
        nursery.cancel_scope.cancel()


async def test_hypercorns_own_answers_carry_the_security_headers(port: int) -> None:
    bad = await ask(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n")
    huge = await ask(port, page(port).replace(b"\r\n\r\n", b"\r\nX-Big: " + b"y" * 200_000 + b"\r\n\r\n"))
    pri = await ask(port, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    for answer, status in ((bad, b"400"), (huge, b"431"), (pri, b"505")):
        assert answer.split(b" ")[1] == status, answer[:200]
        found = headers_of(answer)
        for name, value in SECURITY_HEADERS:
            assert found.get(name) == value, (status, name)
    ours = headers_of(await ask(port, page(port)))  # a page keeps its own policy, once
    assert ours[b"content-security-policy"].startswith(b"default-src 'none'; script-src 'self'")
    assert ours[b"x-content-type-options"] == b"nosniff"


async def test_the_checks_come_before_a_slot(db: Path) -> None:
    view = View(db, token="s3cret")
    try:
        for n in range(MAX_OPEN):
            assert view.app.slots.take(f"10.0.0.{n}")  # every slot taken by others
        status, _, _ = await view.ask("/")  # no token: refused as such, not as busy
        assert status == 403
        status, _, _ = await view.ask("/", headers=[(b"host", b"evil.example")])
        assert status == 421  # a Host not its own: refused as such
        status, headers, _ = await view.ask("/", query_string=b"token=s3cret")
        assert status == 303 and headers[b"location"] == b"/"
        cookie = [(b"host", b"127.0.0.1:8000"), (b"cookie", b"ladder_token=s3cret")]
        assert (await view.ask("/", headers=cookie))[0] == 503  # with the token: now it is busy
        assert view.app.slots.open == MAX_OPEN  # nothing was taken by the refused ones
    finally:
        view.close()


async def test_a_kept_page_takes_no_slot(db: Path) -> None:
    """On loopback every client shares one address: a page already made is given without a
    slot, so a local flood of kept pages leaves a viewer served."""
    view = View(db)
    try:
        assert (await view.ask("/"))[0] == 200  # made once, kept
        for _ in range(MAX_OPEN_PER_CLIENT):
            assert view.app.slots.take("127.0.0.1")
        assert (await view.ask("/", client=("127.0.0.1", 5000)))[0] == 200  # kept: no slot needed
        assert (await view.ask("/ladder.css", client=("127.0.0.1", 5000)))[0] == 200
        assert (await view.ask("/tables", client=("127.0.0.1", 5000)))[0] == 503  # to be made: a slot
    finally:
        view.close()


async def test_one_address_cannot_take_every_slot(db: Path) -> None:
    view = View(db)
    try:
        for _ in range(MAX_OPEN_PER_CLIENT):
            assert view.app.slots.take("203.0.113.9")
        assert not view.app.slots.take("203.0.113.9")
        status, _, _ = await view.ask("/", client=("203.0.113.9", 5000))
        assert status == 503
        status, _, body = await view.ask("/", client=("198.51.100.7", 5000))
        assert status == 200 and b"Leaderboard" in body
        assert view.app.slots.by_client == {"203.0.113.9": MAX_OPEN_PER_CLIENT}
    finally:
        view.close()


async def test_the_token_redirect_stays_on_this_site(db: Path) -> None:
    view = View(db, token="s3cret")
    try:
        for path, where in (("//evil.example/", b"/evil.example/"), ("/\\evil.example", b"/%5Cevil.example"),
                            ("///x", b"/x"), ("/matches", b"/matches")):  # fmt: skip
            status, headers, _ = await view.ask(path, query_string=b"token=s3cret")
            assert status == 303 and headers[b"location"] == where, path
    finally:
        view.close()


def test_the_wrapped_hypercorn_methods_are_still_there() -> None:
    """The wrappers of ``hypercorn_bounds`` take what Hypercorn's methods took: a Hypercorn
    whose methods changed fails here, not in a viewer's connection."""
    for (owner, name), original in hypercorn_bounds.PATCHED.items():
        wrapper = getattr(owner, name)
        assert wrapper is not original, name
        assert list(inspect.signature(wrapper).parameters) == list(inspect.signature(original).parameters), name


def test_a_match_key_is_ascii_digits_only(db: Path) -> None:
    """``٠٠٠٠٠-٠`` (Arabic-Indic digits) is no other address of ``00000-0``."""
    reader = LadderReader(db, read_only(db))
    try:
        key = match_key(0, 0)
        assert queries.match_log(reader, key) is not None
        for other in ("٠٠٠٠٠-٠", "０００００-０", "00000-٠"):
            assert queries.match_log(reader, other) is None, other
    finally:
        reader.close()


async def test_the_attack_bench_reports_what_a_viewer_got(port: int) -> None:
    """``referee bench web-attacks``: the attacks made on a real server, the viewer served."""
    found = await trio.to_thread.run_sync(
        lambda: bench_web_attacks(f"http://127.0.0.1:{port}", 1.0, ("h2-window", "never-read"))
    )
    assert [r.attack for r in found] == ["h2-window", "never-read"]
    for result in found:
        for viewer in (result.during, result.after):
            assert viewer.statuses and set(viewer.statuses) == {"200"}, (result.attack, viewer.statuses)
            assert len(viewer.seconds) == viewer.statuses["200"]


def test_the_attack_bench_attacks_loopback_only() -> None:
    for url in ("http://10.0.0.1:80", "http://example.com:80", "http://127.0.0.1"):
        with pytest.raises(RefereeError, match="loopback only"):
            bench_web_attacks(url, 1.0)
