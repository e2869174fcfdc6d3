"""What a spectator's socket is pushed as the followed log changes, without a server or a
process: the tail is polled by hand and the socket is a list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio
import trio.testing

from referee.web.watch import LogTail, spectate


async def test_a_change_made_while_a_push_is_sent_is_pushed_next(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """The log appears while the first push (``waiting``) is on its way: a second push follows
    at once. It once waited for the log to grow again (a page stuck on an old state)."""
    log = tmp_path / "live.jsonl"
    tail = LogTail(log)
    pushes: list[dict[str, Any]] = []
    done = trio.Event()

    async def receive() -> dict[str, Any]:
        await done.wait()
        return {"type": "websocket.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] != "websocket.send":
            return
        pushes.append(json.loads(message["text"]))
        if len(pushes) == 1:  # the follower runs while this push is written to the socket
            log.write_bytes(b"garbage\n")
            assert tail.poll()
            tail.announce()
        await trio.sleep(0.01)
        if len(pushes) == 2:
            done.set()

    with trio.fail_after(60):  # mock time: a lost change leaves the run idle, and this fires
        await spectate(tail, receive, send)
    assert [p["type"] for p in pushes] == ["snapshot", "update"]
    assert pushes[0]["waiting"] and pushes[0]["bad_count"] == 0
    assert not pushes[1]["waiting"] and pushes[1]["bad_count"] == 1
