"""No bot process outlives a check, whatever the bot does (pgrep for a marker argument)."""

from __future__ import annotations

import uuid

import pytest

from tests.check.helpers import GOOD, by_verdict, check, check_hostile, hostile
from tests.shared import stray

pytestmark = pytest.mark.process


@pytest.mark.parametrize(
    ("command", "patterns"),
    [
        (hostile("fork_child"), ("play.lead_two_of_clubs", "play.follow_suit")),
        (hostile("ignore_term"), ("play.lead_two_of_clubs",)),
        (hostile("sleep"), ("play.lead_two_of_clubs",)),
        (hostile("close_stdout"), ("play.lead_two_of_clubs",)),
        (check_hostile("linger"), ("exit.goodbye",)),
        (check_hostile("quits_on_error"), ("error.*",)),
    ],
)
def test_no_process_is_left_after_a_failing_bot(command: str, patterns: tuple[str, ...]) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    report = check(f"{command} {marker}", *patterns)
    assert by_verdict(report, "fail")
    assert stray(marker) == []


def test_no_process_is_left_after_a_whole_check() -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    report = check(f"{GOOD} {marker}", jobs=3)
    assert report.summary.ok
    assert stray(marker) == []
