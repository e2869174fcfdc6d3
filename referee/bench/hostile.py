"""``referee bench hostile``: what the worst lines a bot can send cost the referee to refuse.

Every line here is at most 64 KiB (longer ones never reach the decoder). The figures show that
a hostile line costs milliseconds at most, not the seconds of a quadratic scan or the crash of
an unbounded recursion; they go to ``docs/performance.md``.
"""

from __future__ import annotations

import time
from typing import Final

import msgspec

from protocol.codec import ProtocolError, decode_bot

_PLAY: Final = b'{"type":"play","id":1,"card":"2C"'

HOSTILE_LINES: Final[dict[str, bytes]] = {
    "ordinary play": _PLAY + b"}",
    "nested 1,000 deep": b"[" * 1000 + b"]" * 1000,
    "nested 65,000 deep": b"[" * 65_000,
    "21,000 small arrays": _PLAY + b',"x":[' + b"[]," * 21_000 + b"[]]}",
    "unterminated escapes": b"[" * 40 + b'"\\' * 30_000,
    "30,000 short strings": b"[" * 40 + b'"["' * 20_000,
    "60 KB string field": _PLAY + b',"pad":"' + b"x" * 60_000 + b'"}',
    "60 KB unknown type": b'{"type":"' + b"x" * 60_000 + b'"}',
    "5,000-digit number": b'{"type":"play","id":' + b"9" * 5_000 + b',"card":"2C"}',
}


class HostileCase(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    bytes: int
    outcome: str
    """The message type decoded, or the named error."""
    microseconds: float
    """Time to decode or refuse the line, best of the repeats."""


def bench_hostile(repeat: int = 20) -> list[HostileCase]:
    """Decode each hostile line ``repeat`` times; the best time of each."""
    cases = []
    for name, line in HOSTILE_LINES.items():
        best = float("inf")
        outcome = ""
        for _ in range(repeat):
            start = time.perf_counter()
            try:
                message = decode_bot(line)
                outcome = str(type(message).__struct_config__.tag)
            except ProtocolError as err:
                outcome = err.code
            best = min(best, time.perf_counter() - start)
        cases.append(HostileCase(name=name, bytes=len(line), outcome=outcome, microseconds=best * 1e6))
    return cases
