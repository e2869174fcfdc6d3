"""``referee check BOT``: a bot's protocol compliance, step by step (see docs/check.md).

Exit status: 0 when every step passes (warnings allowed), 1 when a step fails (or ``--sandbox
on`` finds no bubblewrap), 2 for a usage error (an unknown variant or step pattern, a bad option,
an address that cannot be listened on).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import NoReturn

import click
import msgspec
import trio

from referee.check.listener import CONNECT_TIMEOUT, TCP_PREFIX, CheckListener, tcp_target
from referee.check.probe import MATCH_CLOCK, Limits
from referee.check.report import footer, header, start_cost, step_line
from referee.check.results import CheckReport, StepResult
from referee.check.runner import run_check, sandbox_description, select
from referee.cli.options import (
    PORT,
    SANDBOX_BIND_OPTION,
    SANDBOX_LOOPBACK_OPTION,
    SANDBOX_OPTION,
    TIME_BANK_OPTION,
    TIME_PER_MOVE_OPTION,
    BotCommand,
    Seconds,
    resolvable_host,
    sandbox_for,
)
from referee.network import DEFAULT_HOST
from referee.rules.presets import DEFAULT_PRESET, PRESETS


@click.command()
@click.argument("bot", type=BotCommand())
@click.option(
    "--variant",
    default=DEFAULT_PRESET,
    show_default=True,
    type=click.Choice(list(PRESETS)),
    help="The variant of the general steps (the one your bot will play); rule and variant steps use their own.",
)
@TIME_PER_MOVE_OPTION
@TIME_BANK_OPTION
@click.option(
    "--startup",
    default=MATCH_CLOCK.startup,
    show_default=True,
    type=Seconds(),
    help="Seconds for the handshake (> 0).",
)
@click.option(
    "--only", "patterns", multiple=True, metavar="PATTERN", help="Run only the steps matching PATTERN ('play.*')."
)
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1), help="Steps to run at once.")
@click.option("-x", "--fail-fast", is_flag=True, help="Stop at the first failing step (the rest are skipped).")
@click.option(
    "--keep-going",
    is_flag=True,
    help="Run every step even after 3 in a row timed out (by default the rest are skipped: each would wait as long).",
)
@click.option("-v", "--verbose", is_flag=True, help="Show every step's transcript and stderr in full.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the steps and a summary.")
@click.option(
    "--host",
    default=None,
    callback=resolvable_host,
    help=f"tcp: bots: the address to listen on (default {DEFAULT_HOST}).",
)
@click.option(
    "--port",
    default=None,
    type=PORT,
    help="tcp: bots: the port to listen on (default 0: any free).",
)
@click.option(
    "--connect-timeout",
    default=None,
    type=Seconds(),
    help=f"tcp: bots: seconds each step waits for the bot to connect (default {CONNECT_TIMEOUT:g}).",
)
@SANDBOX_OPTION
@SANDBOX_BIND_OPTION
@SANDBOX_LOOPBACK_OPTION
def check(
    bot: str,
    *,
    variant: str,
    time_per_move: float,
    time_bank: float,
    startup: float,
    patterns: tuple[str, ...],
    jobs: int,
    fail_fast: bool,
    keep_going: bool,
    verbose: bool,
    as_json: bool,
    host: str | None,
    port: int | None,
    connect_timeout: float | None,
    sandbox_mode: str,
    sandbox_binds: tuple[str, ...],
    sandbox_loopback: bool,
) -> None:
    """Check that BOT (a command line, as `referee match` takes) speaks the protocol correctly.

    Each step starts the bot afresh, plays a scripted part of the protocol with it and ends
    it. Example: referee check "python3 sample_bots/python/random_bot.py"
    The clock is referee match's (a decision limit and a bank, full at each step's match);
    a bot whose answers would spend more than the bank over a whole match fails. Every step's
    bot runs in the bubblewrap sandbox (--sandbox auto: when bubblewrap works here, else with a
    warning; on: exit 1 without it; off: not isolated), as in a match.
    With BOT tcp:NAME[:TOKEN] or tcp:NAME:@FILE the check listens instead (--host, --port): each
    step waits for the bot to connect with the token (printed only when made up); run it in a loop.
    """
    tcp = _over_tcp(bot, host, port, connect_timeout, sandbox_mode, sandbox_binds)
    steps = select(patterns)
    if not steps:
        raise click.BadParameter(f"no step matches {', '.join(patterns)}", param_hint="--only")
    limits = Limits(per_decision=time_per_move, bank=time_bank, startup=startup)
    sandbox = None if tcp else sandbox_for(sandbox_mode, sandbox_binds, sandbox_loopback)
    if not as_json:
        shown = target.spec if (target := tcp_target(bot)) is not None else bot  # the token left out
        click.echo(header(shown, variant, limits, len(steps), sandbox_description(sandbox, tcp=tcp)))
    with _listening_on(host, port, tcp=tcp):
        report = trio.run(
            lambda: run_check(
                bot,
                variant=variant,
                limits=limits,
                steps=steps,
                fail_fast=fail_fast,
                keep_going=keep_going,
                jobs=jobs,
                keep_transcripts=verbose,
                on_result=None if as_json else _live(len(steps), jobs),
                host=DEFAULT_HOST if host is None else host,
                port=port or 0,
                connect_timeout=CONNECT_TIMEOUT if connect_timeout is None else connect_timeout,
                on_listening=_instructions,
                sandbox=sandbox,
            )
        )
    _finish(report, as_json=as_json, verbose=verbose)


def _finish(report: CheckReport, *, as_json: bool, verbose: bool) -> NoReturn:
    """The report's end (or all of it as JSON), and the exit status it gives."""
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
    else:
        click.echo()
        click.echo(footer(report, verbose=verbose))
    sys.exit(report.exit_code)


def _over_tcp(
    bot: str,
    host: str | None,
    port: int | None,
    connect_timeout: float | None,
    sandbox_mode: str,
    sandbox_binds: tuple[str, ...],
) -> bool:
    """Whether BOT connects over TCP; a usage error for options that do not go with it (or
    that only go with it)."""
    if not bot.strip():
        raise click.BadParameter("the bot's command line is empty", param_hint="BOT")
    tcp = bot.startswith(TCP_PREFIX)
    try:
        tcp_target(bot)  # a token file that cannot be read, before anything listens
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="BOT") from None
    if not tcp and (host, port, connect_timeout) != (None, None, None):
        raise click.UsageError(f"--host, --port and --connect-timeout are for {TCP_PREFIX}NAME[:TOKEN] bots")
    if tcp and (sandbox_mode == "on" or sandbox_binds):
        raise click.UsageError(
            f"--sandbox on and --sandbox-bind are for bots the check starts; a {TCP_PREFIX} bot runs "
            "wherever it was started"
        )
    return tcp


def _live(steps: int, jobs: int) -> Callable[[StepResult], None]:
    """Prints each step's line as its result comes in, and after the first what a slow start
    will cost the rest."""
    printed: list[StepResult] = []

    def live(result: StepResult) -> None:
        click.echo(step_line(result, printed[-1] if printed else None))
        if not printed and (note := start_cost(result, steps, jobs)) is not None:
            click.echo(note)
        printed.append(result)
        sys.stdout.flush()

    return live


def _instructions(listener: CheckListener) -> None:
    """Tells the bot's author where to connect, once the check listens."""
    click.echo(listener.instructions(), err=True)
    sys.stderr.flush()


@contextlib.contextmanager
def _listening_on(host: str | None, port: int | None, *, tcp: bool) -> Iterator[None]:
    """An address a ``tcp:`` check cannot listen on is a usage error."""
    try:
        yield
    except OSError as err:
        if not tcp:
            raise
        raise click.UsageError(f"cannot listen on {host or DEFAULT_HOST}:{port or 0}: {err.strerror or err}") from None
