"""A command-line bot's folder, ``dir=FOLDER`` (docs/testing-bots.md, "The bots"), and where a
duel's database goes without ``--db`` ("Where the database goes"): never in a bot's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.duel.bots import chosen_bot, split_dir
from referee.duel.folders import own_folders
from referee.duel.where import default_db, state_folder
from referee.errors import LadderError
from referee.players.bot_config import BotConfigError, BotEntry
from tests.duel.helpers import SHORT, quick_first, quick_random
from tests.duel.spread_bot import spread_bot


@pytest.mark.parametrize(
    ("given", "found"),
    [
        ("dir=../previous php bin/hearts-bot", ("../previous", "php bin/hearts-bot")),
        ("'dir=my bots/old'   php  \"a b\"", ("my bots/old", 'php  "a b"')),  # the rest as written
        ("php bin/hearts-bot", (None, "php bin/hearts-bot")),
        ("php dir=x", (None, "php dir=x")),  # the first word only
    ],
)
def test_dir_is_the_first_word(given: str, found: tuple[str | None, str]) -> None:
    assert split_dir(given) == found


@pytest.mark.parametrize(("given", "message"), [("dir= php x", "names no folder"), ("dir=old", "no command after")])
def test_a_dir_without_a_folder_or_a_command_is_refused(given: str, message: str) -> None:
    with pytest.raises(BotConfigError, match=message):
        split_dir(given)


def test_a_bot_runs_from_its_dir_and_an_absolute_path_in_it_is_the_same_bot(tmp_path: Path) -> None:
    old = tmp_path / "old"
    (old / "bin").mkdir(parents=True)
    (old / "bin" / "bot").write_text("")
    here = tmp_path / "new"
    here.mkdir()
    relative = chosen_bot("dir=../old php bin/bot", "old", None, here)
    assert relative == BotEntry(name="old", command="php bin/bot", folder=str(old))
    assert chosen_bot(f"dir=../old php {old}/bin/bot", "old", None, here) == relative
    assert chosen_bot(f"dir={old} {old}/bin/bot", "old", None, here).command == "bin/bot"
    assert chosen_bot("php bin/bot", "new", None, here).folder == str(here)  # no dir=: the current folder
    with pytest.raises(BotConfigError, match=r"dir=nowhere: there is no folder .*nowhere"):
        chosen_bot("dir=nowhere php bin/bot", "old", None, here)


def bots(tmp_path: Path, *folders: str) -> list[BotEntry]:
    entries = []
    for name, folder in zip(("new", "old"), folders, strict=True):
        (tmp_path / folder / "bin").mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "bin" / "bot").write_text("")
        entries.append(BotEntry(name=name, command="php bin/bot", folder=str(tmp_path / folder)))
    return entries


def test_the_database_stays_here_when_here_is_no_bots_folder(tmp_path: Path) -> None:
    found = default_db("duel", bots(tmp_path, "new", "old"), tmp_path)
    assert found.path == tmp_path / "duel.db" and found.crowded == ()


def test_the_database_leaves_a_bots_folder_for_the_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    entries = bots(tmp_path, ".", "previous")
    found = default_db("duel", entries, tmp_path)
    assert found.crowded == ("new",)
    assert found.path.parent == tmp_path / "state" / "hearts-referee" and found.path.name.startswith("duel-")
    assert default_db("duel", entries, tmp_path) == found  # the same command resumes the same duel
    elsewhere = BotEntry(name="old", command="php bin/bot", folder=str(tmp_path))
    other = default_db("duel", [entries[0], elsewhere], tmp_path)
    assert other.path != found.path  # other bots, another duel
    assert default_db("gauntlet", entries, tmp_path).path.name.startswith("gauntlet-")
    monkeypatch.setenv("XDG_STATE_HOME", "relative")  # not absolute: ignored, as the specification says
    assert state_folder() == Path.home() / ".local" / "state" / "hearts-referee"


def test_the_duel_says_where_its_database_went(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def playing(plan: object, *args: object, **kwargs: object) -> None:
        seen.append(str(getattr(plan, "db", "")))
        raise LadderError("not played here")

    monkeypatch.setattr("referee.cli.duel.play_duel", playing)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    bots(tmp_path, ".", "previous")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["duel", "php bin/bot", "dir=previous php bin/bot", "--sandbox", "off"])
    assert result.exit_code == 2 and "not played here" in result.output
    (db,) = seen
    assert Path(db).parent == tmp_path / "state" / "hearts-referee"
    assert f"duel database: {db} (not duel.db here: the current folder is the folder of new" in result.output
    monkeypatch.chdir(tmp_path / "previous")  # dir= is taken from --cwd
    args = ["duel", "dir=. php bin/bot", "dir=previous php bin/bot", "--cwd", "..", "--sandbox", "off"]
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 2 and seen[1] == db


def test_a_crowded_folders_fix_is_given_as_each_bot_was_named() -> None:
    """A command-line bot gets a folder by ``dir=``, a bot of a list by ``folder =`` (a list
    has no ``dir=``); a folder both kinds start in names each kind's fix."""
    by_line = 'dir=FOLDER as its first word, e.g. "dir=../previous php bin/bot"'
    by_list = 'folder = "FOLDER" in its entry of the bot list, e.g. folder = "new"'
    assert own_folders(["new", "old"], ()) == f"give each bot a folder of its own: {by_line}"
    assert own_folders(["new", "old"], {"new", "old"}) == f"give each bot a folder of its own: {by_list}"
    mixed = own_folders(["new", "old"], {"old"})
    assert mixed == f"give each bot a folder of its own: new: {by_line}; old: {by_list}"


@pytest.mark.process
def test_a_gauntlet_runs_its_new_bot_from_its_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``referee gauntlet "dir=FOLDER COMMAND"``: NEW (a bot that reads a config file by a
    relative path, so it starts only from its own folder) plays its set from there, and the
    database stays in the current folder, which is no bot's."""
    tmp_path.chmod(0o755)
    new = spread_bot(tmp_path / "bots" / "new")
    pool = tmp_path / "pool.toml"
    pool.write_text(f"[[bot]]\nname = 'random'\ncommand = {json.dumps(quick_random())}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # where it would go if here were new's folder
    args = ["gauntlet", "dir=bots/new python3 bin/hearts-bot", "--pool", str(pool), "--opponents", quick_first()]
    result = CliRunner().invoke(main, [*args, "--max-sets", "1", *SHORT, "--json"])
    assert result.exit_code == 3, result.output  # one set, no test: no decision, and no broken bot
    found = json.loads(result.stdout)
    assert found["faults"]["new"] == {**found["faults"]["new"], "dropped": 0, "unstarted": False}
    assert found["faults"]["new"]["seats"] > 0 and found["pairings"][0]["sets"] == 1
    assert found["db"] == "gauntlet.db" and (tmp_path / "gauntlet.db").is_file() and not list(new.glob("gauntlet*"))
