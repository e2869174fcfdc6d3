"""Serving the ladder's pages with Hypercorn on trio: ``serve_ladder_web`` in this process
(``referee ladder web``), or ``serve_apart`` in a process of its own beside a ladder that plays
(``ladder run --web``).

Apart, because a page costs CPU (Hypercorn's HTTP, SQLite, the HTML) and in the ladder's
process it would take it from the tables under the same GIL: in a process of its own, at
``nice`` + ``NICENESS``, the bots and the referee come first, and a flood of requests slows
the pages more than the matches.
The pages find the tables in play from the ladder's files (``referee.web.ladder.tables``), so
the view needs nothing from the run.

On a loopback address the pages are open to this machine's browsers (their ``Host`` checked);
bound anywhere else, or given a token file, they need a token, which the printed address
carries in its query (the first request turns it into a cookie and drops it from the address).
The token is the organizer's: it shows everything. With the public view (``--public``), or
once the ladder has entrants, a token is made on loopback too; a visitor without it sees what
``referee.web.ladder.viewer`` allows (with an entrant's key, its own; else the public view with
``--public``, nothing without).
How they are published beyond that (a public address, TLS, a reverse proxy) is
``published.Publishing``; docs/ladder.md, "Published safely"."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from referee.network import DEFAULT_HOST, new_token
from referee.store.entrants import secret_digests
from referee.web.asgi import LOOPBACK_NAMES, hypercorn_config, listen
from referee.web.hypercorn_bounds import SEND_SECONDS
from referee.web.ladder.answers import SECURITY_HEADERS
from referee.web.ladder.app import LadderWeb
from referee.web.ladder.forwarded import Forwarded
from referee.web.ladder.published import Publishing, printed_addresses

MAX_MESSAGE_BYTES = 4096
"""A spectator sends nothing that is read: its messages are capped small."""
NICENESS = 10
"""How much lower the pages' process runs than the ladder (``nice``: at 10, about a tenth of
the CPU weight when both want it)."""
ADDRESS = re.compile(r"open (https?://\S+)")


def _lower_priority() -> None:
    """In the pages' process, before it runs: ``nice`` + ``NICENESS``. Not Linux's idle class
    (``SCHED_IDLE``): on a machine the bots keep busy it starved the pages altogether (measured
    in docs/performance.md); at nice 10 they still get a share."""
    os.nice(NICENESS)


def needs_token(host: str) -> bool:
    return host not in LOOPBACK_NAMES


async def serve_ladder_web(
    db: Path,
    host: str,
    port: int,
    *,
    publishing: Publishing | None = None,
    on_listening: Callable[[list[str]], None] | None = None,
    send_seconds: float = SEND_SECONDS,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the pages of the ladder in ``db`` until cancelled, published as ``publishing``
    says (a kept token, a public address, TLS, trusted proxies); ``on_listening`` gets the
    addresses to print (``published.printed_addresses``, with the token when there is one),
    and the task's start the address it listens on, with the token. ``send_seconds``: how long
    one write may wait for a client that does not read (then its connection is closed)."""
    published = publishing or Publishing()
    app = LadderWeb(db, public=published.public, public_view=published.public_view)
    try:
        token = published.token or (new_token() if needs_token(host) or _private(app, published) else None)
        app.token = token
        served = Forwarded(app, published.proxies) if published.proxies else app
        async with trio.open_nursery() as nursery:
            config = hypercorn_config(host, port, MAX_MESSAGE_BYTES, answer_headers=SECURITY_HEADERS,
                                      send_seconds=send_seconds, certfile=_text(published.certfile),
                                      keyfile=_text(published.keyfile))  # fmt: skip
            app.url = await listen(served, config, nursery)
            if on_listening is not None:
                on_listening(printed_addresses(app.url, token, published.public))
            task_status.started(f"{app.url}/" + (f"?token={token}" if token else ""))
    finally:
        app.close()


def _private(app: LadderWeb, published: Publishing) -> bool:
    """Whether the pages on loopback need a token of their own: when the public view is
    served, or the ladder has entrants, the organizer's everything is the token's alone."""
    return published.public_view or bool(app.reading.read(lambda reader: secret_digests(reader.db)))


def _text(path: Path | None) -> str | None:
    return None if path is None else str(path)


class ViewStopped(Exception):
    """The pages' process ended by itself (its port taken, the database unreadable)."""


async def serve_apart(
    db: Path,
    port: int,
    *,
    on_listening: Callable[[str], None],
    on_line: Callable[[str], None],
    options: Sequence[str] = (),
) -> None:
    """``referee ladder web --db DB --port PORT`` on 127.0.0.1 in a process of its own, at a
    lower priority, its stdin a pipe held by this process (when this process ends, however:
    SIGKILL too, the pipe closes and the pages stop: ``stop_when_stdin_closes``),
    until cancelled (then it is ended); ``options``: more of ``ladder web``'s (its token file,
    public address, trusted proxies). ``on_listening`` gets each address it prints,
    ``on_line`` any other line it writes. Raises ``ViewStopped`` when it ends by itself."""
    command = [sys.executable, "-m", "referee", "ladder", "web", "--db", str(db), "--host", DEFAULT_HOST,
               "--port", str(port), "--until-stdin-closes", *options]  # fmt: skip
    process = await trio.lowlevel.open_process(
        command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=_lower_priority,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        pending = b""
        async for chunk in process.stderr:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                line = raw.decode(errors="replace")
                found = ADDRESS.search(line)
                if found:
                    on_listening(found.group(1))
                else:
                    on_line(line)
        code = await process.wait()
        raise ViewStopped(f"the pages' process ended (exit status {code})")
    finally:
        with trio.CancelScope(shield=True):
            if process.returncode is None:
                process.terminate()
                with trio.move_on_after(3):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()


async def stop_when_stdin_closes(scope: trio.CancelScope) -> None:
    """Cancel ``scope`` once standard input ends (what it sends is dropped): the pages of
    ``ladder run --web`` stop with the run that started them, even one killed by SIGKILL."""
    stream = trio.lowlevel.FdStream(os.dup(0))
    try:
        while await stream.receive_some(4096):
            pass
    except (OSError, trio.BrokenResourceError):
        pass
    finally:
        await stream.aclose()
    scope.cancel()
