"""The log's ``send`` entries as the referee writes them (``log_format.sent_to_each``, built
without an object per entry) are byte for byte what encoding a ``Sent`` gives, and read back
as the entries they are."""

from __future__ import annotations

import math

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from referee.log_format import Sent, sent_to_each

TIMES = st.floats(min_value=0.0, max_value=1e7, allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, 1e-7, 0.1, 123456.123456, 5e-324]
)
MESSAGES = st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=12), max_size=4).map(
    msgspec.json.encode
)


@given(t=TIMES, seats=st.lists(st.integers(0, 12), max_size=8), msg=MESSAGES)
def test_the_entries_are_those_of_a_sent_each(t: float, seats: list[int], msg: bytes) -> None:
    lines = sent_to_each(t, seats, msg)
    assert lines == b"".join(msgspec.json.encode(Sent(t=t, seat=s, msg=msgspec.Raw(msg))) + b"\n" for s in seats)
    decoded = [msgspec.json.decode(line, type=Sent) for line in lines.splitlines()]
    assert [e.seat for e in decoded] == seats
    assert all(math.isclose(e.t, t) or e.t == t for e in decoded)
    assert all(bytes(e.msg) == msg for e in decoded)
