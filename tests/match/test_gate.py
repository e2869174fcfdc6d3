"""A bot's group and limits are set before its program runs, from outside (``spawn``'s gate):
the child waits in ``/bin/sh`` until the referee has placed it; if placing fails, or the
referee goes before opening the gate, the program never runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from referee.players.process import BotLimits, BotStartError, ProcessLink
from referee.players.spawn import GATE_CLOSED, gate, spawn

pytestmark = pytest.mark.process

LIMITS = "import resource as r; print(r.getrlimit(r.RLIMIT_NOFILE), r.getrlimit(r.RLIMIT_CPU), flush=True)"


async def test_the_program_runs_only_once_placed_and_with_its_limits() -> None:
    seen: list[str] = []

    def place(pid: int) -> None:
        cmdline = Path(f"/proc/{pid}/cmdline")
        for _ in range(1000):  # empty for a moment at the end of the exec
            if (words := cmdline.read_bytes().split(b"\0")) and words[0]:
                break
            time.sleep(0.001)
        seen.append(words[0].decode())
        BotLimits(open_files=50, cpu_seconds=7).apply_to(pid)

    async with trio.open_nursery() as nursery:
        process = await spawn([sys.executable, "-c", LIMITS], cwd=None, env=None, place=place, nursery=nursery)
        assert process.stdout is not None
        line = b""
        while not line.endswith(b"\n") and (chunk := await process.stdout.receive_some(200)):
            line += chunk
        assert await process.wait() == 0
    assert seen[0] in ("/bin/sh", shutil.which("setpriv"))  # still the gate while placed
    assert line == b"(50, 50) (7, 8)\n"


async def test_a_failed_placing_kills_the_child_before_its_program_runs(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    pids: list[int] = []

    def place(pid: int) -> None:
        pids.append(pid)
        raise OSError(13, "Permission denied")

    async with trio.open_nursery() as nursery:
        with pytest.raises(OSError, match="Permission denied"):
            await spawn(["touch", str(ran)], cwd=None, env=None, place=place, nursery=nursery)
    assert not ran.exists()
    assert not Path(f"/proc/{pids[0]}").exists()  # killed and reaped


def test_a_gate_never_opened_runs_nothing(tmp_path: Path) -> None:
    """The referee gone before the line (its end of stdin closed): the shell exits 125."""
    ran = tmp_path / "ran"
    child = subprocess.Popen([*gate(os.getpid()), "touch", str(ran)], stdin=subprocess.PIPE)
    assert child.stdin is not None
    child.stdin.close()
    assert child.wait(timeout=30) == GATE_CLOSED
    assert not ran.exists()


REFEREE_DIES = """
import os, subprocess, sys, time
from referee.players.spawn import GATE_LINE, gate
pending, opened = os.pipe()
os.write(opened, GATE_LINE)  # the gate opened before the referee dies
title, delay = sys.argv[1], float(sys.argv[2])
subprocess.Popen([*gate(os.getpid()), "bash", "-c", f"exec -a {title} sleep 60"], stdin=pending, start_new_session=True)
time.sleep(delay)
os.kill(os.getpid(), 9)
"""


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="no setpriv: a bot outlives a killed referee")
@pytest.mark.parametrize("delay", [0.0, 0.001, 0.003, 0.01, 0.05, 0.3])
def test_a_referee_killed_as_it_starts_a_bot_takes_the_bot_along(delay: float) -> None:
    """Killed before the gate armed the parent-death signal, or after, or after the bot ran:
    the bot never outlives it (bubblewrap's own signal is armed too late to cover the start)."""
    title = f"gate-orphan-{os.getpid()}-{delay}"
    subprocess.run([sys.executable, "-c", REFEREE_DIES, title, str(delay)], check=False, timeout=30)
    deadline = time.monotonic() + 10
    while (alive := _titled(title)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive, f"the bot outlived its referee (killed after {delay} s)"


def _titled(title: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", f"^{title}"], capture_output=True, text=True, check=False)
    return found.stdout.split()


async def test_the_bot_reads_its_first_message_after_the_gate_line() -> None:
    """The shell reads its line byte by byte: what follows it on stdin is the bot's."""
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start([sys.executable, "-c", "print(input()[::-1], flush=True)"], nursery)
        assert await link.exchange(b"olleh\n") == b"hello"  # the line, without its end
        await link.close(0.5)


async def test_a_missing_interpreter_is_a_start_error(tmp_path: Path) -> None:
    script = tmp_path / "bot"
    script.write_text("#!/nonexistent/python\n")
    script.chmod(0o755)
    async with trio.open_nursery() as nursery:
        with pytest.raises(BotStartError, match=r"its #! line names '/nonexistent/python', no program to run"):
            await ProcessLink.start([str(script)], nursery)
    assert os.access(script, os.X_OK)


async def test_the_loaders_variables_reach_the_bot_but_not_the_gate() -> None:
    """``LD_PRELOAD`` loads code into every program that starts with it: into the gate's shell
    it would run before the group and limits hold. The loader says once per program that it
    cannot preload a missing library: once here, from the bot."""
    show = "import os, sys; print(os.environ['LD_PRELOAD'], flush=True); sys.stdin.read()"
    limits = BotLimits(env={"LD_PRELOAD": "/nonexistent/preload.so"})
    async with trio.open_nursery() as nursery:
        link = await ProcessLink.start([sys.executable, "-c", show], nursery, limits=limits)
        assert await link.exchange(b"") == b"/nonexistent/preload.so"
        await link.close(0.5)
    stderr, _ = link.stderr_text()
    assert stderr.count("cannot be preloaded") == 1, stderr
