"""A bot program under test, on pipes: write referee lines to its stdin, read its reply lines
with a timeout, its stderr kept in a file.

One driver for every test that runs a bot as a real process and plays the referee's side by
hand (the Python kit's sample bots, and the JavaScript, C, C++, Go, Java and Rust kits). Every
reply is decoded with ``protocol.codec.decode_bot``, so a reply that is not a valid bot message
fails the test; every wait has a timeout, so a broken bot fails the test instead of hanging the
suite (a guard against a hang, never a verdict on speed).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from protocol import codec
from protocol.messages import BotMessage, DeclareRequest, Hello, MoonRequest, PassRequest, PlayRequest, RefereeMessage

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 10.0
"""Seconds to wait for any one reply or exit, unless the bot is given its own."""
QUIET = 0.3
"""Seconds of silence that count as 'no reply'."""
REQUESTS = (Hello, PassRequest, PlayRequest, DeclareRequest, MoonRequest)
"""The referee's messages that a bot answers."""


class BotProcess:
    """A bot subprocess started from ``cwd`` (the repository root by default), ``env`` added to
    the environment. It is also a seat of ``tests.protocol.table_driver``: called with a
    referee message, it sends it and returns the reply when the message asks for one."""

    def __init__(
        self,
        command: list[str],
        stderr_path: Path,
        *,
        env: dict[str, str] | None = None,
        timeout: float = TIMEOUT,
        cwd: Path = ROOT,
    ) -> None:
        self.command = command
        self.stderr_path = stderr_path
        self.timeout = timeout
        self._stderr: IO[bytes] = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=None if env is None else {**os.environ, **env},
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    @property
    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def _context(self) -> str:
        return f"bot {self.command} (exit code {self.proc.poll()}); stderr:\n{self.stderr[-4000:]}"

    # -- to the bot ----------------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(codec.encode(message))

    def send_dict(self, data: dict[str, Any], **dumps: Any) -> None:
        line = json.dumps(data, **dumps).encode()
        assert b"\n" not in line
        self.send_raw(line + b"\n")

    # -- from the bot --------------------------------------------------------------------------
    def receive_line(self, timeout: float | None = None) -> bytes:
        """The next line the bot wrote, with its newline."""
        timeout = self.timeout if timeout is None else timeout
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no reply within {timeout} s from {self._context()}")
        if line is None:
            pytest.fail(f"the bot closed its output; {self._context()}")
        assert line.endswith(b"\n"), line
        return line

    def receive(self, timeout: float | None = None) -> BotMessage:
        line = self.receive_line(timeout)
        try:
            return codec.decode_bot(line[:-1])
        except codec.ProtocolError as err:
            pytest.fail(f"invalid reply {line[:300]!r}: {err.code}: {err.message}")

    def receive_json(self) -> dict[str, Any]:
        """The next reply as plain JSON (an id beyond 64 bits, which no Struct holds)."""
        data: dict[str, Any] = json.loads(self.receive_line())
        return data

    def ask(self, request: Any) -> BotMessage:
        self.send(request)
        return self.receive()

    def __call__(self, message: RefereeMessage) -> BotMessage | None:
        self.send(message)
        return self.receive() if isinstance(message, REQUESTS) else None

    def expect_silence(self, seconds: float = QUIET) -> None:
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            return
        pytest.fail(f"unexpected output {line!r} from {self._context()}")

    # -- the end -------------------------------------------------------------------------------
    def wait_exit(self) -> int:
        try:
            code = self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the bot did not exit within {self.timeout} s; {self._context()}")
        self._reader.join(timeout=self.timeout)
        return code

    def rest_of_output(self) -> list[bytes]:
        """Once it exits: the lines it wrote that were not read."""
        lines = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                pytest.fail("stdout was not closed")
            if line is None:
                return lines
            lines.append(line)

    def expect_end_of_output(self) -> None:
        """Once it exits: nothing more was written."""
        assert self.rest_of_output() == [], "the bot wrote a line nobody asked for"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=self.timeout)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()
        self._stderr.close()


Start = Callable[..., BotProcess]
"""``start(command, env=None)``: a ``BotProcess`` ended when the test ends."""


@contextlib.contextmanager
def bots_started(folder: Path, timeout: float = TIMEOUT) -> Iterator[Start]:
    """Start bot programs, each with its stderr in a file of ``folder``; on leaving, every one
    still running is killed."""
    started: list[BotProcess] = []

    def start(command: list[str], env: dict[str, str] | None = None) -> BotProcess:
        bot = BotProcess(command, folder / f"stderr-{len(started)}.txt", env=env, timeout=timeout)
        started.append(bot)
        return bot

    try:
        yield start
    finally:
        for bot in started:
            bot.close()
