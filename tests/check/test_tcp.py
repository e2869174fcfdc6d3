"""`referee check tcp:NAME[:TOKEN]`: the bot connects once per step, relaunched in a loop by the test."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing
from click.testing import CliRunner

from protocol.codec import decode_referee
from protocol.messages import Error
from referee.check.listener import CheckListener, TcpTarget, tcp_target
from referee.check.probe import Limits
from referee.check.results import CheckReport
from referee.check.runner import run_check, select
from referee.cli import main
from tests.check.helpers import FAST, GOOD, ROOT, by_verdict, step
from tests.shared import stray

RANDOM_BOT = "sample_bots/python/random_bot.py"
INSTRUCTIONS = re.compile(
    r"^check: connect to (?P<host>[\d.]+):(?P<port>\d+) with (?:token (?P<token>\S+)|the token you gave|the token in "
    r"\S+) \(once per step; run your bot in a loop, e\.g\. while true; do python3 mybot\.py --tcp (?P=host):(?P=port) "
    r"(?:--token \S+|--token-file \S+); done\)$"
)


async def bot_loop(address: tuple[str, int], token: str, marker: str, launches: list[int]) -> None:
    """Start the random bot again whenever the previous one exits, until cancelled (which
    ends the one running: trio.run_process terminates it)."""
    host, port = address
    command = [sys.executable, RANDOM_BOT, "--tcp", f"{host}:{port}", "--token", token, marker]
    while True:
        launches.append(1)
        await trio.run_process(command, cwd=ROOT, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await trio.sleep(0.01)  # a bot that cannot connect (the check is over) must not spin


def tcp_check(
    *patterns: str,
    token: str = "TOKEN",
    bot_token: str | None = None,
    marker: str = "",
    limits: Limits = FAST,
    connect_timeout: float = 30.0,
    with_bot: bool = True,
    clock: trio.abc.Clock | None = None,
) -> tuple[CheckReport, float, int]:
    """Run the check of ``tcp:bot:TOKEN`` with the random bot relaunched in a loop (with
    ``bot_token``); the report, the seconds it took and how many bots were started."""
    launches: list[int] = []

    async def run() -> tuple[CheckReport, float]:
        async with trio.open_nursery() as nursery:

            def listening(listener: CheckListener) -> None:
                if with_bot:
                    nursery.start_soon(bot_loop, listener.address, bot_token or token, marker, launches)

            start = trio.current_time()
            with trio.fail_after(300):
                report = await run_check(
                    f"tcp:bot:{token}",
                    limits=limits,
                    steps=select(patterns) if patterns else None,
                    port=0,
                    connect_timeout=connect_timeout,
                    on_listening=listening,
                )
            seconds = trio.current_time() - start
            nursery.cancel_scope.cancel()
        return report, seconds

    report, seconds = trio.run(run, clock=clock)
    return report, seconds, len(launches)


@pytest.mark.process
def test_a_tcp_bot_passes_every_step_or_is_skipped_with_a_reason() -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    report, seconds, launches = tcp_check(marker=marker)
    print(f"TCP check of the random bot: {seconds:.1f} s, {launches} bot launches")
    assert report.bot == "tcp:bot" and report.name == "random"
    assert len(report.steps) == 46
    assert not report.sandboxed and "tcp: bot" in report.sandbox
    sandbox = step(report, "sandbox.works")
    assert sandbox.verdict == "skip"
    assert sandbox.message.startswith("no sandbox: a tcp: bot runs wherever it was started")
    assert by_verdict(report, "fail") == [], [(s.name, s.message) for s in report.steps if s.verdict == "fail"]
    assert all(s.message for s in report.steps if s.verdict == "skip")
    assert report.summary.ok and report.exit_code == 0
    assert launches >= 43  # one bot per step that talks to one
    assert "closed the connection" in step(report, "exit.goodbye").message
    assert "not visible over TCP" in step(report, "exit.goodbye").message
    assert step(report, "exit.end_of_input").message == "closed the connection"
    assert "closed the connection after the fatal error" in step(report, "error.fatal_exit").message
    assert step(report, "timing.startup").message.startswith("43 starts")
    assert all(s.exit_code is None and s.stderr == "" for s in report.steps)
    assert stray(marker) == []


@pytest.mark.process
def test_a_wrong_token_fails_the_handshake_naming_the_token() -> None:
    """The bot's token is named; the check's, which the user gave, is not (issue 43)."""
    marker = f"marker-{uuid.uuid4().hex}"
    report, _, _ = tcp_check("handshake.hello", "pass.legal", token="right-token", bot_token="WRONG", marker=marker)
    first = step(report, "handshake.hello")
    assert first.verdict == "fail"
    assert first.message == "the hello's token 'WRONG' is not the token you gave (bad_token)"
    assert "right-token" not in msgspec.json.encode(report).decode()
    assert '"token":"WRONG"' in (first.got or "")
    sent = [decode_referee(line.line.encode()) for line in first.transcript if line.direction == "send"]
    assert isinstance(sent[-1], Error) and sent[-1].code == "bad_token" and sent[-1].fatal
    assert step(report, "pass.legal").verdict == "skip"
    assert report.exit_code == 1
    assert stray(marker) == []


def test_a_bot_that_never_connects_fails_once_and_the_rest_is_skipped() -> None:
    """On trio's MockClock (it jumps while everything waits): the check waits for the
    connection once, 0.3 s of its own clock, not once for each of the 46 steps."""
    report, seconds, _ = tcp_check(
        connect_timeout=0.3, with_bot=False, clock=trio.testing.MockClock(autojump_threshold=0)
    )
    first = step(report, "handshake.hello")
    assert first.verdict == "fail" and first.message == "no bot connected within 0.3 s"
    assert by_verdict(report, "fail") == ["handshake.hello"]
    assert len(by_verdict(report, "skip")) == 45
    assert 0.3 <= seconds < 0.6


@pytest.mark.process
def test_a_missing_connection_later_skips_the_rest() -> None:
    """A bot loop that stopped: the first step that waits in vain fails, the others are skipped."""
    marker = f"marker-{uuid.uuid4().hex}"

    async def run() -> CheckReport:
        async with trio.open_nursery() as nursery:

            async def one_bot(address: tuple[str, int]) -> None:
                host, port = address
                command = [sys.executable, RANDOM_BOT, "--tcp", f"{host}:{port}", "--token", "T", marker]
                await trio.run_process(command, cwd=ROOT, check=False, stderr=subprocess.DEVNULL)

            report = await run_check(
                "tcp:bot:T",
                limits=FAST,
                steps=select(["handshake.*", "pass.legal"]),
                connect_timeout=2.0,
                on_listening=lambda listener: nursery.start_soon(one_bot, listener.address),
            )
            nursery.cancel_scope.cancel()
        return report

    report = trio.run(run)
    assert [s.verdict for s in report.steps] == ["pass", "fail", "skip", "skip", "skip"]
    assert step(report, "handshake.versions_1_2").message == "no bot connected within 2 s"
    assert "no bot connected within 2 s" in step(report, "pass.legal").message
    assert stray(marker) == []


def test_connections_beyond_one_per_step_are_refused_busy() -> None:
    async def run() -> tuple[list[bytes], bool]:
        listener = CheckListener(TcpTarget(name="bot", token="T"))
        address = await listener.listen()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(listener.serve)
            streams = [await trio.open_tcp_stream(*address) for _ in range(3)]
            replies: list[bytes] = []
            with trio.fail_after(5):
                for stream in streams[1:]:  # the first waits for a step; the others are refused
                    data = b""
                    while chunk := await stream.receive_some():
                        data += chunk
                    replies.append(data)
                link = await listener.next_link()
                assert link is not None
                await link.send(b"ping\n")
                got = await streams[0].receive_some()
                await link.close()
            nursery.cancel_scope.cancel()
        for stream in streams:
            await stream.aclose()
        return replies, got == b"ping\n"

    replies, first_served = trio.run(run)
    assert first_served
    for data in replies:
        error = decode_referee(data.rstrip(b"\n"))
        assert isinstance(error, Error) and error.code == "busy" and error.fatal


def test_the_token_is_made_up_when_not_given() -> None:
    target = tcp_target("tcp:mybot")
    assert target is not None and target.name == "mybot" and len(target.token) >= 16
    assert tcp_target("tcp:mybot:abc") == TcpTarget(name="mybot", token="abc", given=True)
    assert tcp_target(GOOD) is None


def test_a_token_file_is_read_and_never_shown(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cret-from-file\n")
    target = tcp_target(f"tcp:mybot:@{path}")
    assert target == TcpTarget(name="mybot", token="s3cret-from-file", given=True, token_file=str(path))
    assert target.shown_token == f"the token in {path}"
    listener = CheckListener(target)
    assert "s3cret" not in listener.instructions() and f"--token-file {path}" in listener.instructions()
    missing = CliRunner().invoke(main, ["check", f"tcp:mybot:@{tmp_path / 'none'}"])
    assert missing.exit_code == 2 and "cannot read the token file" in missing.output


@pytest.mark.process
def test_the_command_line_prints_where_to_connect_and_reports(tmp_path: Path) -> None:
    """`referee check tcp:bot:sesame --port 0` in a subprocess: the instructions on stderr, a
    failing handshake in the report, stderr marked as not visible over TCP; the token the user
    gave (on the command line, in a file) printed nowhere, not even in --verbose's transcripts."""
    marker = f"marker-{uuid.uuid4().hex}"
    args = ["check", "--port", "0", "--only", "handshake.hello", "--only", "exit.*"]
    (tmp_path / "token").write_text("sesame\n")

    async def run(spec: str, bot_token: str) -> tuple[int, str, str]:
        command = [sys.executable, "-m", "referee.cli", *args, spec, "--verbose"]
        process = await trio.lowlevel.open_process(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        err = b""
        out = b""
        try:
            with trio.fail_after(120):
                while b"\n" not in err:
                    err += await process.stderr.receive_some()
                found = INSTRUCTIONS.match(err.decode().splitlines()[0])
                assert found is not None, err
                address = (found["host"], int(found["port"]))
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(bot_loop, address, bot_token, marker, [])
                    while chunk := await process.stdout.receive_some():
                        out += chunk
                    await process.wait()
                    nursery.cancel_scope.cancel()
        finally:
            process.kill()
            await process.wait()
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()

    code, out, err = trio.run(run, "tcp:bot:sesame", "sesame")
    assert code == 0, out
    assert "with the token you gave" in err and "--token YOUR_TOKEN" in err
    assert out.startswith("referee check: tcp:bot\n")
    assert "3 steps: 3 passed" in out
    assert '"token":"<token>"' in out  # the bot's hello in the transcript
    assert "sesame" not in out + err

    code, out, err = trio.run(run, f"tcp:bot:@{tmp_path / 'token'}", "WRONG")
    assert code == 1, out
    assert f"problem:  the hello's token 'WRONG' is not the token in {tmp_path / 'token'} (bad_token)" in out
    assert "stderr: (not visible over TCP)" in out
    assert "2 skipped" in out
    assert "sesame" not in out + err
    assert stray(marker) == []


@pytest.mark.parametrize("option", [("--port", "0"), ("--host", "::1"), ("--connect-timeout", "5")])
def test_tcp_options_need_a_tcp_bot(option: Sequence[str]) -> None:
    result = CliRunner().invoke(main, ["check", GOOD, *option])
    assert result.exit_code == 2
    assert "are for tcp:NAME[:TOKEN] bots" in result.output


def test_an_address_in_use_is_a_usage_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["check", "tcp:bot", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
