"""``referee ladder analyze``: analyse a ladder's latest finished matches not analysed yet and
keep where each bot loses points in its database, for the bot page (thin: the work is in
``referee.ladder.analysis``; docs/ladder.md, "Where a bot loses points")."""

from __future__ import annotations

from pathlib import Path

import click

from referee.analysis import Budget
from referee.cli.analyze import CLUSTER_OPTION, cluster_executor
from referee.errors import LadderError
from referee.ladder.analysis import AnalyseSettings, analyse_ladder, default_workers
from referee.names import printable
from referee.store.writer import LadderStore


def _open(db: str) -> LadderStore:
    """An existing ladder (as ``referee.cli.ladder`` opens one), or a ``ClickException``."""
    missing = click.ClickException(f"{db}: no such ladder (run `referee ladder run CONFIG --db {db}` first)")
    if not Path(db).exists():
        raise missing
    try:
        store = LadderStore(db)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    if not store.initialized:
        store.close()
        raise missing
    return store


@click.command("analyze")
@click.option("--db", default="ladder.db", show_default=True, help="The ladder's database.")
@click.option("--bot", default=None, help="Only the matches of this bot (its seats alone are analysed).")
@click.option(
    "--matches",
    default=10,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Analyse at most the latest N finished matches not analysed yet.",
)
@click.option(
    "--budget",
    default=Budget().most,
    show_default=True,
    type=click.IntRange(8, 100_000),
    help="Worlds per decision at most (as referee analyze).",
)
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the sampling.")
@click.option("--workers", default=None, type=click.IntRange(1, 512), help="Processes (default: every core).")
@CLUSTER_OPTION
def analyze_command(
    db: str, bot: str | None, matches: int, budget: int, seed: int, workers: int | None, cluster: str | None
) -> None:
    """Analyse the latest finished matches (of --bot) not analysed yet, each stored in one
    transaction: stopped, it goes on from the next one. The bot page shows the figures."""
    store = _open(db)
    try:
        if bot is not None and bot not in dict(store.bots()):
            raise click.BadParameter(f"no bot named {printable(bot, 80)!r} in this ladder", param_hint="--bot")
        with cluster_executor(cluster) as executor:
            settings = AnalyseSettings(
                seed=seed,
                budget=Budget(first=min(32, budget), most=budget),
                workers=workers or default_workers(),
                executor=executor,
            )
            done = analyse_ladder(
                Path(db), store.db, bot, matches, settings=settings, say=lambda line: click.echo(printable(line, 400))
            )
    finally:
        store.close()
    click.echo(f"{done} match{'es' if done != 1 else ''} analysed; the bot pages show them (referee ladder web)")
