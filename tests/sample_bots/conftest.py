"""Fixtures of the kits' tests: bot programs started on pipes, ended when the test ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot_process import TIMEOUT, Start, bots_started
from tests.tiers import starts


@pytest.fixture
def reply_timeout() -> float:
    """Seconds a started bot may take for a reply or its exit: a hang guard (a test file whose
    bots start slowly, a sanitizer build say, gives its own)."""
    return TIMEOUT


@pytest.fixture
@starts("process")
def start(tmp_path: Path, reply_timeout: float) -> Iterator[Start]:
    """``start(command, env=None)``: a bot program on pipes, from the repository root."""
    with bots_started(tmp_path, reply_timeout) as start_bot:
        yield start_bot
