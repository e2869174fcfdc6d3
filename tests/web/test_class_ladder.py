"""A class ladder as a class uses it, end to end (issue 42, docs/ladder.md "Running a class
ladder"): a real ``referee ladder run --keep-running`` following its bot list and its entrants'
uploads, its pages served beside it by ``referee ladder web --public``, a real SQLite database,
and each person in a real Chromium (Playwright) with a browser of their own.

1. The organizer makes the ladder (two house bots) and three entrants with the command line.
2. alice uploads a Python bot through her page's form, bob a C bot built by its build line
   (``sleep 3 && make``); both reach ``playing`` on their pages and play: the leaderboard lists
   them with games. While bob's build runs, the ladder is killed (``kill -9``) and started again:
   his upload is taken whole once, no finished match is lost and no log of one changes.
3. mallory uploads ten hostile archives (the builders of tests/ladder/test_upload_archive.py);
   each is refused on her page with its reason, and nothing outside her own uploads folder
   changes but what the running ladder writes as ever (its database and its logs). Between her
   uploads the pages are killed (``kill -9``) in the middle of a slowly sent upload: no upload
   appears half made, and the pages started again go on.
4. alice sees her bot's stderr in a match's replay and log, not bob's; the public none.
5. The pages at a phone's width (390 px) scroll nowhere sideways: an entrant's page, mallory's
   refusals, the leaderboard, the organizer's list of entrants and the page a browser gets when
   an upload is not taken; the docs' screenshots are taken from here, written to docs/images/
   only when asked: ``HEARTS_DOC_SHOTS=1 python -m pytest tests/web/test_class_ladder.py``.
6. ``referee ladder export`` opened from its files (``file://``): the leaderboard, its links, and
   its leaderboard at a phone's width.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser import URL, chromium_page
from tests.ladder.helpers import check_consistent
from tests.ladder.test_upload_archive import KINDS, NAMES, file, tarred, zeros_zip, zipped
from tests.web.helpers import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.compiler]

PY = sys.executable
PHONE = 390
DESKTOP = (1280, 860)
PATIENCE = 90.0
"""Seconds any one wait may take (a guard against a hang on a loaded machine, not a measure)."""
SHOTS = os.environ.get("HEARTS_DOC_SHOTS") == "1"
IMAGES = ROOT / "docs" / "images"
RULES = ["--set", "end=rounds", "--set", "rounds=2"]
"""Short matches: the scenario is about the class's ladder, not about Hearts."""

ALICE_SAYS = "alice-was-here: thinking hard"
BOB_SAYS = "bob-was-here: compiled"
BOB_BUILD = "sleep 3 && make"


def alice_bot() -> bytes:
    """A zip of alice's folder: the first-legal test bot, saying a line on its stderr."""
    source = (ROOT / "tests" / "bots" / "first_legal_bot.py").read_text()
    said = f'if __name__ == "__main__":\n    sys.stderr.write({ALICE_SAYS + chr(10)!r})\n    sys.stderr.flush()\n'
    source = source.replace('if __name__ == "__main__":\n', said)
    return zipped(("alice-bot/bot.py", source.encode()))


def bob_bot() -> bytes:
    """A tar.gz of bob's folder: the sample C bot and its Makefile, saying a line on stderr."""
    source = (ROOT / "sample_bots" / "c" / "bot.c").read_text()
    start = "    setvbuf(stdout, NULL, _IOLBF, 0);\n"
    assert start in source
    source = source.replace(start, start + f'    fprintf(stderr, "{BOB_SAYS}\\n");\n', 1)
    makefile = (ROOT / "sample_bots" / "c" / "Makefile").read_bytes()
    return tarred(file("bob/bot.c", source.encode()), file("bob/Makefile", makefile))


BUILDERS = {name: build for name, build, _ in [*NAMES, *KINDS]}


@dataclass(frozen=True)
class Hostile:
    """One of mallory's archives: its file name, the command sent with it, and the words her
    page must show of its refusal."""

    name: str
    data: bytes
    refusal: str
    command: str = "python3 bot.py"


def hostile_archives(site: Path) -> list[Hostile]:
    """Every kind of hostile archive, the decoys in ``site`` (the test's folder)."""
    deep_inside = zipped(("../../../../escape.txt", b"never unpacked"))
    exits = zipped(("bot.py", b"import sys\nsys.exit(3)\n"), ("vendor/lib.zip", deep_inside))
    return [
        Hostile("absolute.zip", BUILDERS["zip-absolute"](site), "(absolute-path)"),
        Hostile("dotdot.tar.gz", BUILDERS["tar-dot-dot"](site), "(parent-path)"),
        Hostile("symlink.tar.gz", BUILDERS["tar-symlink-out-then-through"](site), "(link)"),
        Hostile("hardlink.tar.gz", BUILDERS["tar-hard-link-out"](site), "(link)"),
        Hostile("device.tar.gz", BUILDERS["tar-char-device"](site), "(special-file)"),
        Hostile("setuid.tar.gz", tarred(file("bot", b"#!/bin/sh\nexit 3\n", 0o4755)), "(setuid)", "./bot"),
        Hostile("bomb.zip", zeros_zip(), "(zip-bomb)"),
        Hostile("nested.zip", exits, "(nested-archive)"),
        Hostile("many.zip", zipped(*[(f"f{i}", b"") for i in range(5_001)]), "(too-many-entries)"),
        Hostile("backslash.zip", BUILDERS["zip-backslash"](site), "(backslash)"),
    ]


def wait_for(condition: Callable[[], Any], what: str, limit: float = PATIENCE) -> Any:
    deadline = time.monotonic() + limit
    while not (found := condition()):
        assert time.monotonic() < deadline, f"not within {limit:.0f} s: {what}"
        time.sleep(0.2)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under ``root``: its kind and mode, and a file's size and mtime (a folder's
    entries are paths of their own; links not followed)."""
    seen = {}
    for where, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(where) / name
            info = path.lstat()
            plain = stat.S_ISDIR(info.st_mode)
            seen[str(path.relative_to(root))] = (info.st_mode, 0 if plain else info.st_size,
                                                 0 if plain else info.st_mtime_ns)  # fmt: skip
    return seen


def descendants(pid: int) -> list[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def running(pid: int, argv: list[str]) -> bool:
    """Whether a process under ``pid`` runs ``argv``."""
    wanted = "\0".join(argv).encode() + b"\0"
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{child}/cmdline").read_bytes() == wanted:
                return True
    return False


@dataclass
class ClassLadder:
    """The organizer's side: the ladder's folder, its run and its pages (processes)."""

    site: Path
    folder: Path = field(init=False)
    port: int = field(default_factory=free_port)
    run: subprocess.Popen[bytes] | None = None
    web: subprocess.Popen[bytes] | None = None
    keys: dict[str, str] = field(default_factory=dict)
    url: str = ""
    starts: int = 0

    def __post_init__(self) -> None:
        self.folder = self.site / "class"
        self.folder.mkdir()
        (self.site / "out").mkdir()  # the processes' output: the test's, not the ladder's
        house = {"house-random": "sample_bots/python/random_bot.py", "house-first": "tests/bots/first_legal_bot.py"}
        self.config.write_text("".join(f'[[bot]]\nname = "{n}"\ncommand = "python3 {ROOT / p}"\n\n'
                                       for n, p in house.items()))  # fmt: skip

    @property
    def config(self) -> Path:
        return self.folder / "bots.toml"

    @property
    def db(self) -> Path:
        return self.folder / "class.db"

    @property
    def public_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def referee(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([PY, "-m", "referee", *args], cwd=self.folder, capture_output=True, text=True,
                              timeout=PATIENCE, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def _started(self, args: list[str], name: str) -> tuple[subprocess.Popen[bytes], Path]:
        self.starts += 1
        out = self.site / "out" / f"{self.starts}-{name}.txt"
        with open(out, "wb") as sink:
            process = subprocess.Popen([PY, "-m", "referee", *args], cwd=self.folder, stdout=sink,
                                       stderr=subprocess.STDOUT)  # fmt: skip
        return process, out

    def start_run(self) -> None:
        """``ladder run`` living: it follows its list and its uploads, and waits when all is played."""
        args = ["ladder", "run", "bots.toml", "--db", "class.db", "--keep-running", "--sandbox", "on", "--games", "1",
                *RULES, "--quiet"]  # fmt: skip
        self.run, _ = self._started(args, "run")

    def start_web(self) -> None:
        """``ladder web --public`` on the port the entrants' links name."""
        args = ["ladder", "web", "--db", "class.db", "--port", str(self.port), "--public", "--public-url",
                self.public_url, "--token-file", "ladder.token"]  # fmt: skip
        self.web, out = self._started(args, "web")
        wait_for(lambda: URL.search(out.read_text()), "the pages' address")

    def make_entrants(self, names: list[str]) -> None:
        for name in names:
            said = self.referee("ladder", "entrant", "add", name, "--db", "class.db", "--public-url", self.public_url)
            link = re.search(r"(http://\S+/entrant\?key=(\S+))", said.stdout)
            assert link, said.stdout
            self.keys[name] = link.group(2)

    def kill(self, process: subprocess.Popen[bytes] | None) -> None:
        assert process is not None
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        for process in (self.run, self.web):
            if process is not None and process.poll() is None:
                self.kill(process)

    def made(self) -> bool:
        """Whether ``ladder run`` has made the ladder (its schedule is in the database) and said
        that its bots run in a sandbox (until then, the pages take no upload)."""
        assert self.run is not None and self.run.poll() is None, "ladder run ended"
        if not (self.folder / "class-uploads" / ".sandbox.json").is_file():
            return False
        try:
            with contextlib.closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)) as db:
                return bool(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.Error:
            return False

    def done_logs(self) -> dict[int, tuple[str, str]]:
        """Each finished match's id: its log's path and the SHA-256 of its bytes."""
        with contextlib.closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT id, log FROM matches WHERE status = 'done'").fetchall()
        return {i: (log, hashlib.sha256((self.folder / log).read_bytes()).hexdigest()) for i, log in rows}

    def match_with(self, *bots: str) -> str:
        """The key (SSSSS-R) of a finished match at which every one of ``bots`` sat."""
        with contextlib.closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT set_index, rotation, seats FROM matches WHERE status = 'done'").fetchall()
        keys = [f"{s:05d}-{r}" for s, r, seats in rows if set(bots) <= set(json.loads(seats))]
        assert keys, f"no finished match seats {bots}"
        return keys[-1]

    def uploads_of(self, entrant: str) -> Path:
        return self.folder / "class-uploads" / entrant


# --- in the browser ------------------------------------------------------------------------


def rows(page: Page, table: str) -> list[dict[str, str]]:
    """The rows of ``table`` on the page as it is now, each cell by its column's heading."""
    found: list[dict[str, str]] = page.evaluate(
        """(selector) => { const t = document.querySelector(selector); if (!t) return [];
        const head = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
        return [...t.querySelectorAll('tbody tr')].map((tr) => Object.fromEntries(
          [...tr.children].map((td, i) => [head[i], td.textContent.trim()]))); }""",
        table,
    )
    return found


def browser_of(first: Page, stack: ExitStack) -> Page:
    """A page in a browser context of its own (its own cookies: one person's browser), beside
    ``first`` in the same Chromium, closed with ``stack``."""
    browser = first.context.browser
    assert browser is not None
    context = browser.new_context(viewport={"width": DESKTOP[0], "height": DESKTOP[1]})
    stack.callback(context.close)
    return context.new_page()


def visit(page: Page, address: str) -> None:
    """Open ``address`` as a person does: a page answered 503 (the pages make at most 10 a
    second, and say when to come back) is asked again after its ``Retry-After``."""
    for _ in range(30):
        answer = page.goto(address)
        if answer is None or answer.status != 503:
            return
        time.sleep(float(answer.headers.get("retry-after", "1")))
    raise AssertionError(f"{address}: busy for too long")


def upload_rows(page: Page) -> list[dict[str, str]]:
    return rows(page, "table.uploads")


NAVIGATION_MS = 120_000
"""How long a form's answer may take: an upload is unpacked in the pages' process while the
ladder builds and plays beside it, and in a loaded run of the whole suite one took over 30 s
(Playwright's default)."""


def upload(page: Page, url: str, name: str, data: bytes, command: str, *, build: str = "") -> None:
    """Send an archive with the form of the entrant's page, as a person does."""
    visit(page, url + "entrant")
    page.set_input_files("form.upload input[name=archive]", files=[{"name": name, "mimeType":
                         "application/octet-stream", "buffer": data}])  # fmt: skip
    page.fill("form.upload input[name=command]", command)
    if build:
        page.fill("form.upload input[name=build]", build)
    with page.expect_navigation(timeout=NAVIGATION_MS):
        page.click("form.upload button[type=submit]")
    assert page.url == url + "entrant", (page.url, page.locator("main").inner_text())


def state_reached(page: Page, seq: int, state: str) -> Callable[[], dict[str, str] | None]:
    """Whether upload ``seq`` shows ``state`` on the page, which redraws itself as it moves."""

    def reached() -> dict[str, str] | None:
        row = next((r for r in upload_rows(page) if r["#"] == str(seq)), None)
        assert row is None or row["state"] in {"received", "building", "checking", state}, row
        return row if row is not None and row["state"] == state else None

    return reached


def games(page: Page) -> dict[str, int]:
    """Each bot's games on the leaderboard as the page shows it now (it redraws itself)."""
    return {r["bot"].split()[0]: int(r["games"]) for r in rows(page, "table.board")}


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE + 1, (page.url, width)


def shot(page: Page, name: str) -> None:
    """The page as the docs show it (only with HEARTS_DOC_SHOTS=1): the whole page, at most
    1,600 px high, in 64 colours (PNG of a few dozen KB)."""
    if not SHOTS:
        return
    from PIL import Image  # noqa: PLC0415 - the screenshots only (Pillow comes with matplotlib)

    image = Image.open(io.BytesIO(page.screenshot(full_page=True)))
    image = image.crop((0, 0, image.width, min(image.height, 1600)))
    IMAGES.mkdir(exist_ok=True)
    image.convert("RGB").quantize(colors=64).save(IMAGES / f"{name}.png", optimize=True)


# --- the steps -----------------------------------------------------------------------------


def join(ladder: ClassLadder, pages: dict[str, Page]) -> None:
    """Each entrant opens the private link the organizer handed out: a cookie, then its page."""
    for name, page in pages.items():
        visit(page, f"{ladder.public_url}entrant?key={ladder.keys[name]}")
        assert page.url == ladder.public_url + "entrant" and page.locator("h1").first.inner_text() == name


def alice_and_bob_play(ladder: ClassLadder, alice: Page, bob: Page) -> None:
    url = ladder.public_url
    upload(alice, url, "alice-bot.zip", alice_bot(), "python3 bot.py")
    row = wait_for(state_reached(alice, 1, "playing"), "alice's upload playing")
    assert row["version"] == "alice", row

    upload(bob, url, "bob.tar.gz", bob_bot(), "./bot", build=BOB_BUILD)
    assert ladder.run is not None
    run = ladder.run.pid
    wait_for(lambda: running(run, ["sleep", "3"]), "bob's build running")
    before = ladder.done_logs()
    ladder.kill(ladder.run)  # in the middle of bob's build
    kept = json.loads((ladder.uploads_of("bob") / "1" / "upload.json").read_text())
    assert kept["state"] == "building" and sorted(os.listdir(ladder.uploads_of("bob"))) == ["1"]  # taken again
    ladder.start_run()
    wait_for(state_reached(bob, 1, "playing"), "bob's upload playing after the restart")
    after = ladder.done_logs()
    assert len(after) >= len(before) and {i: after[i] for i in before} == before, "a finished match changed"
    assert [json.loads((ladder.uploads_of("bob") / "1" / "upload.json").read_text())["version"]] == ["bob"]
    visit(alice, url)
    wait_for(lambda: min(games(alice).get(name, 0) for name in ("alice", "bob")) > 0,
             "alice and bob on the leaderboard with games")  # fmt: skip


def kill_the_pages_mid_upload(ladder: ClassLadder) -> None:
    """A large upload sent slowly on a raw socket, the pages killed while they read it: no
    upload of alice appears, whole or half; then the pages are started again."""
    boundary = "hearts-boundary-7"
    archive = os.urandom(4 * 1024 * 1024)
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="command"\r\n\r\npython3 bot.py\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="big.zip"\r\n'
            "Content-Type: application/zip\r\n\r\n").encode()  # fmt: skip
    tail = f"\r\n--{boundary}--\r\n".encode()
    request = (f"POST /entrant/upload HTTP/1.1\r\nHost: 127.0.0.1:{ladder.port}\r\n"
               f"Authorization: Bearer {ladder.keys['alice']}\r\n"
               f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
               f"Content-Length: {len(head) + len(archive) + len(tail)}\r\n\r\n").encode()  # fmt: skip
    before = sorted(os.listdir(ladder.uploads_of("alice")))
    with socket.create_connection(("127.0.0.1", ladder.port), timeout=10) as sock:
        sock.sendall(request + head)
        for start in range(0, len(archive) // 2, 256 * 1024):  # half of it, a chunk at a time
            sock.sendall(archive[start : start + 256 * 1024])
            time.sleep(0.05)
        sock.setblocking(False)
        with pytest.raises(BlockingIOError):
            sock.recv(1)  # no answer yet: the pages are still reading the upload
        ladder.kill(ladder.web)
    found = sorted(os.listdir(ladder.uploads_of("alice")))
    whole = [n for n in found if not n.startswith(".")]
    assert whole == before and all((ladder.uploads_of("alice") / n / "upload.json").is_file() for n in whole)
    assert all(n.endswith(".receiving") for n in found if n.startswith(".")), found
    ladder.start_web()


def mallory_is_refused(ladder: ClassLadder, mallory: Page) -> None:
    """Ten hostile archives through the form, each refused with its reason on mallory's page;
    nothing outside her uploads folder changed but the ladder's database and logs; the pages
    killed in the middle of an upload between her fifth and sixth."""
    site, url = ladder.site, ladder.public_url
    (site / "decoy.txt").write_bytes(b"keep")
    (site / "outside").mkdir()
    (site / "outside" / "file").write_bytes(b"keep")
    before = snapshot(site)
    archives = hostile_archives(site)
    for seq, hostile in enumerate(archives, start=1):
        if seq == 6:  # an address may send 10 uploads at once, an entrant 5: a new pages process counts anew
            kill_the_pages_mid_upload(ladder)
        upload(mallory, url, hostile.name, hostile.data, hostile.command)
    for seq, hostile in enumerate(archives, start=1):
        row = wait_for(state_reached(mallory, seq, "refused"), f"mallory's {hostile.name} refused")
        assert hostile.refusal in row["what the ladder said"], (hostile.name, row)
    assert not any((ladder.uploads_of("mallory") / str(seq) / "files").exists() for seq in range(1, 11))
    after = snapshot(site)
    ladders_own = re.compile(  # its database, a match's log, mallory's uploads; the processes' output
        r"class/(class\.db(-wal|-shm)?|class-logs/\d{5}-\d+\.jsonl|class-uploads/mallory(/.*)?)|out(/.*)?"
    )
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p) and not ladders_own.fullmatch(p)}
    assert not changed, sorted(changed)
    assert (site / "decoy.txt").read_bytes() == b"keep" and os.listdir(site / "outside") == ["file"]
    assert not any(name == "escape.txt" for _, _, names in os.walk(site) for name in names)


def who_sees_what(ladder: ClassLadder, alice: Page, public: Page) -> None:
    """alice's own stderr in a match's replay and log, never bob's; the public neither."""
    url, key = ladder.public_url, ladder.match_with("alice", "bob")
    visit(alice, url + "entrant")
    assert [r["#"] for r in upload_rows(alice)] == ["1"]  # nothing of the upload cut off by the kill
    visit(alice, f"{url}match/{key}")
    alice.wait_for_selector("#badge.verified", timeout=PATIENCE * 1000)
    html = alice.content()
    assert ALICE_SAYS in html and BOB_SAYS not in html
    log = alice.request.get(f"{url}match/{key}/log").text()
    assert ALICE_SAYS in log and BOB_SAYS not in log
    for target in ("", "bot/alice", "bot/bob", f"match/{key}", "matches", "entrant"):
        visit(public, url + target)
        assert ALICE_SAYS not in public.content() and BOB_SAYS not in public.content(), target
    public_log = public.request.get(f"{url}match/{key}/log").text()
    assert '"stderr"' not in public_log and ALICE_SAYS not in public_log
    assert public.request.get(url + "entrant").status == 403


def screenshots(ladder: ClassLadder, alice: Page, mallory: Page, public: Page) -> None:
    """The pages the docs show, at a desktop's width and a phone's: none scrolls sideways."""
    url = ladder.public_url
    for page, target, name in ((alice, "entrant", "entrant"), (mallory, "entrant", "refused"), (public, "", "board")):
        for width, suffix in ((DESKTOP[0], "desktop"), (PHONE, "phone")):
            page.set_viewport_size({"width": width, "height": 844 if width == PHONE else DESKTOP[1]})
            visit(page, url + target)
            if width == PHONE:
                no_sideways_scroll(page)
            shot(page, f"class-ladder-{name}-{suffix}")


def at_a_phone(ladder: ClassLadder, mallory: Page, organizer: Page) -> None:
    """The organizer's list of entrants, and the page a browser is shown when an upload is not
    taken (here: a form whose csrf value is not its page's), at a phone's width."""
    url = ladder.public_url
    token = (ladder.folder / "ladder.token").read_text().strip()
    for page in (mallory, organizer):
        page.set_viewport_size({"width": PHONE, "height": 844})
    visit(organizer, f"{url}?token={token}")  # the organizer's link: a cookie of its own
    visit(organizer, url + "entrant")
    assert {r["entrant"].split()[0] for r in rows(organizer, "table.entrants")} == {"alice", "bob", "mallory"}
    no_sideways_scroll(organizer)
    visit(mallory, url + "entrant")
    mallory.set_input_files("form.upload input[name=archive]", files=[{"name": "late.zip", "mimeType":
                            "application/zip", "buffer": zipped(("bot.py", b"pass\n"))}])  # fmt: skip
    mallory.fill("form.upload input[name=command]", "python3 bot.py")
    mallory.evaluate("document.querySelector('form.upload input[name=csrf]').value = 'not-this-page'")
    with mallory.expect_navigation(timeout=NAVIGATION_MS):
        mallory.click("form.upload button[type=submit]")
    assert mallory.locator("h1").inner_text() == "Upload not taken", mallory.locator("main").inner_text()
    no_sideways_scroll(mallory)


def exported(ladder: ClassLadder, page: Page) -> None:
    """``ladder export``, opened from its files: both bots on the leaderboard, their links."""
    site = ladder.site / "site"
    ladder.referee("ladder", "export", str(site), "--db", "class.db", "--replays", "5")
    every = b"".join(p.read_bytes() for p in site.rglob("*") if p.is_file())
    assert ALICE_SAYS.encode() not in every and BOB_SAYS.encode() not in every
    page.goto((site / "index.html").as_uri())
    board = games(page)
    assert board.get("alice", 0) > 0 and board.get("bob", 0) > 0, board
    page.click("table.board a.bot:text-is('bob')")
    page.wait_for_load_state()
    assert page.url.startswith(site.as_uri()) and page.url.endswith(".html"), page.url
    assert "bob" in page.locator("h1").inner_text()
    page.go_back()
    for link in page.locator("a[href]").all():
        href = str(link.get_attribute("href"))
        if "://" not in href and not href.startswith("#"):
            assert (site / href.split("#", maxsplit=1)[0]).is_file(), href
    page.set_viewport_size({"width": PHONE, "height": 844})
    page.reload()
    assert games(page).get("bob", 0) > 0
    no_sideways_scroll(page)


def test_a_class_runs_its_ladder_from_the_browser(tmp_path: Path) -> None:
    ladder = ClassLadder(tmp_path)
    try:
        ladder.start_run()
        assert ladder.run is not None
        wait_for(ladder.made, "the ladder made")
        ladder.make_entrants(["alice", "bob", "mallory"])
        ladder.start_web()
        with chromium_page(*DESKTOP) as public, ExitStack() as browsers:
            people = {name: browser_of(public, browsers) for name in ("alice", "bob", "mallory")}
            join(ladder, people)
            alice_and_bob_play(ladder, people["alice"], people["bob"])
            mallory_is_refused(ladder, people["mallory"])
            who_sees_what(ladder, people["alice"], public)
            screenshots(ladder, people["alice"], people["mallory"], public)
            at_a_phone(ladder, people["mallory"], browser_of(public, browsers))
            exported(ladder, public)
    finally:
        ladder.stop()
        for said in sorted((tmp_path / "out").iterdir()):  # shown when the test fails
            print(f"--- {said.name}\n{said.read_text(errors='replace')[-4000:]}")
    assert check_consistent(ladder.db)["done"] > 0
