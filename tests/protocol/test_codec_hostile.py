"""Hostile lines against the codec: whatever the bytes (deep nesting, huge numbers, NaN,
duplicate keys, wrong types, invalid UTF-8, NUL, long strings), ``decode_bot`` and
``decode_referee`` return a message or raise ``ProtocolError`` and nothing else, fast, with a
short message. Each case of ``tests/hostile_lines.py`` gets its named reason."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import MAX_DEPTH, MAX_LINE, MAX_MESSAGE, ProtocolError, decode_bot, decode_referee, nesting_depth
from protocol.messages import Play
from tests.hostile_lines import HELLO_LINES, PLAY_LINES, depth_of
from tests.tiers import examples

CODES = {"bad_json", "unknown_message", "protocol_violation", "line_too_long"}


@pytest.mark.parametrize("case", sorted(PLAY_LINES))
def test_each_hostile_reply_gets_its_named_reason(case: str) -> None:
    line, reason = PLAY_LINES[case]
    line = line.replace(b"{id}", b"7")
    if reason == "illegal_move":  # well-formed: the rules engine refuses the card
        assert isinstance(decode_bot(line), Play)
        return
    with pytest.raises(ProtocolError) as caught:
        decode_bot(line)
    assert caught.value.code == reason
    assert len(caught.value.message) <= MAX_MESSAGE


@pytest.mark.parametrize("case", sorted(HELLO_LINES))
def test_each_hostile_hello_gets_its_named_reason(case: str) -> None:
    line, reason = HELLO_LINES[case]
    with pytest.raises(ProtocolError) as caught:
        decode_bot(line)
    assert caught.value.code == reason


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 10_000, 30_000])
@pytest.mark.parametrize("open_close", [(b"[", b"]"), (b'{"a":', b"}")])
def test_deep_nesting_is_refused_before_decoding_at_any_recursion_limit(
    depth: int, open_close: tuple[bytes, bytes]
) -> None:
    opening, closing = open_close
    line = opening * depth + b"1" + closing * depth
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(100)  # a deep stack already in use must not matter
        for decode in (decode_bot, decode_referee):
            with pytest.raises(ProtocolError) as caught:
                decode(line)
            if len(line) > MAX_LINE:
                assert caught.value.code == "line_too_long"
            else:
                assert caught.value.code == "bad_json"
                assert "nested deeper" in caught.value.message
    finally:
        sys.setrecursionlimit(limit)


def test_nesting_at_the_limit_is_read_as_json() -> None:
    line = b'{"type":"play","id":1,"card":"2C","x":' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"
    assert isinstance(decode_bot(line), Play)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    name = '[{"[\\"' * 200
    line = json.dumps({"type": "hello", "version": 1, "name": name}).encode()
    assert decode_bot(line).name == name  # type: ignore[union-attr]


def test_a_line_over_the_limit_is_refused_without_decoding() -> None:
    line = b'{"type":"play","id":1,"card":"2C","pad":"' + b"x" * MAX_LINE + b'"}'
    with pytest.raises(ProtocolError) as caught:
        decode_bot(line)
    assert caught.value.code == "line_too_long"


json_trees = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=80,
)


@settings(max_examples=examples(300), deadline=None)
@given(json_trees, st.integers(min_value=0, max_value=60))
def test_nesting_depth_agrees_with_the_parsed_value(tree: object, wrap: int) -> None:
    value: object = tree
    for _ in range(wrap):
        value = [value]
    line = json.dumps(value).encode()
    true = depth_of(value)
    found = nesting_depth(line)
    if true > MAX_DEPTH:
        assert found > MAX_DEPTH
    else:
        assert found <= MAX_DEPTH


hostile_pieces = st.sampled_from(
    [
        b"[",
        b"]",
        b"{",
        b"}",
        b'"',
        b"\\",
        b":",
        b",",
        b"NaN",
        b"Infinity",
        b"-",
        b"1e999",
        b"9" * 30,
        b"\x00",
        b"\xff",
        b"\xc0\xaf",
        b"\\ud800",
        b"null",
        b'"type"',
        b'"play"',
        b'"id"',
        b'"card"',
        b" ",
        b"\n",
    ]
)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(hostile_pieces, max_size=300).map(b"".join))
def test_hostile_fragments_decode_or_raise_a_named_error(line: bytes) -> None:
    for decode in (decode_bot, decode_referee):
        try:
            decode(line)
        except ProtocolError as err:
            assert err.code in CODES
            assert len(err.message) <= MAX_MESSAGE


@settings(max_examples=examples(200), deadline=None)
@given(
    st.sampled_from(["play", "pass", "hello", "moon", "declare", "x" * 300]),
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(
            st.integers(min_value=-(10**40), max_value=10**40),
            st.floats(),
            st.text(max_size=400),
            st.binary(max_size=20).map(lambda b: b.decode("latin-1")),
        ),
        max_size=5,
    ),
)
def test_wrong_types_and_huge_values_raise_a_named_error(kind: str, fields: dict[str, object]) -> None:
    line = json.dumps({"type": kind, **fields}).encode()  # NaN and Infinity are not JSON: named too
    try:
        decode_bot(line)
    except ProtocolError as err:
        assert err.code in CODES
        assert len(err.message) <= MAX_MESSAGE
