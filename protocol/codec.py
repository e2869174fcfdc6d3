"""Encoding and decoding protocol lines, and splitting a byte stream into bounded lines.

Sans-I/O: nothing here reads or writes; the referee and the bot kits feed bytes in and get
messages out. Every failure is a ``ProtocolError`` with the error code the referee reports
(``bad_json``, ``unknown_message``, ``protocol_violation``, ``line_too_long``).
"""

from __future__ import annotations

import operator
import re
from itertools import accumulate
from typing import Any, Final

import msgspec

from protocol.messages import BOT_TYPES, REFEREE_TYPES, BotMessage, ErrorCode, RefereeMessage

MAX_LINE: Final = 64 * 1024
"""Default longest line, newline excluded, in bytes."""
MAX_DEPTH: Final = 32
"""Deepest nesting of arrays and objects a line may have. Protocol v1 messages nest at most
four deep; the bound stops a 2 KB line of ``[[[[...]]]]`` from exhausting the decoder's stack."""
MAX_MESSAGE: Final = 512
"""Longest ``ProtocolError`` message in characters: a message may quote the peer's text (an
unknown type, an invalid value), and an error line sent back must stay far under
``MAX_LINE`` whatever the peer sent."""


def clip(text: str, limit: int = 80) -> str:
    """``text`` in at most ``limit`` characters (cut ones end in a note of how many were
    left out), for quoting a peer's text inside a message without letting the peer choose its
    size. Clipping twice changes nothing."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 32)]
    return f"{head}... ({len(text) - len(head)} more characters)"


class ProtocolError(Exception):
    """A line that is not a valid message: ``code`` is the protocol's error code. The message
    is clipped to ``MAX_MESSAGE`` characters."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        message = clip(message, MAX_MESSAGE)
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


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, or an unterminated one running to the end of the line. The possessive ``*+``
and the end-of-line ending keep it linear: a search never rescans a string it gave up on."""
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_OPEN_AS_ONE = bytes(1 if b in b"[{" else 0 for b in range(256))


def nesting_depth(line: bytes) -> int:
    """How deep arrays and objects nest in a JSON line (brackets inside strings do not count).
    Cheap for ordinary lines: one with at most ``MAX_DEPTH`` brackets cannot be deeper and is
    not scanned (``MAX_DEPTH`` is returned). Others are scanned in linear time, all in C loops
    (about 6 ms for the worst 64 KiB line): a hostile line must not cost the referee more than
    reading it."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return MAX_DEPTH
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKET)
    opens = brackets.translate(_OPEN_AS_ONE)  # 1 for an opening bracket, 0 for a closing one
    # after k brackets the depth is opens_so_far - closes_so_far = 2 * opens_so_far - k
    depths = map(operator.sub, map((2).__mul__, accumulate(opens)), range(1, len(opens) + 1))
    return max(depths, default=0)


def _check_shape(line: bytes) -> None:
    """Refuse, before decoding, a line that no decoder should be asked to build."""
    if len(line) > MAX_LINE:
        raise ProtocolError("line_too_long", f"a line longer than {MAX_LINE} bytes")
    if nesting_depth(line) > MAX_DEPTH:
        raise ProtocolError("bad_json", f"JSON nested deeper than {MAX_DEPTH} levels")


def _classify(line: bytes, known: frozenset[str], err: Exception) -> ProtocolError:
    try:
        data = _any_decoder.decode(line)
    except (msgspec.DecodeError, RecursionError, ValueError, MemoryError):
        return ProtocolError("bad_json", f"not a JSON line: {err}")
    if not isinstance(data, dict):
        return ProtocolError("protocol_violation", "a message must be a JSON object with a 'type' field")
    kind = data.get("type")
    if not isinstance(kind, str):
        return ProtocolError("protocol_violation", "the message has no 'type' field")
    if kind not in known:
        return ProtocolError("unknown_message", f"unknown message type {clip(kind)!r}; expected one of {sorted(known)}")
    return ProtocolError("protocol_violation", f"bad {kind!r} message: {err}")


def decode_bot(line: bytes) -> BotMessage:
    """A bot's line as a message. Whatever the bytes, the only exception is ``ProtocolError``
    naming what is wrong (a line over ``MAX_LINE``, nesting over ``MAX_DEPTH``, invalid JSON or
    UTF-8, a wrong or unknown message)."""
    _check_shape(line)
    try:
        return _bot_decoder.decode(line)
    except (msgspec.DecodeError, RecursionError, ValueError, MemoryError) as err:
        raise _classify(line, BOT_TYPES, err) from None


def decode_referee(line: bytes) -> RefereeMessage | None:
    """A referee's line as a message, or ``None`` for a message type this version does not
    know (bots must ignore those). Raises ``ProtocolError`` (and nothing else) for a malformed
    line."""
    _check_shape(line)
    try:
        return _referee_decoder.decode(line)
    except (msgspec.DecodeError, RecursionError, ValueError, MemoryError) as err:
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
