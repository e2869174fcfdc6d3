"""The codec and the line splitter: fuzzed with hypothesis, no input gets past them
unnamed, and no line longer than the limit is ever held."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import LineSplitter, ProtocolError, decode_bot, decode_referee, encode
from protocol.messages import BOT_TYPES, BotHello, Pass, Play, PlayRequest, TimeLeft
from tests.tiers import examples

CODES = {"bad_json", "unknown_message", "protocol_violation"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(400), deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_raise_a_named_error(data: bytes) -> None:
    try:
        decode_bot(data)
    except ProtocolError as err:
        assert err.code in CODES


@settings(max_examples=examples(400), deadline=None)
@given(
    st.sampled_from([*sorted(BOT_TYPES), "nope", ""]),
    st.dictionaries(st.sampled_from(["id", "card", "cards", "version", "name", "choice", "declare"]), json_values),
)
def test_messages_of_any_shape_decode_or_raise_a_named_error(kind: str, fields: dict[str, object]) -> None:
    line = json.dumps({"type": kind, **fields}).encode()
    try:
        message = decode_bot(line)
    except ProtocolError as err:
        assert err.code in CODES
        if kind not in BOT_TYPES:
            assert err.code == "unknown_message"
    else:
        assert type(message).__struct_config__.tag == kind


def test_error_codes_are_told_apart() -> None:
    cases = {
        b"\xff": "bad_json",
        b"{": "bad_json",
        b"42": "protocol_violation",
        b'{"id": 1}': "protocol_violation",
        b'{"type": "shout"}': "unknown_message",
        b'{"type": "play", "id": 1}': "protocol_violation",
    }
    for line, code in cases.items():
        with pytest.raises(ProtocolError) as caught:
            decode_bot(line)
        assert caught.value.code == code, line


def test_unknown_fields_are_ignored_both_ways() -> None:
    assert decode_bot(b'{"type": "play", "id": 4, "card": "QS", "mood": "tense"}') == Play(id=4, card="QS")
    request = msgspec.to_builtins(
        PlayRequest(
            id=1,
            legal=["2C"],
            trick=[],
            leader=0,
            trick_number=0,
            hearts_broken=False,
            time=TimeLeft(decision_ms=1, bank_ms=2),
        )
    )
    request["future_field"] = {"x": 1}
    decoded = decode_referee(json.dumps(request).encode())
    assert isinstance(decoded, PlayRequest) and decoded.legal == ["2C"]


def test_unknown_referee_messages_are_skipped_by_bots() -> None:
    assert decode_referee(b'{"type": "weather_report", "rain": true}') is None


def test_encode_is_one_line() -> None:
    line = encode(Pass(id=2, cards=["2C", "3C", "4C"]))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_bot(line.strip()) == Pass(id=2, cards=["2C", "3C", "4C"])
    assert decode_bot(encode(BotHello(version=1, name="x")).strip()) == BotHello(version=1, name="x")


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=30), st.integers(min_value=1, max_value=50))
def test_splitter_reassembles_lines_and_never_holds_more_than_the_limit(chunks: list[bytes], limit: int) -> None:
    splitter = LineSplitter(limit)
    stream = b"".join(chunks)
    expected = stream.split(b"\n")[:-1]
    got: list[bytes] = []
    try:
        for chunk in chunks:
            got.extend(splitter.feed(chunk))
            assert splitter.pending <= limit
    except ProtocolError as err:
        assert err.code == "line_too_long"
        assert any(len(line) > limit for line in [*expected, stream.split(b"\n")[-1]])
        return
    assert got == expected
    assert all(len(line) <= limit for line in got)


def test_a_ten_megabyte_line_is_refused_early() -> None:
    splitter = LineSplitter(64 * 1024)
    with pytest.raises(ProtocolError) as caught:
        for _ in range(160):
            splitter.feed(b"x" * 65536)
    assert caught.value.code == "line_too_long"
    assert splitter.pending == 0
