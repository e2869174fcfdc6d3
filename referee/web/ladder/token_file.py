"""The pages' token kept in a file (``ladder web --token-file PATH``), so that the address an
organizer shared still opens the pages after a restart.

The file is a secret, and its path may be one anybody on the machine can write beside: it is
read as hostile input, as a bot list is (``referee.players.list_file``). It is opened without
blocking (a FIFO put in its place opens at once and is refused, instead of holding the start
forever), the opened descriptor is checked (``fstat``, not the path, which may change between
a check and an open), anything but a regular file is refused, naming what it is, a file that
its group or others may read is refused (the secret is no longer one), and no more than
``MAX_TOKEN_BYTES`` is ever read. What it holds must be one token fit for an address and a
cookie: ``TOKEN_CHARACTERS``, at least ``MIN_TOKEN_CHARACTERS`` of them.

A path with nothing at it gets a new token (``referee.network.new_token``), written to a
private file (0600) beside it and then linked into place: the file is never seen empty or
half written, and of two starts at once, the second reads the first one's token."""

from __future__ import annotations

import contextlib
import os
import stat
import string
import tempfile
from pathlib import Path
from typing import Final

from referee.errors import RefereeError
from referee.network import new_token

MAX_TOKEN_BYTES: Final = 256
"""The largest token file read: a token is a line of a few dozen characters."""
MIN_TOKEN_CHARACTERS: Final = 16
"""A shorter token is guessed too easily to guard pages on a network (a new one has 16)."""
TOKEN_CHARACTERS: Final = frozenset(string.ascii_letters + string.digits + "-_.~")
"""The characters a token may have: those an address's query and a cookie carry as they are."""
_OPENING: Final = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""As a bot list is opened: ``O_NONBLOCK``, a FIFO opens at once (and is then refused)."""
_KINDS: Final = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                 (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))  # fmt: skip


class TokenFileError(RefereeError):
    """A token file that is not used; the message names the file and why."""


def token_from_file(path: str | Path, *, make: bool = True) -> str:
    """The token kept at ``path``, made and kept there first when there is no file (and
    ``make``); raises ``TokenFileError`` naming the file and what is wrong with it."""
    try:
        fd = os.open(path, _OPENING)
    except FileNotFoundError:
        if make:
            return _made(Path(path))
        raise TokenFileError(f"{path}: is a symbolic link to nothing, or was removed as it was made") from None
    except OSError as err:
        raise TokenFileError(f"{path}: {_unopened(path, err)}") from None
    try:
        return _checked(_read(fd, path), path)
    finally:
        os.close(fd)


def _unopened(path: str | Path, err: OSError) -> str:
    """Why ``path`` could not be opened: a socket refuses ``open`` itself, so it is named from
    the path (nothing is read from it either way)."""
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if stat.S_ISSOCK(mode):
            return _not_regular(mode)
    return f"cannot be opened ({err.strerror or err})"


def _not_regular(mode: int) -> str:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"is {kind}; a token file is a regular file"


def _read(fd: int, path: str | Path) -> bytes:
    """What the opened ``fd`` holds, checked as the module's docstring says."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise TokenFileError(f"{path}: {_not_regular(info.st_mode)}")
    if info.st_mode & 0o077:
        raise TokenFileError(
            f"{path}: its group or others may read or write it (mode {stat.S_IMODE(info.st_mode):04o}); "
            f"a token is a secret: chmod 600 {path}"
        )
    if info.st_size > MAX_TOKEN_BYTES:
        raise TokenFileError(f"{path}: is {info.st_size:,} bytes; a token file holds one token of at most "
                             f"{MAX_TOKEN_BYTES} bytes")  # fmt: skip
    try:
        data = os.read(fd, MAX_TOKEN_BYTES + 1)
    except OSError as err:
        raise TokenFileError(f"{path}: cannot be read ({err.strerror or err})") from None
    if len(data) > MAX_TOKEN_BYTES:
        raise TokenFileError(f"{path}: grew past {MAX_TOKEN_BYTES} bytes while it was read")
    return data


def _checked(data: bytes, path: str | Path) -> str:
    """The token in ``data`` (one line; spaces around it are dropped)."""
    text = data.strip()
    if not text:
        raise TokenFileError(f"{path}: is empty; remove it and a new token is made there at the next start")
    try:
        token = text.decode("ascii")
    except UnicodeDecodeError:
        token = ""
    if not token or not set(token) <= TOKEN_CHARACTERS:
        raise TokenFileError(f"{path}: is not one token: a token is letters, digits, '-', '_', '.' and '~' only")
    if len(token) < MIN_TOKEN_CHARACTERS:
        raise TokenFileError(
            f"{path}: holds a token of {len(token)} characters; at least {MIN_TOKEN_CHARACTERS} are needed "
            "(remove the file and a new one is made)"
        )
    return token


def _made(path: Path) -> str:
    """A new token kept at ``path``: written whole to a private file beside it, then linked
    there (a link never replaces a file: if another start made one meanwhile, that one's token
    is read and used)."""
    token = new_token()
    try:
        fd, draft = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # 0600
    except OSError as err:
        raise TokenFileError(f"{path}: no such file, and none can be made there ({err.strerror or err})") from None
    try:
        with os.fdopen(fd, "w") as out:
            out.write(f"{token}\n")
            out.flush()
            os.fsync(out.fileno())
        os.link(draft, path)
    except FileExistsError:
        return token_from_file(path, make=False)
    except OSError as err:
        raise TokenFileError(f"{path}: no such file, and none can be made there ({err.strerror or err})") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(draft)
    return token
