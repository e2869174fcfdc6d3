"""The reaper: a referee's bots die with it, even when it is killed by ``SIGKILL``.

A referee killed that way runs no clean-up, and the kernel's parent-death signal is a chain that
breaks: bubblewrap arms its own only after its first ``clone``, and its inner ``init`` only after
its second, so a referee killed while a sandbox starts left that sandbox running, its bot's
double-forked children with it (and a bot frozen by ``--freeze-idle`` cannot even die until
thawed). The one thing that holds every process of a bot is its control group. So each referee
with groups starts this small process beside it (``python -m referee.sandbox.reaper``, its own
session, so a Ctrl-C meant for the referee leaves it be), holding the read end of a pipe whose
write end only the referee has. The pipe ends when the referee ends, however it ends; the reaper
then kills what is left in the referee's groups (thawing a frozen one first), removes the
folders and exits. At a normal exit the referee has removed its groups already and waits for
the reaper, which finds nothing (``CgroupHost.close``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

from referee.sandbox.cgroups import BotGroup, CgroupError, CgroupHost

_kept: list[int] = []
"""The write ends held by this process: a child made by ``fork`` closes its copies, or a killed
referee's pipe would stay open for as long as that child lives."""


def _forget_in_child() -> None:
    for fd in _kept:
        with contextlib.suppress(OSError):
            os.close(fd)
    _kept.clear()


os.register_at_fork(after_in_child=_forget_in_child)


class Reaper:
    """The running reaper of one referee's groups (``bases``: controller -> the referee's folder)."""

    def __init__(self, version: int, bases: dict[str, Path]) -> None:
        spec = json.dumps({"version": version, "bases": {c: str(p) for c, p in bases.items()}})
        pending, self._end = os.pipe()  # neither is inherited by anything the referee starts
        package_parent = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", "referee.sandbox.reaper", spec],
                stdin=pending,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": path},
                start_new_session=True,
            )
        except BaseException:
            os.close(self._end)
            raise
        finally:
            os.close(pending)
        _kept.append(self._end)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def release(self, timeout: float = 5.0) -> None:
        """End the pipe and wait for the reaper to finish (idempotent). Called once the referee's
        groups are gone: on cgroup v2 it shares the referee's leaf, which must then be empty."""
        process, self._process = self._process, None
        if process is None:
            return
        if self._end in _kept:
            _kept.remove(self._end)
            os.close(self._end)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def guard(host: CgroupHost) -> Reaper:
    """Start the reaper of ``host``'s groups; ``host.close`` releases it (it finds nothing then).
    Raises ``OSError`` when it cannot start."""
    reaper = Reaper(host.version, host.bases)
    host.on_emptied.append(reaper.release)
    return reaper


def reap(version: int, bases: dict[str, Path]) -> None:
    """Kill every process left in the groups under ``bases`` and remove their folders, then the
    bases themselves (as far as they are empty; a group that will not go is left to the next
    referee's ``detect``)."""
    folders = list(dict.fromkeys(bases.values()))
    names: set[str] = set()
    for base in folders:
        with contextlib.suppress(OSError):
            names |= {e.name for e in os.scandir(base) if e.is_dir(follow_symlinks=False)}
    for name in sorted(names):
        with contextlib.suppress(CgroupError, OSError):
            BotGroup(name, version, {c: b / name for c, b in bases.items()}).remove()
    for base in folders:
        with contextlib.suppress(OSError):
            os.rmdir(base)


def main(argv: list[str]) -> int:
    """Wait for the referee's end of stdin, then reap its groups."""
    spec = json.loads(argv[0])
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    reap(int(spec["version"]), {c: Path(p) for c, p in spec["bases"].items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
