"""Running a bot's build step: sandboxed on a copy of its folder as a stranger, with bounds
(a time limit, a bounded output capture, a control group of its own).

A build is an author's code run by the referee before a ladder starts (``build = ...`` in a
bot list). Before, its output was captured whole (a build printing 1 GB took the referee's
memory to 2.98 GB) and it could run for ever. Now only the last ``KEPT_BYTES`` of its output
(stdout and stderr together) are kept and the rest counted; a build over its time is ended,
with every process it made (its session, its control group); and like a bot it runs in a
control group (more memory and processes than a bot: compilers need them). In the sandbox it
writes only a copy of its bot's folder, as a uid of its own (``build_folder``); without one
it is the operator's trusted code, run in place, and the referee only refuses a bot folder
that holds the ladder's own files (a ``make clean`` there would take them).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.hints import exit_text
from referee.names import printable
from referee.players.bot_config import BotConfigError, BotEntry, bot_folder
from referee.players.build_folder import BuildFolderError, build_uid, copy_for_build, seal
from referee.sandbox.bwrap import Sandbox, SandboxUnavailable
from referee.sandbox.cgroups import BotGroup, BotGroupLimits, CgroupError, CgroupHost
from referee.sandbox.groups import bot_groups
from referee.sandbox.sight import inside

BUILD_TIMEOUT: Final = 600.0
"""Seconds a build may take by default (``build_timeout`` in a bot list)."""
KEPT_BYTES: Final = 64 * 1024
"""The end of a build's output kept to show when it fails; the rest is counted, not kept."""
BUILD_GROUP: Final = BotGroupLimits(memory_mb=4096, processes=1024, cpu_cores=float(os.cpu_count() or 1))
"""A build's bounds: a compiler or a package manager needs more than a bot."""
BUILD_OUTPUT_LINES: Final = 40
"""Lines of a failed build's output kept in its error."""


@dataclass(frozen=True)
class BuiltBot:
    """Where a bot runs from after its build: its ``folder``, and the ``copy`` its sandboxed
    build made and wrote (``None``: built in place, or nothing to build), which its sandbox
    shows in place of the folder."""

    folder: Path
    copy: Path | None = None

    def sandbox(self, sandbox: Sandbox | None) -> Sandbox | None:
        """``sandbox`` showing this bot its build's copy."""
        if sandbox is None or self.copy is None:
            return sandbox
        return sandbox.with_copy(self.folder, self.copy)


def build(entry: BotEntry, cwd: str | Path, sandbox: Sandbox | None = None, private: Sequence[Path] = ()) -> BuiltBot:
    """Run a bot's build step (if any) with ``sh -c`` in its folder (``bot_folder``); raises
    ``BotConfigError`` when it fails, with the line, the folder, the exit status and the end
    of its output. With a ``sandbox`` the build is the author's code run in it, on a copy of
    its folder (``private``, the referee's files, left out), as a uid of its own: the system
    and that copy in sight, only the copy writable, the network open (to fetch
    dependencies), no capabilities. Without one it runs in place, unless the folder holds a
    ``private`` file."""
    folder = bot_folder(entry, cwd)
    if not entry.build:
        return BuiltBot(folder)
    shell = shutil.which("sh")
    if shell is None:
        raise BotConfigError(f"building {entry.name}: no 'sh' here to run its build {entry.build!r}")
    args = [shell, "-c", entry.build]
    if sandbox is None:
        _refuse_private_inside(entry, folder, private)
        _run(entry, args, folder, None, None)
        return BuiltBot(folder)
    uid = build_uid() if sandbox.privileged else None
    try:
        copy = copy_for_build(folder, entry.name, private, uid)
    except (BuildFolderError, OSError) as err:
        raise BuildRefused(entry.name, f"cannot copy its folder {folder} for its build: {err}") from None
    built = BuiltBot(folder, copy)
    try:
        _run(entry, args, folder, built.sandbox(sandbox), uid)
    finally:
        sealed = _sealed(copy)  # every process of the build has ended: nothing races this
    if sealed is not None:
        raise BuildRefused(entry.name, f"what its build made cannot be taken: {sealed}")
    return built


class BuildRefused(BotConfigError):
    """A bot's files cannot be copied for its build, or what its build made cannot be sealed
    (a name past the system's limits, an unreadable entry): that bot's fault, so a ladder
    leaves that bot out and plays the others (``referee.ladder.bots``)."""

    def __init__(self, bot: str, reason: str) -> None:
        super().__init__(f"bot {bot} refused: {reason}")
        self.bot = bot
        self.reason = reason


def _sealed(copy: Path) -> str | None:
    """Seal ``copy``: ``None``, or why it could not be sealed."""
    try:
        seal(copy)
    except BuildFolderError as err:
        return str(err)
    return None


def _refuse_private_inside(entry: BotEntry, folder: Path, private: Sequence[Path]) -> None:
    for path in private:
        if inside(os.path.abspath(path), str(folder)):
            raise BotConfigError(
                f"building {entry.name}: its build would run in {folder}, which holds the ladder's {path}: "
                "move the database (--db) out of the bot's folder, or give the bot a folder of its own "
                '(folder = "..." in the bot list)'
            )


def _run(entry: BotEntry, args: list[str], folder: Path, sandbox: Sandbox | None, uid: int | None) -> None:
    launch = None
    timeout = entry.build_timeout if entry.build_timeout is not None else BUILD_TIMEOUT
    try:
        if sandbox is not None:
            launch = sandbox.wrap(args, folder, sandbox.environment(None), build=True, uid=uid)
            args = launch.argv
        done = run_build(args, folder, pass_fds=launch.pass_fds if launch is not None else (), timeout=timeout)
    except (OSError, CgroupError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise BotConfigError(f"building {entry.name}: cannot run its build in {folder}: {reason}") from None
    except SandboxUnavailable as err:
        raise BotConfigError(f"building {entry.name}: {err}") from None
    finally:
        if launch is not None:
            launch.close()
    if done.returncode != 0:
        raise BotConfigError(_failure(entry, folder, done, timeout))


def _failure(entry: BotEntry, folder: Path, done: BuildRun, timeout: float) -> str:
    lines = done.tail.splitlines()
    shown = lines[-BUILD_OUTPUT_LINES:]
    cut = f" (last {len(shown)} lines" + (
        f"; {done.dropped_bytes:,} bytes before them not kept)" if done.dropped_bytes else f" of {len(lines)})"
    )
    cut = cut if len(lines) > len(shown) or done.dropped_bytes else ""
    output = "".join(f"\n  | {printable(line, 300)}" for line in shown) if shown else "\n  (no output)"
    ended = f"was ended after its {timeout:g} s (build_timeout)"
    how = exit_text(done.returncode) if done.returncode is not None else ended
    return f"building {entry.name} failed: sh -c {shlex.quote(entry.build or '')} in {folder} {how}{cut}:{output}"


@dataclass(frozen=True)
class BuildRun:
    """How a build ended: its exit status (``None``: ended for its time), the end of its
    output and how many bytes it wrote in all."""

    returncode: int | None
    tail: str
    total_bytes: int
    seconds: float

    @property
    def dropped_bytes(self) -> int:
        return max(0, self.total_bytes - len(self.tail.encode("utf-8", errors="replace")))


def run_build(
    args: Sequence[str], cwd: str | Path, *, pass_fds: Sequence[int] = (), timeout: float = BUILD_TIMEOUT
) -> BuildRun:
    """Run ``args`` (the build, perhaps wrapped in the sandbox) in a session and a control
    group of its own; raises ``OSError`` when it cannot start."""
    group = _group()
    start = time.monotonic()
    try:
        join = group.preexec() if group is not None else None
        process = subprocess.Popen(
            list(args),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
            preexec_fn=join,  # noqa: PLW1509 - only writes to open cgroup files
        )
    except BaseException:
        _release(group)
        raise
    finally:
        if group is not None:
            group.close_join_fds()
    try:
        tail, total, ended = _read_bounded(process, start + timeout)
        if ended:  # its output closed; the build itself must still end in time
            try:
                process.wait(timeout=max(0.0, start + timeout - time.monotonic()))
            except subprocess.TimeoutExpired:
                ended = False
    finally:
        _kill(process, group)  # what it left running, or all of it when over its time; reaped
        _release(group)
    code = process.returncode if ended else None
    return BuildRun(returncode=code, tail=tail, total_bytes=total, seconds=time.monotonic() - start)


def _read_bounded(process: subprocess.Popen[bytes], deadline: float) -> tuple[str, int, bool]:
    """Read the build's output until it closes or ``deadline``: its last ``KEPT_BYTES``, the
    bytes read in all, and whether it closed in time."""
    assert process.stdout is not None
    kept = bytearray()
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return _text(kept), total, False
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return _text(kept), total, True
            total += len(chunk)
            kept += chunk
            if len(kept) > KEPT_BYTES:
                del kept[: len(kept) - KEPT_BYTES]


def _text(data: bytes | bytearray) -> str:
    return data.decode("utf-8", errors="replace")


def _group() -> BotGroup | None:
    host = bot_groups()
    if not isinstance(host, CgroupHost):
        return None
    return host.create("build", BUILD_GROUP)


def _kill(process: subprocess.Popen[bytes], group: BotGroup | None) -> None:
    """End the build and everything it started (its session; its control group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if group is not None:
        with contextlib.suppress(CgroupError, OSError):
            group.kill_all()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    if process.stdout is not None:
        process.stdout.close()


def _release(group: BotGroup | None) -> None:
    if group is not None:
        with contextlib.suppress(CgroupError, OSError):
            group.remove()
