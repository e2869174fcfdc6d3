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
async def test_a_sandboxed_bot_outlives_idle_worker_threads() -> None:
    sandbox = choose_sandbox("on", lambda _: None)
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start(["sleep", "60"], nursery, cwd="/usr", limits=BotLimits(sandbox=sandbox))
        await trio.sleep(12)  # trio's idle worker threads exit after 10 s; the bot must not go with them
        assert link.exit_code() is None
        assert any(t.name == "bot-spawner" for t in threading.enumerate())
        await link.close(0.5)
    assert link.exit_code() is not None
