"""``referee bench channels``: in the sandbox the lock channels carry nothing (the receiver
reads every slot the same, whatever was sent); the rates outside are measured, not asserted."""

from __future__ import annotations

import random

import pytest

from referee.bench.channels import bench_channel, capacity
from referee.sandbox.bwrap import SandboxUnavailable, choose_sandbox


@pytest.mark.process
@pytest.mark.parametrize("channel", ["flock", "fcntl"])
def test_a_lock_channel_carries_nothing_in_the_sandbox(channel: str) -> None:
    try:
        sandbox = choose_sandbox("on", pytest.fail)
    except SandboxUnavailable as err:
        pytest.skip(str(err))
    case = bench_channel(channel, 0.01, 64, sandbox, seed=7)
    draw = random.Random(7)
    ones = "".join(draw.choice("01") for _ in range(64)).count("1")
    # the receiver reads "unlocked" in every slot, whatever was sent: every 1 arrives as a 0
    assert case.errors == ones
    assert case.capacity_bits_per_second < 10


def test_capacity_is_that_of_a_binary_symmetric_channel() -> None:
    assert capacity(0, 100, 0.001) == 1000.0
    assert capacity(50, 100, 0.001) == 0.0
    assert capacity(11, 100, 0.01) == pytest.approx(50.0, abs=0.5)  # H(0.11) is about 0.5
