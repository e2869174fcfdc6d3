"""A sandboxed build runs as a stranger on a copy of its bot's folder (issue 22): it cannot
leave a setuid program for anyone, cannot write the operator's files (the folder itself, the
ladder's database, its WAL, its logs), its links are never followed by the referee, and its
bot plays from what it built. Real builds in real sandboxes."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.build_folder import BUILD_FIRST_UID, BUILD_UIDS, copy_for_build
from referee.players.building import build
from referee.sandbox.bwrap import Sandbox, choose_sandbox
from tests.ladder.helpers import PY, ROOT, check_consistent
from tests.ladder.test_run import ladder

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def sandbox() -> Sandbox:
    chosen = choose_sandbox("on", lambda line: None)
    assert chosen is not None
    return chosen


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A bot's own folder, readable by others (as a bot's folder is), with a source file."""
    tmp_path.chmod(0o755)
    made = tmp_path / "mybot"
    made.mkdir(mode=0o755)
    (made / "bot.c").write_text("int main(void) { return 0; }\n")
    return made


def listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(folder)), p.lstat().st_mode) for p in folder.rglob("*"))


@pytest.mark.process
@needs_bwrap
def test_a_build_writes_only_its_copy_as_a_stranger_without_capabilities(folder: Path, tmp_path: Path) -> None:
    before = listing(folder)
    line = (
        "id -u > uid.txt; id -g > gid.txt; pwd > where.txt; grep CapEff /proc/self/status > caps.txt; "
        f"touch {tmp_path}/escaped 2>/dev/null; touch /usr/escaped 2>/dev/null; true"
    )
    built = build(BotEntry(name="b", command="./bot", build=line), folder, sandbox())
    assert built.folder == folder and built.copy is not None
    assert listing(folder) == before  # the operator's folder is never written
    assert not (tmp_path / "escaped").exists() and not Path("/usr/escaped").exists()
    copy = built.copy
    assert (copy / "where.txt").read_text().strip() == str(folder)  # the copy is seen at the folder's path
    assert (copy / "caps.txt").read_text().split() == ["CapEff:", "0000000000000000"]
    if os.geteuid() == 0:  # a uid of its own, neither root nor a bot's
        uid = int((copy / "uid.txt").read_text())
        assert BUILD_FIRST_UID <= uid < BUILD_FIRST_UID + BUILD_UIDS
        assert int((copy / "gid.txt").read_text()) == uid
    for path in [copy, *copy.rglob("*")]:  # sealed: the referee's, nobody else may write
        info = path.lstat()
        assert info.st_uid == os.geteuid(), path
        assert not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH | stat.S_ISUID | stat.S_ISGID), path


@pytest.mark.process
@needs_bwrap
def test_a_setuid_program_made_by_a_build_is_nobodys(folder: Path) -> None:
    """The reported attack: a build made a setuid-root copy of ``id``, and another user ran it
    with euid 0. Now the copy is made by a stranger on a nosuid mount, and sealed without the bit."""
    line = "cp /usr/bin/id myid && chmod 4755 myid && mkdir open && chmod 2777 open && stat -c %a myid > mode.txt"
    built = build(BotEntry(name="s", command="./bot", build=line), folder, sandbox())
    assert built.copy is not None
    assert (built.copy / "mode.txt").read_text().strip() == "4755"  # it set the bit, inside
    made = (built.copy / "myid").lstat()
    assert not made.st_mode & (stat.S_ISUID | stat.S_ISGID)
    assert stat.S_IMODE((built.copy / "open").lstat().st_mode) == 0o755
    assert not (folder / "myid").exists()


@pytest.mark.process
@needs_bwrap
def test_links_a_build_plants_are_copied_never_followed(folder: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0o600)
    os.symlink(secret, folder / "planted")  # a link in the bot's folder before the build
    os.mkfifo(folder / "fifo")  # a reader of it would wait for ever
    line = f"ln -s {secret} again && ln -s / root && (cat planted > read.txt 2>&1 || true)"
    built = build(BotEntry(name="l", command="./bot", build=line), folder, sandbox())
    assert built.copy is not None
    assert os.readlink(built.copy / "planted") == str(secret)  # copied as a link
    assert os.readlink(built.copy / "again") == str(secret) and os.readlink(built.copy / "root") == "/"
    assert not (built.copy / "fifo").exists()  # special files are left out
    assert secret.stat().st_uid == os.geteuid() and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert "x" not in (built.copy / "read.txt").read_text()  # the secret is not in its sight


@pytest.mark.process
@needs_bwrap
def test_a_failed_build_is_named(folder: Path) -> None:
    with pytest.raises(BotConfigError, match=r"building f failed: sh -c .* exited with code 4"):
        build(
            BotEntry(name="f", command="./bot", build="cp /usr/bin/id x && chmod 4755 x && exit 4"), folder, sandbox()
        )


def test_a_folder_too_big_to_copy_names_the_way_out(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.players.build_folder.MAX_FILES", 3)
    for index in range(5):
        (folder / f"f{index}").write_text("x")
    with pytest.raises(Exception, match=r"holds more than 3 files: give the bot a folder of its own"):
        copy_for_build(folder, "big")


def test_the_referees_files_are_left_out_of_the_copy(folder: Path) -> None:
    (folder / "ladder.db").write_text("private")
    (folder / "ladder-logs").mkdir()
    (folder / "ladder-logs" / "1-0.jsonl").write_text("hands")
    copy = copy_for_build(folder, "p", [folder / "ladder.db", folder / "ladder-logs"])
    assert sorted(p.name for p in copy.iterdir()) == ["bot.c"]


def test_unsandboxed_a_build_refuses_a_folder_that_holds_the_ladder(folder: Path) -> None:
    entry = BotEntry(name="u", command="./bot", build="touch made")
    with pytest.raises(BotConfigError, match=r"which holds the ladder's .*/mybot/ladder.db: move the database"):
        build(entry, folder, None, [folder / "ladder.db", folder / "ladder.db-wal"])
    assert not (folder / "made").exists()


@pytest.mark.process
@needs_bwrap
def test_a_build_cannot_forge_the_wal_or_redirect_the_logs(tmp_path: Path) -> None:
    """The reported attacks: a build wrote ``ladder.db-wal`` beside the database in its folder
    (forged ratings on resume) and planted a link where the logs folder goes (the root referee
    chmodded and wrote through it). The ladder's files lie in the bot's folder here: the build
    works on a copy without them, and what it plants there lands in the copy."""
    tmp_path.chmod(0o755)
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o755)
    first = ROOT / "tests" / "bots" / "first_legal_bot.py"
    (folder / "bot.py").write_text(first.read_text())
    db = folder / "l.db"
    line = f"echo forged > l.db-wal; ln -s {outside} l-logs; ln -s {outside}/x l.db.lock; true"
    (folder / "bots.toml").write_text(
        f'[[bot]]\nname = "a"\ncommand = "{PY} bot.py"\nbuild = "{line}"\n\n'
        f'[[bot]]\nname = "b"\ncommand = "{PY} bot.py"\n'
    )
    result = ladder("run", str(folder / "bots.toml"), "--games", "1", "--db", str(db), "--sandbox", "on")
    assert result.exit_code == 0, result.output
    assert not (folder / "l-logs").is_symlink() and (folder / "l-logs").is_dir()
    assert list(outside.iterdir()) == []
    wal = folder / "l.db-wal"
    assert not wal.exists() or b"forged" not in wal.read_bytes()
    assert check_consistent(db) == {"done": 4, "total": 4}
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
