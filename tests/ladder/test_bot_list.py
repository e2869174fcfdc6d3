"""The bot list is read strictly (``referee/players/bot_list_keys.py``): an unknown key is an
error naming the entry and the key it was probably meant to be, and every error names its
entry, by name or by number and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.players.bot_config import BotConfigError, read_bots
from referee.players.bot_list_keys import header_lines, unknown_key


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
