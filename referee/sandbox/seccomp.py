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
    ),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def bot_filter(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine's architecture, or ``None`` if it has none."""
    arch = ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    refused = [arch.add_key, arch.request_key, arch.keyctl, arch.unshare]
    program: list[tuple[int, int, str | None, str | None]] = [
        (_LD_W_ABS, _ARCH_OFFSET, None, None),
        (_JEQ, arch.audit, None, "eperm"),  # a call of another ABI
        (_LD_W_ABS, _NR_OFFSET, None, None),
        (_JGE, X32_BIT, "eperm", None),  # x32 calls on x86-64
        *[(_JEQ, nr, "eperm", None) for nr in refused],
        (_JEQ, arch.clone3, "enosys", None),
        *[(_JEQ, nr, "enosys", None) for nr in arch.watchers],
        (_JEQ, arch.flock, "noop", None),
        (_JEQ, arch.fcntl, "fcntl", None),
        (_JEQ, arch.clone, "clone", "allow"),
    ]
    locks: list[tuple[int, int, str | None, str | None]] = [(_JEQ, c, "noop", None) for c in LOCK_COMMANDS[:-1]]
    labels: dict[str, list[tuple[int, int, str | None, str | None]]] = {  # in order: every jump is forward
        "clone": [(_LD_W_ABS, _ARG0_OFFSET, None, None), (_JSET, CLONE_NEWUSER, "eperm", "allow")],
        "fcntl": [
            (_LD_W_ABS, _ARG1_OFFSET, None, None),
            *[(_JEQ, c, "enosys", None) for c in NOTIFY_COMMANDS],
            *locks,
            (_JEQ, LOCK_COMMANDS[-1], "noop", "allow"),
        ],
        "allow": [(_RET, _ALLOW, None, None)],
        "eperm": [(_RET, _ERRNO | EPERM, None, None)],
        "enosys": [(_RET, _ERRNO | ENOSYS, None, None)],
        "noop": [(_RET, _ERRNO | 0, None, None)],  # "succeeds" without doing anything
    }
    layout = list(program)
    where: dict[str, int] = {}
    for name, block in labels.items():
        where[name] = len(layout)
        layout += block
    out = b""
    for pc, (code, k, jt, jf) in enumerate(layout):
        out += _op(code, k, where[jt] - pc - 1 if jt else 0, where[jf] - pc - 1 if jf else 0)
    return out
