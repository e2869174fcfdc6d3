"""A build's output can be any tree (issue 31): deeper than ``PATH_MAX``, deeper than Python's
recursion limit, names of any bytes, links that loop, FIFOs. The copy, the seal and the removal
walk it by open folder descriptors (``referee.players.tree_walk``), never by whole paths,
one descriptor whatever the depth, and follow no link. Real trees on disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.players.build_folder import copy_for_build, remove_tree, seal
from referee.players.tree_walk import FOLDER_FLAGS, TreeError, walk

LONG = "d" * 40
DEPTH = 200
"""200 folders of 40 characters: 8,200 bytes of path, twice ``PATH_MAX``."""
WEIRD = [os.fsdecode(b"caf\xe9-\xff\xfe"), "two\nlines", " lead and trail ", "-rf", "\u202eevil"]
"""Names a build may make: not UTF-8, a newline, spaces, a dash, a right-to-left mark."""
STRIPPED = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH


def nest(top: Path, name: str, depth: int) -> Iterator[int]:
    """Make ``depth`` nested folders ``name`` under ``top`` one step at a time (a whole path would
    be too long): each folder's descriptor, in turn (each closed once the next is made)."""
    here = os.open(top, FOLDER_FLAGS)
    try:
        for _ in range(depth):
            os.mkdir(name, 0o755, dir_fd=here)
            below = os.open(name, FOLDER_FLAGS, dir_fd=here)
            os.close(here)
            here = below
        yield here
    finally:
        os.close(here)


def descend(top: Path, name: str) -> tuple[int, list[str], int]:
    """Go down ``name`` folders from ``top`` while there is one: how deep, what the deepest
    holds, and the contents of its ``leaf`` file as an int (0: none)."""
    here = os.open(top, FOLDER_FLAGS)
    depth = 0
    try:
        while name in os.listdir(here):
            below = os.open(name, FOLDER_FLAGS, dir_fd=here)
            os.close(here)
            here, depth = below, depth + 1
        held = sorted(os.listdir(here))
        leaf = os.open("leaf", os.O_RDONLY, dir_fd=here) if "leaf" in held else None
        value = int(os.read(leaf, 100) or b"0") if leaf is not None else 0
        if leaf is not None:
            os.close(leaf)
        return depth, held, value
    finally:
        os.close(here)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A bot's folder as a hostile build leaves it: deep, oddly named, links, a FIFO, setuid."""
    top = tmp_path / "bot"
    top.mkdir()
    for here in nest(top, LONG, DEPTH):
        leaf = os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(leaf, b"200")
        os.fchmod(leaf, 0o4777)  # setuid, and anybody may write
        os.close(leaf)
        os.symlink("leaf", "to-leaf", dir_fd=here)
    for name in WEIRD:
        (top / name).mkdir()
        (top / name / name).write_bytes(b"odd")
    os.symlink("loop", top / "loop")  # a link to itself
    os.symlink("/etc/passwd", top / "passwd")
    os.mkfifo(top / "fifo")
    (top / "open").mkdir(mode=0o777)
    (top / "open").chmod(0o3777)
    return top


def entries(folder: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry under ``folder`` (by the walk itself: a whole path would be too long)."""
    found: list[tuple[str, os.stat_result]] = []

    def visit(at: int, name: str, info: os.stat_result) -> bool:
        found.append((name, info))
        return stat.S_ISDIR(info.st_mode)

    top = os.open(folder, FOLDER_FLAGS)
    try:
        walk(top, visit)
    finally:
        os.close(top)
    return iter(found)


def test_a_tree_deeper_than_path_max_with_any_names_is_copied_whole(tree: Path) -> None:
    copy = copy_for_build(tree, "deep")
    assert descend(copy, LONG) == (DEPTH, ["leaf", "to-leaf"], 200)
    for name in WEIRD:
        assert (copy / name / name).read_bytes() == b"odd"
    assert os.readlink(copy / "loop") == "loop" and os.readlink(copy / "passwd") == "/etc/passwd"
    assert not (copy / "fifo").exists() and not (copy / "fifo").is_symlink()  # special files left out
    assert stat.S_IMODE((copy / "open").stat().st_mode) == 0o755  # no sticky, setgid or others' write
    kept = [info for _, info in entries(copy) if not stat.S_ISLNK(info.st_mode)]  # a link's mode is 0777
    assert not any(info.st_mode & (stat.S_ISUID | stat.S_IWOTH) for info in kept)
    remove_tree(copy)
    assert not copy.exists()


def test_the_seal_gives_every_entry_of_a_deep_tree_to_the_referee(tree: Path) -> None:
    seal(tree)
    seen = list(entries(tree))
    assert len(seen) == DEPTH + 2 + 2 * len(WEIRD) + 4
    for name, info in seen:
        assert info.st_uid == os.geteuid(), name
        assert stat.S_ISLNK(info.st_mode) or not info.st_mode & STRIPPED, name
    assert stat.S_ISFIFO((tree / "fifo").lstat().st_mode)  # sealed in place, never opened
    assert Path("/etc/passwd").stat().st_uid == 0  # what a link points to is never touched


@pytest.fixture
def deeper(tmp_path: Path) -> Iterator[Path]:
    """1,500 nested folders in ``tmp_path``, removed after the test (pytest's own clean-up,
    ``shutil.rmtree``, would fail past the recursion limit)."""
    for _ in nest(tmp_path, "d", 1500):
        pass
    yield tmp_path
    remove_tree(tmp_path / "d")


def test_the_walk_holds_one_descriptor_past_the_recursion_limit(deeper: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    most = [0]

    def visit(at: int, name: str, info: os.stat_result) -> bool:
        most[0] = max(most[0], len(os.listdir("/proc/self/fd")))
        return stat.S_ISDIR(info.st_mode)

    top = os.open(deeper, FOLDER_FLAGS)
    walk(top, visit)
    os.close(top)
    assert most[0] <= before + 3  # the walk's folder and listdir's own; not one per level
    copy = copy_for_build(deeper, "deeper")
    assert descend(copy, "d")[0] == 1500
    seal(copy)
    remove_tree(copy)  # shutil.rmtree would recurse 1,500 levels deep
    assert not copy.exists()


def test_an_entry_that_cannot_be_walked_is_named_with_its_depth(tmp_path: Path) -> None:
    for here in nest(tmp_path, "d", 3):
        os.symlink("elsewhere", "link", dir_fd=here)
    top = os.open(tmp_path, FOLDER_FLAGS)
    try:
        with pytest.raises(TreeError, match=r"^'link' \(3 folders deep\): not a folder, cannot be gone into$"):
            walk(top, lambda at, name, info: True)  # a visitor that asks to go into a link
    finally:
        os.close(top)
