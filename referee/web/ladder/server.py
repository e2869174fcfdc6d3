"""Serving the ladder's pages with Hypercorn on trio: on its own (``referee ladder web``) or
in the trio run of a ladder that plays (``ladder run --web``), beside its tables.

On a loopback address the pages are open to this machine's browsers (their ``Host`` checked);
bound anywhere else they need a token, which the printed address carries in its query (the
first request turns it into a cookie and drops it from the address)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from referee.ladder.live import LiveTables
from referee.network import new_token
from referee.web.asgi import LOOPBACK_NAMES, hypercorn_config, listen
from referee.web.ladder.app import LadderWeb

MAX_MESSAGE_BYTES = 4096
"""A spectator sends nothing that is read: its messages are capped small."""


def needs_token(host: str) -> bool:
    return host not in LOOPBACK_NAMES


async def serve_ladder_web(
    db: Path,
    host: str,
    port: int,
    *,
    live: LiveTables | None = None,
    on_listening: Callable[[str], None] | None = None,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the pages of the ladder in ``db`` until cancelled; ``on_listening`` gets the
    address to open (with the token when there is one)."""
    token = new_token() if needs_token(host) else None
    app = LadderWeb(db, live=live, token=token)
    try:
        async with trio.open_nursery() as nursery:
            app.url = await listen(app, hypercorn_config(host, port, MAX_MESSAGE_BYTES), nursery)
            address = f"{app.url}/" + (f"?token={token}" if token else "")
            if on_listening is not None:
                on_listening(address)
            task_status.started(address)
    finally:
        app.close()
