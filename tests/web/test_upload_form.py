"""The entrant's upload form (issue 42, part 1), asked in-process as a browser and a script
would, and as an attacker would: only an entrant uploads, a browser's form only from its own
page (cookie, ``Origin``, ``csrf``), nothing too large, too slow, malformed or too frequent is
taken, and a refused request keeps nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ladder.entrants import add_entrant
from referee.ladder.upload_gate import GATE_NAME, UploadGate, keep_gate
from referee.ladder.uploads import receive, uploads, uploads_folder
from referee.store.records import Season
from referee.store.writer import LadderStore
from referee.web.ladder import upload_form
from referee.web.ladder.queries import season_mark
from referee.web.ladder.upload_form import ADDRESS_BURST, ADDRESS_SECONDS, ENTRANT_BURST, MAX_BODY, UPLOAD_PATH
from tests.ladder.test_uploads import FIRST, NOW, archive
from tests.ladder.test_uploads import Ladder as Followed
from tests.tiers import examples
from tests.web.ladder_helpers import View, hostile_ladder

HOST = (b"host", b"127.0.0.1:8000")
SANDBOXED = UploadGate.of_run("on", sandboxed=True, trusted=False)
"""The gate a run in bubblewrap keeps: uploads taken."""
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

    def __init__(self, folder: Path, entrants: tuple[str, ...] = ("carol", "dave")) -> None:
        self.db = hostile_ladder(folder)
        store = LadderStore(self.db)
        self.keys = {name: str(add_entrant(store, name, again=False)[1]) for name in entrants}
        store.close()
        keep_gate(self.db, SANDBOXED)  # as a run whose bots are sandboxed keeps it
        self._open()

    def _open(self) -> None:
        """Its pages on its database, no body asked for yet."""
        self.view = View(self.db)
        self.asked = 0
        """Body messages the application asked for."""

    @classmethod
    def copy_of(cls, ladder: Ladder, folder: Path) -> Ladder:
        """``ladder``'s folder copied into ``folder`` (its view closed): the same ladder, made in
        a fraction of the time."""
        shutil.copytree(ladder.db.parent, folder, dirs_exist_ok=True)
        copy = cls.__new__(cls)
        copy.db, copy.keys = folder / ladder.db.name, dict(ladder.keys)
        copy._open()
        return copy

    async def post(
        self,
        body: bytes,
        *headers: tuple[bytes, bytes],
        chunks: int = 1,
        query: str = "",
        path: str = UPLOAD_PATH,
        client: str = "127.0.0.1",
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        """``body`` posted in ``chunks`` messages from ``client``, with ``headers`` (and a ``Host``)."""
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
                 "client": (client, 5000)}  # fmt: skip
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
        """Every file and folder under the uploads folder (but the run's word on its sandbox)."""
        root = uploads_folder(self.db)
        found = root.rglob("*") if root.exists() else []
        return sorted(str(p.relative_to(root)) for p in found if p != root / GATE_NAME)


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


async def test_uploads_are_limited_per_address(tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """One address may send ``ADDRESS_BURST`` uploads at once, whoever's they are, then one every
    ``ADDRESS_SECONDS`` (trio's clock: the test never waits); another address is not held up."""
    entrants = ("carol", "dave", "erin")
    ladder = Ladder(tmp_path, entrants)
    try:
        body = form_body({"archive": BOT, "command": b"python3 bot.py"})

        async def sent(name: str, client: str = "127.0.0.1") -> tuple[int, dict[bytes, bytes], bytes]:
            return await ladder.post(body, *multipart(), bearer(ladder.keys[name]), client=client)

        assert ADDRESS_BURST == 2 * ENTRANT_BURST  # carol's and dave's bursts empty the address's
        for name in entrants[:2]:
            assert [(await sent(name))[0] for _ in range(ENTRANT_BURST)] == [201] * ENTRANT_BURST
        status, headers, answer = await sent("erin")  # erin's first, but this address's eleventh
        assert status == 429 and b"from this address" in answer
        assert headers[b"retry-after"] == str(int(ADDRESS_SECONDS)).encode()
        assert (await sent("erin", client="192.0.2.7"))[0] == 201  # another address: erin's own bucket
        mock_clock.jump(ADDRESS_SECONDS - 1)
        assert (await sent("erin"))[0] == 429
        mock_clock.jump(1)
        assert (await sent("erin"))[0] == 201  # one more after 30 s
        assert (await sent("erin"))[0] == 429  # and only one
        assert [len(uploads(ladder.db, name)) for name in entrants] == [ENTRANT_BURST, ENTRANT_BURST, 2]
    finally:
        ladder.view.close()


NO_SANDBOX_GATES = [
    pytest.param(UploadGate.of_run("off", sandboxed=False, trusted=False), b"(--sandbox off)", id="sandbox-off"),
    pytest.param(UploadGate.of_run("auto", sandboxed=False, trusted=False), b"bubblewrap does not", id="no-bwrap"),
    pytest.param(None, b"no run of it has said", id="no-run-said"),
]


@pytest.mark.parametrize(("gate", "why"), NO_SANDBOX_GATES)
async def test_without_a_sandbox_no_upload_is_taken_and_the_page_says_so(
    ladder: Ladder, gate: UploadGate | None, why: bytes
) -> None:
    """A ladder whose run keeps its bots unsandboxed (or never said) takes no upload: the form
    answers with the ``no-sandbox`` refusal before reading the body, and the entrant's page
    shows why in place of the form; ``--trust-uploads`` opens it again."""
    if gate is None:
        (uploads_folder(ladder.db) / GATE_NAME).unlink()
    else:
        keep_gate(ladder.db, gate)
    cookie = await ladder.cookie("carol")
    body = form_body({"archive": BOT, "command": b"python3 bot.py", "csrf": b"0" * 64})  # never read
    status, _, page = await ladder.post(body, *multipart(), cookie, ORIGIN)
    assert status == 403 and b"Upload not taken" in page and b"uploads are closed (no-sandbox)" in page
    assert why in page and ladder.asked == 0
    status, _, answer = await ladder.post(body, *multipart(), bearer(ladder.keys["dave"]))
    assert status == 403 and json.loads(answer)["error"].startswith("uploads are closed (no-sandbox): this ladder")
    assert [p for p in ladder.kept() if "/" in p] == []
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert status == 200 and b'name="csrf"' not in page and why in page
    assert b"Uploads are closed (no-sandbox) because this ladder runs its bots without a sandbox" in page
    keep_gate(ladder.db, msgspec.structs.replace(gate or SANDBOXED, sandboxed=False, trusted=True))
    status, _, page = await ladder.view.ask("/entrant", headers=[HOST, cookie])
    assert status == 200 and b'name="csrf"' in page  # --trust-uploads: the form again


@pytest.mark.process
async def test_an_upload_whose_build_fails_is_refused_with_its_output_in_its_state_and_on_its_page(
    tmp_path: Path,
) -> None:
    """The build's output and why, in ``upload.json`` and on the entrant's own page (state
    ``refused``); its entrant has no version, and the ladder goes on."""
    followed = Followed(tmp_path, check=True, entrants=["alice"])
    build = "echo compiling bot.c; echo 'bot.c:3:1: error: expected <;> before }' >&2; exit 2"
    try:
        receive(followed.db, "alice", archive({"bot.c": "int main() { }"}), command="./bot", build=build, now=NOW)
        assert await followed.follower.look() == []
        assert "alice" not in [v.entrant for v in followed.store.versions()]
    finally:
        followed.store.close()
    state = json.loads((uploads_folder(followed.db) / "alice" / "1" / "upload.json").read_bytes())
    assert state["state"] == "refused" and state["version"] is None
    said = state["detail"]
    assert said.startswith("building alice failed: sh -c") and "exited with code 2:" in said
    assert "| compiling bot.c" in said and "| bot.c:3:1: error: expected <;> before }" in said
    assert followed.told[-1].startswith("upload 1 of alice: refused (building alice failed")
    view = View(followed.db)
    try:
        status, headers, _ = await view.ask("/entrant", query_string=f"key={followed.keys['alice']}".encode())
        cookie = (b"cookie", headers[b"set-cookie"].split(b";")[0])
        status, _, page = await view.ask("/entrant", headers=[HOST, cookie])
    finally:
        view.close()
    shown = page.decode()
    assert status == 200 and "Your uploads" in shown and re.search(r"<td[^>]*>refused</td>", shown)
    assert "bot.c:3:1: error: expected &lt;;&gt; before }" in shown and "compiling bot.c" in shown
    assert str(tmp_path) not in shown  # the organizer's folders written from <ladder>


def web_says(db: Path) -> str:
    """What ``referee ladder web`` says on its stderr up to its address, then stopped."""
    pages = subprocess.Popen([sys.executable, "-m", "referee", "ladder", "web", "--db", str(db)],
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    said = ""
    try:
        assert pages.stderr is not None
        while " open http" not in said and (line := pages.stderr.readline()):
            said += line
    finally:
        pages.terminate()
        pages.wait(timeout=30)
    assert " open http" in said, said
    return said


@pytest.mark.process
def test_ladder_web_tells_the_organizer_when_its_entrants_uploads_are_refused(tmp_path: Path) -> None:
    found = Ladder(tmp_path)
    found.view.close()
    keep_gate(found.db, UploadGate.of_run("off", sandboxed=False, trusted=False))
    said = web_says(found.db)
    assert "ladder hostile.db: uploads are closed (no-sandbox): this ladder runs its bots without a sandbox" in said
    assert "(--sandbox off)" in said and "the uploads of its 2 entrant(s) are refused" in said
    keep_gate(found.db, SANDBOXED)
    assert "uploads are closed" not in web_says(found.db)


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


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Ladder:
    """A ladder each example of the fuzz test gets a copy of (its view closed)."""
    ladder = Ladder(tmp_path_factory.mktemp("fuzzed"))
    ladder.view.close()
    return ladder


@settings(max_examples=examples(150), deadline=None)
@given(junk=st.binary(max_size=600), cut=st.integers(0, 400), chunks=st.integers(1, 9))
def test_any_body_is_answered_and_writes_nothing_outside(
    tmp_path_factory: Any, fuzzed: Ladder, junk: bytes, cut: int, chunks: int
) -> None:
    """Whatever bytes come, the answer is a refusal with a reason or a kept upload; never a
    failure of the server, never a file outside the ladder's uploads folder."""
    folder = tmp_path_factory.mktemp("fuzz")
    ladder = Ladder.copy_of(fuzzed, folder)
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
