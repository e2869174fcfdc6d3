"""The bot list is read strictly (``referee/players/bot_list_keys.py``): an unknown key is an
error naming the entry and the key it was probably meant to be, and every error names its
entry, by name or by number and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.players.bot_config import BotConfigError, read_bots
from referee.players.bot_list_keys import header_lines, unknown_key
from tests.ladder.hostile_lists import DOTENV


def refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bots.toml"
    path.write_text(text)
    with pytest.raises(BotConfigError) as info:
        read_bots(path)
    return str(info.value)


def test_a_misspelt_key_is_named_with_the_key_it_was_meant_to_be(tmp_path: Path) -> None:
    message = refusal(tmp_path, '[[bot]]\nname = "a"\ncommand = "./bot"\nbuidl = "make"\n')
    assert message.endswith("bots.toml: bot 'a' (entry 1, line 1): unknown key `buidl`: did you mean `build`?")


def test_keys_that_do_nothing_are_refused_not_ignored(tmp_path: Path) -> None:
    text = '[[bot]]\nname = "a"\ncommand = "x"\n\n[[bot]]\nname = "b"\ncommand = "y"\ntimeout = 5\nsandbox = "off"\n'
    message = refusal(tmp_path, text)
    assert "bot 'b' (entry 2, line 5): unknown key `timeout`: did you mean `build_timeout`?" in message
    assert "bot 'b' (entry 2, line 5): unknown key `sandbox` (known: name, command, build, folder, build_timeout)" in (
        message
    )


def test_a_plural_header_and_a_taken_name_name_their_entries(tmp_path: Path) -> None:
    assert "the list: unknown key `bots`: did you mean `bot`?" in refusal(tmp_path, '[[bots]]\nname = "a"\n')
    text = '[[bot]]\nname = "a"\ncommand = "x"\n\n[[bot]]\nname = "a"\ncommand = "y"\n'
    message = refusal(tmp_path, text)
    assert "bot 'a' (entry 2, line 5): the name 'a' is taken by bot 'a' (entry 1, line 1); every bot needs its own" in (
        message
    )


def test_a_wrong_value_names_its_entry(tmp_path: Path) -> None:
    message = refusal(tmp_path, '[[bot]]\nname = "a"\ncommand = "x"\n\n[[bot]]\nname = "b"\ncommand = 3\n')
    assert "bot 'b' (entry 2, line 5): Expected `str`, got `int` - at `$.bot[1].command`" in message
    message = refusal(tmp_path, '[[bot]]\ncommand = "x"\n')
    assert "bot entry 1 (line 1): Object missing required field `name`" in message
    assert "bot entry 1 has an empty name" in refusal(tmp_path, '[[bot]]\nname = " "\ncommand = "x"\n')


def test_the_sample_lists_are_strictly_right() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in [*root.glob("sample_bots/*.toml"), *root.glob("referee/bench/data/*.toml")]:
        assert read_bots(path), path


def test_lines_and_suggestions() -> None:
    assert header_lines('cwd = ".."\n\n[[bot]]\nname = "a"\n  [[ bot ]]\n') == [3, 5]
    assert unknown_key("comand", ["name", "command"]) == "unknown key `comand`: did you mean `command`?"
    assert unknown_key("zzz", ["name"]) == "unknown key `zzz` (known: name)"


def test_a_file_that_is_no_bot_list_is_refused_without_quoting_its_keys(tmp_path: Path) -> None:
    """A symlinked ``.env`` is valid TOML: its key names are the organizer's secrets' names and
    are never printed; a real list's typo of ``[[bot]]`` is still named with its fix."""
    message = refusal(tmp_path, DOTENV)
    assert message.endswith(
        "bots.toml: not a bot list: it has no [[bot]] table; 3 other keys no bot list has (not shown)"
    )
    for key in ("SECRET_KEY", "DATABASE_PASSWORD", "API_TOKEN", "hunter2"):
        assert key not in message
    message = refusal(tmp_path, f'{DOTENV}\n[[bots]]\nname = "a"\n')
    assert "the list: unknown key `bots`: did you mean `bot`?; 3 other keys no bot list has (not shown)" in message
    assert "SECRET_KEY" not in message
    assert refusal(tmp_path, "").endswith("bots.toml: not a bot list: it has no [[bot]] table")
    assert "it has no [[bot]] table" in refusal(tmp_path, '[bot]\nname = "a"\ncommand = "x"\n')  # one table, not a list
    # a list with its [[bot]] tables: every unknown key is named, as a typo's fix needs
    message = refusal(tmp_path, '[[bot]]\nname = "a"\ncommand = "x"\n\n[[bot]]\nname = "b"\ncommand = "y"\ncmd = 1\n')
    assert "unknown key `cmd`" in message


@pytest.mark.parametrize("name", [".", ".."])
def test_a_name_that_is_a_path_segment_is_refused(name: str, tmp_path: Path) -> None:
    message = refusal(tmp_path, f'[[bot]]\nname = "a"\ncommand = "x"\n\n[[bot]]\nname = "{name}"\ncommand = "y"\n')
    assert message.endswith(f"bots.toml: bot entry 2: the name '{name}' is a path segment (its page /bot/{name} would"
                            " be another address); give the bot another name")  # fmt: skip


def test_names_with_dots_that_are_no_path_segment_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_text('[[bot]]\nname = "..."\ncommand = "x"\n\n[[bot]]\nname = ".a"\ncommand = "y"\n')
    assert [e.name for e in read_bots(path)] == ["...", ".a"]
