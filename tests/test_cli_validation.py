"""Hostile command lines: every bad value of every ``referee`` command is one ``Error:`` line
naming the problem, exit status 2 (usage) or 1 (a file or a rule set), never a traceback, and
it is found before any bot process or build step starts."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.players import building
from referee.players.process import ProcessLink

BOT = f"{sys.executable} -c pass"
BOTS = [BOT] * 4
BINARY = b"\xff\xfe\x00\x81garbage\xc3"


@pytest.fixture(autouse=True)
def no_processes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any bot started or build step run fails the test: bad input must stop everything first."""

    async def start(*args: object, **kwargs: object) -> ProcessLink:
        raise AssertionError("a bot was started")

    def run(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        raise AssertionError("a build step was run")

    monkeypatch.setattr(ProcessLink, "start", start)
    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(building, "run_build", run)  # builds run through it (bounded output and time)
    yield


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run in, with a regular file (``afile``, a path under it cannot be created),
    a folder, bot lists good and bad, and files that are not what they claim to be."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "binary.toml").write_bytes(BINARY)
    (tmp_path / "binary.jsonl").write_bytes(BINARY)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "text.db").write_text("hello, I am not SQLite\n")
    (tmp_path / "random.db").write_bytes(bytes(range(256)) * 16)
    (tmp_path / "syntax.toml").write_text('[[bot]]\nname = "a"\ncommand = "x\n')
    bots: dict[str, list[tuple[str, str, str | None]]] = {
        "ok": [("a", BOT, None), ("b", BOT, None)],
        "quote": [("a", "python3 'x.py", None), ("b", BOT, None)],
        "empty": [("a", "", None), ("b", BOT, None)],
        "spaces": [("a", "   ", None), ("b", BOT, None)],
        "nul": [("a", "python3\u0000x", None), ("b", BOT, None)],
        "build": [("a", BOT, "make 'x"), ("b", BOT, None)],
        "noname": [(" ", BOT, None), ("b", BOT, None)],
    }
    for stem, entries in bots.items():
        text = "".join(
            f"[[bot]]\nname = {json.dumps(n)}\ncommand = {json.dumps(c)}\n"
            + (f"build = {json.dumps(b)}\n" if b is not None else "")
            for n, c, b in entries
        )
        (tmp_path / f"{stem}.toml").write_text(text)
    return tmp_path


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def refused(result: Result, code: int, message: str) -> None:
    """Exit ``code``, one ``Error:`` line on stderr holding ``message``, no traceback."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    assert message in errors[0], errors[0]
    assert "internal error" not in result.output


def hard_files_limit() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 1 << 20 if hard == resource.RLIM_INFINITY else hard


TIMES = [
    ("nan", "'nan' is not a finite number of seconds"),
    ("inf", "'inf' is not a finite number of seconds"),
    ("-inf", "is not a finite number of seconds"),
    ("-1", "'-1' seconds: must be"),
    ("soon", "'soon' is not a number of seconds"),
    ("1e9", "at most 86400"),
    ("1e-300", "at least 0.001"),  # would be sent to bots as 0 ms
]


MATCH_TIMES = [
    *[("--time-per-move", value, message) for value, message in [*TIMES, ("0", "must be at least 0.001")]],
    *[("--time-bank", value, message) for value, message in TIMES],  # a bank may be 0
]


@pytest.mark.parametrize(("option", "value", "message"), MATCH_TIMES)
@pytest.mark.parametrize("command", [["match"], ["serve"], ["ladder", "run", "ok.toml"]])
def test_times_must_be_finite_and_positive(
    files: Path, command: list[str], option: str, value: str, message: str
) -> None:
    seats = BOTS if command == ["match"] else [] if command[0] == "ladder" else ["a", "b", "c", "d"]
    refused(run(*command, option, value, *seats), 2, message)


@pytest.mark.parametrize(("value", "message"), TIMES)
@pytest.mark.parametrize(
    "command",
    [
        ["match", "--startup"],
        ["match", "--connect-timeout"],
        ["serve", "--connect-timeout"],
        ["ladder", "run", "ok.toml", "--startup"],
        ["check", BOT, "--time-per-move"],
        ["check", BOT, "--startup"],
        ["check", "tcp:x", "--connect-timeout"],
        ["bench", "engine", "--seconds"],
    ],
)
def test_every_time_option_is_checked(files: Path, command: list[str], value: str, message: str) -> None:
    seats = BOTS if command[0] == "match" else ["a", "b", "c", "d"] if command[0] == "serve" else []
    refused(run(*command, value, *seats), 2, message)


def test_a_bank_of_zero_is_allowed_and_zero_startup_is_not(files: Path) -> None:
    refused(run("match", "--time-bank", "0", "--startup", "0", *BOTS), 2, "'--startup': '0' seconds: must be at least")


CASES: list[tuple[list[str], int, str]] = [
    # bot commands
    (["match", "python3 'x.py", BOT, BOT, BOT], 2, '"python3 \'x.py": no closing quotation'),
    (["match", BOT, "", BOT, BOT], 2, "the bot's command line is empty"),
    (["match", BOT, "   ", BOT, BOT], 2, "the bot's command line is empty"),
    (["match", BOT, BOT, "python3 x\\", BOT], 2, "no escaped character"),
    (["match", BOT, BOT, BOT, "python3\0x"], 2, "holds a NUL character"),
    (["check", "python3 'x.py"], 2, "no closing quotation"),
    (["check", "  "], 2, "the bot's command line is empty"),
    (["bench", "match", "--bot", "python3 'x"], 2, "no closing quotation"),
    (["bench", "match", "--bot", ""], 2, "the bot's command line is empty"),
    (["bench", "match", "--bot", "{python} {nope}"], 2, "bad placeholder 'nope'"),
    (["bench", "match", "--bot", "{python} {"], 2, "bad placeholder"),
    # ports and hosts
    (["match", "--port", "70000", "tcp:a", BOT, BOT, BOT], 2, "70000 is not in the range 0<=x<=65535"),
    (["match", "--port", "-1", "tcp:a", BOT, BOT, BOT], 2, "-1 is not in the range 0<=x<=65535"),
    (["serve", "--port", "65536", "a", "b", "c", "d"], 2, "65536 is not in the range"),
    (["check", "tcp:x", "--port", "99999"], 2, "99999 is not in the range"),
    (["match", "--host", "no.such.host.invalid", *BOTS], 2, "cannot resolve host 'no.such.host.invalid'"),
    (["serve", "--host", "no.such.host.invalid", "a", "b", "c", "d"], 2, "cannot resolve host"),
    (["check", "tcp:x", "--host", "no.such.host.invalid"], 2, "cannot resolve host"),
    (["match", "--host", "192.0.2.1", "tcp:a", BOT, BOT, BOT], 2, "cannot listen on 192.0.2.1:0"),
    (["serve", "--host", "192.0.2.1", "a", "b", "c", "d"], 2, "cannot listen on 192.0.2.1:0"),
    # analysis budgets: --analysis-budget of play, --budget of analyze (one range, Budget.at_most)
    (["play", "--analysis-budget", "0", BOT, BOT, BOT], 2, "0 is not in the range 8<=x<=100000"),
    (["play", "--analysis-budget", "-5", BOT, BOT, BOT], 2, "-5 is not in the range 8<=x<=100000"),
    (["play", "--analysis-budget", str(2**70), BOT, BOT, BOT], 2, "is not in the range 8<=x<=100000"),
    (["play", "--analysis-budget", "many", BOT, BOT, BOT], 2, "'many' is not a valid integer"),
    (["analyze", "empty.jsonl", "--budget", "7"], 2, "7 is not in the range 8<=x<=100000"),
    # limits
    (["match", "--files-limit", "99999999999", *BOTS], 2, "the referee's hard RLIMIT_NOFILE"),
    (["match", "--files-limit", "0", *BOTS], 2, "0 is not in the range 1 to"),
    (["match", "--cpu-limit", "0", *BOTS], 2, "0 is not in the range 1<=x<="),
    (["match", "--cpu-limit", "-1", *BOTS], 2, "-1 is not in the range"),
    (["match", "--cpu-limit", str(10**30), *BOTS], 2, "is not in the range"),
    (["match", "--memory-limit", "0", *BOTS], 2, "0 is not in the range"),
    (["match", "--memory-limit", "-1", *BOTS], 2, "-1 is not in the range"),
    (["match", "--memory-limit", "99999999999999", *BOTS], 2, "is not in the range"),
    # bot environment and folder
    (["match", "--bot-env", "FOO", *BOTS], 2, "expected NAME=VALUE, got 'FOO'"),
    (["match", "--bot-env", "=x", *BOTS], 2, "the variable's name is empty in '=x'"),
    (["match", "--bot-env", "A=\0", *BOTS], 2, "holds a NUL character"),
    (["match", "--bot-cwd", "nosuchdir", *BOTS], 2, "'nosuchdir' does not exist"),
    (["match", "--bot-cwd", "afile", *BOTS], 2, "'afile' is a file"),
    # counts and seeds
    (["match", "--illegal-move-cap", "-1", *BOTS], 2, "-1 is not in the range x>=0"),
    (["match", "--seed", "one", *BOTS], 2, "'one' is not a valid integer"),
    (["match", "--seed", "1.5", *BOTS], 2, "'1.5' is not a valid integer"),
    (["serve", "--matches", "0", "a", "b", "c", "d"], 2, "0 is not in the range 1<=x<=100000"),
    (["serve", "--matches", "-3", "a", "b", "c", "d"], 2, "-3 is not in the range"),
    (["serve", "--seed", "x", "a", "b", "c", "d"], 2, "'x' is not a valid integer"),
    (["demo", "--seed", "x"], 2, "'x' is not a valid integer"),
    (["ladder", "run", "ok.toml", "--games", "0"], 2, "0 is not in the range 1<=x<=100000"),
    (["ladder", "run", "ok.toml", "--games", "-1"], 2, "-1 is not in the range"),
    (["ladder", "run", "ok.toml", "--concurrency", "0"], 2, "0 is not in the range 1<=x<=256"),
    (["ladder", "run", "ok.toml", "-k", "100000"], 2, "100000 is not in the range 1<=x<=256"),
    (["ladder", "run", "ok.toml", "--seed", "x"], 2, "'x' is not a valid integer"),
    (["bench", "match", "--games", "0"], 2, "0 is not in the range 1<=x<=100000"),
    (["bench", "match", "--games", "-1", "--concurrency", "2"], 2, "-1 is not in the range"),
    (["bench", "match", "--concurrency", "-1"], 2, "-1 is not in the range 0<=x<=256"),
    (["check", BOT, "--jobs", "0"], 2, "0 is not in the range x>=1"),
    # output files: under a regular file, under /proc, a device, a folder
    (["match", "--log", "afile/x.jsonl", *BOTS], 2, "cannot write 'afile/x.jsonl': 'afile' is not a directory"),
    (["match", "--log", "afile/sub/x.jsonl", *BOTS], 2, "'afile' is not a directory"),
    (["match", "--log", "/proc/x.jsonl", *BOTS], 2, "cannot write '/proc/x.jsonl'"),
    (["match", "--log", "/dev/full", *BOTS], 2, "'/dev/full' exists and is not a regular file"),
    (["match", "--log", "adir", *BOTS], 2, "'adir' is a directory"),
    (["demo", "--log", "afile/x.jsonl"], 2, "'afile' is not a directory"),
    (["demo", "--log", "/dev/full"], 2, "exists and is not a regular file"),
    (["serve", "--log-dir", "afile/logs", "a", "b", "c", "d"], 2, "cannot write in 'afile/logs'"),
    (["serve", "--log-dir", "/proc/logs", "a", "b", "c", "d"], 2, "cannot write in '/proc/logs'"),
    (["ladder", "run", "ok.toml", "--db", "afile/x.db"], 2, "'afile' is not a directory"),
    (["ladder", "run", "ok.toml", "--db", "/proc/x.db"], 2, "cannot write '/proc/x.db'"),
    (["ladder", "run", "ok.toml", "--db", "nodir/x.db"], 2, "no directory 'nodir'"),
    (["ladder", "run", "ok.toml", "--db", "/dev/null"], 2, "'/dev/null' exists and is not a regular file"),
    (["ladder", "plot", "afile/x.svg", "--db", "text.db"], 2, "'afile' is not a directory"),
    (["replay", "empty.jsonl", "--html", "afile/x.html"], 2, "'afile' is not a directory"),
    (["replay", "empty.jsonl", "--html", "/dev/full"], 2, "exists and is not a regular file"),
    # databases that are not ladders
    (["ladder", "run", "ok.toml", "--db", "text.db"], 1, "text.db: not a ladder database"),
    (["ladder", "run", "ok.toml", "--db", "random.db"], 1, "random.db: not a ladder database"),
    (["ladder", "table", "--db", "random.db"], 1, "not a ladder database"),
    (["ladder", "compare", "a", "b", "--db", "text.db"], 1, "not a ladder database"),
    (["ladder", "table", "--db", "nosuch.db"], 1, "nosuch.db: no such ladder"),
    # bot lists
    (["ladder", "run", "binary.toml"], 1, "binary.toml: not a UTF-8 text file"),
    (["ladder", "run", "syntax.toml"], 1, "syntax.toml: Illegal character '\\n' (at line 3, column 13)"),
    (["ladder", "run", "quote.toml"], 1, 'quote.toml: bot a, command: "python3 \'x.py": no closing quotation'),
    (["ladder", "run", "empty.toml"], 1, "empty.toml: bot a, command: empty command line"),
    (["ladder", "run", "spaces.toml"], 1, "spaces.toml: bot a, command: empty command line"),
    (["ladder", "run", "nul.toml"], 1, "nul.toml: bot a, command: 'python3\\x00x' holds a NUL character"),
    (["ladder", "run", "build.toml"], 1, 'build.toml: bot a, build: "make \'x": no closing quotation'),
    (["ladder", "run", "noname.toml"], 1, "noname.toml: bot entry 1 has an empty name"),
    (["ladder", "run", "adir"], 2, "'adir' is a directory"),
    (["ladder", "run", "nosuch.toml"], 2, "'nosuch.toml' does not exist"),
    # replay logs
    (["replay", "nosuch.jsonl"], 2, "'nosuch.jsonl' does not exist"),
    (["replay", "adir"], 2, "'adir' is a directory"),
    (["replay", "binary.jsonl"], 3, "binary.jsonl: not a replay log"),
    (["replay", "empty.jsonl"], 3, "empty.jsonl: the log is empty"),
    (["replay", "random.db"], 3, "random.db: not a replay log"),
    (["replay", "empty.jsonl", "--seat", "x"], 2, "'x' is not a valid integer"),
    # names
    (["variants", "nosuch"], 1, "no preset named 'nosuch'"),
    (["demo", "--variant", "nosuch"], 1, "no preset named 'nosuch'"),
    (["check", BOT, "--variant", "nosuch"], 2, "'nosuch' is not one of"),
    (["bench", "engine", "--variant", "nosuch"], 2, "'nosuch' is not one of"),
    (["check", BOT, "--only", "zzz"], 2, "no step matches zzz"),
    (["match", "--policy", "forgive", *BOTS], 2, "'forgive' is not one of"),
]


@pytest.mark.parametrize(("args", "code", "message"), CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_bad_input_is_one_line_before_anything_starts(files: Path, args: list[str], code: int, message: str) -> None:
    refused(run(*args), code, message)


def test_files_limit_above_the_hard_limit(files: Path) -> None:
    hard = hard_files_limit()
    refused(run("match", "--files-limit", str(hard + 1), *BOTS), 2, f"{hard + 1} is not in the range 1 to {hard}")


SET_CASES = [
    ("target=-5", "target must be at least 1, not -5"),
    ("target=0", "target must be at least 1, not 0"),
    ("rounds=0", "rounds must be at least 1, not 0"),
    ("round_limit=99999999999", "round_limit must be at most 10000"),
    ("threshold=-1", "threshold must be at least 1"),
    ("moon_points=-26", "moon_points must be at least 0"),
    ("declaration_points=-5", "declaration_points must be at least 0"),
    ('card_points={"QS": 1000000}', "card_points[QS] must be at most 1000"),
    ("card_points={}", "no card in play is worth points"),
    ("deal_packets=[1000]", "a packet of 1000 is larger than the deck"),
    ("players=1000", "do not deal evenly to 1000 players"),
    ("pass_count=-1", "pass_count must be 0 to 4"),
    ("players=1.5", "bad option value"),
]


@pytest.mark.parametrize(("pair", "message"), SET_CASES)
@pytest.mark.parametrize("command", [["variants"], ["match", *BOTS], ["serve", "a", "b", "c", "d"]])
def test_rule_options_that_make_no_playable_match(files: Path, command: list[str], pair: str, message: str) -> None:
    refused(run(*command, "--set", pair), 1, message)


def test_ladder_run_refuses_bad_rules_before_building(files: Path) -> None:
    refused(run("ladder", "run", "ok.toml", "--set", "target=-5"), 1, "target must be at least 1, not -5")
    assert not (files / "ladder.db").exists()


@pytest.mark.parametrize("value", ["-1", "0", str(2**70)])
def test_any_integer_seed_is_accepted(value: str) -> None:
    command = main.get_command(click.Context(main), "match")
    assert command is not None
    context = command.make_context("match", ["--seed", value, *BOTS])
    assert context.params["seed"] == int(value)


def test_an_unexpected_error_is_one_line_without_a_traceback(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something\nunforeseen")

    monkeypatch.setattr("referee.cli.group.ruleset", broken)
    monkeypatch.delenv("REFEREE_DEBUG", raising=False)
    result = run("variants", "american")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.strip() == (
        "referee: internal error: RuntimeError: something unforeseen (set REFEREE_DEBUG=1 for the traceback)"
    )
    monkeypatch.setenv("REFEREE_DEBUG", "1")
    result = run("variants", "american")
    assert isinstance(result.exception, RuntimeError)


@pytest.mark.parametrize("name", ["a\nb", "x\x1b[2Jy", " padded", "two  spaces", "n" * 65, "\u202eevil"])
def test_a_bot_name_in_a_toml_list_must_be_printable_and_short(tmp_path: Path, name: str) -> None:
    config = tmp_path / "bots.toml"
    config.write_text(f'[[bot]]\nname = {json.dumps(name)}\ncommand = "python3 x.py"\n')
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 1
    assert "bot name" in result.output and "printable characters" in result.output
    assert "\x1b" not in result.output and "Traceback" not in result.output


def test_bench_hostile_names_every_line_it_refuses() -> None:
    result = CliRunner().invoke(main, ["bench", "hostile", "--repeat", "1", "--json"])
    assert result.exit_code == 0, result.output
    cases = {c["name"]: c for c in map(json.loads, result.output.splitlines())}
    assert cases["ordinary play"]["outcome"] == "play"
    assert cases["nested 1,000 deep"]["outcome"] == "bad_json"
    assert cases["nested 65,000 deep"]["outcome"] == "bad_json"
    assert cases["60 KB unknown type"]["outcome"] == "unknown_message"
    assert all(c["bytes"] <= 65536 for c in cases.values())


@pytest.mark.parametrize("pair", ["A B=x", "1X=y", "A-B=z"])
def test_a_bot_environment_name_must_be_a_variable_name(pair: str) -> None:
    result = CliRunner().invoke(main, ["match", "--bot-env", pair, "a", "b", "c", "d"])
    assert result.exit_code == 2 and "is not a variable name" in result.output


def test_a_deeply_nested_bot_list_is_named(tmp_path: Path) -> None:
    config = tmp_path / "deep.toml"
    config.write_text('[[bot]]\nname = "a"\ncommand = "x"\nextra = ' + "[" * 2000 + "]" * 2000 + "\n")
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 1, result.output
    assert "deep.toml: nested too deeply" in result.output and "internal error" not in result.output


def test_a_pipe_is_not_read_as_a_log(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["replay", str(fifo)])
    assert result.exit_code == 3 and "not a regular file" in result.output
