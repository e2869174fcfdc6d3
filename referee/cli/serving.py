"""A page server run from the command line until Ctrl-C or SIGTERM: ``referee watch`` and
``referee ladder web`` end the same way, with the signal's exit status (128 + its number)."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable

import click
import trio


def serve_until_signal(start: Callable[[trio.Nursery], Awaitable[None]]) -> None:
    """Run ``start`` (which starts the server's tasks in the nursery it is given) until SIGINT
    or SIGTERM, or until its tasks end; a signal exits with 128 + its number."""
    stopped: list[int] = []

    async def run() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                await start(nursery)
                async for signum in signals:
                    stopped.append(signum)
                    nursery.cancel_scope.cancel()
                    break

    trio.run(run)
    if stopped:
        raise click.exceptions.Exit(128 + stopped[0])
