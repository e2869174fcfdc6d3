"""A kit's TCP client under test: the bot started with ``--tcp``, and the referee's side of its
connections played by hand on a loopback port (the tests of the C++, Go, Java, Rust and
JavaScript kits).

Every socket and every wait has a timeout, a guard against a hang only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from protocol import codec
from protocol.messages import BotHello, BotMessage, Goodbye, Hello
from tests.protocol.table_driver import check_play
from tests.sample_bots.kit_driver import BIG_ID, match_start, play_request


class Connection:
    """One connection the bot made, from the referee's side."""

    def __init__(self, sock: socket.socket, timeout: float) -> None:
        sock.settimeout(timeout)
        self.socket = sock
        self.reader = sock.makefile("rb")

    def send(self, message: Any) -> None:
        self.socket.sendall(codec.encode(message))

    def send_raw(self, data: bytes) -> None:
        self.socket.sendall(data)

    def receive(self) -> BotMessage:
        line = self.reader.readline()
        assert line.endswith(b"\n"), line
        return codec.decode_bot(line[:-1])

    def receive_hello(self) -> BotHello:
        hello = self.receive()
        assert isinstance(hello, BotHello), hello
        return hello

    def hung_up(self) -> bool:
        """Whether the bot closes the connection without another line."""
        return self.reader.readline() == b""

    def close(self) -> None:
        self.reader.close()
        self.socket.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class Listener:
    """A referee on a loopback port (``port`` 0: any free one) that accepts the bot's
    connections one at a time; not ``listening`` yet, it refuses them until ``listen``."""

    def __init__(self, timeout: float, port: int = 0, *, listening: bool = True) -> None:
        self.timeout = timeout
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port))
        self.server.settimeout(timeout)
        if listening:
            self.listen()
        self.port: int = self.server.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"

    def listen(self) -> None:
        self.server.listen()

    def accept(self) -> Connection:
        sock, _ = self.server.accept()
        return Connection(sock, self.timeout)

    def nobody_waiting(self) -> bool:
        """After the bot exited: it did not come back (a connection would be waiting)."""
        self.server.setblocking(False)
        try:
            sock, _ = self.server.accept()
        except BlockingIOError:
            return True
        sock.close()
        return False

    def close(self) -> None:
        self.server.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def free_port() -> int:
    """A loopback port nobody listens on (for now)."""
    with socket.create_server(("127.0.0.1", 0)) as unused:
        port: int = unused.getsockname()[1]
    return port


def serve_one_decision(connection: Connection, token: str | None, name: str | None = None) -> None:
    """Hello (the bot's names ``token``, and ``name`` if given), a match start, one play request
    answered with its id and the card that ducks, goodbye; then the bot closes the connection."""
    connection.send(Hello())
    hello = connection.receive_hello()
    assert hello.token == token
    if name is not None:
        assert hello.name == name
    connection.send(match_start())
    request = play_request(BIG_ID, ["2D", "AD"], ["9D"])
    connection.send(request)
    assert check_play(connection.receive(), request) == "2D"
    connection.send(Goodbye())
    assert connection.hung_up(), "the bot closes the connection after goodbye"


class TcpBot:
    """The bot started as a TCP client (``stdin`` empty; ``stdout`` and ``stderr`` in files)."""

    def __init__(self, command: list[str], cwd: Path, files: Path, env: dict[str, str], timeout: float) -> None:
        self.timeout = timeout
        self.stdout_path = files.with_suffix(".stdout")
        self.stderr_path = files.with_suffix(".stderr")
        with self.stdout_path.open("wb") as stdout, self.stderr_path.open("wb") as stderr:
            self.proc = subprocess.Popen(
                command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env
            )

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    @property
    def stdout(self) -> bytes:
        return self.stdout_path.read_bytes()

    def wait_for(self, needle: str) -> None:
        """Until its stderr holds ``needle``, the bot running all along (the deadline is a hang
        guard: no timing is judged)."""
        deadline = time.monotonic() + self.timeout
        while needle not in self.stderr:
            assert self.proc.poll() is None, self.stderr
            assert time.monotonic() < deadline, f"no {needle!r} on the bot's stderr:\n{self.stderr}"
            time.sleep(0.05)

    def wait(self) -> int:
        try:
            return self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the bot did not exit within {self.timeout} s; stderr:\n{self.stderr[-3000:]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=self.timeout)


LaunchTcp = Callable[..., TcpBot]
"""``launch(*args, env=None)``: the bot, its arguments after the program's."""


@contextlib.contextmanager
def tcp_bots(program: list[str], cwd: Path, files: Path, timeout: float) -> Iterator[LaunchTcp]:
    """Start ``program`` with arguments from ``cwd`` as TCP clients, its output in files under
    ``files``, and ``HEARTS_TOKEN`` only where a test sets it; every one is ended on leaving."""
    started: list[TcpBot] = []
    base = {k: v for k, v in os.environ.items() if k != "HEARTS_TOKEN"}

    def launch(*args: str, env: dict[str, str] | None = None) -> TcpBot:
        bot = TcpBot([*program, *args], cwd, files / f"tcp-{len(started)}", {**base, **(env or {})}, timeout)
        started.append(bot)
        return bot

    try:
        yield launch
    finally:
        for bot in started:
            bot.close()
