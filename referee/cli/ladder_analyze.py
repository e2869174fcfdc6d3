"""``referee ladder analyze``: analyse a ladder's latest finished matches not analysed yet and
keep where each bot loses points in its database, for the bot page (thin: the work is in
``referee.ladder.analysis``; docs/ladder.md, "Where a bot loses points")."""

from __future__ import annotations

from pathlib import Path

import click

from referee.analysis import Budget
from referee.cli.analyze import CLUSTER_OPTION, WORKERS_OPTION, budget_option, cluster_executor
from referee.cli.ladder_store import open_existing
from referee.ladder.analysis import AnalyseSettings, analyse_ladder, default_workers
from referee.names import printable


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
@budget_option("--budget", help="Worlds per decision at most (as referee analyze).")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the sampling.")
@WORKERS_OPTION
@CLUSTER_OPTION
def analyze_command(
    db: str, bot: str | None, matches: int, budget: int, seed: int, workers: int | None, cluster: str | None
) -> None:
    """Analyse the latest finished matches (of --bot) not analysed yet, each stored in one
    transaction: stopped, it goes on from the next one. The bot page shows the figures."""
    store = open_existing(db)
    try:
        if bot is not None and bot not in dict(store.bots()):
            raise click.BadParameter(f"no bot named {printable(bot, 80)!r} in this ladder", param_hint="--bot")
        with cluster_executor(cluster) as executor:
            settings = AnalyseSettings(
                seed=seed,
                budget=Budget.at_most(budget),
                workers=workers or default_workers(),
                executor=executor,
            )
            done = analyse_ladder(
                Path(db), store.db, bot, matches, settings=settings, say=lambda line: click.echo(printable(line, 400))
            )
    finally:
        store.close()
    click.echo(f"{done} match{'es' if done != 1 else ''} analysed; the bot pages show them (referee ladder web)")
