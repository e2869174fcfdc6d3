"""A small seccomp filter for sandboxed bots, as raw classic BPF (what ``bwrap --seccomp FD``
loads before the bot runs).

Namespaces leave kernel facilities shared between bots of one machine: the kernel keyrings
(a uid's user keyring outlives its processes, so one match could leave a note for the next, and
a key readable by all is a message to a colluding bot), new user namespaces (which hand a
bot every capability inside one and a larger kernel surface), and file watches: two bots that
both see a read-only file in ``/usr`` passed 56 kbit/s through ``inotify`` (one opens or
reads the file, the other is told at once; issue 22), and ``fanotify`` is the same for a whole
mount. The filter refuses, with EPERM, ``add_key``, ``request_key``, ``keyctl``, ``unshare``,
``clone`` with ``CLONE_NEWUSER``, and any system call of another ABI (32-bit or x32 calls on
x86-64 would slip past the numbers); ``clone3``, whose flags a classic filter cannot read, gets
ENOSYS so that the C library falls back to ``clone``, and so do ``inotify_init``,
``inotify_init1``, ``inotify_add_watch``, ``fanotify_init`` and ``fcntl``'s ``F_NOTIFY`` and
``F_SETLEASE`` (ENOSYS: a library that watches files where it can falls back to looking again,
as on a system without them). File locks
(``flock`` and the lock commands of ``fcntl``) succeed without doing anything: two bots that
both see a read-only file in ``/usr`` passed 5,000 bit/s without an error by locking it (one
holds the lock for a 1, the other tries it; ``referee bench channels``); a bot's own processes
lose locking among themselves, which no sample bot uses (``F_GETLK`` still works: it finds no lock). Everything
else is allowed: this is a fence around known channels, not a whitelist. Only x86-64 and
AArch64 have a filter (``None`` elsewhere, and the docs say so).

Kernel memory and the page cache (issue 31). A bot's network namespace is empty, yet any
socket family works in it: 60 KiB ``RTM_NEWLINK`` requests on ``AF_NETLINK`` made the kernel
queue 3 GiB of replies outside the bot's control group, and TCP on its own loopback 312 MiB.
``socket`` is refused (EAFNOSUPPORT, what a kernel without the family answers, so libraries fall
back) for every family but ``AF_UNIX``; ``AF_INET``/``AF_INET6`` too unless the sandbox allows
loopback (``--sandbox-loopback``); a build, which fetches its dependencies, keeps those.
Calls that read or clear the page cache's state of a file another bot sees
(a channel from one bot to another, and from a match to the next): ``fadvise64`` and
``readahead`` succeed without doing anything (they are advice), ``preadv2``/``pwritev2`` with
``RWF_NOWAIT`` get EOPNOTSUPP (as on a file system without it), ``mincore`` and ``cachestat``
ENOSYS (the kernel answers both for files the caller may write, which its own are when the
referee is not root). Calls a bot has no use for that pin kernel memory or open a large kernel
surface get ENOSYS: ``io_uring_*`` (and its own ``RWF_NOWAIT``), Linux AIO (``io_setup``,
``io_submit``), ``userfaultfd``, ``bpf``, ``perf_event_open``.
"""

from __future__ import annotations

import platform
import struct
from typing import Final, NamedTuple

_LD_W_ABS: Final = 0x20
_JEQ: Final = 0x15
_JGE: Final = 0x35
_JSET: Final = 0x45
_RET: Final = 0x06
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000
EPERM: Final = 1
ENOSYS: Final = 38
CLONE_NEWUSER: Final = 0x10000000
X32_BIT: Final = 0x40000000
_ARCH_OFFSET: Final = 4
_NR_OFFSET: Final = 0
_ARG0_OFFSET: Final = 16
_ARG1_OFFSET: Final = 24
LOCK_COMMANDS: Final = (6, 7, 37, 38)
"""``fcntl`` commands that take a file lock: ``F_SETLK``, ``F_SETLKW`` and their ``F_OFD_`` twins
(the same numbers on x86-64 and AArch64). ``F_GETLK`` stays: with no lock ever held in a
sandbox it answers "unlocked", truthfully, and tells nothing."""
NOTIFY_COMMANDS: Final = (1024, 1026)
"""``F_SETLEASE`` and ``F_NOTIFY`` (dnotify): a signal when another process opens or reads a
file, the channel ``inotify`` was; refused with ENOSYS."""


AF_UNIX: Final = 1
AF_INET: Final = 2
AF_INET6: Final = 10
BOT_FAMILIES: Final = (AF_UNIX,)
"""What a bot may open: its namespace has no network, and a process of its own may still talk
to another over a Unix socket (a pair, or a path in its ``/tmp``)."""
LOOPBACK_FAMILIES: Final = (AF_UNIX, AF_INET, AF_INET6)
"""With ``--sandbox-loopback``: TCP and UDP on the bot's own loopback (its TCP memory is then
bounded by its control group: ``referee.sandbox.cgroups``)."""
BUILD_FAMILIES: Final = (AF_UNIX, AF_INET, AF_INET6)
"""A build reaches the network to fetch its dependencies. Not netlink: the C library's name
lookup asks it which address families the machine has and, refused, assumes both."""
EAFNOSUPPORT: Final = 97
EOPNOTSUPP: Final = 95
RWF_NOWAIT: Final = 0x8
_ARG5_OFFSET: Final = 56


class Arch(NamedTuple):
    audit: int
    add_key: int
    request_key: int
    keyctl: int
    unshare: int
    clone: int
    clone3: int
    watchers: tuple[int, ...]
    """``inotify_init`` (x86-64 only), ``inotify_init1``, ``inotify_add_watch``, ``fanotify_init``."""
    flock: int
    fcntl: int
    socket: int
    advice: tuple[int, ...]
    """``fadvise64``, ``readahead``: succeed without doing anything."""
    nowait: tuple[int, ...]
    """``preadv2``, ``pwritev2``: refused with ``RWF_NOWAIT`` in their flags."""
    unused: tuple[int, ...]
    """ENOSYS: ``mincore``, ``cachestat``, ``io_uring_setup``/``enter``/``register``,
    ``io_setup``, ``io_submit``, ``userfaultfd``, ``bpf``, ``perf_event_open``."""


ARCHES: Final = {
    "x86_64": Arch(
        audit=0xC000003E,
        add_key=248,
        request_key=249,
        keyctl=250,
        unshare=272,
        clone=56,
        clone3=435,
        watchers=(253, 294, 254, 300),
        flock=73,
        fcntl=72,
        socket=41,
        advice=(221, 187),
        nowait=(327, 328),
        unused=(27, 451, 425, 426, 427, 206, 209, 323, 321, 298),
    ),
    "aarch64": Arch(
        audit=0xC00000B7,
        add_key=217,
        request_key=218,
        keyctl=219,
        unshare=97,
        clone=220,
        clone3=435,
        watchers=(26, 27, 262),
        flock=32,
        fcntl=25,
        socket=198,
        advice=(223, 213),
        nowait=(286, 287),
        unused=(232, 451, 425, 426, 427, 0, 2, 282, 280, 241),
    ),
}

Op = tuple[int, int, str | None, str | None]


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def bot_filter(machine: str | None = None, *, families: tuple[int, ...] = BOT_FAMILIES) -> bytes | None:
    """The compiled filter for this machine's architecture, or ``None`` if it has none;
    ``socket`` opens only ``families``."""
    arch = ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    refused = [arch.add_key, arch.request_key, arch.keyctl, arch.unshare]
    program: list[Op] = [
        (_LD_W_ABS, _ARCH_OFFSET, None, None),
        (_JEQ, arch.audit, None, "eperm"),  # a call of another ABI
        (_LD_W_ABS, _NR_OFFSET, None, None),
        (_JGE, X32_BIT, "eperm", None),  # x32 calls on x86-64
        *[(_JEQ, nr, "eperm", None) for nr in refused],
        (_JEQ, arch.clone3, "enosys", None),
        *[(_JEQ, nr, "enosys", None) for nr in (*arch.watchers, *arch.unused)],
        *[(_JEQ, nr, "noop", None) for nr in (arch.flock, *arch.advice)],
        *[(_JEQ, nr, "nowait", None) for nr in arch.nowait],
        (_JEQ, arch.socket, "socket", None),
        (_JEQ, arch.fcntl, "fcntl", None),
        (_JEQ, arch.clone, "clone", "allow"),
    ]
    return _assemble(program, _blocks(families))


def _blocks(families: tuple[int, ...]) -> dict[str, list[Op]]:
    """The filter's labelled blocks, in order: every jump is forward."""
    locks: list[Op] = [(_JEQ, c, "noop", None) for c in LOCK_COMMANDS[:-1]]
    return {
        "clone": [(_LD_W_ABS, _ARG0_OFFSET, None, None), (_JSET, CLONE_NEWUSER, "eperm", "allow")],
        "fcntl": [
            (_LD_W_ABS, _ARG1_OFFSET, None, None),
            *[(_JEQ, c, "enosys", None) for c in NOTIFY_COMMANDS],
            *locks,
            (_JEQ, LOCK_COMMANDS[-1], "noop", "allow"),
        ],
        "socket": [
            (_LD_W_ABS, _ARG0_OFFSET, None, None),
            *[(_JEQ, family, "allow", None) for family in families],
            (_RET, _ERRNO | EAFNOSUPPORT, None, None),
        ],
        "nowait": [(_LD_W_ABS, _ARG5_OFFSET, None, None), (_JSET, RWF_NOWAIT, "eopnotsupp", "allow")],
        "allow": [(_RET, _ALLOW, None, None)],
        "eperm": [(_RET, _ERRNO | EPERM, None, None)],
        "enosys": [(_RET, _ERRNO | ENOSYS, None, None)],
        "eopnotsupp": [(_RET, _ERRNO | EOPNOTSUPP, None, None)],
        "noop": [(_RET, _ERRNO | 0, None, None)],  # "succeeds" without doing anything
    }


def _assemble(program: list[Op], labels: dict[str, list[Op]]) -> bytes:
    layout = list(program)
    where: dict[str, int] = {}
    for name, block in labels.items():
        where[name] = len(layout)
        layout += block
    out = b""
    for pc, (code, k, jt, jf) in enumerate(layout):
        jump_true = where[jt] - pc - 1 if jt else 0
        jump_false = where[jf] - pc - 1 if jf else 0
        if not (0 <= jump_true <= 255 and 0 <= jump_false <= 255):
            raise ValueError(f"seccomp filter: a jump too long at {pc}")  # classic BPF jumps 8 bits
        out += _op(code, k, jump_true, jump_false)
    return out
