"""``referee duel`` and ``referee gauntlet``: is a new version of a bot better, answered by a
sequential test on duplicate sets, with an exit status a bot's CI can gate a change on.

Thin click commands over ``referee.duel``; documented in docs/testing-bots.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console
from rich.text import Text

from referee.cli.failures import AnswerCommand, AnswerError
from referee.cli.options import (
    CONCURRENCY,
    MAX_CONCURRENCY,
    SANDBOX_BIND_OPTION,
    SANDBOX_LOOPBACK_OPTION,
    SANDBOX_OPTION,
    TABLES_WEIGHT_OPTION,
    TIME_BANK_OPTION,
    TIME_PER_MOVE_OPTION,
    Seconds,
    as_sandbox_mode,
    check_output_file,
    cluster_address,
    parse_options,
)
from referee.duel.bots import ListedBots, chosen_bot, duel_bots, opponents, pool
from referee.duel.run import DuelPlayed, play_duel, read_status
from referee.duel.settings import DEFAULT_MAX_SETS, Contest, DuelSettings
from referee.duel.view import broken_lines, status_json, status_table, verdict_line
from referee.duel.where import default_db, moved_note
from referee.errors import LadderError
from referee.ladder.play import LadderInterrupted, LadderPlan, RunOutput
from referee.match.config import MatchConfig
from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.process import BotStartError
from referee.private_files import UntrustedFile
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.sandbox.bwrap import SandboxUnavailable
from referee.stats.sequential import SprtBounds, SprtBoundsError

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

FAILURES = (LadderError, BotConfigError, BotStartError, SandboxUnavailable, UntrustedFile, InvalidRuleSet)
"""What a duel reports as an error (exit status 2) rather than a traceback."""


class SprtPair(click.ParamType[tuple[float, float], Any]):
    """``D0,D1``: the two hypotheses of the sequential test, in points a match."""

    name = "D0,D1"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = str(value).split(",")
        try:
            d0, d1 = (float(part) for part in parts)
        except ValueError:
            self.fail(f"expected two numbers D0,D1 (points a match, D0 < D1), not {value!r}", param, ctx)
        return d0, d1


_OPTIONS: list[Decorator] = [
    click.option(
        "--opponents",
        "--opponent",
        "opponent_bots",
        multiple=True,
        metavar="BOT",
        help="A fixed opponent (repeat for more; they fill the other seats in order). "
        "Default: the sample heuristic bot.",
    ),
    click.option(
        "--bots",
        "bots_file",
        type=click.Path(exists=True, dir_okay=False),
        default=None,
        help="A TOML bot list (as `ladder run` takes): NEW, OLD and the opponents are then names in it, "
        "not command lines.",
    ),
    click.option("--variant", default=None, help=f"A preset (see `referee variants`); new: {DEFAULT_PRESET}."),
    click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option."),
    click.option("--seed", type=int, default=None, help="The seed of its deals; default random."),
    click.option(
        "--sprt",
        type=SprtPair(),
        default=None,
        help="Test H0 'NEW is better by at most D0 points a match' against H1 'by at least D1', "
        "stopping on a decision.",
    ),
    click.option(
        "--alpha", type=float, default=0.05, show_default=True, help="False positive rate at D0 (with --sprt)."
    ),
    click.option(
        "--beta", type=float, default=0.05, show_default=True, help="False negative rate at D1 (with --sprt)."
    ),
    click.option(
        "--max-sets",
        type=click.IntRange(1),
        default=DEFAULT_MAX_SETS,
        show_default=True,
        help="Most duplicate sets against each bot: stop there undecided (exit status 3).",
    ),
    click.option(
        "--concurrency",
        "-k",
        default=1,
        show_default=True,
        type=CONCURRENCY,
        help=f"Sets played at once (1..{MAX_CONCURRENCY}; with --cluster, sets sent at once).",
    ),
    TIME_PER_MOVE_OPTION,
    TIME_BANK_OPTION,
    click.option("--startup", default=10.0, show_default=True, type=Seconds(), help="Seconds for a handshake."),
    click.option(
        "--cwd",
        type=click.Path(file_okay=False, exists=True),
        default=None,
        help="Folder command-line bots run from, and their dir= is taken from (default: the current folder).",
    ),
    SANDBOX_OPTION,
    SANDBOX_BIND_OPTION,
    SANDBOX_LOOPBACK_OPTION,
    TABLES_WEIGHT_OPTION,
    click.option(
        "--cluster",
        default=None,
        metavar="ADDRESS|local:N",
        callback=lambda ctx, param, value: cluster_address(value),
        help="Play the matches on a Dask cluster (as `ladder run --cluster`).",
    ),
    click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (the live view on stderr)."),
    click.option("--quiet", "-q", is_flag=True, help="No live view; only the verdict (or the JSON)."),
]
"""The options both commands take (``--db`` aside: its default is the command's)."""


def _contest_options(db: str) -> Decorator:
    """The options both commands take, ``db`` the default database's name."""
    db_option = click.option(
        "--db",
        default=None,
        type=click.Path(dir_okay=False),
        help=f"Its SQLite database (replay logs in NAME-logs/ beside it); the same command resumes it. Default: "
        f"{db} here, or in ~/.local/state/hearts-referee/ (named from the bots) when the current folder is a bot's "
        "(the start says where).",
    )
    options: list[Decorator] = [*_OPTIONS[:4], db_option, *_OPTIONS[4:]]

    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


@click.command(cls=AnswerCommand)
@click.argument("new")
@click.argument("old")
@_contest_options("duel.db")
@click.pass_context
def duel(ctx: click.Context, /, new: str, old: str, **options: Any) -> None:
    """Is NEW better than OLD? Duplicate sets of NEW and OLD at one table with fixed opponents,
    on the same cards in every seat, until --sprt decides or --max-sets. NEW and OLD are command
    lines (with --bots, names in that list); a first word dir=FOLDER runs a bot from a folder of
    its own, which the sandbox shows it whole. Exit status: 0 H1 accepted, 1 H0 accepted,
    2 a broken bot (it cannot start, or is dropped from more than 10% of its seats) or an
    error, 3 no decision. Example: referee duel "php bin/bot" "dir=../previous php bin/bot"
    --sprt 0,2 (docs/testing-bots.md)."""
    ctx.exit(_contest(ctx, "duel", new, [old], None, options))


@click.command(cls=AnswerCommand)
@click.argument("new")
@click.option(
    "--pool",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="The bots NEW is measured against: a TOML bot list (NEW and the opponents left out by name).",
)
@_contest_options("gauntlet.db")
@click.pass_context
def gauntlet(ctx: click.Context, /, new: str, pool: str, **options: Any) -> None:
    """NEW (a command line, dir=FOLDER first as in `referee duel`, or a name with --bots)
    against each bot of a pool, in duplicate sets as `referee duel` plays them: NEW's
    difference against each with its intervals (and --sprt's verdict), and the mean over the
    pool. Exit status: 0 H1 accepted against every bot, 1 H0 accepted against one at least,
    2 a broken bot (NEW, an opponent or a pool bot) or an error, 3 otherwise
    (docs/testing-bots.md)."""
    ctx.exit(_contest(ctx, "gauntlet", new, [], pool, options))


def _contest(
    ctx: click.Context, kind: Contest, new: str, olds: Sequence[str], pool_file: str | None, options: dict[str, Any]
) -> int:
    """Run the duel or gauntlet, show where it stands; its exit status."""
    rates = [f"--{name}" for name in ("alpha", "beta") if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    sprt = _bounds(options["sprt"], options["alpha"], options["beta"], rates)
    try:
        entries, settings, listed = _bots(kind, new, olds, pool_file, sprt, options)
        rules = ruleset(options["variant"] or DEFAULT_PRESET, parse_options(options["pairs"]))
        given_rules = rules if options["variant"] or options["pairs"] else None
    except FAILURES as err:
        raise AnswerError(str(err)) from None
    db = _database(kind, options["db"], entries)
    plan = LadderPlan(
        db=db,
        entries=entries,
        rules=given_rules,
        default_rules=ruleset(DEFAULT_PRESET),
        seed=options["seed"],
        concurrency=options["concurrency"],
        config=MatchConfig(
            per_decision=options["time_per_move"], bank=options["time_bank"], startup=options["startup"]
        ),
        cwd=Path(options["cwd"] or ".").absolute(),
        sandbox_mode=as_sandbox_mode(options["sandbox_mode"]),
        sandbox_binds=options["sandbox_binds"],
        sandbox_loopback=options["sandbox_loopback"],
        cluster=options["cluster"],
    )
    return _show(db, _play(plan, settings, options, listed), options)


def _database(kind: Contest, given: str | None, entries: Sequence[BotEntry]) -> str:
    """The database: ``given``, or the default (``referee.duel.where``), said on stderr when it
    is not in the current folder; checked writable."""
    if given is not None:
        check_output_file(given, "--db", make_folders=False)
        return given
    found = default_db(kind, entries)
    if found.crowded:
        try:
            found.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as err:
            raise AnswerError(f"cannot make {found.path.parent} for the {kind}'s database ({err}): give --db") from None
        click.echo(moved_note(kind, found), err=True)
    check_output_file(found.path, "--db", make_folders=False)
    return str(found.path)


def _bounds(pair: tuple[float, float] | None, alpha: float, beta: float, rates: Sequence[str]) -> SprtBounds | None:
    """The test asked for; ``rates``: the error rates given on the command line."""
    if pair is None:
        if rates:
            raise click.UsageError(f"{' and '.join(rates)} go with --sprt D0,D1")
        return None
    try:
        return SprtBounds(pair[0], pair[1], alpha, beta)
    except SprtBoundsError as err:
        raise click.BadParameter(str(err), param_hint="--sprt/--alpha/--beta") from None


def _bots(
    kind: Contest,
    new: str,
    olds: Sequence[str],
    pool_file: str | None,
    sprt: SprtBounds | None,
    options: dict[str, Any],
) -> tuple[list[BotEntry], DuelSettings, frozenset[str]]:
    """The run's bots and the duel's settings, from what the command line names, and the names
    of the bots taken from a TOML list (``--bots``, ``--pool``, the default opponent)."""
    cwd = Path(options["cwd"] or ".").absolute()
    bots = ListedBots(options["bots_file"]) if options["bots_file"] else None
    new_bot = chosen_bot(new, "new", bots, cwd)
    others = opponents(options["opponent_bots"], bots, cwd)
    against = [chosen_bot(old, "old", bots, cwd) for old in olds]
    if pool_file is not None:
        against = pool(pool_file, new_bot, others)
    listed = [new_bot, *others, *against] if bots is not None else []
    listed += [*against] if pool_file is not None else []
    listed += [*others] if not options["opponent_bots"] else []
    entries, settings = duel_bots(kind, new_bot, against, others, sprt)
    return entries, settings, frozenset(e.name for e in listed)


def _play(
    plan: LadderPlan, settings: DuelSettings, options: dict[str, Any], listed: frozenset[str]
) -> DuelPlayed | None:
    """Play it (the live view on stdout, or on stderr with --json); ``None`` when interrupted
    (what was done is kept and shown). ``listed``: the bots of a TOML list."""
    quiet = options["quiet"]
    console = Console(stderr=True) if options["as_json"] else Console()
    output = RunOutput(quiet=quiet, console=console, warn=lambda line: click.echo(line, err=True))
    try:
        return play_duel(plan, settings, options["max_sets"], output, listed)
    except LadderInterrupted as err:
        click.echo(str(err), err=True)
        return None
    except FAILURES as err:
        raise AnswerError(str(err)) from None


def _show(db: str, played: DuelPlayed | None, options: dict[str, Any]) -> int:
    """Where it stands, as a table or JSON, a broken bot's fault explained (on stderr with
    --json); its exit status."""
    try:
        status = read_status(db, None if played is None else played.unstarted)
    except LadderError as err:
        raise AnswerError(str(err)) from None
    result = None if played is None else played.result
    broken = broken_lines(status, db)
    if options["as_json"]:
        for line in broken:
            click.echo(line, err=True)
        ran = None if result is None else {"matches": result.played, "seconds": round(result.seconds, 3)}
        click.echo(status_json(status, {"db": str(db), "this_run": ran, "interrupted": result is None}))
        return status.exit_status
    if not options["quiet"]:
        sets = sum(p.sets for p in status.pairings)
        title = f"{status.duel.kind} {Path(db).name}: {sets} sets of {status.matches_per_set} matches"
        Console().print(status_table(status, title=title))
        if result is not None:
            Console().print(Text(f"played {result.played} matches in {result.seconds:.1f} s"))
    for line in broken:
        click.echo(line)
    click.echo(verdict_line(status))
    return status.exit_status
