"""Who sees what on a ladder's pages (docs/ladder.md, "Who sees what"; ``referee.web.ladder.viewer``),
asked through the ASGI application in-process: the public sees no bot's stderr and each fault by
its reason only; an entrant's key (once in the query, then a cookie) shows its own versions'
stderr and fault details and no other's; a wrong key is refused and counted; the organizer's
token shows everything; an answer kept for one viewer is never given to another; and a ladder
with no entrants, served without ``--public``, is shown as before.

The ladder: alice and bob crash in every match with stderr, a message, a hint and an exit
status of their own; carol and dave play. A finished match and the match in play have a real
log (four scripted bots in memory), with every seat's stderr logged after the result."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import click
import pytest
import trio
from click.testing import CliRunner

from referee.cli.publishing import PagesBeside, pages_beside
from referee.ladder.entrants import add_entrant
from referee.ladder.schedule import draw_sets
from referee.ladder.uploads import mark, receive
from referee.replay.reader import read_log
from referee.replay.verify import verify
from referee.replay.withheld import withheld_lines, withheld_record
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.records import LadderSettings, ScheduledMatch, StoredMatch
from referee.store.writer import LadderStore
from referee.web.ladder.keys import WRONG_KEYS
from referee.web.ladder.published import Publishing
from referee.web.ladder.visibility import public_record
from tests.ladder.helpers import record_of
from tests.match.scripted import logged_match
from tests.web.ladder_helpers import HOSTILE, STDERR, View, hostile_ladder
from tests.web.test_hostile_clients import ask
from tests.web.test_published_server import opened, request, serving

NAMES = ["alice", "bob", "carol", "dave"]
CRASHING = ("alice", "bob")
TOKEN = "the-organizers-token-0123"
HOST = (b"host", b"127.0.0.1:8000")


def stderr_of(bot: str) -> list[str]:
    """A crashing bot's last words on stderr, as its faults keep them."""
    return [f"Traceback of {bot} (most recent call last):", f"{bot}-secret: the weights are in {bot}.bin"]


def message_of(bot: str) -> str:
    return f"{bot} exited while reading its weights"


def logged_stderr(bot: str) -> str:
    """What a bot wrote to its stderr in a logged match (the log's ``stderr`` entry)."""
    return f"logged-stderr-of-{bot}"


@dataclass(frozen=True)
class Ladder:
    db: Path
    keys: dict[str, str]
    """Each entrant's secret (alice's and bob's)."""
    logged: ScheduledMatch
    """A finished match with a log."""
    live: ScheduledMatch
    """The match in play (pending, its log just written)."""


def played_lines(path: Path) -> tuple[list[bytes], str]:
    """A whole match of four scripted bots as the referee logs it, and its match id."""

    lines = logged_match(path, "viewers-1", ruleset("american"))
    return lines, str(json.loads(lines[0])["match_id"])


def with_stderr(lines: list[bytes], seats: tuple[str, ...]) -> bytes:
    """The log with each seat's ``stderr`` entry after the result, as the referee writes it once
    the programs ended."""
    entries = [
        {"type": "stderr", "seat": seat, "text": f"{logged_stderr(bot)}\n", "dropped_bytes": 0, "exit_code": 3}
        for seat, bot in enumerate(seats)
    ]
    return b"".join(lines) + b"".join(json.dumps(entry).encode() + b"\n" for entry in entries)


def crashing(match: ScheduledMatch, match_id: str | None) -> StoredMatch:
    statuses = ["crash" if bot in CRASHING else "ok" for bot in match.seats]
    record = record_of(match, [10 * (i + 1) for i in range(len(match.seats))], statuses)
    faults = [
        FaultReport(seat=i, name=bot, reason="crash", message=message_of(bot), action="forfeit",
                    hint=f"{bot}: check the weights file", exit="exited with code 3", stderr=stderr_of(bot),
                    stderr_lines=12)
        for i, bot in enumerate(match.seats) if bot in CRASHING
    ]  # fmt: skip
    return replace(record, faults=faults, log=f"{match.key}.jsonl", match_id=match_id or record.match_id)


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    lines, match_id = played_lines(tmp_path / "played.jsonl")
    db = tmp_path / "class.db"
    store = LadderStore(db)
    rules = ruleset("american")
    settings = LadderSettings(9, rules, 2, "2026-01-01T00:00:00+00:00")
    store.initialize(settings, [(b, f"./run {b}") for b in NAMES], draw_sets(NAMES, rules.players, 9, 2))
    *done, live = store.pending()
    logged = done[0]
    for match in done:
        store.record(crashing(match, match_id if match == logged else None))
    keys = {name: str(add_entrant(store, name, again=False)[1]) for name in CRASHING}
    store.close()
    logs = tmp_path / "class-logs"
    logs.mkdir()
    for match in (logged, live):
        (logs / f"{match.key}.jsonl").write_bytes(with_stderr(lines, match.seats))
    return Ladder(db, keys, logged, live)


@pytest.fixture
def public(ladder: Ladder) -> Iterator[View]:
    """``ladder web --public`` with the organizer's token."""
    view = View(ladder.db, token=TOKEN, public_view=True)
    yield view
    view.close()


async def page(view: View, target: str, cookie: bytes | None = None) -> tuple[int, str]:
    path, _, query = target.partition("?")
    headers = [HOST, *([(b"cookie", cookie)] if cookie else [])]
    status, _, body = await view.ask(target, path=unquote(path), query_string=query.encode(), headers=headers)
    return status, body.decode()


async def cookie_of(view: View, query: str, where: str = "/entrant") -> bytes:
    """What opening ``where?query`` (a private link) leaves in the browser: the cookie, the
    address without its secret."""
    status, headers, _ = await view.ask(where, query_string=query.encode())
    assert status == 303 and headers[b"location"] == where.encode()
    line = headers[b"set-cookie"]
    assert b"HttpOnly" in line and b"SameSite=Strict" in line and b"Path=/" in line
    return line.split(b";")[0]


def shows_output_of(body: str, bot: str) -> bool:
    """Whether a page holds anything of ``bot``'s own output (its stderr, fault message, hint)."""
    return any(text in body for text in (*stderr_of(bot), message_of(bot), f"{bot}: check the weights"))


async def test_the_public_sees_no_stderr_and_each_fault_by_its_reason(ladder: Ladder, public: View) -> None:
    for bot in CRASHING:
        status, body = await page(public, f"/bot/{bot}")
        assert status == 200 and "Dropped: crash" in body
        assert not shows_output_of(body, bot), bot
        assert "exited with code 3" not in body and "stderr" not in body.replace("no bot's stderr", "")
    status, body = await page(public, "/")
    assert status == 200  # no token asked for the public pages
    status, body = await page(public, f"/match/{ladder.logged.key}")
    assert status == 200 and '"status":"verified"' in body
    assert "logged-stderr-of" not in body and "exited with code 3" not in body
    status, _ = await page(public, "/entrant")
    assert status == 403  # an entrant's page: nothing for the public


async def test_the_public_downloads_a_log_without_any_stderr(ladder: Ladder, public: View) -> None:
    status, headers, data = await public.ask(f"/match/{ladder.logged.key}/log")
    assert status == 200 and headers[b"content-type"].startswith(b"application/x-ndjson")
    assert headers[b"content-disposition"] == f'attachment; filename="{ladder.logged.key}.jsonl"'.encode()
    entries = [json.loads(line) for line in data.splitlines()]
    assert entries[0]["type"] == "header" and any(e["type"] == "result" for e in entries)
    assert not any(e["type"] == "stderr" for e in entries) and b"logged-stderr-of" not in data


async def test_an_entrants_key_shows_its_own_output_and_no_other(ladder: Ladder, public: View) -> None:
    cookie = await cookie_of(public, f"key={ladder.keys['alice']}")
    status, body = await page(public, "/entrant", cookie)
    assert status == 200 and "<h1>alice</h1>" in body and 'href="/bot/alice"' in body
    status, body = await page(public, "/bot/alice", cookie)
    assert status == 200 and all(line in body for line in stderr_of("alice")) and message_of("alice") in body
    assert f'href="/match/{ladder.logged.key}/log"' in body  # its log, one click from its fault
    status, body = await page(public, "/bot/bob", cookie)
    assert status == 200 and "Dropped: crash" in body and not shows_output_of(body, "bob")
    status, body = await page(public, f"/match/{ladder.logged.key}", cookie)
    assert status == 200 and logged_stderr("alice") in body and logged_stderr("bob") not in body
    status, _, data = await public.ask(f"/match/{ladder.logged.key}/log", headers=[HOST, (b"cookie", cookie)])
    stderr = [entry for entry in map(json.loads, data.splitlines()) if entry["type"] == "stderr"]
    assert status == 200 and [e["seat"] for e in stderr] == [ladder.logged.seats.index("alice")]
    assert logged_stderr("bob") not in data.decode()


async def test_an_entrant_follows_its_uploads_states_on_its_page(ladder: Ladder, public: View) -> None:
    """Issue 42: each upload's state as it moves, and why a refused one was refused, to its
    entrant only, with the ladder's folder never named; not kept, since the uploads move
    without the database."""
    bot = io.BytesIO()
    with zipfile.ZipFile(bot, "w") as zf:
        zf.writestr("bot.py", "print(1)\n")
    kept = receive(ladder.db, "alice", bot.getvalue(), command="python3 bot.py", build=None, now="2026-12-05T02:00")
    alice = await cookie_of(public, f"key={ladder.keys['alice']}")
    status, body = await page(public, "/entrant", alice)
    assert status == 200 and "Your uploads" in body and "received" in body
    folder = str(ladder.db.parent)
    mark(ladder.db, kept, "refused", f"bot alice refused: there is no {folder}/alice-uploads/x/bot.py")
    status, body = await page(public, "/entrant", alice)
    assert status == 200 and "refused" in body and "&lt;ladder&gt;/" in body and folder not in body
    bob = await cookie_of(public, f"key={ladder.keys['bob']}")
    _, body = await page(public, "/entrant", bob)
    assert "Your uploads" not in body and "alice-uploads" not in body


async def test_a_wrong_key_is_refused_shows_nothing_and_is_counted(ladder: Ladder, public: View) -> None:
    here = {"client": ("192.0.2.7", 40000)}
    status, headers, body = await public.ask("/bot/alice", query_string=b"key=not-a-key", **here)
    assert status == 403 and b"set-cookie" not in headers and b"<html" not in body and b"alice" not in body
    for _ in range(WRONG_KEYS - 1):
        assert (await public.ask("/entrant", query_string=b"key=wrong", **here))[0] == 403
    status, _, _ = await public.ask("/entrant", query_string=f"key={ladder.keys['alice']}".encode(), **here)
    assert status == 429  # too many wrong keys from this address: even a good one waits
    elsewhere = {"client": ("198.51.100.9", 40000)}
    status, _, _ = await public.ask("/entrant", query_string=f"key={ladder.keys['alice']}".encode(), **elsewhere)
    assert status == 303
    status, _, body = await public.ask("/bot/alice", **here)
    assert status == 200 and not shows_output_of(body.decode(), "alice")  # no secret: the public view


async def test_an_old_key_is_refused_and_its_cookie_dropped(ladder: Ladder, public: View) -> None:
    cookie = await cookie_of(public, f"key={ladder.keys['bob']}")
    store = LadderStore(ladder.db)
    add_entrant(store, "bob", again=True)  # `ladder entrant add bob --new-secret`
    store.close()
    status, headers, body = await public.ask("/bot/bob", headers=[HOST, (b"cookie", cookie)])
    assert status == 403 and not shows_output_of(body.decode(), "bob")
    assert headers[b"set-cookie"].startswith(b"ladder_key=; Max-Age=0")


async def test_the_organizers_token_shows_everything(ladder: Ladder, public: View) -> None:
    cookie = await cookie_of(public, f"token={TOKEN}", where="/")
    for bot in CRASHING:
        status, body = await page(public, f"/bot/{bot}", cookie)
        assert status == 200 and all(line in body for line in stderr_of(bot)) and message_of(bot) in body
    status, body = await page(public, f"/match/{ladder.logged.key}", cookie)
    assert all(logged_stderr(bot) in body for bot in NAMES)
    _, _, data = await public.ask(f"/match/{ladder.logged.key}/log", headers=[HOST, (b"cookie", cookie)])
    assert [json.loads(line)["type"] for line in data.splitlines()].count("stderr") == 4
    status, body = await page(public, "/entrant", cookie)
    assert status == 200 and "alice" in body and "bob" in body  # the organizer's list of entrants
    assert (await page(public, "/", b"ladder_token=wrong"))[0] == 200  # a stale token: the public view
    assert (await page(public, "/?token=wrong"))[0] == 403  # a wrong token is never taken for no secret


async def test_a_page_kept_for_one_viewer_is_never_given_to_another(ladder: Ladder, public: View) -> None:
    alice = await cookie_of(public, f"key={ladder.keys['alice']}")
    organizer = await cookie_of(public, f"token={TOKEN}", where="/")
    for target in ("/bot/alice", "/bot/bob", f"/match/{ladder.logged.key}"):
        for cookie in (organizer, alice, None):  # each made and kept, the public last
            await page(public, target, cookie)
        _, body = await page(public, target)
        assert "logged-stderr-of" not in body and not any(shows_output_of(body, bot) for bot in CRASHING), target
        _, body = await page(public, target, alice)
        assert not shows_output_of(body, "bob") and logged_stderr("bob") not in body, target
    _, body = await page(public, "/bot/alice", alice)
    assert shows_output_of(body, "alice")  # and the public's page is not given to her either


async def test_a_live_tables_messages_hold_only_the_stderr_its_viewer_may_see(ladder: Ladder, public: View) -> None:
    async def pushed(cookie: bytes | None) -> dict[str, Any]:
        pushes: list[str] = []
        opened = trio.Event()

        async def receive() -> dict[str, Any]:
            if not opened.is_set():
                opened.set()
                return {"type": "websocket.connect"}
            while not any('"result"' in p for p in pushes):
                await trio.sleep(0.05)
            return {"type": "websocket.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            assert message["type"] != "websocket.close" or message.get("code") == 1000, message
            if message["type"] == "websocket.send":
                pushes.append(message["text"])

        headers = [HOST, (b"origin", b"http://127.0.0.1:8000"), *([(b"cookie", cookie)] if cookie else [])]
        scope = {"type": "websocket", "path": f"/table/{ladder.live.key}/ws", "headers": headers}
        with trio.fail_after(60):  # a guard against a hang, not a measure
            await public.app(scope, receive, send)
        return json.loads(next(p for p in pushes if '"result"' in p))

    seat = ladder.live.seats.index
    anyone = await pushed(None)
    assert not any(e["entry"]["type"] == "stderr" for e in anyone["entries"])
    assert all(s["stderr"] is None for s in anyone["record"]["seats"])
    alice = await pushed(await cookie_of(public, f"key={ladder.keys['alice']}"))
    assert [e["entry"]["seat"] for e in alice["entries"] if e["entry"]["type"] == "stderr"] == [seat("alice")]
    assert [s["stderr"] for s in alice["record"]["seats"] if s["stderr"]] == [f"{logged_stderr('alice')}\n"]


async def test_without_public_and_entrants_the_pages_are_as_before(tmp_path: Path) -> None:
    db = hostile_ladder(tmp_path)
    view = View(db)  # loopback, no token, no --public
    try:
        status, body = await page(view, "/bot/%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E")
        assert status == 200 and "ValueError: boom" in body  # everything, to this machine's browsers
        store = LadderStore(db)
        _, key = add_entrant(store, "alpha", again=False)
        store.close()
        status, body = await page(view, "/bot/%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E")
        assert status == 200 and "ValueError: boom" not in body and STDERR[2] not in body  # entrants: public view
        cookie = await cookie_of(view, f"key={key}")
        assert (await page(view, "/entrant", cookie))[0] == 200
    finally:
        view.close()


async def test_a_ladder_that_asks_its_token_refuses_no_secret_and_takes_a_key(ladder: Ladder) -> None:
    view = View(ladder.db, token=TOKEN)  # bound elsewhere, without --public
    try:
        assert (await page(view, "/"))[0] == 403
        cookie = await cookie_of(view, f"key={ladder.keys['bob']}")
        status, body = await page(view, "/bot/bob", cookie)
        assert status == 200 and shows_output_of(body, "bob")
        status, body = await page(view, "/bot/alice", cookie)
        assert status == 200 and not shows_output_of(body, "alice")
    finally:
        view.close()


def test_secrets_are_kept_hashed(ladder: Ladder) -> None:
    files = [p for p in ladder.db.parent.iterdir() if p.name.startswith(ladder.db.name)]
    data = b"".join(p.read_bytes() for p in files)
    for secret in ladder.keys.values():
        assert secret.encode() not in data
    with sqlite3.connect(ladder.db) as con:
        kept = dict(con.execute("SELECT name, secret_sha256 FROM entrants").fetchall())
    assert sorted(kept) == list(CRASHING) and all(len(d) == 64 for d in kept.values())


async def test_served_with_public_no_secret_is_asked_and_the_printed_address_is_the_organizers(tmp_path: Path) -> None:
    db = hostile_ladder(tmp_path)
    target = f"/bot/{quote(HOSTILE, safe='')}"
    async with serving(db, publishing=Publishing(public_view=True)) as (printed, port):
        (address,) = printed
        assert "?token=" in address  # on loopback too: the organizer's everything is the token's
        anyone = await ask(port, request(port, target))
        assert anyone.startswith(b"HTTP/1.1 200") and b"Dropped: crash" in anyone and STDERR[2].encode() not in anyone
        organizer = await ask(port, request(port, target, await opened(address, port)))
        assert STDERR[2].encode() in organizer


async def test_served_on_loopback_a_ladder_with_entrants_asks_the_token(tmp_path: Path) -> None:
    db = hostile_ladder(tmp_path)
    async with serving(db) as (printed, port):
        assert printed == [f"http://127.0.0.1:{port}/"]  # no entrant: as before
    store = LadderStore(db)
    add_entrant(store, "alpha", again=False)
    store.close()
    async with serving(db) as (printed, port):
        (address,) = printed
        assert "?token=" in address
        assert (await ask(port, request(port, "/"))).startswith(b"HTTP/1.1 403")
        await opened(address, port)


def test_ladder_run_passes_web_public_to_its_pages() -> None:
    seen: list[PagesBeside | None] = []

    @click.command()
    @pages_beside
    def run(web: PagesBeside | None) -> None:
        seen.append(web)

    assert CliRunner().invoke(run, ["--web", "--web-public"]).exit_code == 0
    assert CliRunner().invoke(run, ["--web"]).exit_code == 0
    assert [web.options if web else None for web in seen] == [("--public",), ()]
    alone = CliRunner().invoke(run, ["--web-public"])
    assert alone.exit_code == 2 and "add --web" in alone.output


def test_a_match_withheld_from_every_seat_is_the_static_copys_public_replay(ladder: Ladder) -> None:
    record = verify(read_log(ladder.db.with_name("class-logs") / f"{ladder.logged.key}.jsonl").matches[0])
    assert all(seat.stderr for seat in record.seats)
    assert withheld_record(record, frozenset(range(4))) == public_record(record)
    assert withheld_record(record, frozenset()) is record
    alice = ladder.logged.seats.index("alice")
    mine = withheld_record(record, frozenset(range(4)) - {alice})
    assert [seat.stderr for seat in mine.seats if seat.stderr] == [record.seats[alice].stderr]


def test_a_log_cut_short_in_a_stderr_entry_is_never_half_given() -> None:
    lines = [
        b'{"type":"header"}\n',
        b'{"type":"stderr","seat":0,"text":"kept"}\n',
        b'{"type":"stderr","seat":"0","text":"whose?"}\n',
        b'{"type":"stderr","seat":1,"text":"half of a secr',
    ]
    assert list(withheld_lines(iter(lines), frozenset({1}))) == lines[:2]
    assert list(withheld_lines(iter(lines), frozenset())) == lines  # nothing withheld: the file as it is
