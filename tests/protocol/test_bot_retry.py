"""The Python kit over TCP tries again, with backoff, when the referee is busy, refuses the
connection or drops it before seating the bot; other refusals end the bot at once."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from typing import Protocol

import pytest

from protocol.bot import Backoff, Bot, TableState, connect
from protocol.codec import decode_bot, encode
from protocol.messages import BotHello, CardPlayed, Error, Goodbye, Hello, PassRequest, PlayRequest


class Stream(Protocol):
    """The referee's side of one connection (a socket file)."""

    def readline(self, size: int = -1, /) -> bytes: ...

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


Conversation = Callable[[Stream], None]


class FirstLegal(Bot):
    name = "retry-test"

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        return list(request.legal[: request.count])

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        return request.legal[0]


def send(stream: Stream, *messages: object) -> None:
    for message in messages:
        stream.write(encode(message))
    stream.flush()


def busy(stream: Stream) -> None:
    send(stream, Error(code="busy", message="too many connections in their handshake", fatal=True))


def hang_up(stream: Stream) -> None:
    """Close the connection without a word (a referee out of resources)."""


def seated(stream: Stream) -> None:
    send(stream, Hello())
    hello = decode_bot(stream.readline())
    assert isinstance(hello, BotHello) and hello.token == "tok"
    send(stream, Goodbye())


def bad_token(stream: Stream) -> None:
    send(stream, Hello())
    stream.readline()
    send(stream, Error(code="bad_token", message="no seat has this token", fatal=True))


def seated_then_hang_up(stream: Stream) -> None:
    send(stream, Hello())
    stream.readline()
    send(stream, CardPlayed(seat=1, card="2C", trick_number=0))  # past the handshake


class Referee:
    """A TCP 'referee' that has one scripted conversation per connection, in order."""

    def __init__(self, *conversations: Conversation) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.conversations = list(conversations)
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with self.listener:
            for conversation in self.conversations:
                connection, _ = self.listener.accept()
                self.connections += 1
                with connection, connection.makefile("rwb") as stream:
                    conversation(stream)


def test_busy_and_dropped_connections_are_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    referee = Referee(busy, hang_up, busy, seated)
    with caplog.at_level(logging.WARNING, logger="protocol.bot"):
        assert connect(FirstLegal(), "127.0.0.1", referee.port, "tok", retry_for=30) == 0
    referee.thread.join(5)
    assert referee.connections == 4
    retries = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert len(retries) == 3
    assert retries[0].startswith("the referee is busy (too many connections in their handshake); trying again in")
    assert retries[1].startswith("the referee closed the connection; trying again in")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # busy is not an error


def test_other_refusals_are_not_tried_again() -> None:
    referee = Referee(bad_token, seated)
    assert connect(FirstLegal(), "127.0.0.1", referee.port, "tok", retry_for=30) == 1
    assert referee.connections == 1


def test_a_referee_that_is_not_listening_is_tried_until_the_time_is_up(caplog: pytest.LogCaptureFixture) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed at once: nobody listens there now
    with caplog.at_level(logging.WARNING, logger="protocol.bot"):
        assert connect(FirstLegal(), "127.0.0.1", port, "tok", retry_for=0.3) == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any("trying again" in m for m in messages)
    assert messages[-1].startswith(f"cannot connect to 127.0.0.1:{port}") and messages[-1].endswith(
        "giving up after 0.3 s"
    )


def test_no_retries_when_retry_for_is_zero() -> None:
    referee = Referee(busy, seated)
    assert connect(FirstLegal(), "127.0.0.1", referee.port, "tok", retry_for=0) == 1
    assert referee.connections == 1


def test_a_seated_bot_that_loses_its_connection_is_not_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    referee = Referee(seated_then_hang_up, seated)
    assert connect(FirstLegal(), "127.0.0.1", referee.port, "tok", retry_for=30) == 0
    assert referee.connections == 1
    assert not any("trying again" in r.getMessage() for r in caplog.records)


def test_backoff_doubles_to_its_cap_with_jitter_and_stops_at_the_total() -> None:
    now = [0.0]
    backoff = Backoff(20.0, clock=lambda: now[0], jitter=lambda: 1.0)
    pauses = []
    while (pause := backoff.next_pause()) is not None:
        pauses.append(pause)
        now[0] += pause
    assert pauses[:7] == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0])
    assert max(pauses) == 5.0 and sum(pauses) == pytest.approx(20.0)
    low = Backoff(20.0, clock=lambda: 0.0, jitter=lambda: 0.0)
    assert [low.next_pause() for _ in range(3)] == pytest.approx([0.05, 0.1, 0.2])
