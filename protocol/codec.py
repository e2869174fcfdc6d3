"""Encoding and decoding protocol lines, and splitting a byte stream into bounded lines.

Sans-I/O: nothing here reads or writes; the referee and the bot kits feed bytes in and get
messages out. Every failure is a ``ProtocolError`` with the error code the referee reports
(``bad_json``, ``unknown_message``, ``protocol_violation``, ``line_too_long``).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from protocol.messages import BOT_TYPES, REFEREE_TYPES, BotMessage, ErrorCode, RefereeMessage

MAX_LINE: Final = 64 * 1024
"""Default longest line, newline excluded, in bytes."""


class ProtocolError(Exception):
    """A line that is not a valid message: ``code`` is the protocol's error code."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


_encoder = msgspec.json.Encoder()
_bot_decoder = msgspec.json.Decoder(BotMessage)
_referee_decoder = msgspec.json.Decoder(RefereeMessage)
_any_decoder = msgspec.json.Decoder()


def encode(message: Any) -> bytes:
    """One message as a protocol line, newline included."""
    return _encoder.encode(message) + b"\n"


def _classify(line: bytes, known: frozenset[str], err: msgspec.DecodeError) -> ProtocolError:
    try:
        data = _any_decoder.decode(line)
    except msgspec.DecodeError:
        return ProtocolError("bad_json", f"not a JSON line: {err}")
    if not isinstance(data, dict):
        return ProtocolError("protocol_violation", "a message must be a JSON object with a 'type' field")
    kind = data.get("type")
    if not isinstance(kind, str):
        return ProtocolError("protocol_violation", "the message has no 'type' field")
    if kind not in known:
        return ProtocolError("unknown_message", f"unknown message type {kind!r}; expected one of {sorted(known)}")
    return ProtocolError("protocol_violation", f"bad {kind!r} message: {err}")


def decode_bot(line: bytes) -> BotMessage:
    """A bot's line as a message; raises ``ProtocolError`` naming what is wrong."""
    try:
        return _bot_decoder.decode(line)
    except msgspec.DecodeError as err:
        raise _classify(line, BOT_TYPES, err) from None


def decode_referee(line: bytes) -> RefereeMessage | None:
    """A referee's line as a message, or ``None`` for a message type this version does not
    know (bots must ignore those). Raises ``ProtocolError`` for a malformed line."""
    try:
        return _referee_decoder.decode(line)
    except msgspec.DecodeError as err:
        problem = _classify(line, REFEREE_TYPES, err)
        if problem.code == "unknown_message":
            return None
        raise problem from None


class LineSplitter:
    """Splits a byte stream into lines of at most ``limit`` bytes, never holding more than
    ``limit`` bytes of an unfinished line: a longer line raises ``line_too_long`` as soon as
    it is seen, however much of it has arrived."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Add received bytes; return the complete lines (without their newlines)."""
        buffer = self._buffer
        end = len(data) - 1
        if not buffer and 0 <= end <= self.limit and data.find(b"\n") == end:
            return [bytes(data[:end])]  # the usual case: exactly one whole line arrived
        lines: list[bytes] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if len(buffer) + end - start > self.limit:
                raise self._too_long()
            buffer += data[start:end]
            lines.append(bytes(buffer))
            buffer.clear()
            start = end + 1
        if len(buffer) + len(data) - start > self.limit:
            raise self._too_long()
        buffer += data[start:]
        return lines

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held."""
        return len(self._buffer)

    def _too_long(self) -> ProtocolError:
        self._buffer.clear()
        return ProtocolError("line_too_long", f"a line longer than {self.limit} bytes")
