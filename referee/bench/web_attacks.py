"""``referee bench web-attacks URL``: the attacks of issue 41 made on a ladder's pages while a
viewer keeps asking for the leaderboard, and what the viewer got.

Each attack runs for ``seconds``, then stops (its sockets closed), and the viewer goes on for
``seconds`` more: a page that recovers only after a restart shows in the "after" figures. The
attacks, each bounded in connections and time:

- ``h2-window``: 3 connections each speak HTTP/2 (the ``h2`` library), set their flow-control
  window to 0 and open 32 streams (the attack that closed the pages for good);
- ``never-read``: 40 connections with a receive buffer of 1 KiB each pipeline 1,000 requests for
  the list of matches (tens of MB of answers each) and read nothing;
- ``refused``: 8 clients ask as fast as they can with a foreign ``Host`` (refused with 421 on
  loopback; 403 for want of the token elsewhere);
- ``idle``: 1,000 connections that send nothing, and 100 that send a request's header one byte a
  second (slowloris).

The viewer asks ``/`` every 0.1 s with a fresh connection and a 5-second limit. Traffic goes to
this machine's loopback only: any other address is refused."""

from __future__ import annotations

import contextlib
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.settings

from referee.errors import RefereeError

VIEWER_EVERY = 0.1
VIEWER_TIMEOUT = 5.0


@dataclass
class ViewerTally:
    """What one viewer got in one phase: its answers by status, and how long each 200 took."""

    statuses: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)

    @property
    def served(self) -> str:
        return f"{self.statuses.get('200', 0)}/{sum(self.statuses.values())}"

    def summary(self) -> str:
        if not self.seconds:
            return f"served {self.served}"
        median = statistics.median(self.seconds) * 1000
        return f"served {self.served}, median {median:.0f} ms, max {max(self.seconds) * 1000:.0f} ms"


@dataclass
class AttackResult:
    attack: str
    during: ViewerTally
    after: ViewerTally


def _target(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port
    if host not in ("127.0.0.1", "localhost", "::1") or port is None:
        raise RefereeError(
            f"{url}: the attacks go to this machine's loopback only, with a port (http://127.0.0.1:PORT)"
        )
    return host, port


def _request(host: str, port: int, target: str = "/", *, own_host: bool = True, close: bool = True) -> bytes:
    name = f"{host}:{port}" if own_host else "evil.example"
    return f"GET {target} HTTP/1.1\r\nHost: {name}\r\n{'Connection: close' if close else ''}\r\n\r\n".encode()


def _ask(host: str, port: int) -> tuple[str, float]:
    """One viewer's request: its status (or ``gone``) and how long the whole answer took."""
    began = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=VIEWER_TIMEOUT) as sock:
            sock.sendall(_request(host, port))
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
    except OSError:
        return "gone", time.monotonic() - began
    status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "garbled"
    return status, time.monotonic() - began


def _watch(host: str, port: int, seconds: float) -> ViewerTally:
    tally = ViewerTally()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, took = _ask(host, port)
        tally.statuses[status] = tally.statuses.get(status, 0) + 1
        if status == "200":
            tally.seconds.append(took)
        time.sleep(VIEWER_EVERY)
    return tally


@contextlib.contextmanager
def _h2_window(host: str, port: int) -> Iterator[None]:
    with contextlib.ExitStack() as held:
        for _ in range(3):
            client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            client.initiate_connection()
            client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
            for stream_id in range(1, 65, 2):
                client.send_headers(stream_id, [(":method", "GET"), (":path", "/"), (":scheme", "http"),
                                                (":authority", f"{host}:{port}")], end_stream=True)  # fmt: skip
            held.enter_context(socket.create_connection((host, port), timeout=5)).sendall(client.data_to_send())
        yield


@contextlib.contextmanager
def _never_read(host: str, port: int) -> Iterator[None]:
    pipelined = _request(host, port, "/matches", close=False) * 1000
    with contextlib.ExitStack() as held:
        for _ in range(40):
            sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect((host, port))
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.send(pipelined)
        yield


@contextlib.contextmanager
def _refused(host: str, port: int) -> Iterator[None]:
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=5) as sock:
                sock.sendall(_request(host, port, own_host=False))
                while sock.recv(65536):
                    pass

    threads = [threading.Thread(target=client, daemon=True) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


@contextlib.contextmanager
def _idle(host: str, port: int) -> Iterator[None]:
    socks: list[socket.socket] = []
    stop = threading.Event()
    slow = [socket.create_connection((host, port), timeout=5) for _ in range(100)]

    def drip() -> None:
        header = _request(host, port)
        sent = 0
        while not stop.wait(1.0) and sent < len(header):
            for sock in slow:
                with contextlib.suppress(OSError):
                    sock.send(header[sent : sent + 1])
            sent += 1

    dripping = threading.Thread(target=drip, daemon=True)
    try:
        for _ in range(1000):
            with contextlib.suppress(OSError):
                socks.append(socket.create_connection((host, port), timeout=5))
        dripping.start()
        yield
    finally:
        stop.set()
        if dripping.is_alive():
            dripping.join(timeout=5)
        for sock in [*socks, *slow]:
            sock.close()


ATTACKS: dict[str, Callable[[str, int], contextlib.AbstractContextManager[None]]] = {
    "h2-window": _h2_window,
    "never-read": _never_read,
    "refused": _refused,
    "idle": _idle,
}


def bench_web_attacks(url: str, seconds: float = 10.0, attacks: tuple[str, ...] = tuple(ATTACKS)) -> list[AttackResult]:
    """Each attack on the pages at ``url`` for ``seconds``, a viewer asking all along, and the
    viewer ``seconds`` more after it: what the viewer got in each phase."""
    host, port = _target(url)
    results = []
    for name in attacks:
        with ATTACKS[name](host, port):
            during = _watch(host, port, seconds)
        results.append(AttackResult(name, during, _watch(host, port, seconds)))
    return results
