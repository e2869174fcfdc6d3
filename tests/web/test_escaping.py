"""Every page escapes what a bot or an entrant controls (issue 45, point 3): markup planted in
each such field (bot names, ``hello`` names, commands, stderr, fault messages, exit lines and
hints, uploaded archives' file names, entrant names, an upload form's field names) comes out as
text on every page that shows it: the leaderboard (with its duel and season sections), a bot's
page, the match list, the tables in play, the entrant's and the organizer's ``/entrant``, an
upload's refusal, the replay viewer (live, public, exported, and ``referee replay --html``'s),
the public view and the static copy. A log downloads as data, never as a page.

And the guarantee stays: every page is rendered from a template with autoescaping on
(``referee.web.ladder.markup``, ``referee.replay.html``); no module of referee/ builds HTML by
formatting strings or calls an escaping function of its own, only the template setup makes
``Markup``, and no template prints anything ``|safe``."""

from __future__ import annotations

import ast
import json
import re
import sqlite3
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import msgspec
import pytest
from jinja2 import StrictUndefined
from markupsafe import escape

from referee.duel.status import DuelStatus
from referee.ladder.entrants import add_entrant
from referee.ladder.order import OrderProgress
from referee.ladder.schedule import draw_sets
from referee.ladder.season_run import FinalOrder, SeasonReport
from referee.ladder.upload_gate import keep_gate
from referee.ladder.uploads import receive
from referee.replay import html as replay_html
from referee.replay.html import match_page
from referee.replay.reader import read_log
from referee.replay.verify import verify
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.database import read_only
from referee.store.reader import LadderReader
from referee.store.records import LadderSettings, ScheduledMatch, Season, StoredMatch
from referee.store.writer import LadderStore
from referee.web.ladder import markup
from referee.web.ladder.board import duel_section, season_section
from referee.web.ladder.export import export_ladder
from referee.web.ladder.lists import tables_body
from referee.web.ladder.queries import board
from referee.web.ladder.tables import LiveMatch
from referee.web.ladder.upload_form import UPLOAD_PATH
from tests.duel.helpers import undecided_duel
from tests.ladder.helpers import record_of
from tests.ladder.test_uploads import archive
from tests.match.scripted import logged_match
from tests.web.ladder_helpers import View
from tests.web.test_upload_form import HOST, ORIGIN, SANDBOXED, form_body, multipart

ROOT: Final = Path(__file__).resolve().parents[2]
SCRIPT: Final = "<script>alert(1)</script>"
ATTRIBUTE: Final = '"><img src=x onerror=1>'
QUOTE: Final = "O'Hare"
AMPERSAND: Final = "R&D"
PAYLOADS: Final = (SCRIPT, ATTRIBUTE, QUOTE, AMPERSAND)
EVERY: Final = "".join(PAYLOADS)
"""What a text field holds: every payload at once."""
NAMES: Final = [*PAYLOADS, "plain"]
"""The ladder's bots: one named by each payload."""
CRASHER: Final = SCRIPT
ENTRANT: Final = f"{ATTRIBUTE}<script>alert(1) {QUOTE} {AMPERSAND}"
"""An entrant's name (every payload, but for the ``/`` an entrant's name may not hold)."""
RAW: Final = ("<script>alert(1)", "<img src=x", "O'Hare", "R&D")
"""What no HTML page may hold as it is (each payload escapes to something else)."""


def assert_escaped(page: str, *texts: str) -> None:
    """``page`` (HTML) shows each of ``texts`` escaped, and no payload as it was planted."""
    for text in texts:
        assert str(escape(text)) in page, text
    for raw in RAW:
        assert raw not in page, raw


def assert_embedded(page: str, *texts: str) -> None:
    """A replay viewer's ``page`` holds each of ``texts`` in its JSON (a ``<`` as ``\\u003c``),
    and no markup of theirs: its scripts are the template's own, none ended early."""
    for text in texts:
        assert msgspec.json.encode(text).decode()[1:-1].replace("<", "\\u003c") in page, text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert page.count("<script") == page.count("</script>") == VIEWER_SCRIPTS


VIEWER_SCRIPTS: Final = (ROOT / "referee" / "replay" / "viewer.html").read_text().count("</script>")


def hostile_ladder(folder: Path) -> Path:
    """A ladder of the bots of ``NAMES``: ``CRASHER`` crashes in every match, its fault's
    message, exit line, hint and stderr ``EVERY``; every bot's command holds ``EVERY``."""
    path = folder / "hostile.db"
    store = LadderStore(path)
    rules = ruleset("american")
    settings = LadderSettings(9, rules, 2, "2026-01-01T00:00:00+00:00")
    store.initialize(settings, [(b, f"./run {EVERY}") for b in NAMES], draw_sets(NAMES, rules.players, 9, 2))
    for match in store.pending():
        store.record(_crashing(match))
    store.close()
    return path


def _crashing(match: ScheduledMatch) -> StoredMatch:
    statuses = ["crash" if bot == CRASHER else "ok" for bot in match.seats]
    record = record_of(match, [10 * (i + 1) for i in range(len(match.seats))], statuses)
    faults = [
        FaultReport(seat=i, name=bot, reason="crash", message=f"{EVERY} exited", action="forfeit",
                    exit=f"exited {EVERY}", hint=f"hint {EVERY}", stderr=[EVERY, "  " + EVERY], stderr_lines=9)
        for i, bot in enumerate(match.seats) if bot == CRASHER
    ]  # fmt: skip
    return replace(record, faults=faults, log=f"{match.key}.jsonl")


def hostile_log(path: Path) -> str:
    """A whole match logged at ``path`` whose seats said ``hello`` as ``EVERY`` (and more), ran
    commands holding it and wrote it to their stderr; its match id."""
    lines = logged_match(path, "hostile-1", ruleset("american"))
    header = json.loads(lines[0])
    for seat in header["seats"]:
        seat["name"], seat["command"] = f"{EVERY} #{seat['seat']}", f"./run {EVERY}"
    stderr = [{"type": "stderr", "seat": s, "text": f"{EVERY}\n", "dropped_bytes": 0, "exit_code": 3} for s in range(4)]
    rest = b"".join(json.dumps(entry).encode() + b"\n" for entry in stderr)
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]) + rest)
    return str(header["match_id"])


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile ladder, its first match logged (``hostile_log``), the entrant ``ENTRANT``
    with a refused upload whose archive names a file ``EVERY``."""
    db = hostile_ladder(tmp_path_factory.mktemp("escaping"))
    logs = db.with_name("hostile-logs")
    logs.mkdir()
    match_id = hostile_log(logs / "00000-0.jsonl")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE matches SET log = ?, match_id = ? WHERE set_index = 0 AND rotation = 0",
                    (str(logs / "00000-0.jsonl"), match_id))  # fmt: skip
    store = LadderStore(db)
    add_entrant(store, ENTRANT, again=False)
    store.close()
    keep_gate(db, SANDBOXED)  # the form is shown and read: a run in a sandbox said so
    refused = receive(db, ENTRANT, archive({f"../{EVERY}": "x"}), command=EVERY, build=None, now="2026-01-01T00:00Z")
    assert refused.state == "refused" and EVERY in refused.detail
    return db


TOKEN: Final = "organizer-token"


async def opened(view: View, query: str) -> tuple[bytes, bytes]:
    """The cookie a browser keeps once it opened ``/entrant?query`` (the token, a private link)."""
    status, headers, _ = await view.ask("/entrant", query_string=query.encode())
    assert status == 303
    return (b"cookie", headers[b"set-cookie"].split(b";")[0])


async def shown(view: View, target: str, cookie: tuple[bytes, bytes]) -> tuple[int, dict[bytes, bytes], str]:
    """``target`` (a path as the server decodes it, and its query) asked with ``cookie``."""
    path, _, query = target.partition("?")
    status, headers, raw = await view.ask(target, path=path, query_string=query.encode(), headers=[HOST, cookie])
    return status, headers, raw.decode()


async def test_the_organizers_pages_and_replays_escape_every_name_and_every_fault(ladder: Path) -> None:
    view = View(ladder, token=TOKEN)
    try:
        cookie = await opened(view, f"token={TOKEN}")
        pages = {"/": NAMES, "/matches": NAMES, "/entrant": [ENTRANT]}
        pages |= {f"/matches?bot={quote(name, safe='')}": NAMES for name in NAMES}
        pages |= {f"/bot/{name}": [name] for name in NAMES}
        for target, names in pages.items():
            status, _, page = await shown(view, target, cookie)
            assert status == 200, target
            assert_escaped(page, *names)
        _, _, page = await shown(view, f"/bot/{CRASHER}", cookie)
        assert_escaped(page, f"./run {EVERY}", f"{EVERY} exited", f"exited {EVERY}", f"hint {EVERY}")
        assert f"<pre>{escape(EVERY)}\n  {escape(EVERY)}</pre>" in page  # its stderr
        status, headers, page = await shown(view, "/match/00000-0", cookie)
        assert status == 200 and headers[b"content-type"].startswith(b"text/html")
        with sqlite3.connect(ladder) as con:
            (seats,) = con.execute("SELECT seats FROM matches WHERE set_index = 0 AND rotation = 0").fetchone()
        assert_embedded(page, *json.loads(seats), f"{EVERY}\n")  # the ladder's names; stderr, to the organizer
        status, headers, _ = await shown(view, "/match/00000-0/log", cookie)
        assert status == 200 and headers[b"content-type"].startswith(b"application/x-ndjson")  # data, never a page
        assert headers[b"content-disposition"].startswith(b"attachment") and headers[b"x-content-type-options"]
        assert headers[b"content-security-policy"].startswith(b"default-src 'none'")
    finally:
        view.close()


async def test_the_public_view_escapes_every_name(ladder: Path) -> None:
    view = View(ladder, token=TOKEN, public_view=True)
    try:
        for target in ("/", "/matches"):
            status, page = await view.get(target)
            assert status == 200 and "Only the reason" not in page, target
            assert_escaped(page, *NAMES)
        _, _, raw = await view.ask("/bot/", path=f"/bot/{CRASHER}")
        assert "Only the reason of each fault is public." in raw.decode()
        assert_escaped(raw.decode(), CRASHER)
        status, _, raw = await view.ask("/match/00000-0")
        assert status == 200
        assert_embedded(raw.decode(), *NAMES[:4])
    finally:
        view.close()


async def test_the_entrants_page_escapes_its_name_and_its_uploads(ladder: Path) -> None:
    store = LadderStore(ladder)
    _, key = add_entrant(store, ENTRANT, again=True)
    store.close()
    view = View(ladder)
    try:
        cookie = await opened(view, f"key={key}")
        status, _, page = await shown(view, "/entrant", cookie)
        assert status == 200 and "Your uploads" in page and "refused" in page
        assert_escaped(page, ENTRANT, f"../{EVERY}")  # its name; the file its archive named, in why it was refused
        status, refusal = await _post(view, form_body({SCRIPT: b"x"}), cookie)  # a field's name, which it repeats
        assert status == 400 and "Upload not taken" in refusal
        assert_escaped(refusal, repr(SCRIPT))
    finally:
        view.close()


async def _post(view: View, body: bytes, cookie: tuple[bytes, bytes]) -> tuple[int, str]:
    """``body`` posted to the upload form as the entrant's browser posts it: the status and page."""
    sent: list[dict[str, Any]] = []

    async def receive_body() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [HOST, cookie, ORIGIN, *multipart()]
    scope = {"type": "http", "method": "POST", "path": UPLOAD_PATH, "raw_path": UPLOAD_PATH.encode(),
             "query_string": b"", "headers": headers, "client": ("127.0.0.1", 5000)}  # fmt: skip
    await view.app(scope, receive_body, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:]).decode()


def test_the_tables_in_play_a_duel_and_a_season_escape_every_name(tmp_path: Path) -> None:
    live = [LiveMatch("00000-0", tuple(NAMES[:4]), tmp_path / "00000-0.jsonl")]
    shown = markup.page("Tables", "ladder", tables_body(live), stamp="s", tables="00000-0", section="tables")
    assert_escaped(shown, *NAMES[:4])
    undecided_duel(tmp_path / "duel.db")
    reader = LadderReader(tmp_path / "duel.db", read_only(tmp_path / "duel.db"))
    try:
        status = board(reader).duel
    finally:
        reader.close()
    assert isinstance(status, DuelStatus)
    duel = msgspec.structs.replace(status.duel, new=SCRIPT)
    pairings = [replace(p, old=name) for p, name in zip(status.pairings, [ATTRIBUTE, QUOTE], strict=False)]
    assert_escaped(duel_section(replace(status, duel=duel, pairings=pairings)), SCRIPT, ATTRIBUTE)
    order = FinalOrder(list(PAYLOADS), {}, OrderProgress(list(PAYLOADS), []), 0)
    season = Season(final_top=4, final_sets=2, finalists=())
    assert_escaped(season_section(SeasonReport(season, "final", 0, 0, order)), *PAYLOADS)


def test_the_static_copy_escapes_every_name_and_holds_no_markup(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    export_ladder(ladder, out)
    assert_escaped((out / "index.html").read_text(), *NAMES)
    pages = sorted(out.rglob("*.html"))
    replays = [p for p in pages if p.parent.name == "match"]
    assert replays and len(pages) > len(NAMES) + len(replays)
    for path in pages:
        text = path.read_text()
        if path in replays:
            assert_embedded(text, *NAMES[:4])
        else:
            assert_escaped(text)


def test_the_replay_viewer_of_a_log_escapes_hello_names_commands_stderr_and_its_title(tmp_path: Path) -> None:
    hostile_log(tmp_path / "match.jsonl")
    record = verify(read_log(tmp_path / "match.jsonl").matches[-1])
    assert {s.stderr for s in record.seats} == {f"{EVERY}\n"}
    page = match_page(msgspec.structs.replace(record, match_id=EVERY))
    assert_embedded(page, f"{EVERY} #0", f"./run {EVERY}", f"{EVERY}\n")
    assert f"<title>Hearts replay: american, match {escape(EVERY)}</title>" in page
    assert replay_html.json_script(SCRIPT) == '"\\u003cscript>alert(1)\\u003c/script>"'


REFEREE: Final = ROOT / "referee"
TEMPLATES: Final = REFEREE / "web" / "templates"
TEMPLATE_SETUP: Final = {"web/ladder/markup.py": markup.ENV, "replay/html.py": replay_html._ENV}
"""The modules that make the templates' environments: the only ones to make ``Markup``."""
HTML_TAG: Final = re.compile(
    r"</?(?:a|article|b|body|br|button|code|div|em|form|h[1-6]|head|header|html|i|img|input|label|li|link|main|"
    r"meta|nav|ol|option|p|polygon|polyline|pre|progress|script|section|select|span|strong|style|svg|table|tbody|"
    r"td|text|th|thead|title|tr|ul|wbr)(?=[\s>/\\])",
    re.IGNORECASE,
)
"""An HTML element's tag in a string (``<ladder>``, the label of a folder, is no element)."""
HTML_ALLOWED: dict[str, str] = {
    "bench/ladder_web.py": "a benchmark ladder's planted stderr (<b>boom</b>): data the pages escape, not a page",
    "web/ladder/site_paths.py": (
        "reads the rendered pages' tags (regular expressions over <a> and <form>) to make the static copy's links "
        "relative, and escapes the relative link it puts in place of a link's value, as the template did: it builds "
        "no markup"
    ),
}
"""Modules of referee/ allowed an HTML tag in a string or an escaping call, each with the reason."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstrings' nodes (which may name a tag: they are read, never rendered)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def hand_made_html(source: str, *, setup: bool = False) -> list[str]:
    """What in a module's source makes HTML by hand: a string (a part of an f-string too) with
    an HTML tag in it; a call of ``html.escape`` or ``markupsafe.escape``, an ``escape`` imported,
    a function of its own named ``esc`` or ``escape``; and, unless it is the template setup
    (``setup``), ``Markup(...)`` or a Jinja2 ``Environment(...)`` made (``Markup`` as a type is
    what a page's renderer returns: ``render``'s)."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        line = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if HTML_TAG.search(node.value):
                found.append(f"{line}: a tag in {node.value.strip()[:50]!r}")
        elif isinstance(node, ast.Attribute) and node.attr == "escape" and isinstance(node.value, ast.Name):
            if node.value.id in ("html", "markupsafe"):
                found.append(f"{line}: {node.value.id}.escape")
        elif isinstance(node, ast.ImportFrom) and any(alias.name == "escape" for alias in node.names):
            found.append(f"{line}: imports escape from {node.module}")
        elif isinstance(node, ast.FunctionDef) and node.name in ("esc", "escape"):
            found.append(f"{line}: def {node.name}")
        elif isinstance(node, ast.Call) and not setup:
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if called in ("Markup", "Environment"):
                found.append(f"{line}: {called}(...)")
    return found


def test_no_module_builds_html_by_hand() -> None:
    """Every page is a template's (``referee/web/templates/``, ``referee/replay/viewer.html``):
    no module of referee/ formats HTML, calls an escaping function or makes ``Markup`` (one
    forgotten call would be a stored script from a bot's name or stderr), but for the template
    setup and the allow-list's reasons. An entry whose module builds nothing any more is removed."""
    found = {}
    for path in sorted(REFEREE.rglob("*.py")):
        module = path.relative_to(REFEREE).as_posix()
        if made := hand_made_html(path.read_text(), setup=module in TEMPLATE_SETUP):
            found[module] = made
    unexplained = {module: made for module, made in found.items() if module not in HTML_ALLOWED}
    assert not unexplained, f"HTML made outside the templates (write a template): {unexplained}"
    stale = sorted(set(HTML_ALLOWED) - set(found))
    assert not stale, f"in the allow-list but making no HTML (remove them): {stale}"


def test_the_finder_finds_html_made_by_hand() -> None:
    """The check above is only as good as its finder: an f-string's tag, a constant's, an
    escaping function called, imported or written, ``Markup`` are found; a docstring's and a
    folder's label (``<ladder>``) are not."""
    assert hand_made_html('def f(x):\n    return f"<p>{esc(x)}</p>"\n') == [
        "line 2: a tag in '<p>'",
        "line 2: a tag in '</p>'",
    ]
    assert hand_made_html("ROW = '<tr><td class=\"text\">'\n") == ["line 1: a tag in '<tr><td class=\"text\">'"]
    assert hand_made_html("import html\ny = html.escape(x)\n") == ["line 2: html.escape"]
    assert hand_made_html("from html import escape\n") == ["line 1: imports escape from html"]
    assert hand_made_html("def esc(text):\n    return text\n") == ["line 1: def esc"]
    assert hand_made_html("page = Markup(name)\nenv = jinja2.Environment()\n") == [
        "line 1: Markup(...)",
        "line 2: Environment(...)",
    ]
    assert hand_made_html("page = Markup(name)\n", setup=True) == []
    assert hand_made_html("def f() -> Markup:\n    return re.escape(x)\n") == []  # a type; a pattern's escape
    assert hand_made_html('"""A <p> per line."""\nLABEL = "<ladder>"\nS = "a < b > c"\n') == []


def test_every_template_escapes_and_prints_nothing_raw() -> None:
    """Autoescaping on in both environments, for every template, and an undefined name an
    error; no template turns it off or prints anything ``|safe``; every template compiles."""
    for env in TEMPLATE_SETUP.values():
        assert env.autoescape is True and env.undefined is StrictUndefined
    templates = [*sorted(TEMPLATES.iterdir()), REFEREE / "replay" / "viewer.html"]
    assert len(templates) > 10
    for path in templates:
        text = path.read_text()
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|\bMarkup\b", text), path
    for name in markup.ENV.list_templates():
        markup.ENV.get_template(name)
    assert sorted(markup.ENV.list_templates()) == sorted(p.name for p in TEMPLATES.iterdir())


def test_the_templates_ship_with_the_package() -> None:
    """A wheel (and a strict editable install) holds only the package data ``pyproject.toml``
    names: every template is named there."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for path in [*TEMPLATES.iterdir(), REFEREE / "replay" / "viewer.html"]:
        package, _, inside = path.relative_to(ROOT).as_posix().rpartition("/")[0], "", ""
        owner = "referee.web" if TEMPLATES in path.parents else "referee.replay"
        inside = path.relative_to(REFEREE / owner.removeprefix("referee.")).as_posix()
        assert any(Path(inside).match(pattern) for pattern in data[owner]), (path, package)
