"""``referee watch``'s server over real sockets: it follows the log of a real running match
(`python -m referee match --log`) from before the file exists to the result, refuses a wrong
token, and names a garbage line instead of failing on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.log_format import Result
from referee.web.watch import LogTail, WatchServer
from tests.web.client import Refused, WsClient
from tests.web.helpers import RANDOM, ROOT
from tests.web.test_seat import read_response

pytestmark = pytest.mark.process


def start_match(log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "match", "--set", "end=rounds", "--set", "rounds=1", "--seed", "3",
         "--sandbox", "off", "--log", str(log), RANDOM, RANDOM, RANDOM, RANDOM],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


async def follow(client: WsClient, until: Any, limit: float = 30.0) -> list[dict[str, Any]]:
    """Pushes received until ``until(push)`` holds."""
    pushes: list[dict[str, Any]] = []
    with trio.fail_after(limit):
        while True:
            pushes.append(await client.receive())
            if until(pushes[-1]):
                return pushes


async def test_a_running_match_is_followed_to_its_result(tmp_path: Path) -> None:
    log = tmp_path / "live.jsonl"
    server = WatchServer(log, poll=0.01)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.serve)
        for token in ("wrong", server.token[:-1], ""):
            with pytest.raises(Refused) as caught:
                await WsClient.connect(url, token)
            assert caught.value.status == 403
        assert server.refused == 3
        with pytest.raises(Refused) as caught:  # another site's page, even with the token
            await WsClient.connect(url, server.token, origin="http://evil.example")
        assert caught.value.status == 403 and server.refused == 4
        client = await WsClient.connect(url, server.token, origin=url)
        first = await client.receive()
        assert first["type"] == "snapshot" and first["waiting"] and first["record"] is None
        await client.send_text("x" * 100)  # read-only: what a spectator sends is dropped
        process = start_match(log)
        try:
            pushes = await follow(client, lambda p: p["record"] is not None and p["record"]["result"] is not None)
        finally:
            process.wait(timeout=30)
        assert process.returncode == 0
        written = log.read_bytes().splitlines()
        if sum(len(p["entries"]) for p in pushes) < len(written):  # the bots' stderr, after the result
            pushes += await follow(client, lambda p: p["entries"] and p["entries"][-1]["line"] == len(written))
        entries = [e for p in pushes for e in p["entries"]]
        lines = [e["line"] for e in entries]
        assert lines == list(range(1, len(written) + 1))  # every line, in order, once
        kinds = [e["entry"]["type"] for e in entries]
        assert kinds[0] == "header" and "deal" in kinds and kinds[-1] in ("result", "stderr")
        assert "result" in kinds and set(kinds[kinds.index("result") + 1 :]) <= {"stderr"}
        assert [e["entry"] for e in entries] == [json.loads(line) for line in written]
        assert not pushes[-1]["waiting"]  # followed from before the file existed (the first push)
        record = pushes[-1]["record"]
        assert record["verification"]["status"] == "verified" and len(record["rounds"]) == 1
        assert all(p["bad"] == [] for p in pushes)

        with log.open("ab") as file:  # garbage, then half a line: named, skipped, still serving
            file.write(b'{"type": "deal", "t": "soon"}\nnot json at all\n{"type": "newer", "x": 1}\n{"type": "fau')
        pushes = await follow(client, lambda p: p["bad_count"] == 2)
        bad = [b for p in pushes for b in p["bad"]]
        assert [b["line"] for b in bad] == [len(written) + 1, len(written) + 2]
        assert "not a log entry" in bad[1]["error"]
        assert pushes[-1]["record"]["result"] is not None  # the match is still the one shown

        late = await WsClient.connect(url, server.token)  # a new page gets everything so far
        snapshot = await late.receive()
        assert snapshot["type"] == "snapshot" and len(snapshot["entries"]) == len(written)
        assert snapshot["bad_count"] == 2
        await late.aclose()
        await client.aclose()

        host, _, port = url.removeprefix("http://").rpartition(":")
        served = ((b"/", b"200"), (b"/watch.js", b"200"), (b"/cards.js", b"200"))
        paths = (*served, (b"/index.html", b"404"), (b"/../x", b"404"))
        for path, status in paths:
            stream = await trio.open_tcp_stream(host, int(port))
            await stream.send_all(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert (await read_response(stream)).startswith(b"HTTP/1.1 " + status), path
            await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_hostile_header_is_refused_and_a_rewritten_log_is_read_again(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert start_match(log).wait(timeout=30) == 0
    good = log.read_bytes()
    header = json.loads(good.splitlines()[0])
    header["rules"]["players"] = 10**8
    log.write_bytes(json.dumps(header).encode() + b"\n" + b"[" * 100_000 + b"\n")
    server = WatchServer(log, poll=0.05)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.serve)
        client = await WsClient.connect(url, server.token)
        push = await client.receive()
        assert push["record"] is None and push["bad_count"] == 2
        assert "cannot be played" in push["bad"][0]["error"] and "nested" in push["bad"][1]["error"]
        log.write_bytes(good[:10])  # shorter: the file was written again
        await trio.sleep(0.2)
        log.write_bytes(good)
        pushes = await follow(client, lambda p: p["record"] is not None and p["record"]["result"] is not None)
        assert any(p["type"] == "snapshot" for p in pushes)
        assert pushes[-1]["bad_count"] == 0
        count = len(good.splitlines())
        with log.open("ab") as file:  # a second match in the same file: the page follows it alone
            file.write(good)
        pushes = await follow(client, lambda p: p["entries"] and p["entries"][-1]["line"] == 2 * count)
        fresh = next(p for p in pushes if p["type"] == "snapshot")
        assert fresh["entries"][0]["line"] == count + 1 and fresh["entries"][0]["entry"]["type"] == "header"
        await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_folder_of_logs_is_followed_match_after_match(tmp_path: Path) -> None:
    """A ladder's logs folder: the page follows each match as its log appears."""
    folder = tmp_path / "ladder-logs"
    folder.mkdir()
    server = WatchServer(folder, poll=0.01)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.serve)
        client = await WsClient.connect(url, server.token)
        first = await client.receive()
        assert first["type"] == "snapshot" and first["entries"] == []
        for name in ("00000-0.jsonl", "00000-1.jsonl"):
            process = start_match(folder / name)
            try:
                pushes = await follow(
                    client,
                    lambda p, name=name: (
                        p["log"].endswith(name) and p["record"] is not None and p["record"]["result"] is not None
                    ),
                )
            finally:
                process.wait(timeout=30)
            assert process.returncode == 0
            ours = [p for p in pushes if p["log"].endswith(name)]
            assert ours[0]["type"] == "snapshot"  # a new match: the page starts over
            entries = [e["entry"] for p in ours for e in p["entries"]]
            assert entries[0]["type"] == "header" and [e["type"] for e in entries].count("header") == 1
            assert ours[-1]["record"]["verification"]["status"] == "verified"
        await client.aclose()
        nursery.cancel_scope.cancel()


def test_a_folder_of_logs_stays_with_a_match_until_it_ends(tmp_path: Path) -> None:
    """Two tables play at once: the page stays with the first match to its result, not jumping
    to the other table's log when it appears, then moves on to the newest."""
    made = tmp_path / "made.jsonl"
    start_match(made).wait(timeout=60)
    lines = made.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    folder = tmp_path / "ladder-logs"
    folder.mkdir()
    first, second = folder / "00000-0.jsonl", folder / "00001-0.jsonl"
    first.write_bytes(b"".join(lines[:half]))
    tail = LogTail(folder, folder=folder)
    tail.poll()
    assert tail.path == first
    second.write_bytes(b"".join(lines[:3]))  # another table's match begins
    os.utime(second, (time.time() + 1, time.time() + 1))
    tail.poll()
    assert tail.path == first  # mid-match: no jump
    with first.open("ab") as file:
        file.write(b"".join(lines[half:]))  # the first match ends
    tail.poll()
    assert (
        tail.path == first
        and tail.match is not None
        and any(isinstance(line.entry, Result) for line in tail.match.entries)
    )
    tail.poll()
    assert tail.path == second  # then the table still in play
