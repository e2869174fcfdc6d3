"""Starting bot programs from one long-lived thread, so that "dies with its parent" means it.

A sandboxed bot is started with bubblewrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``): when
the referee dies, even by SIGKILL, the kernel kills the sandbox. But the kernel ties that signal
to the *thread* that forked the child, not the process, and ``trio.lowlevel.open_process`` forks
in a worker thread of trio's cache, which exits after ten idle seconds, killing every bot it had
started (a ladder's kept bots, a long match). So bots are forked here, by one daemon thread that
lives as long as the referee; the pipes are trio ``FdStream``s and the exit is awaited on a
pidfd, with public APIs only.
"""

from __future__ import annotations

import functools
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

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


async def spawn(
    args: Sequence[str],
    *,
    cwd: str | Path | None,
    env: Mapping[str, str] | None,
    preexec_fn: Callable[[], None] | None,
    nursery: trio.Nursery,
    pass_fds: Sequence[int] = (),
) -> SpawnedProcess:
    """Start ``args`` in a new session with pipes on its stdin, stdout and stderr, forked by
    the long-lived spawner thread. Raises ``OSError`` when it cannot be started."""
    child_in, parent_in = os.pipe()
    parent_out, child_out = os.pipe()
    parent_err, child_err = os.pipe()
    ours = (parent_in, parent_out, parent_err)
    theirs = (child_in, child_out, child_err)
    for fd in ours:
        os.set_inheritable(fd, False)

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(args),
            stdin=child_in,
            stdout=child_out,
            stderr=child_err,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
            # only setrlimit calls (BotLimits.apply): no lock another thread could hold at fork
            preexec_fn=preexec_fn,  # noqa: PLW1509
        )

    try:
        popen: subprocess.Popen[bytes] = await _the_spawner().run(start)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    process = SpawnedProcess(popen, parent_in, parent_out, parent_err)
    nursery.start_soon(process.watch)
    return process
