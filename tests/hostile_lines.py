"""Lines a hostile bot may send, each with the reason the referee must name for it. Shared by
the codec fuzz tests, the runner tests on scripted bots and the end-to-end tests with real
processes (``{id}`` stands for the request id being answered); and the depth of a JSON value,
which the tests of every JSON reader compare theirs with."""

from __future__ import annotations

from typing import Final

DEEP: Final = 1000
"""About 2 KB of brackets: far under the line limit, deep enough to exhaust a naive decoder."""

PLAY_LINES: Final[dict[str, tuple[bytes, str]]] = {
    "deep_array": (b"[" * DEEP + b"]" * DEEP, "bad_json"),
    "deep_object": (b'{"a":' * DEEP + b"1" + b"}" * DEEP, "bad_json"),
    "deep_inside_play": (b'{"type":"play","id":{id},"card":"2C","x":' + b"[" * DEEP + b"]" * DEEP + b"}", "bad_json"),
    "huge_integer": (b'{"type":"play","id":' + b"9" * 5000 + b',"card":"2C"}', "bad_json"),
    "huge_float": (b'{"type":"play","id":1e999,"card":"2C"}', "bad_json"),
    "nan": (b'{"type":"play","id":{id},"card":NaN}', "bad_json"),
    "duplicate_keys": (b'{"type":"play","type":"hello","id":{id},"card":"2C"}', "protocol_violation"),
    "wrong_types": (b'{"type":"play","id":"{id}","card":5}', "protocol_violation"),
    "invalid_utf8": (b'{"type":"play","id":{id},"card":"\xff\xfe"}', "bad_json"),
    "nul": (b'{"type":"play","id":{id},"card":"2C"}\x00', "bad_json"),
    "lone_surrogate": (b'{"type":"play","id":{id},"card":"\\ud800"}', "bad_json"),
    "long_card": (b'{"type":"play","id":{id},"card":"' + b"Q" * 60000 + b'"}', "illegal_move"),
    "long_type": (b'{"type":"' + b"x" * 60000 + b'","id":{id}}', "unknown_message"),
    "long_enum": (b'{"type":"moon","id":{id},"choice":"' + b"x" * 60000 + b'"}', "protocol_violation"),
    "empty": (b"", "bad_json"),
    "null": (b"null", "protocol_violation"),
    "array": (b"[]", "protocol_violation"),
    "string": (b'"play"', "protocol_violation"),
}
"""A reply to a play request: the line and the fault it must be dropped for."""

HELLO_LINES: Final[dict[str, tuple[bytes, str]]] = {
    "deep_array": (b"[" * DEEP + b"]" * DEEP, "bad_json"),
    "deep_inside_hello": (b'{"type":"hello","version":1,"x":' + b"[" * DEEP + b"]" * DEEP + b"}", "bad_json"),
    "huge_version": (b'{"type":"hello","version":' + b"9" * 5000 + b"}", "bad_json"),
    "long_type": (b'{"type":"' + b"h" * 60000 + b'"}', "unknown_message"),
    "invalid_utf8": (b'{"type":"hello","version":1,"name":"\xc0\xaf"}', "bad_json"),
}
"""A hello: the line and the reason the handshake must fail with."""


def depth_of(value: object) -> int:
    """How deep a parsed JSON value nests: 0 for a scalar, 1 for a flat array or object."""
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0
