"""What every listening part of the referee shares: the address it listens on by default, the
tokens it hands out, and how it writes an address for a person.

TCP seats (``referee.match``), browser seats and spectators (``referee.web``) and the check's
``tcp:`` bots (``referee.check``) all listen on ``DEFAULT_HOST`` unless told otherwise, and
all let a connection in by a token from ``new_token``; none of them owns the other, so these
live here, below all three.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Final

DEFAULT_HOST = "127.0.0.1"
"""Loopback: a bot or a browser on another machine is let in only when ``--host`` says so."""
HIDDEN_TOKEN: Final = "<token>"
"""What is shown in place of a seat's token wherever it would otherwise be kept or printed:
a match log's copy of a TCP bot's hello, a check step's transcript of a token the user
supplied (``tcp:NAME:TOKEN``)."""


def new_token() -> str:
    """A random seat token (96 bits, URL-safe) that a command line takes as a value: never
    starting with ``-``, which ``--token -x...`` would read as an option (a bot author pasting
    the printed token would see an argparse error; one token in 64 did)."""
    while True:
        token = secrets.token_urlsafe(12)
        if not token.startswith("-"):
            return token


def show_address(host: str, port: int) -> str:
    """``127.0.0.1:8000``, or ``[::1]:8000`` for an IPv6 address (its colons need brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def read_token_file(path: str) -> str:
    """The token in the first line of the file at ``path`` (``tcp:NAME:@FILE``: a command line
    is readable by every process of the machine). Raises ``ValueError`` for a file that cannot
    be read or whose first line is empty, naming the file, never its content."""
    try:
        token = Path(path).read_text(encoding="utf-8").partition("\n")[0].strip()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the token file {path!r}: {err}") from None
    if not token:
        raise ValueError(f"the token file {path!r} is empty")
    return token


def shown_token(token: str, *, given: bool, token_file: str | None = None) -> str:
    """A seat token as a printed line names it: ``token 3q2S...`` when the referee made it up
    (the user learns it there), else where it came from, never its value (``the token in
    FILE``, ``the token you gave``): a token the user supplied stays out of terminals, CI logs
    and JSON output (docs/protocol.md, "Connecting over TCP")."""
    if token_file is not None:
        return f"the token in {token_file}"
    return "the token you gave" if given else f"token {token}"
