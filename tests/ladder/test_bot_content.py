"""A bot's version follows its files (issue 42): the same command over other files is another
program, so another version; what version control, caches and a ``.gitignore`` leave out (a
build's output made in place) is not; and a list may not give the hash itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.ladder.pool import pool_change, same_bot
from referee.players.bot_config import BotConfigError, BotEntry, read_bots
from referee.players.bot_content import MAX_FILES, content_hash, with_content
from referee.store.records import BotVersion

NOW = "2026-12-05T01:00:00+00:00"


def own(tmp_path: Path) -> tuple[Path, BotEntry]:
    folder = tmp_path / "alice"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "lib" / "play.py").write_text("CARD = 1\n")
    return folder, BotEntry(name="alice", command="python3 bot.py", folder="alice")


def test_a_change_to_any_file_of_its_folder_changes_the_hash(tmp_path: Path) -> None:
    folder, entry = own(tmp_path)
    first = content_hash(entry, tmp_path)
    assert first is not None and first == content_hash(entry, tmp_path)  # stable
    (folder / "lib" / "play.py").write_text("CARD = 2\n")
    second = content_hash(entry, tmp_path)
    assert second not in (None, first)
    os.chmod(folder / "bot.py", 0o755)
    assert content_hash(entry, tmp_path) != second  # the executable bit is part of it
    (folder / "lib" / "new.py").write_text("")
    assert len({first, second, content_hash(entry, tmp_path)}) == 3


def test_version_control_caches_and_ignored_files_are_left_out(tmp_path: Path) -> None:
    folder, entry = own(tmp_path)
    (tmp_path / ".gitignore").write_text("# the list's folder ignores the build's output\n/alice/bot\n")
    (folder / ".gitignore").write_text("*.log\nbuild/\n")
    before = content_hash(entry, tmp_path)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: x\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    (folder / "bot").write_bytes(b"\x7fELF made by the build")
    (folder / "run.log").write_text("noise")
    (folder / "build").mkdir()
    (folder / "build" / "out.o").write_bytes(b"\1")
    assert content_hash(entry, tmp_path) == before
    (folder / "README").write_text("not ignored")
    assert content_hash(entry, tmp_path) != before


def test_without_a_folder_the_files_its_command_names(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("a\n")
    (tmp_path / "other.py").write_text("b\n")
    entry = BotEntry(name="b", command="python3 bot.py --fast")
    first = content_hash(entry, tmp_path)
    (tmp_path / "other.py").write_text("c\n")  # another bot's file: not this bot's version
    assert content_hash(entry, tmp_path) == first
    (tmp_path / "bot.py").write_text("changed\n")
    assert content_hash(entry, tmp_path) != first


def test_links_are_hashed_as_links_and_nothing_is_followed_out(tmp_path: Path) -> None:
    folder, entry = own(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("one")
    (folder / "link").symlink_to(secret)
    first = content_hash(entry, tmp_path)
    secret.write_text("two")  # what the link points at is not the bot's
    assert content_hash(entry, tmp_path) == first


def test_a_folder_too_large_or_missing_is_not_hashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, entry = own(tmp_path)
    monkeypatch.setattr("referee.players.bot_content.MAX_FILES", 1)
    assert MAX_FILES > 1 and content_hash(entry, tmp_path) is None
    assert content_hash(BotEntry(name="x", command="true", folder="nowhere"), tmp_path) is None


def test_the_same_command_over_other_files_is_a_new_version(tmp_path: Path) -> None:
    folder, entry = own(tmp_path)
    [first] = with_content([entry], tmp_path)
    change = pool_change([], [first], NOW)
    stored = change.added
    assert [v.name for v in stored] == ["alice"] and stored[0].entry == first
    assert pool_change(stored, with_content([entry], tmp_path), NOW).empty  # unchanged: nothing
    (folder / "bot.py").write_text("print('better')\n")
    changed = pool_change(stored, with_content([entry], tmp_path), NOW)
    assert [v.name for v in changed.added] == ["alice@2"] and changed.retired == ["alice"]
    assert changed.added[0].replaces == "alice"


def test_a_version_that_did_not_know_its_files_learns_them_and_stays(tmp_path: Path) -> None:
    _, entry = own(tmp_path)
    old = BotVersion("alice", "alice", 1, entry.command, entry, 0, added=NOW)  # stored before hashing
    [hashed] = with_content([entry], tmp_path)
    assert same_bot(hashed, old)
    change = pool_change([old], [hashed], NOW)
    assert not change.added and change.entries == {"alice": hashed}  # the stored entry learns it


def test_a_list_may_not_give_the_hash(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_text('[[bot]]\nname = "a"\ncommand = "x"\ncontent = "0000"\n\n[[bot]]\nname = "b"\ncommand = "y"\n')
    with pytest.raises(BotConfigError, match="content"):
        read_bots(path)
