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
``inotify_init1``, ``inotify_add_watch`` and ``fanotify_init`` (ENOSYS: a library that watches
files where it can falls back to looking again, as on a system without them). Everything
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
        (_JEQ, arch.clone, "clone", "allow"),
    ]
    labels: dict[str, list[tuple[int, int, str | None, str | None]]] = {  # in order: every jump is forward
        "clone": [(_LD_W_ABS, _ARG0_OFFSET, None, None), (_JSET, CLONE_NEWUSER, "eperm", "allow")],
        "allow": [(_RET, _ALLOW, None, None)],
        "eperm": [(_RET, _ERRNO | EPERM, None, None)],
        "enosys": [(_RET, _ERRNO | ENOSYS, None, None)],
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
