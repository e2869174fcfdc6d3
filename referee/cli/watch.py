"""`referee watch`: follow a match log in the browser as it grows (the operator's view)."""

from __future__ import annotations

import webbrowser

import click
import trio

from referee.cli.options import PORT, Seconds, check_listen, resolvable_host
from referee.cli.serving import serve_until_signal
from referee.network import DEFAULT_HOST
from referee.web.watch import WatchServer


@click.command()
@click.argument("log", type=click.Path())
@click.option("--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address to listen on.")
@click.option("--port", default=0, show_default=True, type=PORT, help="Port of the page (0..65535; 0: any free).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your browser.")
@click.option(
    "--pace",
    default=0.0,
    show_default=True,
    type=Seconds(allow_zero=True, maximum=10.0),
    help="Seconds between two moves shown, a finished trick 2.5 times and a round's score 5 times longer"
    " (0: as fast as the log is written). A finished log is then replayed at a person's speed.",
)
def watch(log: str, host: str, port: int, open_browser: bool, pace: float) -> None:
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

    server = WatchServer(log, host, port, pace=pace, on_listening=listening)

    async def start(nursery: trio.Nursery) -> None:
        nursery.start_soon(server.serve)

    serve_until_signal(start)
