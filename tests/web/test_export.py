"""``referee ladder export DIR``: a hostile ladder (names with ``..``, ``/``, markup; a bot that
crashes with markup on its stderr; commands, faults and logs naming the organizer's folder)
copied as a static site. Every file is inside DIR, every link of every page is relative and
reaches a file of the copy, no stderr, fault detail or organizer's path is in any file, the CSV
and the JSON hold one row per finished match and agree, DIR is refused when it holds anything
(unless forced) and replaced whole, a link planted in it is never followed, each bot's page has
"where this bot loses points" as live (its links to a step of a replay relative, and kept only
when the copy holds that replay); and in Chromium the
copy opens from ``file://`` and is clicked through with no console error.

The replay logs are of matches played in-process (scripted bots on memory streams): the fast
tier starts no process."""

from __future__ import annotations

import csv
import functools
import html
import io
import json
import re
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import msgspec
import pytest
from click.testing import CliRunner
from markupsafe import escape
from playwright.sync_api import Page

from referee.cli import main
from referee.errors import LadderError
from referee.replay.record import FaultRecord, MatchRecord, SeatRecord
from referee.rules import ruleset
from referee.web.ladder.export import CSV_FILE, JSON_FILE, export_ladder
from referee.web.ladder.match_rows import csv_cell
from referee.web.ladder.queries import FaultRow
from referee.web.ladder.site_folder import NewFolder, write_folder
from referee.web.ladder.site_paths import Site, bot_file, matches_file, replay_file, stem
from referee.web.ladder.visibility import public_faults, public_record
from tests.match.scripted import logged_match
from tests.web.ladder_helpers import HOSTILE, NAMES, STDERR, hostile_ladder
from tests.web.test_ladder_losses import analysed

LOGGED = 4
"""The latest finished matches given a log (the others' rows name none)."""
REPLAY_STDERR = "replay-stderr: <b>the strategy</b> leaked"
"""What a bot wrote to its stderr in a logged match (the log's ``stderr`` entry)."""
MESSAGE = "exited while reading its weights"
HINT = "chmod -R o+rX"
EXIT = "exited with code 3 (core dumped)"


@functools.cache
def match_lines() -> tuple[bytes, ...]:
    """The lines of a whole match of four scripted bots as the referee logs it: played once a
    worker, in-process (each test's ladder writes its own copy)."""
    with tempfile.TemporaryDirectory() as folder:
        return tuple(logged_match(Path(folder) / "played.jsonl", "hostile-1", ruleset("american")))


def played_log(path: Path, folder: Path) -> str:
    """A whole match of four scripted bots logged at ``path`` as the referee logs it, its seats'
    commands in ``folder`` and a seat's stderr ``REPLAY_STDERR`` (logged after the result, once
    the programs ended); its match id."""

    lines = match_lines()
    header = json.loads(lines[0])
    for seat in header["seats"]:
        seat["command"] = f"python3 {folder}/bots/seat{seat['seat']}/bot.py"
    stderr = {"type": "stderr", "seat": 1, "text": f"{REPLAY_STDERR}\n{STDERR[1]}\n", "dropped_bytes": 0,
              "exit_code": 3}  # fmt: skip
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]) + json.dumps(stderr).encode() + b"\n")
    return str(header["match_id"])


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    """The hostile ladder in a folder of the organizer's, its commands and faults naming that
    folder, its latest ``LOGGED`` matches with a log (an absolute path, as the referee records)."""
    folder = tmp_path / "organizer-home" / "class"
    folder.mkdir(parents=True)
    db = hostile_ladder(folder)
    logs = folder / "hostile-logs"
    logs.mkdir()
    match_id = played_log(tmp_path / "played.jsonl", folder)
    with sqlite3.connect(db) as con:
        for name in NAMES:
            con.execute("UPDATE bots SET command = ? WHERE name = ?", (f"python3 {folder}/bots/x/bot.py", name))
        con.execute("UPDATE faults SET message = ?, hint = ?, exit = ?",
                    (f"{MESSAGE} {folder}/bots/x/w.bin", f"{HINT} {folder}/bots", EXIT))  # fmt: skip
        latest = con.execute(f"SELECT set_index, rotation FROM matches ORDER BY seq DESC LIMIT {LOGGED}").fetchall()
        for set_index, rotation in latest:
            log = logs / f"{set_index:05d}-{rotation}.jsonl"
            log.write_bytes((tmp_path / "played.jsonl").read_bytes())
            con.execute("UPDATE matches SET log = ?, match_id = ? WHERE set_index = ? AND rotation = ?",
                        (str(log), match_id, set_index, rotation))  # fmt: skip
    return db


def files_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if not p.is_dir())


def links_of(page: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(r'\b(?:href|src|action)="([^"]*)"', page)]


def finished_keys(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT set_index, rotation FROM matches WHERE seq IS NOT NULL ORDER BY seq").fetchall()
    return [f"{s:05d}-{r}" for s, r in rows]


def test_every_file_is_inside_and_every_link_reaches_a_file_of_the_copy(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = export_ladder(ladder, out)
    assert done.folder == out and done.replays == LOGGED and done.finished == len(finished_keys(ladder))
    files = files_of(out)
    assert len(files) == done.files
    for path in files:
        assert not path.is_symlink() and path.resolve().is_relative_to(out.resolve()), path
        assert re.fullmatch(r"[A-Za-z0-9/._-]+", path.relative_to(out).as_posix()), path
    expected = ["index.html", "ladder.css", CSV_FILE, JSON_FILE, matches_file(None, 1)]
    expected += [bot_file(name) for name in NAMES] + [matches_file(name, 1) for name in NAMES]
    expected += [replay_file(key) for key in finished_keys(ladder)[-LOGGED:]]
    assert {(out / f).resolve() for f in expected} <= {p.resolve() for p in files}
    checked = 0
    for path in files:
        if path.suffix != ".html":
            continue
        page = path.read_text()
        for link in links_of(page):
            if link.startswith(("data:", "#")):
                continue
            parts = urlsplit(link)
            assert not (parts.scheme or parts.netloc or parts.query or link.startswith("/")), (path, link)
            target = (path.parent / unquote(parts.path)).resolve()
            assert target.is_file() and target.is_relative_to(out.resolve()), (path, link)
            checked += 1
        assert "<form" not in page and "/api/version" not in page and "ladder.js" not in page, path
    assert checked > 100
    board = (out / "index.html").read_text()
    assert f'href="{bot_file(HOSTILE)}"' in board and "a copy made" in board
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in board and "<script>alert" not in board
    assert 'href="/tables"' not in board and ">Tables<" not in board  # no tables in play in a copy
    own = (out / bot_file(HOSTILE)).read_text()
    assert f'href="../{matches_file(HOSTILE, 1)}"' in own  # its matches, from its page


def test_no_stderr_fault_detail_or_organizer_path_is_in_any_file(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    export_ladder(ladder, out)
    folder = str(ladder.parent)
    secrets = [*STDERR, REPLAY_STDERR, MESSAGE, HINT, EXIT, folder, "organizer-home"]
    forms = {form for s in secrets for form in (s, html.escape(s), str(escape(s)), json.dumps(s)[1:-1],
                                                json.dumps(s)[1:-1].replace("<", "\\u003c"))}  # fmt: skip
    for path in files_of(out):
        text = path.read_text()
        found = [form for form in forms if form in text]
        assert not found, (path, found)
    crasher = (out / bot_file(HOSTILE)).read_text()
    assert crasher.count('<article class="fault">') > 0 and ": crash</h3>" in crasher  # each fault by its reason
    assert "Only the reason of each fault is public" in crasher and "referee replay" not in crasher
    assert "&lt;ladder&gt;/bots/x/bot.py" in crasher  # its command, written from the ladder
    replay = (out / replay_file(finished_keys(ladder)[-1])).read_text()
    assert '"status":"verified"' in replay and "\\u003cladder>/bots/seat0/bot.py" in replay
    assert '"stderr":null' in replay and '"exit":null' in replay


def test_the_csv_and_the_json_hold_one_row_per_finished_match_and_agree(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    export_ladder(ladder, out, made="2026-12-05 10:00 UTC")
    rows = list(csv.DictReader(io.StringIO((out / CSV_FILE).read_text())))
    data = json.loads((out / JSON_FILE).read_text())
    assert data["ladder"] == "hostile" and data["made"] == "2026-12-05 10:00 UTC"
    keys = finished_keys(ladder)
    assert [r["key"] for r in rows] == [m["key"] for m in data["matches"]] == keys
    with sqlite3.connect(ladder) as con:
        results = con.execute("SELECT m.set_index, m.rotation, r.seat, r.bot, r.score, r.rank, r.status FROM results r"
                              " JOIN matches m ON m.id = r.match").fetchall()  # fmt: skip
    seats = {(f"{s:05d}-{r}", seat): (bot, score, rank, status) for s, r, seat, bot, score, rank, status in results}
    for row, match in zip(rows, data["matches"], strict=True):
        assert int(row["set"]) == match["set"] and int(row["rotation"]) == match["rotation"]
        assert row["finished"] == match["finished"] != "" and int(row["seq"]) == match["seq"]
        assert row["replay"] == match["replay"]
        assert (match["replay"] != "") == (match["key"] in keys[-LOGGED:])
        if match["replay"]:
            assert (out / match["replay"]).is_file()
        assert len(match["seats"]) == 4
        for seat in match["seats"]:
            n = seat["seat"]
            assert seats[(match["key"], n)] == (seat["bot"], seat["score"], seat["rank"], seat["status"])
            assert (row[f"seat{n}_bot"], row[f"seat{n}_score"], row[f"seat{n}_rank"], row[f"seat{n}_status"]) == (
                seat["bot"], str(seat["score"]), str(seat["rank"]), seat["status"])  # fmt: skip
    assert {m["seats"][n]["status"] for m in data["matches"] for n in range(4)} == {"ok", "crash"}


def test_a_spreadsheet_formula_in_a_name_is_written_as_text() -> None:
    assert csv_cell('=HYPERLINK("http://x")') == "'" + '=HYPERLINK("http://x")'
    assert [csv_cell(v) for v in ("+1", "-1", "@a", "\tx", "alpha", -3, 7)] == ["'+1", "'-1", "'@a", "'\tx", "alpha",
                                                                                 "-3", "7"]  # fmt: skip


def test_replays_n_writes_the_latest_n_and_the_others_are_not_linked(ladder: Path, tmp_path: Path) -> None:
    keys = finished_keys(ladder)
    with sqlite3.connect(ladder) as con:  # the latest match's row names a log outside the logs folder
        s, r = keys[-1].split("-")
        con.execute("UPDATE matches SET log = ? WHERE set_index = ? AND rotation = ?",
                    (str(tmp_path / "played.jsonl"), int(s), int(r)))  # fmt: skip
    out = tmp_path / "site"
    done = export_ladder(ladder, out, replays=3)
    assert (done.asked, done.replays, done.unreadable) == (3, 2, [keys[-1]])
    written = sorted(p.stem for p in (out / "match").iterdir())
    assert written == sorted(keys[-3:-1])
    listing = (out / matches_file(None, 1)).read_text()
    for key in keys:
        linked = f'href="../match/{key}.html"' in listing
        assert linked == (key in written), key
        assert f'<td class="text">{key}</td>' in listing or linked, key  # listed, as its text when not linked
    cli = ["ladder", "export", str(tmp_path / "cli"), "--db", str(ladder), "--replays", "2"]
    result = CliRunner().invoke(main, cli)
    assert result.exit_code == 0, result.output
    assert "replays of the latest 2 finished matches: 1 written (12 finished in all)" in result.output
    assert f"no replay where the log cannot be read in the ladder's logs folder: {keys[-1]}" in result.output


def test_each_bot_page_has_where_it_loses_points_linked_to_the_copys_replays(ladder: Path, tmp_path: Path) -> None:
    keys = analysed(ladder, HOSTILE, 3)  # of the logged matches, newest first
    done = export_ladder(ladder, tmp_path / "site")
    own = (done.folder / bot_file(HOSTILE)).read_text()
    assert '<h2 id="losses">Where this bot loses points</h2>' in own and "Luck over its matches" in own
    assert f'href="../{replay_file(keys[0])}#round=2&amp;step=7"' in own  # its worst: that step of the copy's replay
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in own and "<script>alert" not in own
    for link in links_of(own):
        if "#round=" in link:
            parts = urlsplit(link)
            assert not parts.scheme and not link.startswith("/")
            assert (done.folder / "bot" / parts.path).resolve().is_file()
    other = (done.folder / bot_file("delta")).read_text()
    assert "Where this bot loses points" in other and "None of its matches analysed yet" in other
    fewer = export_ladder(ladder, tmp_path / "fewer", replays=1)  # the older replays are not in the copy
    own = (fewer.folder / bot_file(HOSTILE)).read_text()
    assert f'href="../{replay_file(keys[0])}#round=2&amp;step=7"' in own
    assert f"{replay_file(keys[1])}#" not in own and f"match {keys[1]}, round 2" in own  # left as its text


def test_a_link_to_a_step_is_only_ever_of_a_replay_in_the_copy() -> None:
    site = Site(lists={None: 1})
    site.add_replay("00001-0")
    assert site.target("/match/00001-0#round=2&step=7") == "match/00001-0.html#round=2&step=7"
    assert site.target("/match/00002-0#step=3") is None
    for bad in ("/bot/x#round=1&step=1", "/match/00001-0#<b>", "/#step=1", "/match/00001-0?x=1#step=1"):
        with pytest.raises(LadderError):
            site.target(bad)


def test_a_folder_that_holds_anything_is_refused_unless_forced(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    export_ladder(ladder, out)  # an empty folder is taken
    (out / "notes.txt").write_text("my notes")
    with pytest.raises(LadderError, match="not empty"):
        export_ladder(ladder, out)
    assert (out / "notes.txt").read_text() == "my notes"
    result = CliRunner().invoke(main, ["ladder", "export", str(out), "--db", str(ladder)])
    assert result.exit_code == 1 and "not empty (--force replaces" in result.output
    result = CliRunner().invoke(main, ["ladder", "export", str(out), "--db", str(ladder), "--force"])
    assert result.exit_code == 0, result.output
    assert not (out / "notes.txt").exists() and (out / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # nothing left beside it
    link = tmp_path / "link"
    link.symlink_to(out)
    for force in (False, True):
        with pytest.raises(LadderError, match="a symbolic link"):
            export_ladder(ladder, link, force=force)
    (tmp_path / "file").write_text("x")
    with pytest.raises(LadderError, match="not a folder"):
        export_ladder(ladder, tmp_path / "file", force=True)
    for holds_it in (ladder.parent, ladder.parent.parent, ladder.with_name("hostile-logs")):  # --force would lose it
        with pytest.raises(LadderError, match="holds the ladder's"):
            export_ladder(ladder, holds_it, force=True)
    assert ladder.is_file() and len(list(ladder.with_name("hostile-logs").iterdir())) == LOGGED


def test_a_link_planted_in_the_folder_is_never_followed(ladder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (tmp_path / "secret.txt").write_text("secret")
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").symlink_to(tmp_path / "secret.txt")
    (out / "bot").symlink_to(outside)
    (out / "match").symlink_to(outside)
    (out / "matches.csv").symlink_to(outside / "keep.txt")
    export_ladder(ladder, out, force=True)
    assert (tmp_path / "secret.txt").read_text() == "secret"
    assert [p.name for p in outside.iterdir()] == ["keep.txt"] and (outside / "keep.txt").read_text() == "keep"
    for name in ("index.html", "bot", "match", "matches.csv"):
        assert not (out / name).is_symlink(), name
    assert (out / "bot").is_dir() and len(list((out / "bot").iterdir())) == len(NAMES)


def test_a_copy_that_fails_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the last copy")

    def fill(folder: NewFolder) -> None:
        folder.write("index.html", "half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_folder(out, fill, force=True)
    assert (out / "index.html").read_text() == "the last copy"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # the new folder removed


def test_a_file_name_is_plain_whatever_the_bot_is_named() -> None:
    names = [*NAMES, "..", ".", "/", "", "../../etc/passwd", "Ålpha béta", "名前", "a" * 300, "alpha ", "ALPHA"]
    stems = [stem(name) for name in names]
    assert len(set(stems)) == len(names)
    for found in stems:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]{0,32}-[0-9a-f]{12}", found), found
    site = Site(lists={None: 2, "b/../c?d#e": 1})
    site.add_bot("b/../c?d#e")
    site.add_replay("00001-2")
    page = ('<a class="bot" href="/bot/b%2F..%2Fc%3Fd%23e">b/../c?d#e</a> <a href="/bot/ghost">ghost</a>'
            '<a href="/match/00001-2">1</a><a href="/match/00001-3">2</a><a rel="next" href="/matches?page=2">o</a>'
            '<a href="/matches?bot=b%2F..%2Fc%3Fd%23e">m</a><a href="/matches?page=3">past</a>'
            '<form class="filter" method="get" action="/matches"><select name="bot"></select></form>'
            '<link rel="stylesheet" href="/ladder.css"><link rel="icon" href="data:,">')  # fmt: skip
    at = bot_file("b/../c?d#e")
    assert site.relink(page, at) == (
        f'<a class="bot" href="../bot/{stem("b/../c?d#e")}.html">b/../c?d#e</a> ghost'
        '<a href="../match/00001-2.html">1</a>2<a rel="next" href="../matches/2.html">o</a>'
        f'<a href="../matches/{stem("b/../c?d#e")}/1.html">m</a>past'
        '<link rel="stylesheet" href="../ladder.css"><link rel="icon" href="data:,">'
    )
    for unknown in ('<a href="/tables">t</a>', '<a href="https://evil.example/">x</a>', '<script src="/ladder.js">'):
        with pytest.raises(LadderError, match="static copy"):
            site.relink(unknown, "index.html")


def test_the_public_view_keeps_a_faults_reason_and_drops_what_the_bot_wrote() -> None:
    fault = FaultRow("00001-2", 1, "crash", MESSAGE, HINT, EXIT, STDERR, 40, "/x/hostile-logs/00001-2.jsonl")
    (public,) = public_faults([fault])
    assert (public.match, public.seat, public.reason) == ("00001-2", 1, "crash")
    assert (public.message, public.hint, public.exit, public.stderr, public.stderr_lines, public.log) == (
        "", None, None, [], 0, None)  # fmt: skip
    seat = SeatRecord(seat=1, name="b", command="./b", status="crash", stderr="\n".join(STDERR), stderr_dropped=9,
                      exit_code=3, exit=EXIT)  # fmt: skip
    record = MatchRecord(
        log_format=2, match_id="m", started="", referee="", protocol=1, seed="1", first_dealer=0,
        rules=ruleset("american"), policy="forfeit", time_control={}, seats=[seat],
        faults=[FaultRecord(seat=1, round=0, phase="play", trick=0, reason="illegal_move", message=MESSAGE,
                            action="forfeit", rule="follow suit", reply='{"card": "<b>"}', hint=HINT)],
    )  # fmt: skip
    shown = msgspec.json.encode(public_record(record)).decode()
    for secret in (*STDERR, MESSAGE, HINT, EXIT, "<b>"):
        assert json.dumps(secret)[1:-1] not in shown, secret
    assert '"reason":"illegal_move"' in shown and '"rule":"follow suit"' in shown and '"status":"crash"' in shown


def test_the_copy_opens_from_the_files_in_chromium(ladder: Path, tmp_path: Path, page: Page) -> None:
    out = tmp_path / "site"
    export_ladder(ladder, out)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((out / "index.html").as_uri())
    assert page.locator("table.board tbody tr").count() == len(NAMES)
    page.locator("table.board a.bot", has_text="b/../c?d#e").click()
    page.wait_for_selector("h1:text-is('b/../c?d#e')")
    assert page.url == (out / bot_file("b/../c?d#e")).as_uri()
    page.click("nav a:text-is('Matches')")
    page.wait_for_selector("table.matches tbody tr")
    assert page.url == (out / matches_file(None, 1)).as_uri()
    page.locator("table.matches a[href*='match/']").first.click()
    page.wait_for_selector("#badge.verified", timeout=30_000)
    page.go_back()
    page.click("header a.ladder")  # the ladder's name: back to the leaderboard
    page.locator("table.board a.bot", has_text=HOSTILE).click()
    page.wait_for_selector("article.fault")
    assert "Traceback" not in page.content()
    page.click("text=Its matches")
    page.wait_for_selector("table.matches tbody tr")
    assert page.url == (out / matches_file(HOSTILE, 1)).as_uri()
    assert errors == [], errors
