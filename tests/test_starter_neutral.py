"""``referee new LANGUAGE FOLDER`` for a language without a kit (issue 43): the refusal says
where the protocol, its JSON Schema and the vectors are and how to get a neutral folder;
``--neutral`` writes a README whose commands parse (and whose check passes) and a transcript of
one round, played by a real sample bot, whose every request has its answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol.codec import decode_bot, decode_referee
from referee.cli import main
from referee.starter import DOCS, SAMPLES, TRANSCRIPT_FILE, make_neutral_folder
from tests.test_docs_commands import extract, verify

ANSWERS = {"hello": "hello", "pass_request": "pass", "play_request": "play", "declare_request": "declare"}


def test_a_language_without_a_kit_is_pointed_to_the_protocol(tmp_path: Path) -> None:
    folder = tmp_path / "phpbot"
    result = CliRunner().invoke(main, ["new", "php", str(folder)])
    assert result.exit_code == 1 and not folder.exists()
    for name in ("protocol.md", "protocol.schema.json", "vectors.md"):
        assert str(DOCS / name) in result.output and (DOCS / name).is_file()
    assert f"referee new php {folder} --neutral" in result.output
    wrong = CliRunner().invoke(main, ["new", "python", str(folder), "--command", "python3 x.py"])
    assert wrong.exit_code == 2 and "--command is for --neutral" in wrong.output


def test_a_language_without_a_kit_is_pointed_to_the_protocol_without_a_folder(tmp_path: Path) -> None:
    """``referee new php``, the issue's own words: the same pointers as with a FOLDER (it
    stands in the --neutral line), not only click's "Missing argument"; a language with a kit,
    or --neutral, still needs its FOLDER."""
    folder = tmp_path / "phpbot"
    given = CliRunner().invoke(main, ["new", "php", str(folder)])
    alone = CliRunner().invoke(main, ["new", "php"])
    assert alone.exit_code == given.exit_code == 1
    assert alone.output == given.output.replace(str(folder), "FOLDER")
    assert "referee new php FOLDER --neutral" in alone.output and str(DOCS / "vectors.md") in alone.output
    for args in (["new", "python"], ["new", "php", "--neutral"]):
        missing = CliRunner().invoke(main, args)
        assert missing.exit_code == 2 and "Missing argument 'FOLDER'" in missing.output
    assert "new [OPTIONS] LANGUAGE FOLDER\n" in CliRunner().invoke(main, ["new", "--help"]).output


def test_the_neutral_readme_names_real_files_and_commands_that_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "rubybot"
    assert make_neutral_folder("ruby", folder, ">> {}\n") == "ruby bot.rb"
    readme = folder / "README.md"
    text = readme.read_text()
    assert 'referee check "ruby bot.rb"' in text
    assert (
        f"referee ladder run {tmp_path}/hearts-ladder/bots.toml --games 10 --db {tmp_path}/hearts-ladder/ladder.db"
        in text
    )
    assert all(str(DOCS / name) in text for name in ("protocol.md", "protocol.schema.json", "vectors.md"))
    commands = extract(readme)
    assert {c.text.split()[1] for c in commands if not c.inline} == {"check", "match", "ladder"}
    monkeypatch.chdir(folder)
    for command in commands:
        verify(command)
    assert make_neutral_folder("cobol", tmp_path / "other", "", "./run.sh") == "./run.sh"
    assert make_neutral_folder("cobol", tmp_path / "third", "") == "./bot"


@pytest.mark.process
def test_a_neutral_folder_holds_a_played_round_and_its_check_passes(tmp_path: Path) -> None:
    """The transcript comes from a match the referee plays with its sample bot; a bot that
    answers as the README's command (here the sample bot itself) passes the README's check."""
    tmp_path.chmod(0o755)  # a sandboxed bot runs as a user of its own
    folder = tmp_path / "phpbot"
    command = f"{sys.executable} {SAMPLES}/python/random_bot.py"
    result = CliRunner().invoke(main, ["new", "php", str(folder), "--neutral", "--command", command])
    assert result.exit_code == 0, result.output
    lines = (folder / TRANSCRIPT_FILE).read_text().splitlines()
    asked: list[tuple[str, int | None]] = []
    for line in lines:
        arrow, _, message = line.partition(" ")
        fields = json.loads(message)
        if arrow == ">>":
            decode_referee(message.encode())  # a valid referee message
            if fields["type"] in ANSWERS:
                asked.append((fields["type"], fields.get("id")))
        else:
            assert arrow == "<<" and asked, line
            decode_bot(message.encode())  # a valid bot message, then the answer to the request before it
            assert (fields["type"], fields.get("id")) == (ANSWERS[asked[-1][0]], asked.pop()[1])
    assert not asked and sum(line.startswith("<<") for line in lines) >= 14  # a hello, a pass, 13 plays
    check = next(c for c in extract(folder / "README.md") if c.text.startswith("referee check"))
    assert check.text == f'referee check "{command}"'
    ran = subprocess.run(
        [sys.executable, "-m", "referee.cli", "check", command, "--only", "handshake.*"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
