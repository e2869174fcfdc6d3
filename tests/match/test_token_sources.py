"""Seat tokens off the command line: ``tcp:NAME:@FILE`` for the referee, ``--token-file`` and
``$HEARTS_TOKEN`` for the Python kit; an unreadable token file is one clear error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from protocol.bot import seat_token
from protocol.codec import decode_bot
from protocol.messages import BotHello
from referee.cli import main
from referee.match.play import _hide_from_bots, tcp_seat
from referee.network import HIDDEN_TOKEN, new_token
from referee.players.process import BotLimits, BotStartError
from referee.players.tcp import TcpSeat, hide_token
from referee.sandbox.bwrap import Sandbox
from tests.shared import quick_bot, verified

ROOT = Path(__file__).resolve().parents[2]
ANNOUNCED = re.compile(r"tcp seat (\d) \w+: connect to ([\d.]+):(\d+) with (?:token (\S+)|the token you gave)")
"""A TCP seat's line on the referee's stderr: its token when the referee made it up."""
QUICK = quick_bot(f"{sys.executable} tests/bots/first_legal_bot.py")
ONE_ROUND = ["--set", "end=rounds", "--set", "rounds=1", "--sandbox", "off"]


def test_a_token_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cret-token\nignored\n")
    seat = tcp_seat(f"tcp:alice:@{path}", 2)
    assert seat is not None and seat.name == "alice" and seat.token == "s3cret-token"


@pytest.mark.parametrize("content", [None, ""])
def test_a_missing_or_empty_token_file_is_refused(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
    with pytest.raises(BotStartError, match="token file"):
        tcp_seat(f"tcp:alice:@{path}", 0)
    result = CliRunner().invoke(main, ["match", "--sandbox", "off", f"tcp:alice:@{path}", "x", "y", "z"])
    assert result.exit_code == 1 and "token file" in result.output and "Traceback" not in result.output


def test_the_kit_reads_its_token_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "token"
    path.write_text("from-file\n")
    monkeypatch.setenv("HEARTS_TOKEN", "from-env")
    assert seat_token("given", str(path)) == "given"
    assert seat_token(None, str(path)) == "from-file"
    assert seat_token(None, None) == "from-env"
    monkeypatch.delenv("HEARTS_TOKEN")
    assert seat_token(None, None) is None


def test_a_token_file_is_hidden_from_the_started_bots(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("t0k3n\n")
    seat = tcp_seat(f"tcp:alice:@{path}", 0)
    assert seat is not None and seat.token_file == str(path)
    limits = _hide_from_bots(BotLimits(sandbox=Sandbox(bwrap="bwrap", privileged=True)), [], [seat.token_file])
    assert limits is not None and limits.sandbox is not None
    assert str(path) in limits.sandbox.hidden
    folder = str(tmp_path)
    options = limits.sandbox.options(["cat", str(path)], folder, {"PATH": "/usr/bin"})
    masked = options.index("/dev/null")
    assert options[masked - 1 : masked + 2] == ["--ro-bind", "/dev/null", str(path)]


def test_printed_tokens_never_start_with_a_dash() -> None:
    """``--token -abc`` is an option to argparse, not a value: a bot started with the printed
    token failed one time in 64 (found as a flaky serve test under load)."""
    tokens = [new_token() for _ in range(5000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert all(len(t) == 16 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)
    assert len(set(tokens)) == len(tokens)
    assert TcpSeat(seat=0, name="n").token != TcpSeat(seat=1, name="e").token


def _nowhere(secret: str, result: Result, *files: Path) -> None:
    """The token is in no output of the command: its stdout, its stderr, the logs it wrote."""
    assert result.exit_code == 0, result.output
    assert secret not in result.stdout and secret not in result.stderr
    for path in files:
        assert secret not in path.read_text(encoding="utf-8")


def test_a_token_the_user_supplied_is_never_printed(tmp_path: Path) -> None:
    """Issue 43: `tcp:NAME:TOKEN`, `tcp:NAME:@FILE` (referee match) and `NAME:TOKEN` (referee
    serve) are named by where the token came from, never by its value, in stderr, the result
    (and --json's) and the log; a token the referee made up is printed, or no bot could use it.
    Every seat connects over TCP and none comes: nothing is started, the fallback plays."""
    path = tmp_path / "token"
    path.write_text("FILE-s3cret-1\n")
    log = tmp_path / "match.jsonl"
    seats = [f"tcp:php:@{path}", "tcp:b:CLI-s3cret-2", "tcp:c", "tcp:d"]
    for as_json in ([], ["--json"]):
        result = CliRunner().invoke(main, ["match", *seats, "--connect-timeout", "0.1", "--log", str(log), *as_json])
        _nowhere("s3cret", result, log)
        lines = result.stderr.splitlines()
        assert lines[0].endswith(f"with the token in {path}") and lines[1].endswith("with the token you gave")
        assert re.search(r"tcp seat 2 c: connect to \S+ with token [\w-]{16}$", lines[2])
    logs = tmp_path / "logs"
    served = ["serve", "php1:SERVE-s3cret-3", f"php2:@{path}", "php3", "php4", "--connect-timeout", "0.1"]
    result = CliRunner().invoke(main, [*served, "--log-dir", str(logs), "--json"])
    _nowhere("s3cret", result, *logs.iterdir())
    assert "tcp seat 0 php1: connect to" in result.stderr and "with the token you gave" in result.stderr


def test_a_token_in_a_refused_spec_is_not_echoed() -> None:
    result = CliRunner().invoke(main, ["match", "tcp:php:NUL-s3cret\0", "x", "y", "z"])
    assert result.exit_code == 2 and "NUL character" in result.output and "s3cret" not in result.output


@pytest.mark.parametrize("token", ["hello", "1", "name", "s3cret"])
def test_the_log_keeps_a_hello_without_its_token(token: str) -> None:
    """The log's copy of a TCP bot's hello has its token field hidden and every other byte as
    sent: a token that is also a word of the message (``hello``, ``1``, a field's name) leaves
    the message intact (replacing its text would have made the log fail to verify), and a
    token spelt with JSON escapes is hidden all the same."""
    spelt = msgspec.json.encode(token).decode()
    line = f'{{"type":"hello", "version":1,"name":"name","token": {spelt},"note":"token"}}'.encode()
    hidden = hide_token(line)
    assert hidden == line.replace(f": {spelt}".encode(), f': "{HIDDEN_TOKEN}"'.encode())
    hello = decode_bot(hidden)
    assert isinstance(hello, BotHello) and (hello.token, hello.name, hello.version) == (HIDDEN_TOKEN, "name", 1)
    escaped = b'{"type":"hello","version":1,"name":"n","t\\u006fken":"s\\u0033cret"}'
    assert b"s\\u0033cret" not in hide_token(escaped) and HIDDEN_TOKEN.encode() in hide_token(escaped)
    assert hide_token(b'{"type":"hello","version":1,"token":null}') == b'{"type":"hello","version":1,"token":null}'


def _connect_bots(
    referee: subprocess.Popen[str], given: dict[int, str], count: int
) -> dict[str, subprocess.Popen[bytes]]:
    """The Python random bot connected to each of the referee's ``count`` TCP seats as it
    announces them, with the token the test gave (``given``, by seat) or the one the referee
    printed; by token."""
    assert referee.stderr is not None
    bots: dict[str, subprocess.Popen[bytes]] = {}
    while len(bots) < count:
        line = referee.stderr.readline()
        assert line, "the referee ended before announcing its TCP seats"
        if found := ANNOUNCED.search(line):
            seat, host, port, printed = found.groups()
            token = printed or given[int(seat)]
            command = ["sample_bots/python/random_bot.py", "--seed", seat, "--tcp", f"{host}:{port}", "--token", token]
            bots[token] = subprocess.Popen([sys.executable, *command], cwd=ROOT, stdout=subprocess.DEVNULL)
    return bots


def _played(referee: subprocess.Popen[str], bots: dict[str, subprocess.Popen[bytes]]) -> str:
    """The referee's stdout once it and its bots have ended, every bot having played."""
    out, err = referee.communicate(timeout=120)
    assert referee.returncode == 0, err
    assert all(bot.wait(timeout=10) == 0 for bot in bots.values())
    return out


def _hidden_in(log: Path, secrets: list[str]) -> None:
    """No token is in the log, nor in what ``replay --seat`` shows of any seat, and the log
    still verifies (its hellos say ``<token>``)."""
    text = log.read_text(encoding="utf-8")
    assert HIDDEN_TOKEN in text and not [s for s in secrets if s in text]
    for seat in range(4):
        shown = CliRunner().invoke(main, ["replay", str(log), "--seat", str(seat)])
        assert shown.exit_code == 0 and not [s for s in secrets if s in shown.output]
    assert f'"token":"{HIDDEN_TOKEN}"' in CliRunner().invoke(main, ["replay", str(log), "--seat", "0"]).output
    assert verified(log) == "verified"
    assert CliRunner().invoke(main, ["replay", "--verify", str(log)]).exit_code == 0


@pytest.mark.process
def test_a_connected_bots_token_is_not_in_the_match_log(tmp_path: Path) -> None:
    """Issue 43: a bot that connects with the token the user gave (``tcp:NAME:TOKEN``) had its
    hello, token and all, in the log's ``recv`` entry and in ``replay --seat 0``."""
    log = tmp_path / "m.jsonl"
    seats = ["tcp:x:SECRETTOK-43", QUICK, QUICK, QUICK]
    command = [sys.executable, "-m", "referee.cli", "match", *seats, *ONE_ROUND, "--log", str(log)]
    referee = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = _played(referee, _connect_bots(referee, {0: "SECRETTOK-43"}, 1))
    assert "seat 0 random: ok" in out and "SECRETTOK" not in out
    _hidden_in(log, ["SECRETTOK"])


@pytest.mark.process
def test_no_token_is_in_the_logs_of_serve(tmp_path: Path) -> None:
    """``referee serve NAME:TOKEN ... --log-dir D``: no seat's token is in its logs, neither
    those the user gave (one of them a word of every hello, ``hello``) nor those it printed."""
    logs = tmp_path / "logs"
    seats = ["a:SERVESECRET-43", "b:hello", "c", "d"]
    command = [sys.executable, "-m", "referee.cli", "serve", *seats, *ONE_ROUND[:4], "--log-dir", str(logs)]
    referee = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bots = _connect_bots(referee, {0: "SERVESECRET-43", 1: "hello"}, 4)
    _played(referee, bots)
    printed = [token for token in bots if token not in ("SERVESECRET-43", "hello")]
    assert len(printed) == 2
    _hidden_in(logs / "match-1.jsonl", ["SERVESECRET", *printed])
