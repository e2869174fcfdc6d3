"""The session's replay logs (see helpers.py)."""

from __future__ import annotations

import pytest

from tests.replay.helpers import MatchLogs
from tests.tiers import starts


@pytest.fixture(scope="session")
@starts("process")  # it plays each match the first time a test asks for it
def match_log(tmp_path_factory: pytest.TempPathFactory) -> MatchLogs:
    return MatchLogs(tmp_path_factory.mktemp("replay-logs"))
