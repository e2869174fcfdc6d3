"""Entrants with a secret of their own (``referee ladder entrant add``): the organizer makes
one and hands over its private link; the secret in it opens that entrant's view of the
ladder's pages (its own versions' stderr and faults: docs/ladder.md, "Who sees what").

A secret is 256 random bits, so a plain SHA-256 of it is all the database keeps
(``referee.store.entrants``): no guess reaches it, and a copy of the database opens no view.
A key a browser brings is hashed and compared with every stored digest in constant time
(``owner``), each one compared whatever the others gave, so how long a check takes says
nothing of which entrant, or how much of a digest, a guess came near."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Final

from referee.names import MAX_NAME, printable, safe_name
from referee.players.bot_config import PATH_SEGMENTS
from referee.store.entrants import Kept, keep_secret
from referee.store.writer import LadderStore

SECRET_BYTES: Final = 32
"""Random bytes of a secret (43 characters of URL-safe base64)."""


def new_secret() -> str:
    """A new secret, fit for an address's query and a cookie as it is; never starting with
    ``-`` (a command line would read it as an option)."""
    while True:
        secret = secrets.token_urlsafe(SECRET_BYTES)
        if not secret.startswith("-"):
            return secret


def digest(secret: str) -> str:
    """What the database keeps of a secret: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def owner(key: str | None, digests: tuple[tuple[str, str], ...]) -> str | None:
    """The entrant whose secret ``key`` is, or ``None``: every stored digest compared in
    constant time, none skipped."""
    if key is None:
        return None
    given = digest(key).encode()
    found = None
    for name, stored in digests:
        if secrets.compare_digest(given, stored.encode()):
            found = name
    return found


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be an entrant's, or ``None``: its versions are bots of that name, so
    it must be one a bot list takes, and its uploads are kept in a folder of that name
    (``referee.ladder.uploads``), so it holds no ``/``."""
    if name in PATH_SEGMENTS:
        return f"{name!r} is a path segment: its pages would be another address; give the entrant another name"
    if "/" in name:
        return f"'{printable(name, 80)}': no '/' in an entrant's name (its uploads are kept in a folder of that name)"
    if not name.strip() or safe_name(name, "") != name:
        return (f"'{printable(name, 80)}': an entrant's name is a bot's: at most {MAX_NAME} printable characters, "
                "no leading, trailing or repeated spaces")  # fmt: skip
    return None


def private_link(base: str, secret: str) -> str:
    """The address an entrant opens: its page, its secret in the query (the first request
    turns it into a cookie and drops it from the address)."""
    return f"{base.rstrip('/')}/entrant?key={secret}"


def add_entrant(store: LadderStore, name: str, *, again: bool) -> tuple[Kept, str | None]:
    """Make the entrant ``name`` (or, ``again``, give it a new secret): what was done, and the
    new secret (``None`` when it was ``kept``: its secret is known to no one but its link)."""
    secret = new_secret()
    when = datetime.now(UTC).isoformat(timespec="seconds")
    done = keep_secret(store.db, name, digest(secret), when, again=again)
    return done, None if done == "kept" else secret
