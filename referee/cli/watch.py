"""`referee watch`: follow a match log in the browser as it grows (the operator's view)."""

from __future__ import annotations

import signal
import webbrowser

import click
import trio

from referee.cli.options import PORT, check_listen, resolvable_host
from referee.network import DEFAULT_HOST
from referee.web.watch import WatchServer


@click.command()
@click.argument("log", type=click.Path())
@click.option("--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address to listen on.")
@click.option("--port", default=0, show_default=True, type=PORT, help="Port of the page (0..65535; 0: any free).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your browser.")
def watch(log: str, host: str, port: int, open_browser: bool) -> None:
    """Serve a page that follows the match log LOG as it is written (by `referee match --log`,
    `play` or `serve`): every hand, the trick in play, the score sheet, faults as they happen
    and the result. LOG may not exist yet. LOG may also be a folder of logs, such as a
    ladder's NAME-logs: the page then follows one match to its end, then the newest (to pick a
    table by the ladder's names: referee ladder web). The address
    printed carries a spectator token; the page shows every hand, so never give it to a
    seat. Ctrl-C stops.

    Examples: referee watch match.jsonl --open; referee watch ladder-logs/
    """
    check_listen(host, port)

    def listening(url: str) -> None:
        click.echo(f"watching {log}: open {url}", err=True)
        if open_browser:
            webbrowser.open(url)

    server = WatchServer(log, host, port, on_listening=listening)
    stopped: list[int] = []

    async def run() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(server.serve)
                async for signum in signals:
                    stopped.append(signum)
                    nursery.cancel_scope.cancel()
                    break

    trio.run(run)
    if stopped:
        raise click.exceptions.Exit(128 + stopped[0])
