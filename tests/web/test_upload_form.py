"""The entrant's upload form (issue 42, part 1), asked in-process as a browser and a script
would, and as an attacker would: only an entrant uploads, a browser's form only from its own
page (cookie, ``Origin``, ``csrf``), nothing too large, too slow, malformed or too frequent is
taken, and a refused request keeps nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ladder.entrants import add_entrant
from referee.ladder.uploads import uploads, uploads_folder
from referee.store.records import Season
from referee.store.writer import LadderStore
from referee.web.ladder import upload_form
from referee.web.ladder.queries import season_mark
from referee.web.ladder.upload_form import ENTRANT_BURST, MAX_BODY, UPLOAD_PATH
from tests.ladder.test_uploads import FIRST, archive
from tests.web.ladder_helpers import View, hostile_ladder

HOST = (b"host", b"127.0.0.1:8000")
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
BOUNDARY = "----hearts-form-7MA4YWxkTrZu0gW"
BOT = archive({"bot.py": FIRST})


def form_body(fields: dict[str, bytes], boundary: str = BOUNDARY) -> bytes:
    """A ``multipart/form-data`` body as a browser sends it (``archive`` as a file)."""
    parts = []
    for name, value in fields.items():
        file = '; filename="bot.zip"' if name == "archive" else ""
        kind = b"Content-Type: application/zip\r\n" if name == "archive" else b""
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"{file}\r\n'.encode() + kind
                     + b"\r\n" + value + b"\r\n")  # fmt: skip
    return b"".join(parts) + f"--{boundary}--\r\n".encode()


class Ladder:
    """A ladder with the entrants ``carol`` and ``dave`` and its pages in-process."""

    def __init__(self, folder: Path) -> None:
        self.db = hostile_ladder(folder)
        store = LadderStore(self.db)
        self.keys = {name: str(add_entrant(store, name, again=False)[1]) for name in ("carol", "dave")}
        store.close()
        self.view = View(self.db)
        self.asked = 0
        """Body messages the application asked for."""

    async def post(
        self, body: bytes, *headers: tuple[bytes, bytes], chunks: int = 1, query: str = "", path: str = UPLOAD_PATH
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        """``body`` posted in ``chunks`` messages, with ``headers`` (and a ``Host``)."""
        size = max(1, -(-len(body) // chunks))
        pieces = [body[i : i + size] for i in range(0, len(body), size)] or [b""]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            self.asked += 1
            piece = pieces.pop(0) if pieces else b""
            return {"type": "http.request", "body": piece, "more_body": bool(pieces)}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "headers": [HOST, *headers],
                 "client": ("127.0.0.1", 5000)}  # fmt: skip
        await self.view.app(scope, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])

    async def cookie(self, name: str) -> tuple[bytes, bytes]:
        status, headers, _ = await self.view.ask("/entrant", query_string=f"key={self.keys[name]}".encode())
        assert status == 303
        return (b"cookie", headers[b"set-cookie"].split(b";")[0])

    async def csrf(self, cookie: tuple[bytes, bytes]) -> bytes:
        status, _, page = await self.view.ask("/entrant", headers=[HOST, cookie])
        assert status == 200
        found = page.split(b'name="csrf" value="')[1].split(b'"')[0]
        assert len(found) == 64
        return found

    async def browser(self, name: str, fields: dict[str, bytes]) -> tuple[int, dict[bytes, bytes], bytes]:
        """``fields`` sent as ``name``'s browser sends its page's form (the page's csrf added)."""
        cookie = await self.cookie(name)
        body = form_body({**fields, "csrf": await self.csrf(cookie)})
        return await self.post(body, *multipart(), cookie, ORIGIN)

    def kept(self) -> list[str]:
        """Every file and folder under the uploads folder."""
        root = uploads_folder(self.db)
        return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def multipart(boundary: str = BOUNDARY) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", f"multipart/form-data; boundary={boundary}".encode())]


def bearer(key: str) -> tuple[bytes, bytes]:
    return (b"authorization", f"Bearer {key}".encode())


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[Ladder]:
    found = Ladder(tmp_path)
    yield found
    found.view.close()


async def test_the_entrant_page_has_the_form_and_a_browser_upload_is_kept(ladder: Ladder) -> None:
    cookie = await ladder.cookie("carol")
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert status == 200 and b'action="/entrant/upload"' in page and b'enctype="multipart/form-data"' in page
    _, _, before = await ladder.view.ask("/api/version", headers=[HOST, cookie])
    status, headers, _ = await ladder.browser("carol", {"archive": BOT, "command": b"python3 bot.py"})
    assert status == 303 and headers[b"location"] == b"/entrant"
    [kept] = uploads(ladder.db, "carol")
    assert (kept.seq, kept.state, kept.command, kept.files) == (1, "received", "python3 bot.py", 1)
    _, _, after = await ladder.view.ask("/api/version", headers=[HOST, cookie])
    assert json.loads(before)["uploads"] == "" and json.loads(after)["uploads"].startswith("1:")
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert b"Your uploads" in page and b"received" in page and b'data-uploads="1:' in page


async def test_the_form_s_page_lets_a_browser_send_its_origin(ladder: Ladder) -> None:
    """Under ``Referrer-Policy: no-referrer`` a browser sends ``Origin: null`` with a form's POST,
    and the upload was refused as another site's (found by tests/web/test_class_ladder.py in
    Chromium): the entrant's page says ``same-origin`` (no referrer to any other site), every
    other page still ``no-referrer``."""
    cookie = await ladder.cookie("carol")
    status, headers, _ = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert status == 200 and headers[b"referrer-policy"] == b"same-origin"
    for target in ("/", "/matches", "/entrant?key=x"):
        _, headers, _ = await ladder.view.ask(target, headers=[HOST, cookie])
        assert headers[b"referrer-policy"] == b"no-referrer", target


async def test_nobody_else_gets_the_form(ladder: Ladder) -> None:
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST])  # no secret, with entrants: the public
    assert status == 403 and b"csrf" not in page
    status, _, body = await ladder.view.ask("/", headers=[HOST])
    assert status == 200 and b"csrf" not in body
    organizer = View(ladder.db, token="t0ken")
    try:
        status, _, page = await organizer.ask("/entrant", headers=[HOST, (b"cookie", b"ladder_token=t0ken")])
        assert status == 200 and b"<h1>Entrants</h1>" in page and b"csrf" not in page
    finally:
        organizer.close()


async def test_a_script_uploads_with_its_bearer_key_and_is_told_the_state(ladder: Ladder) -> None:
    body = form_body({"archive": BOT, "command": b"python3 bot.py"})
    status, headers, answer = await ladder.post(body, *multipart(), bearer(ladder.keys["dave"]), chunks=7)
    assert status == 201 and headers[b"content-type"] == b"application/json"
    assert json.loads(answer) | {"received": ""} == {"entrant": "dave", "upload": 1, "state": "received",
                                                     "detail": "", "received": ""}  # fmt: skip
    bad = archive({"../escape.py": "x"})
    status, _, answer = await ladder.post(form_body({"archive": bad, "command": b"python3 bot.py"}), *multipart(),
                                          bearer(ladder.keys["dave"]))  # fmt: skip
    assert (
        status == 422 and json.loads(answer)["state"] == "refused" and "(parent-path)" in json.loads(answer)["detail"]
    )
    assert not (ladder.db.parent / "escape.py").exists()


WHO_CASES: list[tuple[Any, ...]] = [
    ("no secret at all", [ORIGIN], 403, b"entrant"),
    ("a wrong bearer key", [("bearer", "not-a-key")], 403, b"opens nothing"),
    ("a cookie without an Origin", ["cookie"], 403, b"sent from the entrant"),
    ("another site's Origin", ["cookie", (b"origin", b"https://evil.example")], 403, b"sent from the entrant"),
    ("two Origins", ["cookie", ORIGIN, ORIGIN], 403, b"sent from the entrant"),
    ("no csrf field", ["cookie", ORIGIN], 403, b"not from your page"),
]


@pytest.mark.parametrize(("why", "headers", "status", "says"), WHO_CASES, ids=[case[0] for case in WHO_CASES])
async def test_only_the_entrant_from_its_own_page_uploads(
    ladder: Ladder, why: str, headers: list[Any], status: int, says: bytes
) -> None:
    cookie = await ladder.cookie("carol")
    sent = [cookie if h == "cookie" else bearer(h[1]) if h[0] == "bearer" else h for h in headers]
    got, _, body = await ladder.post(form_body({"archive": BOT, "command": b"python3 bot.py"}), *multipart(), *sent)
    assert (got, says in body) == (status, True), why
    assert ladder.kept() == []


async def test_a_csrf_value_of_another_entrant_or_an_old_link_is_refused(ladder: Ladder) -> None:
    carol = await ladder.cookie("carol")
    dave_csrf = await ladder.csrf(await ladder.cookie("dave"))
    body = form_body({"archive": BOT, "command": b"python3 bot.py", "csrf": dave_csrf})
    assert (await ladder.post(body, *multipart(), carol, ORIGIN))[0] == 403
    own = await ladder.csrf(carol)
    store = LadderStore(ladder.db)
    _, key = add_entrant(store, "carol", again=True)  # a new link: the old page's form is stale
    store.close()
    ladder.keys["carol"] = str(key)
    fresh = await ladder.cookie("carol")
    body = form_body({"archive": BOT, "command": b"python3 bot.py", "csrf": own})
    status, _, page = await ladder.post(body, *multipart(), fresh, ORIGIN)
    assert status == 403 and b"open your page again" in page
    assert ladder.kept() == []


FORM_CASES: list[tuple[Any, ...]] = [
    ("not a form", b"{}", [(b"content-type", b"application/json")], 415, b"multipart/form-data"),
    ("no boundary", b"x", [(b"content-type", b"multipart/form-data")], 415, b"multipart/form-data"),
    ("an unknown field", form_body({"archive": BOT, "path": b"/etc"}), multipart(), 400, b"unknown field"),
    (
        "a field twice",
        form_body({"archive": BOT}).replace(b"--" + BOUNDARY.encode() + b"--\r\n", b"") + form_body({"archive": BOT}),
        multipart(),
        400,
        b"given twice",
    ),
    ("cut before its end", form_body({"archive": BOT})[:-20], multipart(), 400, b"before its last boundary"),
    ("a command too long", form_body({"archive": BOT, "command": b"x" * 1001}), multipart(), 413, b"command"),
    ("no file", form_body({"command": b"python3 bot.py"}), multipart(), 400, b"no file was sent"),
    (
        "a command that is not UTF-8",
        form_body({"archive": BOT, "command": b"\xff"}),
        multipart(),
        400,
        b"not UTF-8",
    ),
    ("no command anywhere", form_body({"archive": BOT}), multipart(), 400, b"no command"),
    (
        "too large, as its length says",
        b"",
        [*multipart(), (b"content-length", str(MAX_BODY + 1).encode())],
        413,
        b"larger than",
    ),
]


@pytest.mark.parametrize(("why", "body", "headers", "status", "says"), FORM_CASES, ids=[case[0] for case in FORM_CASES])
async def test_a_bad_form_is_refused_by_name_and_keeps_nothing(  # noqa: PLR0917 - the case's fields
    ladder: Ladder, why: str, body: bytes, headers: list[tuple[bytes, bytes]], status: int, says: bytes
) -> None:
    got, answer_headers, answer = await ladder.post(body, *headers, bearer(ladder.keys["carol"]), chunks=3)
    assert (got, says in answer) == (status, True), (why, answer)
    assert answer_headers[b"connection"] == b"close"
    assert [p for p in ladder.kept() if "/" in p] == []  # at most carol's empty folder


async def test_a_body_larger_than_it_says_is_cut_at_the_limit(ladder: Ladder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upload_form, "MAX_BODY", 4096)
    body = form_body({"archive": b"z" * 10_000, "command": b"python3 bot.py"})
    status, _, answer = await ladder.post(body, *multipart(), bearer(ladder.keys["carol"]), chunks=40)
    assert status == 413 and b"larger than 4,096" in answer
    size = -(-len(body) // 40)
    assert ladder.asked <= 4096 // size + 2  # read no further than the limit
    assert ladder.kept() == []


async def test_an_upload_too_large_is_refused_before_its_body_is_read(ladder: Ladder) -> None:
    headers = [*multipart(), (b"content-length", str(MAX_BODY + 1).encode()), bearer(ladder.keys["carol"])]
    status, _, _ = await ladder.post(b"", *headers)
    assert status == 413 and ladder.asked == 0


async def test_a_slow_upload_is_cut_off_and_holds_no_page(ladder: Ladder, mock_clock: trio.testing.MockClock) -> None:
    """A body that never ends gets 408 after ``BODY_SECONDS``; meanwhile the pages answer."""
    stalled = trio.Event()
    answered: list[int] = []

    async def never() -> dict[str, Any]:
        stalled.set()
        await trio.sleep_forever()
        raise AssertionError

    async def slow_client() -> None:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": UPLOAD_PATH, "raw_path": UPLOAD_PATH.encode(),
                 "query_string": b"", "client": ("127.0.0.1", 1),
                 "headers": [HOST, *multipart(), bearer(ladder.keys["carol"])]}  # fmt: skip
        await ladder.view.app(scope, never, send)
        answered.append(sent[0]["status"])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow_client)
        await stalled.wait()
        assert (await ladder.view.get("/"))[0] == 200 and answered == []
        mock_clock.jump(upload_form.BODY_SECONDS - 1)
        await trio.testing.wait_all_tasks_blocked()
        assert answered == []
        mock_clock.jump(2)
    assert answered == [408]


async def test_uploads_are_limited_per_entrant_and_at_once(ladder: Ladder) -> None:
    body = form_body({"archive": BOT, "command": b"python3 bot.py"})
    statuses = [
        (await ladder.post(body, *multipart(), bearer(ladder.keys["carol"])))[0] for _ in range(ENTRANT_BURST + 1)
    ]
    assert statuses == [201] * ENTRANT_BURST + [429]
    status, headers, _ = await ladder.post(body, *multipart(), bearer(ladder.keys["carol"]))
    assert status == 429 and headers[b"retry-after"] == b"60"
    assert (await ladder.post(body, *multipart(), bearer(ladder.keys["dave"])))[0] == 201  # another entrant goes on
    assert len(uploads(ladder.db, "carol")) == ENTRANT_BURST
    ladder.view.app.desk.door.reading.update({"127.0.0.1": upload_form.UPLOADS_PER_ADDRESS})
    assert (await ladder.post(body, *multipart(), bearer(ladder.keys["dave"])))[0] == 503


async def test_an_upload_takes_no_query_and_no_other_method_writes(ladder: Ladder) -> None:
    body = form_body({"archive": BOT, "command": b"python3 bot.py"})
    key = ladder.keys["carol"]
    assert (await ladder.post(body, *multipart(), bearer(key), query=f"key={key}"))[0] == 400
    assert (await ladder.post(body, *multipart(), bearer(key), path="/entrant"))[0] == 405
    assert (await ladder.view.ask(UPLOAD_PATH, method="PUT", headers=[HOST, bearer(key)]))[0] == 405
    assert (await ladder.view.ask(UPLOAD_PATH, method="POST", headers=[(b"host", b"evil.example"), bearer(key)]))[
        0
    ] == 421
    assert ladder.kept() == []


@settings(max_examples=150, deadline=None)
@given(junk=st.binary(max_size=600), cut=st.integers(0, 400), chunks=st.integers(1, 9))
def test_any_body_is_answered_and_writes_nothing_outside(
    tmp_path_factory: Any, junk: bytes, cut: int, chunks: int
) -> None:
    """Whatever bytes come, the answer is a refusal with a reason or a kept upload; never a
    failure of the server, never a file outside the ladder's uploads folder."""
    folder = tmp_path_factory.mktemp("fuzz")
    ladder = Ladder(folder)
    before = {p for p in folder.rglob("*") if "uploads" not in str(p)}
    body = form_body({"archive": BOT, "command": b"python3 bot.py"})
    mangled = body[:cut] + junk + body[cut:]

    async def run() -> int:
        return (await ladder.post(mangled, *multipart(), bearer(ladder.keys["carol"]), chunks=chunks))[0]

    try:
        status = trio.run(run)
    finally:
        ladder.view.close()
    assert status in (201, 400, 413, 422)
    after = {p for p in folder.rglob("*") if "uploads" not in str(p)}
    assert after - before <= {p for p in after if p.name.endswith(("-wal", "-shm"))}


async def test_after_submissions_close_no_upload_is_taken_and_the_page_says_so(ladder: Ladder) -> None:
    cookie = await ladder.cookie("carol")
    csrf = await ladder.csrf(cookie)
    _, _, before = await ladder.view.ask("/api/version", headers=[HOST, cookie])
    store = LadderStore(ladder.db)
    store.set_season(Season(ends="2026-01-02T00:00:00+00:00", closes="2026-01-01T00:00:00+00:00"))  # past
    store.close()
    body = form_body({"archive": BOT, "command": b"python3 bot.py", "csrf": csrf})
    status, _, page = await ladder.post(body, *multipart(), cookie, ORIGIN)
    assert status == 403 and b"submissions closed at 2026-01-01T00:00:00+00:00" in page and ladder.asked == 0
    status, _, answer = await ladder.post(body, *multipart(), bearer(ladder.keys["dave"]))
    assert status == 403 and "submissions closed" in json.loads(answer)["error"]
    assert ladder.kept() == []
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert status == 200 and b"No more uploads: submissions closed" in page and b'name="csrf"' not in page
    _, _, after = await ladder.view.ask("/api/version", headers=[HOST, cookie])
    assert json.loads(after)["stamp"] != json.loads(before)["stamp"]  # open pages show it at once


def test_the_pages_stamp_moves_when_the_clock_passes_a_season_time() -> None:
    """Pages are kept by their stamp: the freeze and the end time change it with no write."""
    season = Season(ends="2026-03-01T18:00:00+00:00", closes="2026-03-01T12:00:00+00:00")
    marks = [season_mark(season, datetime.fromisoformat(t)) for t in
             ("2026-03-01T11:59:59+00:00", "2026-03-01T12:00:00+00:00", "2026-03-01T18:00:00+00:00")]  # fmt: skip
    assert marks == [".00", ".10", ".11"] and season_mark(None, datetime.now(UTC)) == ""
