"""``referee analyze``: where a seat lost points in a logged match, and what its cards were
worth (thin: the work is in referee.analysis; docs/analysis.md)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

import click
import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from referee.analysis import Budget, analyse_match
from referee.analysis.report import render
from referee.cli.options import check_output_file, cluster_address
from referee.cli.replay import UnreadableLog
from referee.errors import LadderError
from referee.ladder.cluster_dask import cluster_client
from referee.replay.html import match_page
from referee.replay.reader import LogError, NoSuchMatch, read_log
from referee.replay.record import MatchRecord
from referee.replay.verify import verify

EXIT_REFUSED: Final = 1
"""The log does not verify (an entry differs from what the rules produce): refused."""


class LogRefused(click.ClickException):
    exit_code = EXIT_REFUSED


def _seats(record: MatchRecord, seats: tuple[int, ...], bot: str | None) -> list[int]:
    players = record.rules.players
    if bot is not None:
        found = [s.seat for s in record.seats if s.name == bot]
        if not found:
            names = ", ".join(sorted({s.name for s in record.seats}))
            raise click.UsageError(f"no bot {bot!r} in this match; its bots: {names}")
        return found
    for seat in seats:
        if not 0 <= seat < players:
            raise click.UsageError(f"--seat {seat}: this match has seats 0 to {players - 1}")
    return sorted(set(seats)) or list(range(players))


def _record(log: Path, which: str | None) -> MatchRecord:
    try:
        matches = read_log(log).select(which)
    except NoSuchMatch as err:
        raise click.UsageError(str(err)) from None
    except LogError as err:
        raise UnreadableLog(str(err)) from None
    if len(matches) != 1:
        raise click.UsageError(f"{log} holds {len(matches)} matches: choose one with --match")
    record = verify(matches[0])
    status = record.verification
    if status is None or status.status == "mismatch":
        why = status.describe() if status else "not verified"
        raise LogRefused(f"{log}: refused: the log does not verify ({why})")
    return record


@contextmanager
def cluster_executor(address: str | None) -> Iterator[Executor | None]:
    """A Dask client's executor for ``--cluster`` (as the ladder reaches its cluster,
    ``referee.ladder.cluster_dask``), closed at the end; ``None`` without ``--cluster``."""
    if address is None:
        yield None
        return
    try:
        client, cluster = cluster_client(address)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    try:
        yield client.get_executor()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


F = TypeVar("F", bound=Callable[..., Any])

WORKERS_OPTION = click.option(
    "--workers", default=None, type=click.IntRange(1, 512), help="Processes (default: every core)."
)
"""The processes an analysis runs in (``referee analyze``, ``ladder analyze``, ``bench analyze``)."""


def budget_option(*names: str, help: str) -> Callable[[F], F]:
    """The worlds a decision gets at most (``Budget.most``), under ``names``: one range for
    every command that analyses."""
    return click.option(*names, default=Budget().most, show_default=True, type=click.IntRange(8, 100_000), help=help)


CLUSTER_OPTION = click.option(
    "--cluster",
    default=None,
    callback=lambda ctx, param, value: cluster_address(value),
    help="Value the decisions on a Dask cluster: a scheduler's address (tcp://host:8786) or local:N worker "
    "processes (needs pip install -e '.[cluster]'); the same figures as locally with the same seed.",
)


@click.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", "seats", type=int, multiple=True, help="Analyse this seat (repeatable; default: every seat).")
@click.option("--bot", default=None, help="Analyse the seats of the bot of this name (a ladder's bot name).")
@click.option("--match", "which", default=None, help="A log holding several matches: the match id or its index from 0.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON (schema in docs/analysis.md).")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the replay viewer of the match with the analysis here (as referee replay --html --analysis).",
)
@click.option(
    "--seed", default=1, show_default=True, type=int, help="Seed of the sampling: the same seed, the same figures."
)
@budget_option("--budget", help="Worlds per decision at most.")
@click.option(
    "--precision",
    default=Budget().precision,
    show_default=True,
    type=click.FloatRange(0.01, 26.0),
    help="Points (95% half-width) within which two choices count as equal.",
)
@click.option(
    "--policy", default="greedy", show_default=True, type=click.Choice(["greedy", "random"]), help="The playout policy."
)
@WORKERS_OPTION
@CLUSTER_OPTION
def analyze(
    *,
    log: Path,
    seats: tuple[int, ...],
    bot: str | None,
    which: str | None,
    as_json: bool,
    html_path: Path | None,
    seed: int,
    budget: int,
    precision: float,
    policy: str,
    workers: int | None,
    cluster: str | None,
) -> None:
    """Grade every decision of a seat in a logged match (from that seat's information only:
    the hidden hands are sampled) and tell the luck of its cards from its play.

    Exit status: 0 analysed, 1 the log does not verify (refused, naming the first difference),
    2 a usage error, 3 a file that is not a readable replay log.
    """
    if html_path is not None:
        check_output_file(html_path, "--html", make_folders=False)
    record = _record(log, which)
    chosen = _seats(record, seats, bot)
    plan = Budget.at_most(budget, precision)
    console = Console(stderr=True)
    with (
        cluster_executor(cluster) as executor,
        Progress(
            TextColumn("analysing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        ) as bar,
    ):
        job = bar.add_task("analyse", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(job, completed=done, total=total)

        analysis = analyse_match(
            record, chosen, seed=seed, budget=plan, policy="random" if policy == "random" else "greedy",
            workers=workers or os.cpu_count() or 1, progress=progress, log_name=log.name, executor=executor,
        )  # fmt: skip
    if html_path is not None:
        html_path.write_text(match_page(record, analysis), encoding="utf-8")
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        click.echo(msgspec.json.encode(analysis).decode())
    else:
        click.echo(render(analysis))
