"""`referee play`: a person plays one seat in the browser against bots."""

from __future__ import annotations

import contextlib
import shlex
import tempfile
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path

import click
import trio

from protocol.ruleset import RuleSet
from referee.analysis import Budget
from referee.cli.analyze import budget_option
from referee.cli.options import (
    PORT,
    SANDBOX_OPTION,
    BotCommand,
    Seconds,
    check_listen,
    check_output_file,
    exit_if_interrupted,
    parse_options,
    pause_options,
    resolvable_host,
    run_matches,
    sandbox_for,
)
from referee.match.config import POLICIES, MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.match.text import format_outcome
from referee.network import DEFAULT_HOST
from referee.players.hosted import web_seat_name
from referee.players.process import BotLimits
from referee.players.tcp import Refusal, describe
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.web.server import WebSeat, WebSeatServer

PERSON_DECISION = 30.0
"""Seconds a person has per decision by default (a bot's default is 1 s)."""
PERSON_BANK = 300.0


@click.command()
@click.argument("bots", nargs=-1, required=True, type=BotCommand())
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, help="A preset (see `referee variants`).")
@click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option.")
@click.option("--seat", default=0, show_default=True, type=click.IntRange(0, 5), help="The seat you play (0-based).")
@click.option(
    "--name", default="you", show_default=True, help="Your name at the table (your page's hello may say another)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your browser.")
@click.option("--seed", type=int, default=None, help="Seed of the deals, any integer (default: random).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None, help="Write the replay log here.")
@click.option(
    "--time-per-move", default=PERSON_DECISION, show_default=True, type=Seconds(), help="Seconds per decision (> 0)."
)
@click.option(
    "--time-bank", default=PERSON_BANK, show_default=True, type=Seconds(allow_zero=True), help="Extra seconds (>= 0)."
)
@click.option(
    "--policy", type=click.Choice(POLICIES), default="forfeit", show_default=True, help="Answer to an illegal move."
)
@pause_options
@click.option("--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address to listen on.")
@click.option("--port", default=0, show_default=True, type=PORT, help="Port of the page (0..65535; 0: any free).")
@click.option(
    "--connect-timeout", default=600.0, show_default=True, type=Seconds(), help="Seconds to wait for the page (> 0)."
)
@click.option(
    "--rematch/--no-rematch",
    default=True,
    show_default=True,
    help="After a match, offer the page a rematch (waits up to --connect-timeout for it).",
)
@budget_option(
    "--analysis-budget",
    help="Worlds per decision at most in the analysis of your play the result screen offers (as referee analyze "
    "--budget): lower is quicker and rougher.",
)
@SANDBOX_OPTION
def play(
    bots: tuple[str, ...],
    variant: str,
    pairs: tuple[str, ...],
    seat: int,
    name: str,
    open_browser: bool,
    seed: int | None,
    log_path: str | None,
    time_per_move: float,
    time_bank: float,
    policy: str,
    pauses: tuple[float, float],
    host: str,
    port: int,
    connect_timeout: float,
    rematch: bool,
    analysis_budget: int,
    sandbox_mode: str,
) -> None:
    """Play one seat yourself, in the browser, against BOTS (one command line per other seat,
    in seat order; started and sandboxed as `referee match` does). The page's address, with its
    secret token, is printed; reloading the page resumes your seat.

    Example: referee play --open "python3 sample_bots/python/random_bot.py" (three times)
    """
    try:
        rules = ruleset(variant, parse_options(pairs))
    except InvalidRuleSet as err:
        raise click.ClickException(str(err)) from None
    seats = _seats(bots, rules, seat, name)
    if log_path is not None:
        check_output_file(log_path, "--log", make_folders=True)
    check_listen(host, port)
    config = MatchConfig(
        per_decision=time_per_move,
        bank=time_bank,
        policy=policy,  # type: ignore[arg-type]
        card_pause=pauses[0],
        trick_pause=pauses[1],
    )
    server = _page_server(host, port, open_browser, seats, Budget.at_most(analysis_budget))
    limits = BotLimits(sandbox=sandbox_for(sandbox_mode, ()))
    options = TableOptions(
        config=config, connect_timeout=connect_timeout, handle_signals=True, limits=limits, seat_host=server
    )
    with contextlib.ExitStack() as stack:  # a scratch folder only for logs not asked for
        scratch = None if log_path else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="referee-play-")))
        logs = _logs(log_path, scratch)

        async def one(number: int) -> MatchOutcome:
            first_seed = seed if number == 0 else None  # a rematch is a new deal
            return await play_match(seats, rules, seed=first_seed, log_path=logs(number), options=options)

        outcome = run_matches(lambda: _session(server, one, connect_timeout if rematch else 0.0, logs))
    offer = "" if outcome.interrupted_by is not None else "\n" + analysis_offer(log_path, seat, analysis_budget)
    click.echo(format_outcome(outcome) + offer)
    exit_if_interrupted(outcome)


def analysis_offer(log_path: str | None, seat: int, budget: int = Budget().most) -> str:
    """The result screen's offer to analyse the person's own match (``referee analyze``, from
    their seat's information only; docs/analysis.md): the command to run on the log just
    written, which writes the replay viewer with the analysis (open it in a browser), at the
    page's budget: the same figures as the page's analysis."""
    if log_path is None:
        return (
            "to have your play analysed, play again with --log FILE: the log is kept, and analysed by referee analyze"
        )
    log = Path(log_path)
    out = log.with_name(f"{log.stem}-analysis.html")
    lower = [] if budget == Budget().most else ["--budget", str(budget)]
    command = shlex.join(["referee", "analyze", str(log), "--seat", str(seat), *lower, "--html", str(out)])
    return f"where you lost points (about a minute, from your seat's information only): {command}; then open {out}"


def _logs(log_path: str | None, scratch: Path | None) -> Callable[[int], Path]:
    """Where the log of the table's match ``number`` goes: ``--log FILE`` for the first, then
    ``FILE-2``, ``FILE-3``... for rematches; without ``--log`` a private scratch folder, so that
    the page can still show the replay."""

    def path(number: int) -> Path:
        if log_path is None:
            assert scratch is not None
            return scratch / f"match-{number + 1}.jsonl"
        base = Path(log_path)
        return base if number == 0 else base.with_name(f"{base.stem}-{number + 1}{base.suffix}")

    return path


async def _session(
    server: WebSeatServer, one: Callable[[int], Awaitable[MatchOutcome]], wait: float, logs: Callable[[int], Path]
) -> MatchOutcome:
    """Matches at one table while the page asks for a rematch: the page's server (and its
    address) outlives each match; each match's replay is offered to the page once it ends."""
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        number = 0
        while True:
            outcome = await one(number)
            server.after.finished(logs(number))
            if outcome.interrupted_by is not None or wait <= 0 or not await server.after.wait_for_rematch(wait):
                break
            click.echo(format_outcome(outcome))
            number += 1
        nursery.cancel_scope.cancel()
    return outcome


def _seats(bots: tuple[str, ...], rules: RuleSet, seat: int, name: str) -> list[str]:
    """The table's seat specs: the bots in order, with the person's ``web:NAME`` at ``seat``."""
    if len(bots) != rules.players - 1:
        raise click.UsageError(f"{rules.name} needs {rules.players - 1} bots besides you, got {len(bots)}")
    if seat >= rules.players:
        raise click.UsageError(f"--seat must be below {rules.players} for {rules.name}")
    seats = list(bots)
    seats.insert(seat, f"web:{name.replace(':', ' ') or 'you'}")
    return seats


def _page_server(host: str, port: int, open_browser: bool, seats: list[str], budget: Budget) -> WebSeatServer:
    """The person's page server, which prints the seat's address (and opens it) once it listens,
    with the table's web seats and the budget of the person's analysis."""

    def listening(url: str, web_seats: list[WebSeat]) -> None:
        for web in web_seats:
            address = server.seat_url(web)
            click.echo(f"your seat ({web.seat}): open {address}", err=True)
            if open_browser:
                webbrowser.open(address)

    def refused(refusal: Refusal) -> None:
        click.echo(describe(refusal), err=True)

    server = WebSeatServer(host, port, on_listening=listening, on_refusal=refused)
    server.after.budget = budget
    for index, spec in enumerate(seats):  # before it listens: its address is printed then
        if (web_name := web_seat_name(spec, index)) is not None:
            server.add_seat(index, web_name)
    return server
