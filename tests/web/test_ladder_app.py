"""The ladder's web view asked as a hostile browser would, through its ASGI application: every
page escapes what bots wrote, bad requests are refused with the reason, a match's log is
reached by its key only and only inside the ladder's logs folder, the token guards a view bound
elsewhere, a flood is shed, a failing page fails alone, and the database is only ever read."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from referee.ladder.schedule import draw_sets
from referee.store.database import read_only
from referee.store.writer import LadderStore
from referee.web.ladder import queries
from referee.web.ladder.budget import MAX_OPEN, AnswerSlots, Bucket
from referee.web.ladder.tables import in_play
from tests.duel.helpers import TEST, undecided_duel
from tests.web.ladder_helpers import HOSTILE, NAMES, View
from tests.web.test_watch_page import finished_log


async def test_every_page_escapes_what_the_bots_wrote(view: View) -> None:
    pages = [(target, {}) for target in ("/", "/matches", "/matches?page=1", "/tables", "/bot/%3Cscript%3E")]
    pages += [("/matches", {"query_string": urlencode({"bot": name}).encode()}) for name in NAMES]
    pages += [("/bot/", {"path": f"/bot/{name}"}) for name in NAMES]  # as the server decodes the link
    for target, scope in pages:
        status, _, raw = await view.ask(target, **scope)
        body = raw.decode()
        assert status in (200, 404), (target, scope)
        assert "<script>alert" not in body and "<img src=x" not in body, (target, scope)
    status, _, raw = await view.ask("/bot/", path=f"/bot/{HOSTILE}")
    body = raw.decode()
    assert status == 200
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in body
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in body  # its stderr, shown as text
    assert "referee replay 00000-" in body  # the command that shows each fault again
    board = (await view.get("/"))[1]
    assert 'href="/bot/%3Cscript%3Ealert%28%22x%22%29%3C%2Fscript%3E"' in board
    assert "<p>order of the top 3: " in board  # how sure the order of the top is (referee.ladder.order)


async def test_a_bots_page_has_its_results_against_each_opponent_and_its_faults(view: View) -> None:
    status, _, raw = await view.ask("/bot/", path=f"/bot/{HOSTILE}")
    body = raw.decode()
    assert status == 200
    assert "Against each opponent" in body and "Rating over time" in body and "<svg" in body
    assert "Dropped: crash" in body and "(last 3 of 40 lines)" in body
    status, body = await view.get("/bot/b/../c?d#e")
    assert status == 400  # "?d#e" is a query: this page takes none
    status, body = await view.get("/bot/b%2F..%2Fc%3Fd%23e")
    assert status == 200 and "<h1>b/../c?d#e</h1>" in body  # its link, decoded by the server: its page


async def test_bad_requests_are_refused_with_the_reason(view: View) -> None:
    cases = {
        "/nowhere": (404, "not found"),
        "/bot/nobody": (404, "no bot named 'nobody'"),
        "/matches?page=x": (400, "page: 'x' is not a whole number"),
        "/matches?page=0": (400, "page: '0' is not a whole number"),
        "/matches?page=99": (400, "page: 99 is past the last page (1)"),
        "/matches?bot=nobody": (400, "bot: no bot named 'nobody'"),
        "/matches?sort=1": (400, "unknown query parameter 'sort' (this page takes: bot, page)"),
        "/matches?page=1&page=2": (400, "'page' given twice"),
        "/?x=1": (400, "unknown query parameter 'x'"),
        "/match/99999-0": (404, "no finished match"),
        "/match/..%2F..%2Fetc%2Fpasswd": (404, "no finished match"),
        "/table/00000-0/": (404, "not being played here"),
        "/" + "a" * 600: (414, "longer than 512"),
    }
    for target, (status, text) in cases.items():
        found, body = await view.get(target)
        assert (found, text in body) == (status, True), (target, found, body)
    status, _, _ = await view.ask("/", method="POST")
    assert status == 405
    status, _, body = await view.ask("/", headers=[(b"host", b"rebound.example:8000")])
    assert status == 421  # another site's name pointed at 127.0.0.1
    status, _, _ = await view.ask("/", headers=[(b"host", b"127.0.0.1:8000"), (b"host", b"x")])
    assert status == 421


async def test_every_answer_carries_the_security_headers(view: View) -> None:
    for target in ("/", "/nowhere", "/ladder.js", "/api/version"):
        _, headers, _ = await view.ask(target)
        assert b"script-src 'self'" in headers[b"content-security-policy"]
        assert headers[b"x-content-type-options"] == b"nosniff"


@pytest.mark.process
async def test_a_match_opens_the_verified_replay_of_its_log_and_no_other_file(db: Path, tmp_path: Path) -> None:
    logs = db.with_name("hostile-logs")
    logs.mkdir()
    lines = finished_log(tmp_path / "played.jsonl")
    (logs / "00000-0.jsonl").write_bytes(b"".join(lines))
    match_id = json.loads(lines[0])["match_id"]
    outside = tmp_path / "secret.jsonl"
    outside.write_bytes(b"".join(lines))
    (logs / "00000-2.jsonl").symlink_to(outside)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE matches SET match_id = ? WHERE set_index = 0", (match_id,))
        con.execute("UPDATE matches SET log = ? WHERE set_index = 0 AND rotation = 1", (str(outside),))
    view = View(db)
    try:
        status, headers, body = await view.ask("/match/00000-0")
        assert status == 200 and b"Hearts replay" in body and b'"status":"verified"' in body
        assert headers[b"content-security-policy"].startswith(b"sandbox allow-scripts; default-src 'none'")
        with sqlite3.connect(db) as con:
            (first,) = con.execute("SELECT seats FROM matches WHERE set_index = 0 AND rotation = 0").fetchone()
        for name in json.loads(first):  # its seats named by the ladder's names, "<" escaped in its data
            assert f'"name":{json.dumps(name)}'.replace("<", "\\u003c").encode() in body, name
        for key in ("00000-1", "00000-2", "00000-3"):  # a row naming a file outside, a symlink, no file
            status, body_text = await view.get(f"/match/{key}")
            assert status == 404 and "cannot be read in the ladder's logs folder" in body_text, key
        (logs / "00002-3.jsonl").write_bytes(b"".join(lines))  # the last match rated: among every seat's latest
        with sqlite3.connect(db) as con:
            con.execute("UPDATE matches SET match_id = ? WHERE set_index = 2 AND rotation = 3", (match_id,))
            (seats,) = con.execute("SELECT seats FROM matches WHERE set_index = 2 AND rotation = 3").fetchone()
        status, _, page = await view.ask("/bot/", path=f"/bot/{json.loads(seats)[0]}")
        assert b"over the log of its latest match" in page  # its time per decision: the one log it can read
    finally:
        view.close()


async def test_a_view_bound_elsewhere_needs_its_token(db: Path) -> None:
    view = View(db, token="s3cret")
    try:
        assert (await view.get("/"))[0] == 403
        assert (await view.get("/?token=wrong"))[0] == 403
        status, headers, _ = await view.ask("/matches", query_string=b"token=s3cret")
        assert status == 303 and headers[b"location"] == b"/matches"
        cookie = headers[b"set-cookie"].split(b";")[0]
        assert b"HttpOnly" in headers[b"set-cookie"] and b"SameSite=Strict" in headers[b"set-cookie"]
        status, _, body = await view.ask("/matches", headers=[(b"host", b"127.0.0.1:8000"), (b"cookie", cookie)])
        assert status == 200 and b"Matches" in body
        wrong = [(b"host", b"127.0.0.1:8000"), (b"cookie", b"ladder_token=s3creT")]
        assert (await view.ask("/", headers=wrong))[0] == 403
    finally:
        view.close()


async def test_a_flood_is_shed_and_a_failing_page_fails_alone(
    view: View, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(MAX_OPEN):  # as many answers as it makes at once are under way, for others
        assert view.app.slots.take(f"10.0.0.{n}")
    status, headers, _ = await view.ask("/")
    assert status == 503 and headers[b"retry-after"] == b"1" and view.app.shed == 1
    view.app.slots = AnswerSlots()
    view.app.renders = Bucket(rate=0.0, burst=2)  # two pages may be made, no more
    assert (await view.get("/"))[0] == 200
    assert (await view.get("/matches"))[0] == 200
    status, body = await view.get("/tables")
    assert status == 503 and "busy" in body and view.app.shed == 2
    assert [(await view.get(target))[0] for target in ("/", "/matches", "/", "/api/version")] == [200] * 4  # kept
    view.app.renders = Bucket()

    def broken(reader: object) -> object:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(queries, "board", broken)
    fresh = View(db)  # nothing kept yet
    try:
        status, body = await fresh.get("/")
        assert status == 500 and "the ladder goes on" in body
        assert (await fresh.get("/matches"))[0] == 200 and fresh.app.slots.open == 0
    finally:
        fresh.close()


async def test_the_pages_update_as_matches_end(db: Path) -> None:
    view = View(db)
    try:
        before = json.loads((await view.get("/api/version"))[1])
        _, page = await view.get("/")
        assert f'data-stamp="{before["stamp"]}"' in page
        store = LadderStore(db)
        store.extend([], 3)  # nothing played: the same stamp
        store.close()
        assert json.loads((await view.get("/api/version"))[1]) == before
        with sqlite3.connect(db) as con:
            con.execute("UPDATE matches SET seq = seq + 1000 WHERE seq = (SELECT MAX(seq) FROM matches)")
        after = json.loads((await view.get("/api/version"))[1])
        assert after["seq"] == before["seq"] + 1000 and after["stamp"] != before["stamp"]
        _, page = await view.get("/")
        assert f'data-stamp="{after["stamp"]}"' in page
    finally:
        view.close()


def test_the_view_only_reads_and_never_holds_up_a_writer(db: Path) -> None:
    reader = read_only(db)
    try:
        with pytest.raises(sqlite3.OperationalError):
            reader.execute("DELETE FROM ratings")
        reader.execute("BEGIN")
        assert reader.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 12  # a read transaction is open
        writer = sqlite3.connect(db, timeout=0)  # a writer that would fail at once if it had to wait
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("UPDATE meta SET value = value WHERE key = 'games'")
        writer.commit()
        writer.close()
        reader.execute("COMMIT")
    finally:
        reader.close()


async def test_the_tables_in_play_are_one_click_from_their_watch_page(db: Path) -> None:
    store = LadderStore(db)
    store.extend(draw_sets(NAMES, 4, 9, 4)[3:], 4)  # a fourth set, pending
    store.close()
    logs = db.with_name("hostile-logs")
    logs.mkdir()
    view = View(db)
    try:
        assert "No match is being played" in (await view.get("/tables"))[1]
        (logs / "00003-2.jsonl").write_text("{}\n")  # a pending match whose log grows
        (logs / "00000-1.jsonl").write_text("{}\n")  # a match that is done
        (logs / "00003-0.jsonl").write_text("{}\n")
        os.utime(logs / "00003-0.jsonl", (time.time() - 60, time.time() - 60))  # a log that stopped growing
        body = (await view.get("/tables"))[1]
        assert body.count('class="watch"') == 1 and 'href="/table/00003-2/"' in body and "&lt;script&gt;" in body
        assert json.loads((await view.get("/api/version"))[1])["tables"] == "00003-2"
        status, headers, page = await view.ask("/table/00003-2/")
        assert status == 200 and b"watch.js" in page
        assert b"style-src 'self' 'sha256-" in headers[b"content-security-policy"]
        assert (await view.get("/table/00003-2/watch.js"))[0] == 200
        assert (await view.get("/table/00003-2/index.html"))[0] == 404
        for key in ("00000-1", "00003-0", "00003-1"):
            assert (await view.get(f"/table/{key}/"))[0] == 404, key
        with sqlite3.connect(db) as con:
            (seats,) = con.execute("SELECT seats FROM matches WHERE set_index = 3 AND rotation = 2").fetchone()
        assert in_play(view.app.reading.reader, logs)[0].seats == tuple(json.loads(seats))  # the ladder's names
    finally:
        view.close()


async def test_the_versions_of_an_entrant_are_linked_and_a_retired_one_marked(db: Path) -> None:
    with sqlite3.connect(db) as con:  # alpha replaced by alpha@2, which has played one match
        con.execute(
            "INSERT INTO bots (name, command, position, entrant, version, replaces, added)"
            " VALUES ('alpha@2', './run alpha --v2', 0, 'alpha', 2, 'alpha', '2026-12-01T00:00:00+00:00')"
        )
        con.execute("UPDATE bots SET entrant = 'alpha', retired = '2026-12-01T00:00:00+00:00' WHERE name = 'alpha'")
        con.execute("INSERT INTO ratings (bot, mu, sigma) VALUES ('alpha@2', 30, 5)")
        con.execute("INSERT INTO rating_history (seq, bot, mu, sigma) VALUES (100, 'alpha@2', 30, 5)")
    view = View(db)
    try:
        _, board = await view.get("/")
        assert 'href="/bot/alpha%402">alpha@2</a> <span class="tag">v2 of alpha</span>' in board
        assert 'href="/bot/alpha">alpha</a> <span class="tag retired">retired</span>' in board
        status, _, raw = await view.ask("/bot/", path="/bot/alpha@2")
        page = raw.decode()
        assert status == 200 and "Versions of alpha" in page and 'href="/bot/alpha">alpha</a> (retired)' in page
        assert "<title>alpha</title>" in page and "<title>alpha@2</title>" in page  # both in its rating chart
    finally:
        view.close()


async def test_a_duels_database_shows_its_llr_against_the_bounds_and_its_sets(tmp_path: Path) -> None:
    undecided_duel(tmp_path / "duel.db")
    view = View(tmp_path / "duel.db")
    try:
        status, page = await view.get("/")
        assert status == 200 and "Duel: " in page and ">new</a> under test" in page
        assert "LLR in bounds" in page and f"in [{TEST.lower:+.2f}, {TEST.upper:+.2f}]" in page
        assert (
            '<td class="text">old</td><td>5</td><td>+1.80</td>' in page
        )  # its sets and their mean difference: (1+3+1+3+1)/5
        assert "verdict: undecided" in page
    finally:
        view.close()
