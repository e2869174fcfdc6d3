"""Entrants' uploads kept beside the ladder and taken into its pool (issue 42, part 1): an
upload is kept whole or not at all, its state moves received -> playing or refused with why,
one entrant's bad upload never stops the ladder, and a restart finds every upload again."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import trio

from referee.errors import LadderError
from referee.ladder import follow as follow_module
from referee.ladder import play as play_module
from referee.ladder import uploads as uploads_module
from referee.ladder.entrants import add_entrant
from referee.ladder.feed import LadderFeed
from referee.ladder.follow import PoolFollower
from referee.ladder.play import LadderPlan, RunOutput, play_ladder
from referee.ladder.runner import RunOptions
from referee.ladder.setup import open_ladder, private_files
from referee.ladder.upload_gate import UploadGate, check_run, uploads_closed
from referee.ladder.uploads import (
    Upload,
    UploadRefused,
    entry_of,
    files_of,
    mark,
    playing,
    receive,
    uploads,
    uploads_folder,
    waiting,
)
from referee.players.bot_config import read_bots
from referee.players.process import BotLimits
from referee.rules import ruleset
from referee.sandbox.bwrap import Sandbox, SandboxMode, choose_sandbox
from referee.store.writer import LadderStore
from tests.ladder.helpers import ROOT, bot_list

NOW = "2026-12-05T01:30:00+00:00"
FIRST = (ROOT / "tests" / "bots" / "first_legal_bot.py").read_text()


def archive(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return out.getvalue()


def test_an_upload_is_kept_whole_with_its_state(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    kept = receive(db, "alice", archive({"bot.py": "print(1)\n"}), command="python3 bot.py", build=None, now=NOW)
    assert (kept.entrant, kept.seq, kept.state, kept.command, kept.files) == (
        "alice",
        1,
        "received",
        "python3 bot.py",
        1,
    )
    assert (files_of(db, kept) / "bot.py").read_text() == "print(1)\n"
    assert uploads(db) == [kept]
    again = receive(db, "alice", archive({"bot.py": "print(2)\n"}), command="python3 bot.py", build=None, now=NOW)
    assert again.seq == 2 and again.content != kept.content
    entry = entry_of(db, again)
    assert entry.name == "alice" and entry.folder == str(files_of(db, again)) and entry.content == again.content


def test_a_follower_reads_a_settled_upload_no_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``waiting``: the uploads still received, oldest first; one taken or refused is read
    once more, then never (a class's hundreds of uploads are not read every 2 s)."""
    db = tmp_path / "l.db"
    bot = archive({"bot.py": "print(1)\n"})
    first = receive(db, "alice", bot, command="python3 bot.py", build=None, now="2026-12-05T01:00:00+00:00")
    second = receive(db, "bob", bot, command="python3 bot.py", build=None, now="2026-12-05T00:59:00+00:00")
    refused = receive(db, "bob", b"not an archive", command="python3 bot.py", build=None, now=NOW)
    reads: list[Path] = []
    real = uploads_module._read
    monkeypatch.setattr(uploads_module, "_read", lambda folder: reads.append(folder) or real(folder))
    settled: set[tuple[str, int]] = set()
    assert waiting(db, settled) == [second, first] and settled == {("bob", refused.seq)} and len(reads) == 3
    mark(db, first, "playing", "alice playing")
    reads.clear()
    assert waiting(db, settled) == [second] and len(reads) == 2  # alice's read once more, settled
    reads.clear()
    assert waiting(db, settled) == [second] and len(reads) == 1  # bob's first alone


def test_a_manifest_gives_the_command(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    files = {"mybot/hearts-bot.toml": 'command = "python3 main.py"\nbuild = "true"\n', "mybot/main.py": "x\n"}
    kept = receive(db, "bob", archive(files), command=None, build=None, now=NOW)
    assert (kept.command, kept.build) == ("python3 main.py", "true")
    assert (files_of(db, kept) / "main.py").exists()  # the one top folder is the root


def test_a_hostile_archive_is_kept_refused_with_its_reason(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("../escape.py", "x")
    kept = receive(db, "mallory", out.getvalue(), command="python3 bot.py", build=None, now=NOW)
    assert kept.state == "refused" and "parent-path" in kept.detail
    assert not (tmp_path / "escape.py").exists() and not files_of(db, kept).exists()


@pytest.mark.parametrize(("entrant", "command"), [("..", "python3 bot.py"), ("a/b", "x"), ("ok", None), ("ok", "'")])
def test_a_bad_name_or_command_keeps_nothing(tmp_path: Path, entrant: str, command: str | None) -> None:
    db = tmp_path / "l.db"
    with pytest.raises(UploadRefused):
        receive(db, entrant, archive({"bot.py": "x"}), command=command, build=None, now=NOW)
    assert uploads(db) == []
    leftovers = [p for p in uploads_folder(db).rglob("*") if p.is_dir() and p.name.endswith(".receiving")]
    assert leftovers == []


def test_a_half_received_upload_is_never_read(tmp_path: Path) -> None:
    """What ``kill -9`` mid-upload leaves (a staging folder) is no upload."""
    db = tmp_path / "l.db"
    receive(db, "alice", archive({"bot.py": "x"}), command="python3 bot.py", build=None, now=NOW)
    staging = uploads_folder(db) / "alice" / ".abc.receiving"
    (staging / "files").mkdir(parents=True)
    assert [u.seq for u in uploads(db)] == [1]
    (uploads_folder(db) / "alice" / "2").mkdir()  # a number taken by a folder with no state
    later = receive(db, "alice", archive({"bot.py": "y"}), command="python3 bot.py", build=None, now=NOW)
    assert later.seq == 3 and [u.seq for u in uploads(db)] == [1, 3]


TRUSTED = UploadGate(sandboxed=False, trusted=True, how="a test's own bots")
"""The gate of the tests whose uploads are their own bots, started unsandboxed."""


class Ladder:
    """A ladder of two listed bots and its follower, with the run's way of starting bots (in
    ``sandbox``, when given, as ``ladder run`` starts them) and its ``gate``."""

    def __init__(
        self,
        folder: Path,
        *,
        check: bool,
        gate: UploadGate | None = TRUSTED,
        sandbox: Sandbox | None = None,
        entrants: Sequence[str] = (),
    ) -> None:
        self.config = bot_list(folder, ["first", "random"])
        self.db = folder / "l.db"
        store, _ = open_ladder(self.db, read_bots(self.config), None, games=2, default_rules=ruleset("american"))
        self.keys = {name: str(add_entrant(store, name, again=False)[1]) for name in entrants}
        """Each entrant's key, made before the run starts."""
        store.close()
        self.store = LadderStore(self.db)
        self.told: list[str] = []
        private = private_files(self.db)
        limits = BotLimits(sandbox=sandbox.hiding(*private) if sandbox is not None else None)
        options = RunOptions(logs=folder / "logs", cwd=folder, limits=limits) if check else None
        self.follower = PoolFollower(self.config, folder, self.store, LadderFeed(self.store), dict(self.store.bots()),
                                     {}, sandbox, private, self.told.append, options=options, gate=gate)  # fmt: skip


def test_an_upload_beside_a_listed_entrant_of_its_name_is_refused(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path, check=False)
    try:
        receive(ladder.db, "first", archive({"bot.py": "x"}), command="python3 bot.py", build=None, now=NOW)
        assert trio.run(ladder.follower.look) == []
        [kept] = uploads(ladder.db)
        assert kept.state == "refused" and "one entrant, one way in" in kept.detail
        assert "refused" in ladder.told[-1] and [v.name for v in ladder.store.versions()] == ["first", "random"]
    finally:
        ladder.store.close()


@pytest.mark.process
def test_an_uploaded_bot_is_built_checked_and_plays_and_a_broken_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = Ladder(tmp_path, check=True)
    moves: list[tuple[str, str]] = []
    real_mark = follow_module.mark

    def recorded(db: Path, upload: Upload, state: str, detail: str, version: str | None = None) -> Upload:
        moves.append((upload.entrant, state))
        return real_mark(db, upload, state, detail, version)  # type: ignore[arg-type]

    monkeypatch.setattr(follow_module, "mark", recorded)
    try:
        bot = archive({"hearts-bot.toml": f'command = "{sys.executable} bot.py"\n', "bot.py": FIRST})
        receive(ladder.db, "alice", bot, command=None, build=None, now=NOW)
        dies = archive({"bot.py": "import sys\nsys.exit(3)\n"})
        receive(ladder.db, "mallory", dies, command=f"{sys.executable} bot.py", build=None, now=NOW)
        lines = trio.run(ladder.follower.look)
        assert lines[0] == "new entrant alice"
        alice, mallory = uploads(ladder.db)
        assert (alice.state, alice.version) == ("playing", "alice") and ladder.store.active()[-1] == "alice"
        assert mallory.state == "refused" and "failed its start-up check" in mallory.detail
        assert "mallory" not in [v.entrant for v in ladder.store.versions()]
        assert moves == [("alice", s) for s in ("building", "checking", "playing")] + [
            ("mallory", s) for s in ("building", "checking", "refused")
        ]  # each step on the entrant's page as it begins
        # a new upload of alice is its next version; the list saved again keeps it
        better = {"hearts-bot.toml": f'command = "{sys.executable} bot.py"\n', "bot.py": FIRST + "\n# better\n"}
        receive(ladder.db, "alice", archive(better), command=None, build=None, now=NOW)
        assert trio.run(ladder.follower.look)[0] == "new version alice@2 of alice (replaces alice)"
        assert playing(ladder.db)["alice"].version == "alice@2"
        ladder.config.write_text(ladder.config.read_text() + "\n")
        assert trio.run(ladder.follower.look) == []  # the list's edit does not retire the upload
        assert "alice@2" in ladder.store.active()
        assert json.loads((uploads_folder(ladder.db) / "alice" / "2" / "upload.json").read_text())["state"] == "playing"
        assert os.stat(files_of(ladder.db, playing(ladder.db)["alice"])).st_mode & 0o005 == 0o005  # strangers read it
    finally:
        ladder.store.close()


GATES = [
    pytest.param(UploadGate.of_run("off", sandboxed=False, trusted=False), "(--sandbox off)", id="sandbox-off"),
    pytest.param(UploadGate.of_run("auto", sandboxed=False, trusted=False), "bubblewrap does not work", id="no-bwrap"),
    pytest.param(UploadGate.of_run("auto", sandboxed=False, trusted=False, cluster=True), "a worker", id="cluster"),
    pytest.param(None, "no run of it has said", id="not-said"),
]


@pytest.mark.parametrize(("gate", "why"), GATES)
def test_without_a_sandbox_an_upload_is_refused_by_name_and_nothing_of_it_runs(
    tmp_path: Path, gate: UploadGate | None, why: str
) -> None:
    """With ``--sandbox off``, or ``auto`` where bubblewrap does not work, an upload's build
    would run in place as the referee's user: refused (``no-sandbox``) before anything of it
    runs; the organizer is told at the start, and the pages read it (``uploads_closed``)."""
    made = tmp_path / "built-by-the-upload"
    ladder = Ladder(tmp_path, check=True, gate=gate, entrants=["alice", "bob"])
    try:
        [warned] = ladder.told
        assert warned.startswith("uploads are closed (no-sandbox): this ladder runs its bots without a sandbox")
        assert why in warned and "the uploads of its 2 entrant(s) are refused" in warned
        closed = uploads_closed(ladder.db)
        assert closed is not None and warned.startswith(closed)
        bot = archive({"bot.py": FIRST})
        receive(ladder.db, "alice", bot, command=f"{sys.executable} bot.py", build=f"touch {made}", now=NOW)
        assert trio.run(ladder.follower.look) == []
        [kept] = uploads(ladder.db)
        assert kept.state == "refused" and kept.detail == closed
        assert ladder.told[-1] == f"upload 1 of alice: refused ({closed}); the ladder goes on"
        assert not made.exists() and [v.name for v in ladder.store.versions()] == ["first", "random"]
    finally:
        ladder.store.close()


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_a_run_without_a_sandbox_refuses_to_build_an_upload_it_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: SandboxMode
) -> None:
    """A ladder that took an upload (in a sandbox, or trusted) is never run with it outside one:
    ``ladder run`` refuses before any build, naming the way on; ``--trust-uploads`` lets it."""
    ladder = Ladder(tmp_path, check=False)
    try:
        receive(ladder.db, "alice", archive({"bot.py": FIRST}), command=f"{sys.executable} bot.py", build=None, now=NOW)
        assert trio.run(ladder.follower.look)[0] == "new entrant alice"
    finally:
        ladder.store.close()
    if mode == "auto":  # a machine without bubblewrap: auto warns once, then runs bots unsandboxed

        def no_bwrap(asked: str, warn: Callable[[str], None], *args: object, **kwargs: object) -> None:
            warn("bwrap is not installed: bots run unsandboxed")

        monkeypatch.setattr(play_module, "choose_sandbox", no_bwrap)
    monkeypatch.setattr(play_module, "prepare_bots", lambda *args, **kwargs: pytest.fail("a bot was built"))
    plan = LadderPlan(db=ladder.db, entries=read_bots(ladder.config), rules=None, default_rules=ruleset("american"),
                      cwd=tmp_path, sandbox_mode=mode, bot_list=ladder.config)  # fmt: skip
    with pytest.raises(LadderError) as refused:
        play_ladder(plan, RunOutput(quiet=True))
    assert f"this run has no sandbox (--sandbox {mode}" in str(refused.value)
    assert "1 entrant(s) play uploaded bots in this ladder (alice)" in str(refused.value)
    assert "--sandbox on (or --trust-uploads" in str(refused.value)
    check_run(ladder.db, UploadGate.of_run(mode, sandboxed=False, trusted=True))  # the organizer's override


needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.mark.process
@needs_bwrap
def test_in_a_sandbox_an_upload_is_built_on_a_copy_checked_and_plays(tmp_path: Path) -> None:
    """The way uploads are taken: the run's bots in bubblewrap, the upload's build on a copy of
    its files as a stranger (never in place), its start-up check in the sandbox too."""
    warnings: list[str] = []
    sandbox = choose_sandbox("auto", warnings.append)
    assert sandbox is not None, warnings
    gate = UploadGate.of_run("auto", sandboxed=True, trusted=False)
    ladder = Ladder(tmp_path, check=True, gate=gate, sandbox=sandbox, entrants=["alice"])
    try:
        assert ladder.told == [] and uploads_closed(ladder.db) is None  # nothing to tell; the pages take uploads
        manifest = f'command = "{sys.executable} bot.py"\nbuild = "echo built > made.txt"\n'
        receive(ladder.db, "alice", archive({"bot.py": FIRST, "hearts-bot.toml": manifest}), command=None, build=None,
                now=NOW)  # fmt: skip
        assert trio.run(ladder.follower.look)[0] == "new entrant alice"
        [kept] = uploads(ladder.db)
        assert (kept.state, kept.version) == ("playing", "alice")
        built = ladder.follower.built["alice"]
        assert built.copy is not None and (built.copy / "made.txt").read_text() == "built\n"
        assert not (files_of(ladder.db, kept) / "made.txt").exists()  # the upload's own files never written
    finally:
        ladder.store.close()
