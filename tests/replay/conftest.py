"""The session's replay logs (see helpers.py)."""

from __future__ import annotations

import pytest

from tests.replay.helpers import MatchLogs


@pytest.fixture(scope="session")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> MatchLogs:
    return MatchLogs(tmp_path_factory.mktemp("replay-logs"))
