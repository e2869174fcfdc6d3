"""``referee ladder``: run a bot ladder, print its table, compare two bots, draw the ratings.

Thin click commands over ``referee.ladder``; the ladder is documented in docs/ladder.md.
"""

from __future__ import annotations

import functools
import json
import webbrowser
from collections.abc import Callable
from functools import partial
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path

import click
import msgspec
import trio
from rich.console import Console
from rich.text import Text

from protocol.ruleset import RuleSet
from referee.cli.analyze import budget_option
from referee.cli.ladder_analyze import analyze_command
from referee.cli.ladder_store import open_existing
from referee.cli.options import (
    CONCURRENCY,
    MATCH_COUNT,
    MAX_CONCURRENCY,
    PORT,
    SANDBOX_BIND_OPTION,
    SANDBOX_LOOPBACK_OPTION,
    SANDBOX_OPTION,
    TABLES_WEIGHT_OPTION,
    TIME_BANK_OPTION,
    TIME_PER_MOVE_OPTION,
    Seconds,
    as_sandbox_mode,
    check_listen,
    check_output_file,
    cluster_address,
    parse_options,
    resolvable_host,
)
from referee.cli.publishing import (
    CERTFILE_OPTION,
    KEYFILE_OPTION,
    PagesBeside,
    pages_beside,
    parse_public_url,
    publishing,
    publishing_options,
)
from referee.cli.serving import serve_until_signal
from referee.errors import LadderError
from referee.ladder.background import BackgroundAnalysis
from referee.ladder.entrants import add_entrant, name_problem, private_link
from referee.ladder.faults import bot_faults, detail_json, detail_lines, ladder_faults, summary_lines
from referee.ladder.order import TOP, format_order, order_json, order_of
from referee.ladder.play import LadderInterrupted, LadderPlan, LadderResult, RunOutput, play_ladder
from referee.ladder.season import SeasonAsked, SeasonTimeError, parse_time, utc_now
from referee.ladder.season_run import season_json, season_lines, season_report
from referee.ladder.setup import DEFAULT_GAMES
from referee.ladder.standings import (
    compare,
    format_comparison,
    format_modes,
    standings,
    standings_csv,
    standings_json,
    standings_table,
)
from referee.ladder.times import ladder_times
from referee.ladder.upload_gate import read_gate, start_warning
from referee.match.config import MatchConfig
from referee.names import printable
from referee.network import DEFAULT_HOST
from referee.players.bot_config import BotConfigError, BotEntry, config_folder, read_bots
from referee.players.process import BotStartError
from referee.private_files import UntrustedFile
from referee.replay.timing import time_lines
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.sandbox.bwrap import SandboxUnavailable
from referee.store.entrants import entrants
from referee.store.writer import LadderStore
from referee.web.ladder.published import PublicUrl
from referee.web.ladder.reading import Reading

DB_OPTION = click.option(
    "--db",
    default="ladder.db",
    show_default=True,
    type=click.Path(dir_okay=False),
    envvar="REFEREE_LADDER_DB",
    help="The ladder's SQLite database (replay logs go in NAME-logs/ beside it).",
)


@click.group()
def ladder() -> None:
    """A bot ladder: duplicate play, OpenSkill ratings, resumable (docs/ladder.md)."""


ladder.add_command(analyze_command)


def _season_time(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A season time as given (kept so: ``+3d`` given again is the same season), once it reads."""
    if value is not None:
        try:
            parse_time(value, utc_now())
        except SeasonTimeError as err:
            raise click.BadParameter(str(err)) from None
    return value


SEASON_OPTIONS = (
    click.option(
        "--season-end",
        default=None,
        metavar="TIME",
        callback=_season_time,
        help="A season: no duplicate set begins after TIME (ISO 8601 with an offset, or +90m, +2h, +3d from now); "
        "the sets begun finish, the final (if any) is played, and the run ends. Kept in the database.",
    ),
    click.option(
        "--submissions-close",
        default=None,
        metavar="TIME",
        callback=_season_time,
        help="No new version (a bot list edit, an upload) is taken after TIME (default: the season's end).",
    ),
    click.option(
        "--final-top",
        type=click.IntRange(min=2),
        default=None,
        metavar="N",
        help="The season's final: the top N of the standings at the end time play --final-sets more sets.",
    ),
    click.option(
        "--final-sets", type=click.IntRange(min=1), default=None, metavar="M", help="Duplicate sets of the final."
    ),
    click.option(
        "--change-season",
        is_flag=True,
        help="Season flags that differ from the season stored in --db replace it (before its end); without it they are "
        "refused.",
    ),
)
"""``ladder run``'s season flags (docs/ladder.md, "A season")."""


def season_options(command: Callable[..., None]) -> Callable[..., None]:
    """The season flags on ``command``, given to it as one ``SeasonAsked`` (``season``)."""

    @functools.wraps(command)
    def with_season(
        *args: object,
        season_end: str | None,
        submissions_close: str | None,
        final_top: int | None,
        final_sets: int | None,
        change_season: bool,
        **kwargs: object,
    ) -> None:
        season = SeasonAsked(season_end, submissions_close, final_top, final_sets, change=change_season)
        if change_season and not season.given:
            raise click.UsageError("--change-season changes the stored season to the season flags given: give some")
        command(*args, season=season, **kwargs)

    for option in reversed(SEASON_OPTIONS):
        with_season = option(with_season)
    return with_season


@ladder.command("run")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--games",
    type=MATCH_COUNT,
    default=None,
    help=f"Duplicate sets in all: one table and one seed, played in every seat rotation (4 matches at "
    f"4 seats). A new ladder gets {DEFAULT_GAMES}; a larger number extends an existing one.",
)
@click.option(
    "--concurrency",
    "-k",
    default=1,
    show_default=True,
    type=CONCURRENCY,
    help=f"Tables played at once (1..{MAX_CONCURRENCY}).",
)
@DB_OPTION
@click.option("--variant", default=None, help=f"A preset (see `referee variants`); new ladders: {DEFAULT_PRESET}.")
@click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option.")
@click.option("--seed", type=int, default=None, help="The ladder seed (the schedule follows from it); default random.")
@TIME_PER_MOVE_OPTION
@TIME_BANK_OPTION
@click.option("--startup", default=10.0, show_default=True, type=Seconds(), help="Seconds for a bot's handshake (> 0).")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="Folder the bot commands and builds run from, and relative programs and files are looked up "
    "from (default: the config's cwd, relative to its folder, else the config file's folder).",
)
@click.option(
    "--keep-bots",
    is_flag=True,
    help="Keep bot processes alive from one match to the next (faster; only for trusted bots: a bot "
    "that remembers a set's first rotation knows the cards of the next). Default: fresh bots per match.",
)
@click.option(
    "--start-ahead/--no-start-ahead",
    default=True,
    show_default=True,
    help="With fresh bots, start the next match's bots while a match plays (each still plays one match; "
    "a waiting bot gets the least CPU weight).",
)
@SANDBOX_OPTION
@SANDBOX_BIND_OPTION
@SANDBOX_LOOPBACK_OPTION
@click.option(
    "--trust-uploads",
    is_flag=True,
    help="DANGEROUS: take entrants' uploads even when the bots run without a sandbox (--sandbox off, or no "
    "bubblewrap): their builds and bots then run as you, with your files. Only on a machine you can throw away.",
)
@TABLES_WEIGHT_OPTION
@click.option(
    "--cluster",
    default=None,
    metavar="ADDRESS|local:N",
    callback=lambda ctx, param, value: cluster_address(value),
    help="Play the matches on a Dask cluster: a scheduler's address (tcp://host:8786) or local:N for a "
    "local cluster of N worker processes (needs pip install -e '.[cluster]'; see docs/ladder.md).",
)
@click.option(
    "--follow/--no-follow",
    default=True,
    show_default=True,
    help="Follow edits to CONFIG while running (on save, or at once on SIGHUP): new bots and versions join, "
    "removed ones retire, without a restart.",
)
@click.option(
    "--keep-running",
    is_flag=True,
    help="When every set is played, wait for new bots or versions in CONFIG instead of ending "
    "(stop with Ctrl-C or SIGTERM): a ladder that lives for weeks.",
)
@season_options
@click.option(
    "--analyze",
    "analyze",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100_000),
    help="Meanwhile analyse up to N finished matches per bot not analysed yet, in a background process at "
    "nice 19 (as referee ladder analyze; the bot pages show them); 0: none.",
)
@budget_option("--analyze-budget", help="With --analyze: worlds per decision at most.")
@click.option("--quiet", "-q", is_flag=True, help="No progress and no table: for scripts.")
@pages_beside
def run_command(
    config: str,
    games: int | None,
    concurrency: int,
    db: str,
    variant: str | None,
    pairs: tuple[str, ...],
    seed: int | None,
    time_per_move: float,
    time_bank: float,
    startup: float,
    cwd: str | None,
    keep_bots: bool,
    start_ahead: bool,
    sandbox_mode: str,
    sandbox_binds: tuple[str, ...],
    sandbox_loopback: bool,
    trust_uploads: bool,
    cluster: str | None,
    follow: bool,
    keep_running: bool,
    season: SeasonAsked,
    analyze: int,
    analyze_budget: int,
    quiet: bool,
    web: PagesBeside | None,
) -> None:
    """Play the ladder of the bots in CONFIG (a TOML bot list, as sample_bots/bots.toml),
    or go on with the one in --db where it stopped."""
    if keep_running and not follow:
        raise click.UsageError("--keep-running waits for edits to CONFIG: it needs --follow")
    entries, folder, rules, default_rules = _read_config(config, cwd, variant, pairs)
    check_output_file(db, "--db", make_folders=False)
    console = Console()
    try:
        plan = LadderPlan(
            db=db, entries=entries, rules=rules, default_rules=default_rules, games=games, seed=seed,
            concurrency=concurrency, config=MatchConfig(per_decision=time_per_move, bank=time_bank, startup=startup),
            cwd=folder, sandbox_mode=as_sandbox_mode(sandbox_mode), sandbox_binds=sandbox_binds,
            sandbox_loopback=sandbox_loopback, trust_uploads=trust_uploads, keep_bots=keep_bots,
            start_ahead=start_ahead, cluster=cluster,
            bot_list=Path(config) if follow else None, keep_running=keep_running, season=season,
        )  # fmt: skip
        result = _play(plan, _output(quiet, console, Path(db), web), (analyze, analyze_budget), quiet=quiet)
    except LadderInterrupted as err:
        click.echo(str(err), err=True)
        raise SystemExit(130) from None
    except (LadderError, BotConfigError, BotStartError, SandboxUnavailable, UntrustedFile) as err:
        raise click.ClickException(str(err)) from None
    if not quiet:
        _after_run(db, result, console)


def _play(plan: LadderPlan, output: RunOutput, analyze: tuple[int, int], *, quiet: bool) -> LadderResult:
    """The ladder played; with ``--analyze N`` (``analyze``: N and the budget), a background
    worker analysing meanwhile (``referee.ladder.background``), stopped at once if the ladder
    fails, else let finish what it was asked once the ladder ends (Ctrl-C stops it)."""
    per_bot, budget = analyze
    background = BackgroundAnalysis(Path(plan.db), per_bot, budget) if per_bot else None
    try:
        result = play_ladder(plan, output)
    except BaseException:
        if background is not None:
            background.finish(wait=False)
        raise
    if background is not None:
        if not quiet:
            click.echo(f"analysing up to {per_bot} matches per bot in the background (Ctrl-C stops it; what is "
                       "analysed is kept, and referee ladder analyze goes on from there)", err=True)  # fmt: skip
        background.finish(wait=True)
    return result


def _read_config(
    config: str, cwd: str | None, variant: str | None, pairs: tuple[str, ...]
) -> tuple[list[BotEntry], Path, RuleSet | None, RuleSet]:
    """The bot list, the folder its bots run from, the rules asked for (``None``: a new
    ladder's default, or the stored ones) and the default rules; a ``ClickException`` that
    names what is wrong."""
    try:
        entries = read_bots(config)
        folder = Path(cwd).absolute() if cwd else config_folder(config)
        rules = ruleset(variant or DEFAULT_PRESET, parse_options(pairs)) if variant or pairs else None
        return entries, folder, rules, ruleset(DEFAULT_PRESET)
    except (BotConfigError, InvalidRuleSet) as err:
        raise click.ClickException(str(err)) from None


def _output(quiet: bool, console: Console, db: Path, web: PagesBeside | None) -> RunOutput:
    """How ``ladder run`` tells what it does; with ``--web``, its pages too."""
    beside = partial(_serve_beside, db, web) if web is not None else None
    return RunOutput(quiet=quiet, console=console, warn=_warn, beside=beside)


def _warn(line: str) -> None:
    click.echo(line, err=True)


async def _serve_beside(db: Path, web: PagesBeside, ready: Callable[[], None]) -> None:
    """``--web``: the ladder's pages on loopback, from a process of their own."""

    def listening(url: str) -> None:
        click.echo(f"ladder pages: open {url}", err=True)
        ready()

    from referee.web.ladder.server import serve_apart  # noqa: PLC0415  (the web server: only with --web)

    await serve_apart(db, web.port, on_listening=listening, on_line=_warn, options=web.options)


def _after_run(db: str, result: LadderResult, console: Console) -> None:
    """What a run that was not ``--quiet`` prints at its end: the standings, how sure the order
    of the top is, the run's modes, the faults in short, and what this run played."""
    store = LadderStore(db)
    try:
        title = f"ladder {Path(db).name}: {result.done} of {result.total} matches"
        rows = standings(store)
        console.print(standings_table(rows, title=title))
        order = order_of(store, TOP, rows)
        if order.neighbours:
            click.echo(format_order(order))
        click.echo(format_modes(store.modes()))  # one line per fact, never wrapped
        for line in summary_lines(ladder_faults(store), db):
            click.echo(line)  # bot text is made printable; never read as rich markup
        report = season_report(store, utc_now())
        for line in season_lines(report) if report is not None else []:
            click.echo(line)
    finally:
        store.close()
    restarts = ", ".join(f"{name} {n}" for name, n in sorted(result.restarts.items()))
    played = f"{result.played} match{'' if result.played == 1 else 'es'}"
    console.print(
        Text(
            f"played {played} in {result.seconds:.1f} s ({result.matches_per_minute:.1f} matches/min)"
            + (f"; bots restarted: {restarts}" if restarts else "")
        )
    )
    for line in result.after_goodbye:
        click.echo(line)  # bot text is made printable; never read as rich markup


@ladder.command("table")
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the rows (with --bot: the bot's detail) as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
@click.option(
    "--bot",
    "bot",
    default=None,
    metavar="NAME",
    help="One bot in detail: its row, its faults by reason with the first of each explained, the logs to replay.",
)
@click.option(
    "--top",
    default=TOP,
    show_default=True,
    type=click.IntRange(2, 10_000),
    help="The line under the table says how sure the order of this many best bots is (all if fewer).",
)
def table_command(db: str, as_json: bool, as_csv: bool, bot: str | None, top: int) -> None:
    """The leaderboard, best conservative rating (μ-3σ) first, and how sure the order of its top
    bots is (--top); or one bot in detail (--bot)."""
    if as_json and as_csv:
        raise click.UsageError("--json and --csv exclude each other")
    if bot is not None and as_csv:
        raise click.UsageError("--bot shows one bot as text or --json, not as CSV")
    store = open_existing(db)
    try:
        rows = standings(store)
        done, total = store.progress()
        modes = store.modes()
        commands = dict(store.bots())
        order = order_of(store, top, rows)
        if bot is not None:
            found = [r for r in rows if r.bot == bot]
            if not found:
                raise LadderError(f"no bot named {bot!r} in this ladder (bots: {', '.join(sorted(commands))})")
            faults = bot_faults(store, bot, found[0].matches)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    if bot is not None:
        if as_json:
            click.echo(detail_json(found[0], commands.get(bot), faults))
            return
        Console().print(standings_table(found, title=f"ladder {Path(db).name}: {done} of {total} matches"))
        for line in detail_lines(faults, commands.get(bot)):
            click.echo(line)
    elif as_json:
        click.echo(standings_json(rows))  # the rows, as ever: scripts read a list (the order: ladder order --json)
    elif as_csv:
        click.echo(standings_csv(rows), nl=False)
    else:
        Console().print(standings_table(rows, title=f"ladder {Path(db).name}: {done} of {total} matches"))
        if order.neighbours:
            click.echo(format_order(order))
        click.echo(format_modes(modes))


@ladder.command("order")
@DB_OPTION
@click.option("--top", default=TOP, show_default=True, type=click.IntRange(2, 10_000), help="How many best bots.")
@click.option("--json", "as_json", is_flag=True, help="Every neighbouring pair as JSON.")
def order_command(db: str, top: int, as_json: bool) -> None:
    """How sure the order of the top bots is: each pair of neighbours (sure, reversed or not
    sure, on which evidence, sets with both) and about how many more sets would make it sure."""
    store = open_existing(db)
    try:
        order = order_of(store, top, standings(store))
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(order_json(order), indent=2))
        return
    click.echo(format_order(order))
    for pair in order.neighbours:
        more = "" if pair.state != "not sure" else f"; {pair.told.words()}"
        evidence = f" ({pair.by})" if pair.by else ""
        click.echo(f"  {pair.above} > {pair.below}: {pair.state}{evidence}, {pair.sets} sets with both{more}")


@ladder.command("season")
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the season as JSON.")
def season_command(db: str, as_json: bool) -> None:
    """The ladder's season: when it ends, when submissions close, its state (regular, final,
    over), the final's bots and the final's order with how sure it is (from the final's
    matches alone)."""
    store = open_existing(db)
    try:
        report = season_report(store, utc_now())
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(season_json(report) if report is not None else None, indent=2))
        return
    if report is None:
        click.echo(f"ladder {Path(db).name} has no season (`ladder run --season-end TIME` gives it one)")
        return
    for line in season_lines(report):
        click.echo(line)


@ladder.command("compare")
@click.argument("a")
@click.argument("b")
@DB_OPTION
def compare_command(a: str, b: str, db: str) -> None:
    """How sure the ladder is that bot A is stronger than bot B."""
    store = open_existing(db)
    try:
        click.echo(format_comparison(compare(store, a, b)))
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()


@ladder.command("times")
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def times_command(db: str, as_json: bool) -> None:
    """Each bot's time per decision (request to reply) over the finished matches' logs."""
    store = open_existing(db)
    try:
        found = ladder_times(store)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    if as_json:
        data = {"matches": found.matches, "bots": found.bots, "unreadable": found.unreadable}
        click.echo(msgspec.json.encode(data).decode())
        return
    click.echo(f"ladder {Path(db).name}: time from each request to the reply, over {found.matches} matches")
    for line in time_lines([(printable(name, 40), summary) for name, summary in found.bots.items()]):
        click.echo(line)
    for problem in found.unreadable:
        click.echo(f"left out: {printable(problem, 300)}", err=True)


@ladder.command("plot")
@click.argument("out", type=click.Path(dir_okay=False))
@DB_OPTION
def plot_command(out: str, db: str) -> None:
    """Draw every bot's rating (μ ± σ) over the matches to OUT (.svg, .png or .pdf)."""
    check_output_file(out, "OUT", make_folders=False)
    store = open_existing(db)
    # imported only once the arguments are good: matplotlib takes half a second, and on its
    # first import builds a font cache (which may start a subprocess)
    from referee.ladder.plot import plot_ratings  # noqa: PLC0415

    try:
        path = plot_ratings(store, out)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    click.echo(f"wrote {path}")


@ladder.command("web")
@DB_OPTION
@click.option("--host", default=DEFAULT_HOST, show_default=True, callback=resolvable_host, help="Address to listen on.")
@click.option("--port", default=0, show_default=True, type=PORT, help="Port of the pages (0..65535; 0: any free).")
@publishing_options("")
@CERTFILE_OPTION
@KEYFILE_OPTION
@click.option("--open", "open_browser", is_flag=True, help="Open the pages in your browser.")
@click.option("--until-stdin-closes", "until_stdin", is_flag=True, hidden=True, help="Stop when stdin ends.")
def web_command(
    db: str,
    host: str,
    port: int,
    token_file: str | None,
    public: PublicUrl | None,
    proxies: tuple[IPv4Network | IPv6Network, ...],
    public_view: bool,
    certfile: Path | None,
    keyfile: Path | None,
    open_browser: bool,
    until_stdin: bool,
) -> None:
    """Serve the ladder's pages, read-only, updating as matches end: the leaderboard, a page
    per bot, the matches with their replays, the tables in play. Safe beside a running
    `ladder run` (it only reads). On another address than loopback, with --token-file, with
    --public or once the ladder has entrants, the printed address carries the organizer's
    token, which shows everything. Ctrl-C stops."""
    check_listen(host, port)
    if not Path(db).exists():
        raise click.ClickException(f"{db}: no such ladder (run `referee ladder run CONFIG --db {db}` first)")
    try:
        reading = Reading(Path(db))  # read-only, as the pages: a missing or older ladder is said here
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    try:
        closed = start_warning(read_gate(db), len(reading.read(lambda r: entrants(r.db))))
    finally:
        reading.close()
    if closed is not None and not until_stdin:  # ladder run --web's own run has said it
        click.echo(f"ladder {Path(db).name}: {closed}", err=True)
    published = publishing(token_file, public, proxies, certfile, keyfile, public_view)

    def listening(urls: list[str]) -> None:
        for url in urls:
            click.echo(f"ladder {Path(db).name}: open {url}", err=True)
        if public_view:  # never "open URL": ladder run --web takes those lines for the organizer's address
            click.echo(f"ladder {Path(db).name}: the public view, for everyone: {urls[0].partition('?')[0]}", err=True)
        if open_browser:
            webbrowser.open(urls[-1])  # the public address, or this machine's loopback one

    from referee.web.ladder.server import serve_ladder_web, stop_when_stdin_closes  # noqa: PLC0415  (see cli/group.py)

    async def start(nursery: trio.Nursery) -> None:
        serve = partial(serve_ladder_web, Path(db), host, port, publishing=published, on_listening=listening)
        await nursery.start(serve)
        if until_stdin:  # ladder run --web: the run holds our stdin; it ends when the run does, killed or not
            nursery.start_soon(stop_when_stdin_closes, nursery.cancel_scope)

    serve_until_signal(start)


@ladder.command("export")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@DB_OPTION
@click.option(
    "--replays",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Replay pages for the latest N finished matches only (default: all; each is a log read and verified: "
    "about 0.1 s and 0.1 MB a match).",
)
@click.option("--force", is_flag=True, help="Replace what DIR holds (without it, a DIR that is not empty is refused).")
def export_command(folder: str, db: str, replays: int | None, force: bool) -> None:
    """Write the ladder's public pages into DIR as a static site, for any static web host or to open
    from the files: the leaderboard (index.html), a page per bot, the match lists, each finished
    match's replay, and every finished match in matches.csv and matches.json. No bot's stderr, each
    fault by its reason. DIR is replaced whole once the copy is complete."""
    if not Path(db).exists():
        raise click.ClickException(f"{db}: no such ladder (run `referee ladder run CONFIG --db {db}` first)")
    from referee.web.ladder.export import export_ladder  # noqa: PLC0415  (see cli/group.py)

    try:
        done = export_ladder(Path(db), Path(folder), replays=replays, force=force, progress=_replays_made)
    except (LadderError, OSError) as err:
        raise click.ClickException(str(err)) from None
    latest = "every finished match" if done.asked == done.finished else f"the latest {done.asked} finished matches"
    click.echo(f"wrote {done.folder}: {done.files} files, {done.bytes / 1e6:.1f} MB")
    click.echo(f"  the leaderboard (index.html), {done.bots} bot pages, the match lists, matches.csv, matches.json")
    click.echo(f"  replays of {latest}: {done.replays} written ({done.finished} finished in all)")
    if done.unreadable:
        shown = ", ".join(done.unreadable[:10]) + (", ..." if len(done.unreadable) > 10 else "")
        click.echo(f"  no replay where the log cannot be read in the ladder's logs folder: {shown}")
    click.echo(f"open {Path(done.folder) / 'index.html'}, or put the folder on any static web host")


def _replays_made(done: int, asked: int) -> None:
    if done % 100 == 0 and done < asked:
        click.echo(f"replays: {done} of {asked}", err=True)


@ladder.group("entrant")
def entrant_group() -> None:
    """Entrants with a private link: each sees its own bots' stderr and faults on the pages
    (docs/ladder.md, "Who sees what")."""


@entrant_group.command("add")
@click.argument("name")
@DB_OPTION
@click.option("--new-secret", is_flag=True, help="Give an entrant with a link a new one (the old one stops working).")
@click.option("--public-url", "public", default=None, metavar="URL", callback=parse_public_url,
              help="The pages' public address (as `ladder web --public-url`), to print the link from.")  # fmt: skip
def entrant_add_command(name: str, db: str, new_secret: bool, public: PublicUrl | None) -> None:
    """Make the entrant NAME (the name its bots have in the bot list) and print its private
    link, which opens its own bots' stderr and faults; only a hash of it is kept."""
    problem = name_problem(name)
    if problem is not None:
        raise click.BadParameter(problem, param_hint="NAME")
    store = open_existing(db)
    try:
        done, secret = add_entrant(store, name, again=new_secret)
        versions = sum(1 for v in store.versions() if v.entrant == name)
    finally:
        store.close()
    shown = printable(name, 80)
    if secret is None:
        raise click.ClickException(
            f"entrant {shown} has a private link already, which cannot be printed again (only its hash is kept):"
            " --new-secret makes a new one, and the old one stops working"
        )
    owns = f"its {versions} version{'s' if versions != 1 else ''}" if versions else "no version yet"
    click.echo(f"entrant {shown}: {'made' if done == 'made' else 'a new secret made'} ({owns} in {Path(db).name})")
    click.echo(f"its private link (for {shown} alone; it is not kept, and cannot be printed again):")
    click.echo(f"  {private_link(public.origin if public is not None else 'http://127.0.0.1:PORT', secret)}")
    if public is None:
        click.echo("  (the start of the address: the one `referee ladder web` prints, without its ?token=...)")


@entrant_group.command("list")
@DB_OPTION
def entrant_list_command(db: str) -> None:
    """The entrants with a private link: their names, their versions, when each link was made
    (never a secret: none is kept)."""
    store = open_existing(db)
    try:
        found = entrants(store.db)
    finally:
        store.close()
    if not found:
        click.echo(f"no entrants in {Path(db).name} (`referee ladder entrant add NAME` makes one)")
        return
    for entrant in found:
        count = entrant.versions
        versions = f"{count} version{'s' if count != 1 else ''}" if count else "no version yet"
        click.echo(f"{printable(entrant.name, 80)}: {versions}, link made {entrant.keyed}")
