"""The bot program behind a channel: ``ProcessLink`` starts a bot in its own session (process
group) with pipes on its stdin, stdout and stderr, within its ``BotLimits`` (resource limits,
its control group, the sandbox), keeps a capped copy of its stderr, and always ends it: close
its stdin, wait a grace period, SIGTERM the group, wait, SIGKILL the group, reap. When the
program exits on its own, its group is ended at once, so a forked child holding the pipes
cannot hide the crash. The channel itself is ``referee.players.channel``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shlex
import shutil
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, Self

import msgspec
import trio

from protocol.codec import MAX_LINE
from referee.errors import RefereeError
from referee.players.channel import Failure, FdLink
from referee.players.spawn import SpawnedProcess, spawn
from referee.sandbox.bwrap import Sandbox
from referee.sandbox.cgroups import BotGroup, BotGroupLimits, CgroupError, CgroupHost
from referee.sandbox.groups import bot_groups

STDERR_CAP = 64 * 1024
"""Bytes of a bot's stderr kept for the log; the rest is counted and dropped."""


DEFAULT_GROUP: Final = BotGroupLimits(memory_mb=1024, processes=256, cpu_cores=1.0)
"""A bot's bounds by default: 1 GiB of memory (its tmpfs files and ``memfd`` included), 256
processes and threads, one core's worth of CPU time however many processes share it, and the
same CPU weight as every other bot. The search bot peaks near 100 MiB, a JVM bot near 150 MiB."""
DEFAULT_OPEN_FILES: Final = 256
"""Descriptors per bot process by default: a JVM holds about 40, Node.js about 25; times the
default 256 processes of a bot's group (``referee.sandbox.cgroups``), at most 65,536."""


class BotLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Limits set on a bot program before it starts (``None``: no limit, the default).

    The limits are POSIX resource limits of the bot's process (inherited by its children):
    a bot over its CPU time is killed by SIGXCPU (then SIGKILL), one over its address space
    gets allocation failures, one over its open files gets errors opening more. Any of these
    usually ends the bot, which the referee reports as a ``crash``.
    """

    cpu_seconds: int | None = None
    memory_mb: int | None = None
    """Address space (RLIMIT_AS) in MiB; interpreters and JITs need a few hundred."""
    open_files: int | None = DEFAULT_OPEN_FILES
    """Descriptors each of its processes may hold (RLIMIT_NOFILE); ``None``: the referee's own
    limit. Bounded by default so that a bot's total (this times its processes) is a small
    part of the machine's file table: a bot that opened 20,000 in each of 512 processes
    filled it, and every other program, the referee and its sandbox included, got ENFILE."""
    cwd: str | None = None
    """The bot's working directory (default: the referee's, or the bot list's folder)."""
    env: dict[str, str] | None = None
    """Variables added to the environment the bot inherits."""
    clean_env: bool = False
    """Start from an empty environment (plus PATH and HOME) instead of the referee's."""
    sandbox: Sandbox | None = None
    """Run the bot in this bubblewrap sandbox (``referee.sandbox.bwrap``); its environment is then
    always clean."""
    processes: int | None = None
    """Processes and threads (RLIMIT_NPROC) the bot's uid may have (default: none, or the
    sandbox's ``process_limit``)."""
    group: BotGroupLimits | None = DEFAULT_GROUP
    """The bounds of the whole bot, all its processes together, in a control group of its own
    (``referee.sandbox.cgroups``) where the machine allows one; ``None``: no group."""
    freeze_idle: bool = False
    """Freeze the bot's group whenever it is not being asked (``--freeze-idle``): no thinking
    on the others' time, no CPU taken from them, no timing channel while frozen."""

    def environment(self) -> dict[str, str] | None:
        if self.sandbox is not None:
            return self.sandbox.environment(self.env)
        if self.env is None and not self.clean_env:
            return None
        base = {k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ} if self.clean_env else dict(os.environ)
        return {**base, **(self.env or {})}

    def apply_to(self, pid: int) -> None:
        """Set the resource limits of the process ``pid`` (``prlimit``), before its program runs
        (``referee.players.spawn``'s gate); its children inherit them."""
        if self.cpu_seconds is not None:
            resource.prlimit(pid, resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 1))
        if self.memory_mb is not None:
            size = self.memory_mb * 1024 * 1024
            resource.prlimit(pid, resource.RLIMIT_AS, (size, size))
        if self.open_files is not None:
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (self.open_files, self.open_files))
        processes = self.processes
        if processes is None and self.sandbox is not None:
            processes = self.sandbox.process_limit
        if processes is not None:
            resource.prlimit(pid, resource.RLIMIT_NPROC, (processes, processes))


def grouped(limits: BotLimits, name: str) -> tuple[BotGroup | None, Callable[[int], None]]:
    """The bot's control group (made now, when the machine has groups and ``limits`` asks for
    one) and what is done to its process before the program runs: put it in the group first,
    then set the resource limits."""
    host = bot_groups() if limits.group is not None else None
    if limits.group is None or not isinstance(host, CgroupHost):
        return None, limits.apply_to
    group = host.create(name, limits.group)

    def place(pid: int) -> None:
        group.place(pid)
        limits.apply_to(pid)

    return group, place


def _loader_after_gate(
    args: list[str], env: dict[str, str] | None, text: str
) -> tuple[list[str], dict[str, str] | None]:
    """The dynamic loader's variables (``LD_PRELOAD``, ``LD_AUDIT``, ``LD_LIBRARY_PATH``...) kept
    from the gate's shell, which runs before the bot's group and limits hold, and given back to
    the bot by ``env`` after the gate: loaded into the shell, a library would run unbounded."""
    full = env if env is not None else dict(os.environ)
    loader = {k: v for k, v in full.items() if k.startswith("LD_")}
    if not loader:
        return args, env
    if "=" in args[0]:
        raise BotStartError(f"cannot start bot {text!r}: a program named with '=' cannot be given {sorted(loader)}")
    rest = {k: v for k, v in full.items() if k not in loader}
    return ["/usr/bin/env", "--", *(f"{k}={v}" for k, v in loader.items()), *args], rest


def _missing_interpreter(program: str) -> str | None:
    """The interpreter a ``#!`` line of ``program`` names, when it is not there to run: the
    kernel would refuse the program (``ENOENT``), which the gate's shell could only report as an
    exit, so it is said before the start as any other program that cannot run. ``None`` when
    there is no such line, it names a program, or ``program`` cannot be read (exec may not
    need to)."""
    try:
        with open(program, "rb") as file:
            head = file.read(256)
    except OSError:
        return None
    words = head[2:].split(b"\n", 1)[0].split() if head.startswith(b"#!") else []
    if not words:
        return None
    interpreter = os.fsdecode(words[0])
    return None if os.access(interpreter, os.X_OK) and not os.path.isdir(interpreter) else interpreter


class BotStartError(RefereeError):
    """A bot command could not be started (no such program, not executable)."""


class ProcessLink(FdLink):
    """A bot program started by the referee, talking over its stdin and stdout."""

    def __init__(
        self,
        process: SpawnedProcess,
        command: str,
        max_line: int = MAX_LINE,
        *,
        group: BotGroup | None = None,
        limits: BotLimits | None = None,
        meter: Callable[[], float] | None = None,
        freeze: Callable[[bool], None] | None = None,
        shown: tuple[str, ...] = (),
    ) -> None:
        super().__init__(max_line)
        self.process = process
        self.command = command
        self.group = group
        """The bot's control group (``None`` where the machine has none), removed once it ends."""
        self.limits = limits or BotLimits()
        self.shown = shown
        """The places its sandbox showed it read-only (``Launch.shown``; empty without one):
        what a hint about a path it failed on is based on (``referee.sandbox.misses``)."""
        self._over: str | None = None
        self._cpu_seconds: float | None = None
        self._cpu_mark: float | None = None
        self._meter = meter
        self._freeze = freeze
        self._stderr = bytearray()
        self._stderr_dropped = 0
        self._stderr_checked = 0
        self._closed = False
        self._ended = trio.Event()
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout

    @classmethod
    async def start(
        cls,
        command: str | Sequence[str],
        nursery: trio.Nursery,
        cwd: str | Path | None = None,
        max_line: int = MAX_LINE,
        limits: BotLimits | None = None,
    ) -> Self:
        """Start ``command`` (a shell-style string or an argument list, run without a shell)
        in a new session, with ``limits``; its stderr is drained by a task in ``nursery``."""
        limits = limits or BotLimits()
        args = shlex.split(command) if isinstance(command, str) else list(command)
        text = command if isinstance(command, str) else shlex.join(command)
        if not args:
            raise BotStartError("empty bot command")
        folder = limits.cwd or cwd or os.getcwd()
        env = limits.environment()
        program = args[0]
        path = (env if env is not None else os.environ).get("PATH", os.defpath)
        found = os.path.join(folder, program) if "/" in program else shutil.which(program, path=path)
        if found is not None and limits.sandbox is not None:
            found = limits.sandbox.host_path(os.path.abspath(found))  # a build's copy
        if found is None or not os.access(found, os.X_OK) or os.path.isdir(found):
            # the gate's shell (or bwrap) would start and then fail to run it: say so now
            raise BotStartError(f"cannot start bot {text!r}: no program {program!r} to run")
        if limits.sandbox is None and (missing := _missing_interpreter(found)) is not None:
            raise BotStartError(f"cannot start bot {text!r}: its #! line names {missing!r}, no program to run")
        if limits.sandbox is not None:
            assert env is not None
            launch = limits.sandbox.wrap(args, folder, env)
            args, pass_fds = launch.argv, launch.pass_fds
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # bwrap's own; the bot's is set inside
        else:
            launch, pass_fds = None, ()
            args, env = _loader_after_gate(args, env, text)
        shown = launch.shown if launch is not None else ()
        group = meter = freeze = None
        try:
            group, place = grouped(limits, os.path.basename(args[0]))
            if group is not None:  # opened before the bot runs: nothing can fail once it does
                meter = group.cpu_meter()
                freeze = group.freezer() if limits.freeze_idle else None
            process = await spawn(args, cwd=folder, env=env, place=place, nursery=nursery, pass_fds=pass_fds)
        except (OSError, CgroupError, subprocess.SubprocessError) as err:
            if group is not None:
                with contextlib.suppress(CgroupError, OSError):
                    group.remove()
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise BotStartError(f"cannot start bot {text!r}: {reason}") from None
        finally:
            if launch is not None:
                launch.close()
        link = cls(process, text, max_line, group=group, limits=limits, meter=meter, freeze=freeze, shown=shown)
        nursery.start_soon(link._drain_stderr)
        nursery.start_soon(link._watch_exit)
        return link

    @property
    def description(self) -> str:
        return self.command

    def fds(self) -> tuple[int, int]:
        return self._stdin.fileno(), self._stdout.fileno()

    async def _receive_some(self) -> bytes | bytearray:
        return await self._stdout.receive_some(65536)

    async def _send_all(self, data: bytes) -> None:
        await self._stdin.send_all(data)

    async def _drain_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            while data := await stream.receive_some(65536):
                room = STDERR_CAP - len(self._stderr)
                self._stderr += data[: max(room, 0)]
                self._stderr_dropped += max(len(data) - max(room, 0), 0)

    async def exchange(self, data: bytes) -> bytes:
        """A decision; with ``--freeze-idle``, the bot's group thawed only for it."""
        if self._freeze is None:
            return await super().exchange(data)
        self._switch(frozen=False)
        try:
            return await super().exchange(data)
        finally:
            self._switch(frozen=True)

    def mark_cpu(self) -> None:
        self._cpu_mark = self.cpu_seconds()

    def cpu_since_mark(self) -> float | None:
        mark, now = self._cpu_mark, self.cpu_seconds()
        self._cpu_mark = now
        return now - mark if now is not None and mark is not None else None

    def idle(self) -> None:
        """Between decisions: with ``--freeze-idle`` the bot's group is frozen (after its
        handshake, so it cannot think on the others' time before its first request either)."""
        self._switch(frozen=True)

    def _switch(self, *, frozen: bool) -> None:
        """Freeze or thaw the bot's group with ``--freeze-idle``; nothing without it, or once
        the group is released (``_release_group`` drops the switch with it)."""
        if self._freeze is not None:
            with contextlib.suppress(OSError):
                self._freeze(frozen)

    async def _watch_exit(self) -> None:
        """When the bot program exits, end its whole process group (and control group): a
        child it left behind must not keep the pipes open and make a crash look like a silent
        bot."""
        await self.process.wait()
        self._signal_group(signal.SIGKILL)
        await self._release_group()

    async def _release_group(self) -> None:
        """Note which bound the bot ran into and its CPU time, then kill what is left in its
        control group and remove it (once; never raises)."""
        group, self.group = self.group, None
        self._meter = self._freeze = None  # their descriptors close with the group
        if group is None:
            return
        with contextlib.suppress(CgroupError, OSError):
            self._over = group.exceeded()
            self._cpu_seconds = group.cpu_seconds()
        with trio.CancelScope(shield=True), contextlib.suppress(CgroupError, OSError):
            await trio.to_thread.run_sync(group.remove)

    def cpu_seconds(self) -> float | None:
        """CPU time of all the bot's processes so far (from its control group), or ``None``."""
        if self._meter is not None:  # the group's counter, read through the decisions' descriptor
            with contextlib.suppress(OSError, ValueError, KeyError):
                return self._meter()
            return None
        return self._cpu_seconds

    def over_bound(self) -> Failure | None:
        """Why the ended bot was stopped by one of its bounds, as a fault (``memory``,
        ``processes``, ``cpu``), or ``None`` (an ordinary crash)."""
        over = self._over
        if self.group is not None:
            with contextlib.suppress(CgroupError, OSError, ValueError, KeyError):
                over = self.group.exceeded()
        return bound_fault(over, self.limits, self.process.returncode)

    def stderr_text(self) -> tuple[str, int]:
        return self._stderr.decode("utf-8", errors="replace"), self._stderr_dropped

    def take_stderr(self) -> tuple[str, int]:
        text, dropped = self.stderr_text()
        self._stderr.clear()
        self._stderr_dropped = 0
        self._stderr_checked = 0
        return text, dropped

    def flood(self, stderr_limit: int, queued_limit: int) -> str | None:
        total = len(self._stderr) + self._stderr_dropped
        recent = total - self._stderr_checked
        self._stderr_checked = total
        if recent > stderr_limit:
            return f"{recent} bytes on stderr since the last decision (limit {stderr_limit})"
        return super().flood(stderr_limit, queued_limit)

    def exit_code(self) -> int | None:
        return self.process.returncode

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the program to exit; its status or ``None``."""
        with trio.move_on_after(timeout):
            return await self.process.wait()
        return self.process.returncode

    async def close(self, grace: float = 1.0) -> None:
        if self._closed:
            with trio.CancelScope(shield=True):
                await self._ended.wait()  # a second caller waits for the first to finish
            return
        self._closed = True
        try:
            await self._end(grace)
        finally:
            self._ended.set()

    async def _end(self, grace: float) -> None:
        self._switch(frozen=False)  # a frozen bot could not read its end of input, nor exit
        with trio.CancelScope(shield=True):
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self._stdin.aclose()
            if await self.wait_exit(grace) is None:
                self.stopped = True
                self._signal_group(signal.SIGTERM)
                if await self.wait_exit(grace) is None:
                    self._signal_group(signal.SIGKILL)
                    await self.process.wait()
            # the group may outlive its leader (a forked child holding the pipes)
            self._signal_group(signal.SIGKILL)
            await self._release_group()
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self._stdout.aclose()
            # a grandchild that left the group may still hold stderr: stop reading it anyway
            if self.process.stderr is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self.process.stderr.aclose()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


def bound_fault(over: str | None, limits: BotLimits, returncode: int | None) -> Failure | None:
    """The fault of a bot its control group or its ``--cpu-limit`` stopped: ``over`` is what
    the group says it ran into (``BotGroup.exceeded``), ``returncode`` its exit status."""
    bounds = limits.group or DEFAULT_GROUP
    if over == "memory":
        return Failure(
            "memory",
            f"the bot went over its memory bound ({bounds.memory_mb} MiB for all its processes, "
            "files in /tmp and memfd included) and the kernel killed it",
        )
    if over == "processes":
        return Failure(
            "processes",
            f"the bot ended after it was refused a new process or thread (its bound: {bounds.processes} "
            "for all its processes)",
        )
    if returncode == -signal.SIGXCPU:
        return Failure("cpu", f"the bot used up its CPU time ({limits.cpu_seconds} s) and was killed")
    return None
