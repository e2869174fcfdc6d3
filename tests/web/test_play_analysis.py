"""``referee play``'s result screen offers the analysis of the person's own match
(``referee.web.after``): over the real page server (Hypercorn on a loopback port), ``POST
/analysis`` with the seat's token starts it in a worker thread on the finished match's log,
``GET /analysis`` follows it, ``GET /analysed`` is the replay viewer with that seat's analysis.
Guarded: no token, a wrong one, another origin are refused; a request names no path (the log
is the one the command wrote); one analysis at a time (another seat asking meanwhile: 409).
In-process (scripted bots logged on memory streams, one worker thread): no process started."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import trio

from referee.analysis import Budget, analyse_match
from referee.replay.reader import read_log
from referee.replay.verify import verify
from referee.rules import ruleset
from referee.web.after import ANALYSIS_SEED, Analysing
from referee.web.server import WebSeatServer
from tests.match.scripted import logged_match

TINY = Budget(first=8, most=8, precision=26.0, luck=8, sift=2)  # a pass raced on 2 worlds: the page, not the figures
"""A budget that values every decision quickly: the figures are not the point here."""


async def ask(url: str, method: str, path: str, token: str | None, extra: str = "") -> tuple[int, bytes]:
    host, _, port = url.removeprefix("http://").rpartition(":")
    stream = await trio.open_tcp_stream(host, int(port))
    seat = f"X-Seat-Token: {token}\r\n" if token is not None else ""
    request = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n{seat}{extra}"
    request += "Content-Length: 0\r\nConnection: close\r\n\r\n"
    await stream.send_all(request.encode())
    data = b""
    while chunk := await stream.receive_some(65536):
        data += chunk
    await stream.aclose()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_the_person_asks_for_their_own_analysis_and_gets_the_viewer_with_it(tmp_path: Path) -> None:
    log = tmp_path / "played.jsonl"
    short = ruleset("american", {"end": "rounds", "rounds": 2})  # two rounds: the page, not a whole match
    logged_match(log, "played-1", short)
    elsewhere = tmp_path / "other.jsonl"
    logged_match(elsewhere, "other-1", short, seed=5)
    server = WebSeatServer("127.0.0.1", 0)
    server.after.budget = TINY
    server.add_seat(0, "you")
    server.add_seat(2, "friend")
    you, friend = server.seats[0].token, server.seats[2].token
    told: dict[str, object] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.serve)
            told["before"] = await ask(url, "POST", "/analysis", you)  # no match finished yet
            server.after.finished(log)
            port = url.rpartition(":")[2]
            told["none"] = await ask(url, "POST", "/analysis", None)
            told["wrong"] = await ask(url, "POST", "/analysis", you[:-1] + ("x" if you[-1] != "x" else "y"))
            told["origin"] = await ask(url, "POST", "/analysis", you, f"Origin: http://evil.example:{port}\r\n")
            told["path"] = await ask(url, "POST", f"/analysis?log={elsewhere}", you)  # the query is not read
            told["other"] = await ask(url, "POST", "/analysis", friend)  # one at a time
            told["again"] = await ask(url, "POST", "/analysis", you)  # the same: still running
            told["early"] = await ask(url, "GET", "/analysed", you)
            with trio.fail_after(120):
                while True:
                    _, body = await ask(url, "GET", "/analysis", you)
                    state = json.loads(body)
                    told.setdefault("running", state)
                    if state["state"] != "running":
                        break
                    await trio.sleep(0.2)
            told["state"] = state
            told["friend"] = json.loads((await ask(url, "GET", "/analysis", friend))[1])
            told["page"] = await ask(url, "GET", "/analysed", you)
            told["friends_page"] = await ask(url, "GET", "/analysed", friend)
            nursery.cancel_scope.cancel()

    trio.run(main)
    codes = {k: v[0] for k, v in told.items() if isinstance(v, tuple)}
    assert codes == {
        "before": 404, "none": 403, "wrong": 403, "origin": 403, "path": 202, "other": 409, "again": 202,
        "early": 404, "page": 200, "friends_page": 404,
    }  # fmt: skip
    assert told["state"]["state"] == "done" and told["state"]["done"] == told["state"]["total"] > 0  # type: ignore[index]
    assert told["friend"] == {"state": "idle", "done": 0, "total": 0}
    job = server.after.analysing
    assert isinstance(job, Analysing) and (job.log, job.seat) == (log, 0)  # the command's log, the asker's seat
    page = told["page"][1].decode()  # type: ignore[index]
    assert page.startswith("<!doctype html>") or "<html" in page[:200]
    data = json.loads(page.split('id="analysis-data">', 1)[1].split("</script>", 1)[0])
    assert [s["seat"] for s in data["seats"]] == [0] and data["match_id"] == "played-1"
    assert data["decisions"] and data["budget"]["most"] == TINY.most
    assert told["running"]["state"] in ("running", "done")  # type: ignore[index]
    own = analyse_match(verify(read_log(log).matches[-1]), [0], seed=ANALYSIS_SEED, budget=TINY, log_name=log.name)
    assert data["decisions"] == json.loads(msgspec.json.encode(own))["decisions"]  # referee analyze's figures


def test_a_log_that_cannot_be_analysed_is_told_as_failed(tmp_path: Path) -> None:
    log = tmp_path / "broken.jsonl"
    log.write_text("not a log\n")
    server = WebSeatServer("127.0.0.1", 0)
    server.add_seat(0, "you")
    token = server.seats[0].token

    async def main() -> dict[str, object]:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.serve)
            server.after.finished(log)
            assert (await ask(url, "POST", "/analysis", token))[0] == 202
            with trio.fail_after(30):
                while (state := json.loads((await ask(url, "GET", "/analysis", token))[1]))["state"] == "running":
                    await trio.sleep(0.1)
            nursery.cancel_scope.cancel()
        return state

    state = trio.run(main)
    assert state["state"] == "failed" and state["error"]
