"""``referee check BOT``: a bot's protocol compliance, step by step (see docs/check.md).

Exit status: 0 when every step passes (warnings allowed), 1 when a step fails, 2 for a usage
error (an unknown variant or step pattern, a bad option).
"""

from __future__ import annotations

import sys

import click
import msgspec
import trio

from referee.check.probe import Limits
from referee.check.report import footer, header, step_line
from referee.check.results import StepResult
from referee.check.runner import run_check, select
from referee.rules.presets import DEFAULT_PRESET, PRESETS


@click.command()
@click.argument("bot")
@click.option(
    "--variant",
    default=DEFAULT_PRESET,
    show_default=True,
    type=click.Choice(list(PRESETS)),
    help="The variant of the general steps (the one your bot will play); rule and variant steps use their own.",
)
@click.option(
    "--time-per-move", default=2.0, show_default=True, type=click.FloatRange(min=0.01), help="Seconds per decision."
)
@click.option(
    "--startup", default=10.0, show_default=True, type=click.FloatRange(min=0.01), help="Seconds for the handshake."
)
@click.option(
    "--only", "patterns", multiple=True, metavar="PATTERN", help="Run only the steps matching PATTERN ('play.*')."
)
@click.option(
    "-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1), help="Steps to run at once."
)
@click.option("-x", "--fail-fast", is_flag=True, help="Stop at the first failing step (the rest are skipped).")
@click.option("-v", "--verbose", is_flag=True, help="Show every step's transcript and stderr in full.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the steps and a summary.")
def check(
    bot: str,
    *,
    variant: str,
    time_per_move: float,
    startup: float,
    patterns: tuple[str, ...],
    jobs: int,
    fail_fast: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    """Check that BOT (a command line, as `referee match` takes) speaks the protocol correctly.

    Each step starts the bot afresh, plays a scripted part of the protocol with it and ends
    it. Example: referee check "python3 sample_bots/python/random_bot.py"
    """
    if not bot.strip():
        raise click.BadParameter("the bot's command line is empty", param_hint="BOT")
    steps = select(patterns)
    if not steps:
        raise click.BadParameter(f"no step matches {', '.join(patterns)}", param_hint="--only")
    limits = Limits(per_decision=time_per_move, startup=startup)

    def live(result: StepResult) -> None:
        click.echo(step_line(result))
        sys.stdout.flush()

    if not as_json:
        click.echo(header(bot, variant, limits, len(steps)))
    report = trio.run(
        lambda: run_check(
            bot,
            variant=variant,
            limits=limits,
            steps=steps,
            fail_fast=fail_fast,
            jobs=jobs,
            keep_transcripts=verbose,
            on_result=None if as_json else live,
        )
    )
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
    else:
        click.echo()
        click.echo(footer(report, verbose=verbose))
    sys.exit(report.exit_code)
