"""`referee match`, `referee serve` and `referee demo`: one match, a server of matches for TCP
bots, and a demo of the sample bots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from protocol.ruleset import RuleSet
from referee.cli.options import (
    ILLEGAL_MOVE_CAP,
    MATCH_COUNT,
    PORT,
    REPO,
    SANDBOX_BIND_OPTION,
    SANDBOX_LOOPBACK_OPTION,
    SANDBOX_OPTION,
    TABLES_WEIGHT_OPTION,
    TIME_BANK_OPTION,
    TIME_PER_MOVE_OPTION,
    BotCommand,
    Seconds,
    bot_limit_options,
    check_listen,
    check_output_file,
    check_output_folder,
    exit_if_interrupted,
    parse_options,
    pause_options,
    resolvable_host,
    run_matches,
    sandbox_for,
)
from referee.match.config import POLICIES, MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TCP_PREFIX, TableOptions, play_match, play_matches
from referee.match.text import format_outcome
from referee.network import DEFAULT_HOST, shown_token
from referee.players.bot_config import BotConfigError, config_folder, read_bots, runnable
from referee.players.building import build
from referee.players.hosted import WEB_PREFIX
from referee.players.process import BotLimits
from referee.players.tcp import RefusalReport, TcpSeat
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.seeds import random_seed, series_seed

if TYPE_CHECKING:  # the web server (hypercorn, starlette) is imported only for a web seat
    from referee.web.server import WebSeat, WebSeatServer


@click.command()
@click.argument("bots", nargs=-1, required=True, type=BotCommand())
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, help="A preset (see `referee variants`).")
@click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option.")
@click.option("--seed", type=int, default=None, help="Seed of the deals, any integer (default: random, printed).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None, help="Write the replay log here.")
@TIME_PER_MOVE_OPTION
@TIME_BANK_OPTION
@click.option("--startup", default=10.0, show_default=True, type=Seconds(), help="Seconds for the handshake (> 0).")
@click.option(
    "--policy", type=click.Choice(POLICIES), default="forfeit", show_default=True, help="Answer to an illegal move."
)
@click.option(
    "--illegal-move-cap",
    default=3,
    show_default=True,
    type=ILLEGAL_MOVE_CAP,
    help="Penalties or substitutions before an illegal move is a forfeit (>= 0).",
)
@click.option(
    "--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address TCP seats listen on."
)
@click.option("--port", default=0, show_default=True, type=PORT, help="Port for TCP seats (0..65535; 0: any free).")
@click.option(
    "--connect-timeout", default=60.0, show_default=True, type=Seconds(), help="Seconds to wait for TCP bots (> 0)."
)
@click.option("--reconnect", is_flag=True, help="Let a TCP bot that disconnects connect again.")
@click.option(
    "--pace",
    is_flag=True,
    help="Make the card and trick pauses at a table of bots alone too: a match to watch (referee watch) at a"
    " person's speed.",
)
@pause_options
@bot_limit_options
@SANDBOX_OPTION
@SANDBOX_BIND_OPTION
@SANDBOX_LOOPBACK_OPTION
@TABLES_WEIGHT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def match(
    bots: tuple[str, ...],
    variant: str,
    pairs: tuple[str, ...],
    seed: int | None,
    log_path: str | None,
    time_per_move: float,
    time_bank: float,
    startup: float,
    policy: str,
    illegal_move_cap: int,
    host: str,
    port: int,
    connect_timeout: float,
    reconnect: bool,
    pace: bool,
    pauses: tuple[float, float],
    limits: BotLimits,
    sandbox_mode: str,
    sandbox_binds: tuple[str, ...],
    sandbox_loopback: bool,
    as_json: bool,
) -> None:
    """Play one match between BOTS, in seat order. A BOT is a command line (the referee starts
    it and talks over its stdin/stdout) or tcp:NAME[:TOKEN] (the bot connects over TCP with
    the token, which is printed unless given) or web:NAME (a person in the browser: the page's
    address is printed; see `referee play`).

    Example: referee match "python3 mybot.py" "python3 sample_bots/python/random_bot.py"
    "node sample_bots/javascript/bot.js" tcp:debugger
    """
    rules = _rules(variant, pairs, len(bots), "bots")
    _can_write_and_listen(bots, log_path, host, port)
    clock = MatchConfig(per_decision=time_per_move, bank=time_bank, startup=startup)
    config = msgspec.structs.replace(clock, policy=policy, illegal_move_cap=illegal_move_cap, reconnect=reconnect)
    config = msgspec.structs.replace(config, card_pause=pauses[0], trick_pause=pauses[1], paced=pace)
    if not all(b.startswith((TCP_PREFIX, WEB_PREFIX)) for b in bots):  # a sandbox only for started bots
        limits = msgspec.structs.replace(limits, sandbox=sandbox_for(sandbox_mode, sandbox_binds, sandbox_loopback))
    refusals = RefusalReport(_to_stderr)
    has_web = any(b.startswith(WEB_PREFIX) for b in bots)
    web = _web_seats(host, refusals) if has_web else None
    try:
        outcome = run_matches(
            lambda: play_match(
                bots,
                rules,
                seed=seed,
                log_path=log_path,
                options=_announced(config, host, port, connect_timeout, refusals, limits=limits, seat_host=web),
            )
        )
    finally:
        refusals.flush()
    _report(outcome, as_json)
    exit_if_interrupted(outcome)


def _can_write_and_listen(bots: tuple[str, ...], log_path: str | None, host: str, port: int) -> None:
    """Refuse at once (before any bot starts) a log that cannot be written, or TCP seats that
    cannot listen where asked."""
    if log_path is not None:
        check_output_file(log_path, "--log", make_folders=True)
    if any(bot.startswith(TCP_PREFIX) for bot in bots):
        check_listen(host, port)


def _announced(
    config: MatchConfig,
    host: str,
    port: int,
    connect_timeout: float,
    refusals: RefusalReport,
    *,
    limits: BotLimits | None = None,
    seat_host: WebSeatServer | None = None,
) -> TableOptions:
    """A table of `referee match` or `serve`: TCP seats listen where asked and are announced
    (their tokens printed), refusals reported, Ctrl-C and SIGTERM end the match in play."""
    return TableOptions(
        config=config,
        host=host,
        port=port,
        on_listening=announce_tcp_seats,
        on_refusal=refusals,
        connect_timeout=connect_timeout,
        handle_signals=True,
        limits=limits,
        seat_host=seat_host,
    )


def _rules(variant: str, pairs: tuple[str, ...], given: int, what: str) -> RuleSet:
    """The rules asked for, and a usage error unless ``given`` bots (or seats) fill its table."""
    try:
        rules = ruleset(variant, parse_options(pairs))
    except InvalidRuleSet as err:
        raise click.ClickException(str(err)) from None
    if given != rules.players:
        raise click.UsageError(f"{rules.name} needs {rules.players} {what}, got {given}")
    return rules


def _report(outcome: MatchOutcome, as_json: bool) -> None:
    if as_json:
        click.echo(msgspec.json.encode(outcome).decode())
    else:
        click.echo(format_outcome(outcome))


def _to_stderr(line: str) -> None:
    click.echo(line, err=True)


def _web_seats(host: str, refusals: RefusalReport) -> WebSeatServer:
    """The server of the match's browser seats (its modules imported only when one is asked for)."""
    from referee.web.server import WebSeatServer  # noqa: PLC0415

    return WebSeatServer(host, on_listening=announce_web_seats, on_refusal=refusals)


def announce_tcp_seats(address: tuple[str, int], seats: list[TcpSeat]) -> None:
    """Tell the user (on stderr) where TCP bots connect and with which tokens: a token the user
    supplied (``NAME:TOKEN``, ``NAME:@FILE``) by where it came from, never by its value."""
    host, port = address
    for seat in seats:
        token = shown_token(seat.token, given=seat.token_given, token_file=seat.token_file)
        click.echo(f"tcp seat {seat.seat} {seat.name}: connect to {host}:{port} with {token}", err=True)


def announce_web_seats(url: str, seats: list[WebSeat]) -> None:
    """Tell the user (on stderr) which address each browser seat opens (its token inside)."""
    for seat in seats:
        click.echo(f"web seat {seat.seat} {seat.name}: open {url}/#token={seat.token}", err=True)


@click.command()
@click.argument("names", nargs=-1, required=True)
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, help="A preset (see `referee variants`).")
@click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option.")
@click.option(
    "--matches", default=1, show_default=True, type=MATCH_COUNT, help="Matches to play on the same connections (>= 1)."
)
@click.option("--seed", type=int, default=None, help="Seed of the first match, any integer (default: random).")
@click.option("--log-dir", type=click.Path(file_okay=False), default=None, help="One replay log per match here.")
@click.option("--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address to listen on.")
@click.option("--port", default=0, show_default=True, type=PORT, help="Port (0..65535; 0: any free port, printed).")
@click.option(
    "--connect-timeout", default=300.0, show_default=True, type=Seconds(), help="Seconds to wait for the bots (> 0)."
)
@TIME_PER_MOVE_OPTION
@TIME_BANK_OPTION
@click.option("--reconnect", is_flag=True, help="Let a bot that disconnects connect again.")
@click.option("--json", "as_json", is_flag=True, help="Print each result as one JSON object.")
def serve(
    names: tuple[str, ...],
    variant: str,
    pairs: tuple[str, ...],
    matches: int,
    seed: int | None,
    log_dir: str | None,
    host: str,
    port: int,
    connect_timeout: float,
    time_per_move: float,
    time_bank: float,
    reconnect: bool,
    as_json: bool,
) -> None:
    """Run matches for bots that connect over TCP: one NAME per seat (a token is printed for
    each; NAME:TOKEN chooses it). The connections are kept for all --matches."""
    rules = _rules(variant, pairs, len(names), "seats")
    if log_dir is not None:
        check_output_folder(log_dir, "--log-dir")
    check_listen(host, port)
    first = random_seed() if seed is None else seed
    seeds = [series_seed(first, i) for i in range(matches)]
    logs: list[str | Path | None] = [
        Path(log_dir) / f"match-{i + 1}.jsonl" if log_dir else None for i in range(matches)
    ]
    config = MatchConfig(per_decision=time_per_move, bank=time_bank, reconnect=reconnect)
    refusals = RefusalReport(_to_stderr)
    try:
        outcomes = run_matches(
            lambda: play_matches(
                [f"tcp:{name}" for name in names],
                rules,
                seeds,
                log_paths=logs,
                options=_announced(config, host, port, connect_timeout, refusals),
            )
        )
    finally:
        refusals.flush()
    for outcome in outcomes:
        _report(outcome, as_json)
    exit_if_interrupted(outcomes[-1] if outcomes else None)


DEMO_SEATS = ("heuristic", "random", "javascript", "c", "random", "random")
STRONG_SEATS = ("search", "heuristic", "javascript", "c", "random", "random")
"""``referee demo --strong``: the search bot (``--playouts 30``, as bots.toml runs it) first."""


@click.command()
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, help="A preset (see `referee variants`).")
@click.option("--seed", type=int, default=None, help="Seed of the deals, any integer (default: random).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None, help="Write the replay log here.")
@click.option("--strong", is_flag=True, help="Seat the search bot (docs/bots.md) first, the heuristic bot next.")
@SANDBOX_OPTION
def demo(variant: str, seed: int | None, log_path: str | None, strong: bool, sandbox_mode: str) -> None:
    """A match between the sample bots (sample_bots/bots.toml): the heuristic bot, the
    random bot, the JavaScript bot and the C bot (where node and a C compiler exist); with
    --strong the search bot, the opponent to beat, takes the first seat."""
    try:
        rules = ruleset(variant)
        bot_list = REPO / "sample_bots" / "bots.toml"
        entries = {e.name: e for e in read_bots(bot_list)}
        folder = config_folder(bot_list)  # where its commands and builds run
    except (InvalidRuleSet, BotConfigError) as err:
        raise click.ClickException(str(err)) from None
    if log_path is not None:
        check_output_file(log_path, "--log", make_folders=True)
    chosen = []
    folders: dict[int, Path] = {}
    for seat, name in enumerate((STRONG_SEATS if strong else DEMO_SEATS)[: rules.players]):
        entry = entries.get(name)
        if entry is None or not runnable(entry):
            entry = entries["random"]
        try:
            folders[seat] = build(entry, folder).folder  # our own sample bots: built in place
        except BotConfigError as err:
            click.echo(f"skipping {entry.name}: {err}", err=True)
            entry = entries["random"]
            folders[seat] = folder
        chosen.append(entry)
    click.echo("seats: " + ", ".join(f"{i} {e.name}" for i, e in enumerate(chosen)))
    config = MatchConfig()
    commands = [e.command for e in chosen]
    sandbox = sandbox_for(sandbox_mode, ())
    limits = BotLimits(sandbox=sandbox)
    outcome = run_matches(
        lambda: play_match(
            commands,
            rules,
            seed=seed,
            log_path=log_path,
            options=TableOptions(config=config, cwd=folder, limits=limits, folders=folders),
        )
    )
    click.echo(format_outcome(outcome))
