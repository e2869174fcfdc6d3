"""No page of a ladder, and no message of its live tables, names an absolute path of the
organizer's machine (issue 41): the ladder's folder is written ``<ladder>``, a build's copy
``<build>``, another home path shortened after a mark. The texts that name them are the
referee's own (a bot's command, a fault's message, a hint) and a bot's stderr."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from referee.ladder.schedule import draw_sets
from referee.log_format import Header, SeatInfo
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.records import LadderSettings, ScheduledMatch, StoredMatch
from referee.store.writer import LadderStore
from referee.web.public import MARK, Public, ladder_public, log_public
from tests.ladder.helpers import record_of
from tests.web.ladder_helpers import View
from tests.web.test_watch_page import finished_log

NAMES = ["alice", "bob", "carol", "dave"]
BUILD_COPY = "/tmp/hearts-builds-k2x9/alice-q7r1"
SECRET = "/home/organizer/.ssh/id_rsa"


def command(folder: Path, bot: str) -> str:
    return f"python3 {folder}/bots/{bot}/bot.py"


def faulty_ladder(folder: Path) -> Path:
    """A ladder in ``folder`` whose every finished match has alice crash, with a message, a
    hint, stderr and a log that name ``folder`` (as the referee writes them), a build's copy
    and a home path; its last match pending."""
    db = folder / "class.db"
    store = LadderStore(db)
    rules = ruleset("american")
    settings = LadderSettings(9, rules, 2, "2026-01-01T00:00:00+00:00")
    store.initialize(settings, [(b, command(folder, b)) for b in NAMES], draw_sets(NAMES, rules.players, 9, 2))
    for match in store.pending()[:-1]:
        store.record(_crash(match, folder))
    store.close()
    return db


def _crash(match: ScheduledMatch, folder: Path) -> StoredMatch:
    statuses = ["crash" if bot == "alice" else "ok" for bot in match.seats]
    record = record_of(match, [10 * (i + 1) for i in range(len(match.seats))], statuses)
    own = f"{folder}/bots/alice"
    faults = [
        FaultReport(
            seat=i, name=bot, reason="crash", action="forfeit",
            message=f"cannot start bot {command(folder, bot)!r}: its program exited",
            hint=f"the bot may not read {own}/w.bin, in {own}, which its sandbox shows it (chmod -R o+rX {own})",
            exit=f"exited with code 1 ({folder}/class-logs)",
            stderr=[f'  File "{own}/bot.py", line 3, in <module>', f"{SECRET}: Permission denied",
                    f"{BUILD_COPY}/target/bot: not found"],
            stderr_lines=3,
        )
        for i, bot in enumerate(match.seats) if bot == "alice"
    ]  # fmt: skip
    return replace(record, faults=faults, log=str(folder / "class-logs" / f"{match.key}.jsonl"))


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    folder = tmp_path / "organizer-ladders" / "class"
    folder.mkdir(parents=True)
    return faulty_ladder(folder)


def test_a_text_is_written_from_the_ladder_and_without_home_paths() -> None:
    public = ladder_public("/root/ladders/class/class.db")
    said = (
        "cannot start bot 'python3 /root/ladders/class/bots/alice/bot.py'; see /root/ladders/class/class-logs; "
        "/root/ladders/classic/x; /root/.ssh/id_rsa; /home/bob/code/hearts/bot.py; "
        f"{BUILD_COPY}/target/bot; /usr/bin/python3 and /opt/jdk/bin/java"
    )
    assert public.text(said) == (
        "cannot start bot 'python3 <ladder>/bots/alice/bot.py'; see <ladder>/class-logs; "
        f"{MARK}/classic/x; {MARK}/.ssh/id_rsa; {MARK}/hearts/bot.py; "
        "<build>/target/bot; /usr/bin/python3 and /opt/jdk/bin/java"
    )


def test_a_path_is_found_wherever_it_starts() -> None:
    """After a JSON line break, a terminal's colours, an option's ``=``, twice slashed."""
    public = Public((("/srv/l", "<ladder>"),))
    for before in ("line\\n", "\x1b[0m", "--data=", "x:", "'"):
        assert public.text(f"{before}/srv/l/x") == f"{before}<ladder>/x"
        assert public.text(f"{before}/root/a/b/c") == f"{before}{MARK}/b/c"
    assert public.text("//home/me/a") == f"{MARK}/a"


def test_a_json_text_stays_json_with_the_same_structure(tmp_path: Path) -> None:
    folder = tmp_path / 'odd "name" with \\ and space'
    public = ladder_public(folder / "x.db")
    data = {
        "log": f"{folder}/x-logs/1.jsonl",
        "stderr": f'Traceback\n  File "{folder}/bots/a.py"\n{SECRET}\t/root/x',
        "list": [f"{folder}", "/usr/lib/y", 3, None],
    }
    made = json.loads(public.json(json.dumps(data, ensure_ascii=False).encode()))
    assert made == {
        "log": "<ladder>/x-logs/1.jsonl",
        "stderr": f'Traceback\n  File "<ladder>/bots/a.py"\n{MARK}/.ssh/id_rsa\t{MARK}/x',
        "list": ["<ladder>", "/usr/lib/y", 3, None],
    }


def test_a_log_in_a_ladders_logs_folder_knows_its_ladder(tmp_path: Path) -> None:
    ladder_log = log_public(tmp_path / "class" / "class-logs" / "00001-0.jsonl")
    assert ladder_log.text(f"{tmp_path}/class/bots/a") == "<ladder>/bots/a"
    other = log_public(tmp_path / "m.jsonl")  # a log in /tmp does not make /tmp a ladder
    assert other.text(f"{tmp_path}/class/bots/a") == f"{tmp_path}/class/bots/a"


async def test_no_page_names_the_ladders_folder(ladder: Path) -> None:
    folder = str(ladder.parent)
    view = View(ladder)
    try:
        pages = ["/", "/matches", "/tables", "/api/version", *(f"/bot/{name}" for name in NAMES)]
        for target in pages:
            status, body = await view.get(target)
            assert status == 200, target
            for private in (folder, "organizer-ladders", SECRET, "organizer", BUILD_COPY):
                assert private not in body, (target, private)
        page = (await view.get("/bot/alice"))[1]
        assert "command: <code>python3 &lt;ladder&gt;/bots/alice/bot.py</code>" in page
        assert "cannot start bot &#39;python3 &lt;ladder&gt;/bots/alice/bot.py&#39;" in page  # the message
        assert "(chmod -R o+rX &lt;ladder&gt;/bots/alice)" in page  # the hint
        assert f"{MARK}/.ssh/id_rsa: Permission denied" in page and "&lt;build&gt;/target/bot" in page  # stderr
        assert "referee replay &lt;ladder&gt;/class-logs/00000-" in page  # the command that shows it again
    finally:
        view.close()


def _header(folder: Path) -> bytes:
    """A match log's first line, its seats' commands naming ``folder``."""
    seats = [SeatInfo(seat=i, name=name, command=command(folder, name)) for i, name in enumerate(NAMES)]
    header = Header(protocol=1, referee="test", match_id="m1", started="2026-01-01T00:00:00+00:00", seed="7",
                    first_dealer=0, rules=ruleset("american"), seats=seats, time_control={"per_decision_ms": 1000},
                    policy="forfeit")  # fmt: skip
    return msgspec.json.encode(header) + b"\n"


async def test_a_live_tables_messages_name_no_path_of_the_organizer(ladder: Path) -> None:
    """What the watch page of a table in play is sent over its socket: the log's name, the
    seats' commands, a fault's message and the bot's stderr, without the ladder's folder."""
    folder = ladder.parent
    store = LadderStore(ladder)
    (pending,) = store.pending()
    store.close()
    logs = folder / "class-logs"
    logs.mkdir()
    entries = [
        {"type": "fault", "t": 0.5, "seat": 0, "reason": "crash", "action": "forfeit",
         "message": f"cannot start bot {command(folder, 'alice')!r}"},
        {"type": "stderr", "seat": 0, "text": f'File "{folder}/bots/alice/bot.py"\n{SECRET}: denied\n',
         "dropped_bytes": 0, "exit_code": 1},
    ]  # fmt: skip
    lines = [json.dumps(entry).encode() + b"\n" for entry in entries]
    (logs / f"{pending.key}.jsonl").write_bytes(_header(folder) + b"".join(lines))
    view = View(ladder)
    pushes: list[str] = []
    got = trio.Event()

    async def receive() -> dict[str, Any]:
        if not pushes and not got.is_set():
            got.set()  # the first call: the handshake
            return {"type": "websocket.connect"}
        while not any('"stderr"' in p for p in pushes):
            await trio.sleep(0.05)
        return {"type": "websocket.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "websocket.send":
            pushes.append(message["text"])

    scope = {"type": "websocket", "path": f"/table/{pending.key}/ws", "headers": [(b"host", b"127.0.0.1:8000")]}
    try:
        with trio.fail_after(60):  # a guard against a hang, not a measure
            await view.app(scope, receive, send)
    finally:
        view.close()
    assert pushes, "no message was sent"
    text = "".join(pushes)
    for private in (str(folder), "organizer-ladders", SECRET, "organizer"):
        assert private not in text, private
    first = json.loads(pushes[0])
    assert first["log"] == f"<ladder>/class-logs/{pending.key}.jsonl"
    said = json.dumps([json.loads(p)["entries"] for p in pushes], ensure_ascii=False)
    assert "<ladder>/bots/alice/bot.py" in said and f"{MARK}/.ssh/id_rsa: denied" in said


@pytest.mark.process
async def test_a_replay_page_names_no_path_of_the_organizer(ladder: Path, tmp_path: Path) -> None:
    folder = ladder.parent
    logs = folder / "class-logs"
    logs.mkdir()
    lines = finished_log(tmp_path / "played.jsonl")
    header = json.loads(lines[0])
    for seat in header["seats"]:
        seat["command"] = command(folder, seat["name"])
    key = "00000-0"
    (logs / f"{key}.jsonl").write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]))
    with sqlite3.connect(ladder) as con:
        con.execute("UPDATE matches SET match_id = ?, log = ? WHERE set_index = 0 AND rotation = 0",
                    (header["match_id"], str(logs / f"{key}.jsonl")))  # fmt: skip
    view = View(ladder)
    try:
        status, body = await view.get(f"/match/{key}")
    finally:
        view.close()
    assert status == 200 and '"status":"verified"' in body
    assert str(folder) not in body and "organizer-ladders" not in body
    assert "\\u003cladder>/bots/" in body  # the seats' commands, written from the ladder
