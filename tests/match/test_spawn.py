"""Bots are forked by one long-lived thread: a sandboxed bot (bubblewrap's --die-with-parent,
which the kernel ties to the forking thread) outlives the ten idle seconds after which a trio
worker thread exits, and still dies with the referee (tests/sandbox/test_sandbox.py)."""

from __future__ import annotations

import shutil
import threading

import pytest
import trio

from referee.players.process import BotLimits, ProcessLink
from referee.sandbox.bwrap import choose_sandbox

pytestmark = pytest.mark.process


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
async def test_a_sandboxed_bot_outlives_idle_worker_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # trio's idle worker threads exit after IDLE_TIMEOUT (10 s), read each time one waits for
    # work: 1 s here, so a thread that did any of this test's work is gone within the sleep
    monkeypatch.setattr(trio._core._thread_cache, "IDLE_TIMEOUT", 1)
    sandbox = choose_sandbox("on", lambda _: None)
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start(["sleep", "60"], nursery, cwd="/usr", limits=BotLimits(sandbox=sandbox))
        await trio.sleep(3)  # the bot must not go with the worker threads
        assert link.exit_code() is None
        assert any(t.name == "bot-spawner" for t in threading.enumerate())
        await link.close(0.5)
    assert link.exit_code() is not None
