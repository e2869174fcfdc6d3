"""What the seat server and the watch server share: Hypercorn's configuration on trio (quiet,
no server header, a message-size cap) and the ASGI lifespan handshake."""

from __future__ import annotations

from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from referee.web.link import AsgiSend


def hypercorn_config(host: str, port: int, max_message_bytes: int) -> Config:
    """Hypercorn for one of our pages: bound to ``host:port``, WebSocket messages capped, no
    access or error log (faults are the match's to report), no server header."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.websocket_max_message_size = max_message_bytes
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    config.include_server_header = False
    return config


async def listen(app: Any, config: Config, nursery: trio.Nursery) -> str:
    """Serve ``app`` in ``nursery``; the address it listens on, once it does."""

    async def started(*, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
        await serve(app, config, task_status=task_status)

    binds: list[str] = await nursery.start(started)
    return binds[0]


async def lifespan(receive: Any, send: AsgiSend) -> None:
    """Answer the ASGI lifespan messages until shutdown (there is nothing to start or stop)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
