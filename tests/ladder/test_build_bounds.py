"""A build step is bounded (issue 22): a build printing 1 GB keeps the referee's memory flat
(the end of its output kept, the rest counted), a build over its time is ended with every
process it made, and the message says which."""

from __future__ import annotations

import resource
import uuid
from pathlib import Path

import pytest

from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.building import KEPT_BYTES, build, run_build
from tests.shared import stray

pytestmark = pytest.mark.process


def test_a_build_printing_a_gigabyte_keeps_only_its_end(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    entry = BotEntry(
        name="loud", command="true", build="head -c 1000000000 /dev/zero | tr '\\0' x; echo; echo the end; exit 3"
    )
    with pytest.raises(BotConfigError) as caught:
        build(entry, tmp_path)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    message = str(caught.value)
    assert "building loud failed" in message and "exited with code 3" in message
    assert message.rstrip().endswith("| the end")
    assert "bytes before them not kept" in message
    assert grown_mib < 100, f"the referee grew by {grown_mib:.0f} MiB"


def test_the_output_is_counted_whole_and_kept_to_its_end(tmp_path: Path) -> None:
    done = run_build(["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' y; printf END"], tmp_path)
    assert done.returncode == 0 and done.total_bytes == 300_003
    assert len(done.tail) == KEPT_BYTES and done.tail.endswith("yEND")
    assert done.dropped_bytes == 300_003 - KEPT_BYTES


def test_a_build_over_its_time_is_ended_with_everything_it_started(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    line = f"(setsid sh -c 'sleep 300' {marker} &); sh -c 'sleep 300' {marker}"
    entry = BotEntry(name="slow", command="true", build=line, build_timeout=0.5)
    with pytest.raises(BotConfigError) as caught:
        build(entry, tmp_path)
    assert "was ended after its 0.5 s (build_timeout)" in str(caught.value)
    assert stray(marker) == []


def test_a_build_that_closes_its_output_and_sleeps_is_still_ended_at_its_time(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    entry = BotEntry(
        name="quiet", command="true", build=f"exec >/dev/null 2>&1; sh -c 'sleep 300' {marker}", build_timeout=0.5
    )
    with pytest.raises(BotConfigError) as caught:
        build(entry, tmp_path)
    assert "was ended after its 0.5 s (build_timeout)" in str(caught.value)
    assert stray(marker) == []
