"""A bot list's file is read as hostile input (``referee/players/list_file.py``, issue 41): only a
regular file (a symlink to one included) of at most 1 MiB, opened without blocking and checked
after opening; anything else is refused at once, named, and never read; every reader of a list
(``read_bots``, ``config_folder``, the command lines) refuses it so."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.players.bot_config import BotConfigError, config_folder, read_bots
from referee.players.list_file import MAX_LIST_BYTES, ListMissing, read_list_file
from tests.ladder.helpers import BOTS
from tests.ladder.hostile_lists import HOSTILE, writer_at

GOOD = "".join(f'[[bot]]\nname = "{name}"\ncommand = "{BOTS[name]}"\n\n' for name in ("first", "random"))
"""A list that reads: what a blocked reader of a FIFO would be handed (``writer_at``)."""


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_list_that_is_no_regular_file_or_too_big_is_refused_by_name(kind: str, tmp_path: Path) -> None:
    make, words = HOSTILE[kind]
    path = tmp_path / "bots.toml"
    make(path)
    for read in (read_bots, config_folder, read_list_file):
        with writer_at(path, GOOD) if "fifo" in kind else nullcontext(), pytest.raises(BotConfigError) as info:
            read(path)
        assert str(info.value).startswith(f"{path}: ") and words in str(info.value), read
        assert not isinstance(info.value, ListMissing)


def test_a_symlink_to_a_regular_list_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text(GOOD)
    (tmp_path / "bots.toml").symlink_to(tmp_path / "real.toml")
    assert [e.name for e in read_bots(tmp_path / "bots.toml")] == ["first", "random"]


def test_a_list_of_the_largest_size_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_bytes(GOOD.encode() + b"#" * (MAX_LIST_BYTES - len(GOOD)))
    assert len(read_list_file(path)) == MAX_LIST_BYTES and len(read_bots(path)) == 2
    path.write_bytes(path.read_bytes() + b"#")
    with pytest.raises(BotConfigError, match=f"is {MAX_LIST_BYTES + 1:,} bytes"):
        read_list_file(path)


def test_a_list_that_grows_while_it_is_read_is_cut_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its size said it was small when it was opened; what is read is still bounded."""
    path = tmp_path / "bots.toml"
    path.write_text(GOOD)
    wanted: list[int] = []

    def growing(fd: int, size: int) -> bytes:  # a file that another hand keeps appending to
        wanted.append(size)
        return b"#" * min(size, 4096)

    monkeypatch.setattr(os, "read", growing)
    with pytest.raises(BotConfigError, match="grew past 1,048,576 bytes while it was read"):
        read_list_file(path)
    assert sum(min(n, 4096) for n in wanted) == MAX_LIST_BYTES + 1  # never a byte more than the limit and one


def test_no_file_at_all_is_a_missing_list(tmp_path: Path) -> None:
    (tmp_path / "dangling.toml").symlink_to(tmp_path / "nowhere")
    for name in ("nothing.toml", "dangling.toml"):
        with pytest.raises(ListMissing, match=f"{name}: no such file"):
            read_bots(tmp_path / name)


@pytest.mark.parametrize("kind", ["fifo", "dev_null", "big", "socket", "link_to_fifo"])
def test_the_command_lines_refuse_it_by_name(kind: str, tmp_path: Path) -> None:
    make, words = HOSTILE[kind]
    path = tmp_path / "bots.toml"
    make(path)
    for args, status in (
        (["ladder", "run", str(path), "--db", str(tmp_path / "l.db")], 1),
        (["duel", "first", "random", "--bots", str(path), "--db", str(tmp_path / "d.db")], 2),  # a bad --bots
    ):
        with writer_at(path, "[[bot]\n") if "fifo" in kind else nullcontext():  # a blocked reader: a TOML error
            result = CliRunner().invoke(main, args)
        assert result.exit_code == status, (args, result.output)
        assert words in result.output and "internal error" not in result.output, args
    assert not (tmp_path / "l.db").exists() and not (tmp_path / "d.db").exists()
