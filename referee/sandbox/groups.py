"""The referee process's control groups (``referee.sandbox.cgroups``): found once, removed at exit.

Every bot the referee starts gets a group of its own from this one host, sandboxed or not,
whenever the machine allows it; ``choose_sandbox`` warns once when it does not (and ``--sandbox
on`` refuses). A host belongs to the process that made it (its folders carry its pid): a child
process made by ``fork`` (a Dask worker, say) finds its own.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading

from referee.sandbox.cgroups import CgroupError, CgroupHost, Unavailable, detect
from referee.sandbox.reaper import guard

_lock = threading.Lock()
_host: CgroupHost | Unavailable | None = None
_owner = 0


_weight: list[int | None] = [None]
"""``--tables-cpu-weight`` for this process's host (one cell: set before or after it is made)."""


def bot_groups() -> CgroupHost | Unavailable:
    """This process's host of bots' groups, or why there is none (tried once per process)."""
    global _host, _owner
    with _lock:
        if _host is None or _owner != os.getpid():
            _host, _owner = detect(), os.getpid()
            if isinstance(_host, CgroupHost):
                atexit.register(_close, _host)
                with contextlib.suppress(OSError):  # without it, bubblewrap's parent-death signal alone
                    guard(_host)
                if _weight[0] is not None:
                    with contextlib.suppress(CgroupError, OSError):  # a weight is a wish, not a bound
                        _host.weigh(_weight[0])
        return _host


def weigh_tables(weight: int | None) -> None:
    """``--tables-cpu-weight``: the CPU weight of all this referee's bots together against the
    machine's other work (100: as much as one other process or group; ``None``: as made), for
    the host made now or later in this process. On a machine busy with other work the bots'
    groups share one weight between them; measured in docs/performance.md ("A busy machine")."""
    with _lock:
        _weight[0] = weight
        host = _host if _owner == os.getpid() else None
    if isinstance(host, CgroupHost) and weight is not None:
        host.weigh(weight)


def _close(host: CgroupHost) -> None:
    """At exit: every bot has ended by now; remove what is left (a referee killed by SIGKILL
    leaves empty folders, which the next referee's ``detect`` removes)."""
    if host.pid == os.getpid():
        with contextlib.suppress(CgroupError, OSError):
            host.close()
