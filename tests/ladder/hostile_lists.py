"""Things a hostile hand may put where a ladder's bot list is (issue 41): each made at a path,
with the words the refusal must name it by. Shared by the tests of the list's reading
(``test_list_file.py``) and of a running ladder's follower (``test_follow.py``)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

BIG: Final = 100_000_000
"""A 100 MB list, sparse: made at once, and far over the limit."""


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _big(path: Path) -> None:
    with path.open("wb") as file:
        file.truncate(BIG)


def _socket(path: Path) -> None:
    with contextlib.chdir(path.parent), socket.socket(socket.AF_UNIX) as sock:
        sock.bind(path.name)  # relative: a test's folder may be longer than a socket's path allows


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _dev_null(path: Path) -> None:
    path.symlink_to("/dev/null")  # a device a reader that does not check would read as empty, not hang on


def _linked(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def make_linked(path: Path) -> None:
        target = path.with_name(f"target-of-{path.name}")
        make(target)
        path.symlink_to(target)

    return make_linked


HOSTILE: Final[dict[str, tuple[Callable[[Path], None], str]]] = {
    "fifo": (_fifo, "is a FIFO, not a regular file"),
    "dev_zero": (_dev_zero, "is a character device, not a regular file"),
    "dev_null": (_dev_null, "is a character device, not a regular file"),
    "big": (_big, f"is {BIG:,} bytes; a bot list is at most 1,048,576 bytes"),
    "directory": (Path.mkdir, "is a directory, not a regular file"),
    "socket": (_socket, "is a socket, not a regular file"),
    "link_to_fifo": (_linked(_fifo), "is a FIFO, not a regular file"),
    "link_to_big": (_linked(_big), f"is {BIG:,} bytes"),
    "link_to_directory": (_linked(Path.mkdir), "is a directory, not a regular file"),
    "link_to_socket": (_linked(_socket), "is a socket, not a regular file"),
}
"""By name: how to make it at a path, and what its refusal says."""

DOTENV: Final = 'SECRET_KEY="x"\nDATABASE_PASSWORD="hunter2"\nAPI_TOKEN="t"\n'
"""A ``.env`` file: valid TOML, and no bot list."""


@contextlib.contextmanager
def writer_at(path: Path, text: str) -> Iterator[None]:
    """While inside: a writer waiting to hand ``text`` to whoever opens the FIFO at ``path`` (or
    the FIFO it links to). A reader that blocks in ``open`` or ``read`` (what the list's reading
    must never do) is given ``text`` and the end of the file, so a test gets an answer it can
    fail on rather than hang; a reader that opens without blocking and refuses leaves the
    writer waiting, and it is let go on leaving."""

    def write() -> None:
        fd = os.open(path, os.O_WRONLY)  # waits until someone opens it to read
        try:
            os.write(fd, text.encode())
        except BrokenPipeError:
            pass  # the reader had gone: it opened, saw a FIFO and refused
        finally:
            os.close(fd)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        yield
    finally:
        release = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader, for a writer still waiting
        thread.join()
        os.close(release)
