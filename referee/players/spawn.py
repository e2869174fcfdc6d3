"""Starting bot programs from one long-lived thread, so that "dies with its parent" means it.

Every bot dies with the referee, even one killed by SIGKILL: its gate arms the parent-death
signal (``PR_SET_PDEATHSIG``, ``setpriv --pdeathsig``) before it runs anything (``gate``), and a
sandbox is started with bubblewrap's ``--die-with-parent`` too; what a bot leaves in its control
group is killed by the referee's reaper (``referee.sandbox.reaper``). But the kernel ties that
signal to the *thread* that forked the child, not the process, and ``trio.lowlevel.open_process`` forks
in a worker thread of trio's cache, which exits after ten idle seconds, killing every bot it had
started (a ladder's kept bots, a long match). So bots are forked here, by one daemon thread that
lives as long as the referee; the pipes are trio ``FdStream``s and the exit is awaited on a
pidfd, with public APIs only.

A bot's control group and resource limits must hold before its program runs, so they were once
set between fork and exec (``preexec_fn``). But Python code in the child forces a real ``fork``,
which copies the referee's page tables: 18 ms of kernel time a bot from a 200 MB process, paid
twice (the copy, then its teardown at exec), with the interpreter lock held. Instead the child
is started (with ``vfork``: about 1 ms) through a *gate*, ``/bin/sh`` blocked reading a line
from its stdin; the referee puts it in its group and sets its limits from outside
(``cgroup.procs``, ``prlimit``), then writes the line, and the shell ``exec``s the bot under the
same pid (a program without ``#!`` runs as a shell script, as bwrap's ``execvp`` runs it in the
sandbox). Should the referee die first, stdin ends and the shell exits without running anything.
The shell starts with no ``LD_*`` variable (a preloaded library would run before the bounds);
``/usr/bin/env`` gives them back to the bot after the gate (``players/process.py``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import trio


class SpawnedProcess:
    """A started program: its pipes as trio streams, its pid, its exit status once it ends
    (negative: killed by that signal). ``watch`` must run in a nursery to reap it."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: int, stdout: int, stderr: int) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin: trio.lowlevel.FdStream | None = trio.lowlevel.FdStream(stdin)
        self.stdout: trio.lowlevel.FdStream | None = trio.lowlevel.FdStream(stdout)
        self.stderr: trio.lowlevel.FdStream | None = trio.lowlevel.FdStream(stderr)
        self._pidfd = os.pidfd_open(popen.pid)
        self._exited = trio.Event()

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def watch(self) -> None:
        """Reap the program when it exits (a task of its own)."""
        try:
            if self._popen.poll() is None:
                await trio.lowlevel.wait_readable(self._pidfd)
            self._popen.wait()
        finally:
            self._exited.set()
            os.close(self._pidfd)

    async def wait(self) -> int:
        """Wait for the program to end; its exit status. Works also once ``watch`` has been
        cancelled (then by polling every 50 ms)."""
        while (code := self._popen.poll()) is None:
            with trio.move_on_after(0.05):
                await self._exited.wait()
                if self._popen.poll() is None:
                    await trio.sleep(0.05)  # watch was cancelled before the exit: poll
        return code


class _Spawner:
    """One daemon thread that forks every bot program of this process, in turn."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Callable[[Any, BaseException | None], None]]]
        self._jobs = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="bot-spawner", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                result = job()
            except BaseException as err:  # handed to the caller, which raises it
                done(None, err)
            else:
                done(result, None)

    async def run(self, job: Callable[[], Any]) -> Any:
        """Run ``job`` in the spawner thread and return its result (or raise its error). Not
        cancellable half-way: a program forked must be handed back, not leaked."""
        token = trio.lowlevel.current_trio_token()
        finished = trio.Event()
        outcome: list[tuple[Any, BaseException | None]] = []

        def done(result: Any, error: BaseException | None) -> None:
            outcome.append((result, error))
            token.run_sync_soon(finished.set)

        self._jobs.put((job, done))
        with trio.CancelScope(shield=True):
            await finished.wait()
        result, error = outcome[0]
        if error is not None:
            raise error
        return result


_lock = threading.Lock()


@functools.cache
def _cached_spawner() -> _Spawner:
    return _Spawner()


def _the_spawner() -> _Spawner:
    """The process's one spawner thread, started on first use."""
    with _lock:
        return _cached_spawner()


GATE_SCRIPT: Final = '[ "$PPID" = "$1" ] || exit 125; shift; read -r _ || exit 125; exec "$@"'
"""The gate's shell: give up if its parent is no longer the referee that started it, wait for
one line on stdin (the shell reads it byte by byte, never past its end), then run the rest in
its place, with stdin left at the first protocol message."""


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv")


def gate(referee: int) -> tuple[str, ...]:
    """The gate's command for a child of process ``referee``, the bot's command to follow.

    ``setpriv --pdeathsig KILL`` arms the parent-death signal before the shell starts, so the
    bot dies with the referee even when the referee is killed (``SIGKILL``) the moment it starts
    a bot: bubblewrap's own ``--die-with-parent`` is armed only after its clone, and a referee
    killed before that left the whole sandbox running (a hostile bot's lingerers with it). The
    signal survives the ``exec`` of bwrap and of the bot (neither is set-user-ID here). A signal
    armed after its parent died never comes: the shell, started after the arming, compares its
    parent with ``referee`` and runs nothing if they differ. Without ``setpriv`` (util-linux) the
    gate is the shell alone and a bot outlives a killed referee until its stdin ends."""
    shell = ("/bin/sh", "-c", GATE_SCRIPT, "bot-gate", str(referee))
    setpriv = _setpriv()
    return (setpriv, "--pdeathsig", "KILL", "--", *shell) if setpriv is not None else shell


GATE_LINE: Final = b"open\n"
GATE_CLOSED: Final = 125
"""The gate's exit status when stdin ended before the line (the bot never ran)."""


def _popen(
    args: Sequence[str], fds: tuple[int, int, int], cwd: str | Path | None, env: Mapping[str, str] | None,
    pass_fds: Sequence[int],
) -> subprocess.Popen[bytes]:  # fmt: skip
    return subprocess.Popen(
        list(args),
        stdin=fds[0],
        stdout=fds[1],
        stderr=fds[2],
        cwd=cwd,
        env=dict(env) if env is not None else None,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )


async def spawn(
    args: Sequence[str],
    *,
    cwd: str | Path | None,
    env: Mapping[str, str] | None,
    place: Callable[[int], None] | None,
    nursery: trio.Nursery,
    pass_fds: Sequence[int] = (),
) -> SpawnedProcess:
    """Start ``args`` in a new session with pipes on its stdin, stdout and stderr, by the
    long-lived spawner thread. With ``place``, through the gate: ``place(pid)`` runs while the
    child waits, before the program does (a group, limits); if it raises, the child is killed
    unrun and the error raised. Raises ``OSError`` when the program cannot be started."""
    child_in, parent_in = os.pipe()
    parent_out, child_out = os.pipe()
    parent_err, child_err = os.pipe()
    ours = (parent_in, parent_out, parent_err)
    theirs = (child_in, child_out, child_err)
    argv = [*gate(os.getpid()), *args] if place is not None else list(args)
    for fd in ours:
        os.set_inheritable(fd, False)
    try:
        popen: subprocess.Popen[bytes] = await _the_spawner().run(
            functools.partial(_popen, argv, (child_in, child_out, child_err), cwd, env, pass_fds)
        )
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    if place is not None:
        try:
            place(popen.pid)
            os.write(parent_in, GATE_LINE)  # an empty pipe takes it at once
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(popen.pid, signal.SIGKILL)
            popen.wait()
            for fd in ours:
                os.close(fd)
            raise
    process = SpawnedProcess(popen, parent_in, parent_out, parent_err)
    nursery.start_soon(process.watch)
    return process
