"""A bot that tries to pin kernel memory (for ``referee bench kernel-memory``): a script run
inside the sandbox, as a bot would be, with the standard library only.

    python3 kernel_peer.py KIND MIB PROCESSES

Each of ``PROCESSES`` processes fills kernel objects of one ``KIND`` until it has pushed
``MIB`` MiB / ``PROCESSES`` or the kernel says no, then holds them. The first line on stdout is
JSON: what was pushed, how many objects, and the first refusal (``errno`` name); then it waits
until stdin closes. What the kernel charged and to whom is measured from outside.

Kinds: ``netlink`` (60 KiB ``RTM_NEWLINK`` requests on ``NETLINK_ROUTE`` sockets, never read:
the kernel queues an error reply carrying each request back), ``tcp`` (pairs on the bot's own
loopback, one end writing until its buffers are full), ``unix`` (stream socket pairs, the
same), ``pipe`` (pipes grown to 1 MiB, full), ``memfd`` (the baseline: memory a group is
known to be charged for), ``fds`` (eventfds and epolls: the descriptors themselves),
``mqueue`` (POSIX message queues, full), ``timers`` (POSIX timers: objects without a descriptor,
up to a million a process).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import struct
import sys
from collections.abc import Callable

MIB = 1 << 20
CHUNK = 60 * 1024
F_SETPIPE_SZ = 1031
NETLINK_ROUTE = 0
RTM_NEWLINK = 16
NLM_F_REQUEST = 1


class Held:
    """What one process holds: its objects (so they stay open) and what it pushed."""

    def __init__(self) -> None:
        self.objects: list[object] = []
        self.pushed = 0
        self.refused: str | None = None


def _fill(sock: socket.socket, budget: int, held: Held) -> None:
    sock.setblocking(False)
    data = b"\0" * CHUNK
    while held.pushed < budget:
        try:
            held.pushed += sock.send(data)
        except BlockingIOError:
            return


def netlink(budget: int, held: Held) -> None:
    request = struct.pack("=IHHII", 16 + CHUNK, RTM_NEWLINK, NLM_F_REQUEST, 1, 0) + b"\0" * CHUNK
    while held.pushed < budget:
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
        held.objects.append(sock)
        sock.setblocking(False)
        for _ in range(64):  # the replies queue until the socket's receive buffer is full
            try:
                sock.send(request)
            except (BlockingIOError, OSError):
                break
            held.pushed += len(request)


def _fill_pairs(pair: Callable[[], tuple[socket.socket, socket.socket]], budget: int, held: Held) -> None:
    """Connected pairs from ``pair``, one end of each written until its buffers are full, until
    the budget is pushed or a new pair takes nothing more."""
    while held.pushed < budget:
        one, two = pair()
        held.objects += [one, two]
        before = held.pushed
        _fill(one, budget, held)
        if held.pushed == before:
            return


def tcp(budget: int, held: Held) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held.objects.append(listener)

    def connected() -> tuple[socket.socket, socket.socket]:
        client = socket.create_connection(listener.getsockname())
        return client, listener.accept()[0]

    _fill_pairs(connected, budget, held)


def unix(budget: int, held: Held) -> None:
    _fill_pairs(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM), budget, held)


def pipe(budget: int, held: Held) -> None:
    import fcntl  # noqa: PLC0415 - only this kind needs it

    while held.pushed < budget:
        read, write = os.pipe()
        held.objects += [read, write]
        with contextlib.suppress(OSError):  # the user's pipe pages spent: it keeps its default size
            fcntl.fcntl(write, F_SETPIPE_SZ, MIB)
        os.set_blocking(write, False)
        try:
            while held.pushed < budget:
                held.pushed += os.write(write, b"\0" * CHUNK)
        except BlockingIOError:
            continue


def memfd(budget: int, held: Held) -> None:
    fd = os.memfd_create("held")
    held.objects.append(fd)
    while held.pushed < budget:
        held.pushed += os.write(fd, b"\1" * MIB)


def fds(budget: int, held: Held) -> None:
    import select  # noqa: PLC0415 - only this kind needs it

    while held.pushed < budget:
        held.objects += [os.eventfd(0), select.epoll()]
        held.pushed += 2


def mqueue(budget: int, held: Held) -> None:
    """POSIX message queues, filled (the C library's ``mq_open``/``mq_send``)."""
    import ctypes  # noqa: PLC0415 - only these kinds need it

    libc = ctypes.CDLL(None, use_errno=True)
    message = b"\0" * 8192
    while held.pushed < budget:
        queue = libc.mq_open(
            f"/held-{os.getpid()}-{len(held.objects)}".encode(), os.O_CREAT | os.O_RDWR | os.O_NONBLOCK, 0o600, None
        )
        if queue < 0:
            raise OSError(ctypes.get_errno(), "mq_open")
        held.objects.append(queue)
        while held.pushed < budget and libc.mq_timedsend(queue, message, len(message), 0, None) == 0:
            held.pushed += len(message)
        if ctypes.get_errno() not in (0, errno.EAGAIN, errno.EMSGSIZE):
            raise OSError(ctypes.get_errno(), "mq_send")
        if not held.pushed:
            return


def timers(budget: int, held: Held) -> None:
    """POSIX timers (``timer_create``, notifying no one): small kernel objects, no descriptor."""
    import ctypes  # noqa: PLC0415 - only these kinds need it

    libc = ctypes.CDLL(None, use_errno=True)
    event = (ctypes.c_int * 16)(0, 0, 1)  # struct sigevent: sigev_notify = SIGEV_NONE
    while held.pushed < min(budget, 1_000_000):
        timer = ctypes.c_void_p()
        if libc.timer_create(1, event, ctypes.byref(timer)) != 0:
            raise OSError(ctypes.get_errno(), "timer_create")
        held.objects.append(timer)
        held.pushed += 1


KINDS = {
    "netlink": netlink,
    "tcp": tcp,
    "unix": unix,
    "pipe": pipe,
    "memfd": memfd,
    "fds": fds,
    "mqueue": mqueue,
    "timers": timers,
}


def hold(kind: str, budget: int) -> Held:
    held = Held()
    try:
        KINDS[kind](budget, held)
    except OSError as error:
        held.refused = errno.errorcode.get(error.errno or 0, str(error))
    return held


def main() -> None:
    kind, mib, processes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    budget = mib * MIB // processes
    report_read, report_write = os.pipe()
    for _ in range(processes - 1):
        if os.fork() == 0:
            os.close(report_read)
            held = hold(kind, budget)
            os.write(report_write, (json.dumps([held.pushed, len(held.objects), held.refused]) + "\n").encode())
            os.close(report_write)  # the parent reads to the end of every child's report
            sys.stdin.read()  # hold until the referee closes stdin
            os._exit(0)
    os.close(report_write)
    held = hold(kind, budget)
    pushed, objects, refused = held.pushed, len(held.objects), held.refused
    with os.fdopen(report_read) as reports:
        for line in reports:
            more, count, why = json.loads(line)
            pushed, objects, refused = pushed + more, objects + count, refused or why
    print(json.dumps({"kind": kind, "pushed": pushed, "objects": objects, "refused": refused}), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
