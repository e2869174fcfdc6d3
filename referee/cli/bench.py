"""`referee bench`: the benchmarks whose figures are recorded in docs/performance.md."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click
import msgspec

from referee.bench.analyze import bench_analyze
from referee.bench.channels import CHANNELS, PERIODS, bench_channels
from referee.bench.cluster import bench_cluster
from referee.bench.duel_feed import bench_duel_feed
from referee.bench.engine import bench_engine, bench_playouts
from referee.bench.fairness import SCENARIOS, FairnessCase, bench_fairness
from referee.bench.floor import C_BOT, PLACEMENTS, bench_floor
from referee.bench.hostile import bench_hostile
from referee.bench.kernel_memory import KINDS, bench_kernel_memory
from referee.bench.ladder_pool import bench_ladder_pool
from referee.bench.ladder_web import bench_ladder_web, flood, make_ladder
from referee.bench.match import RANDOM_BOT, bench_concurrent, bench_match
from referee.bench.openspiel import OpenSpielMissing, bench_openspiel
from referee.bench.passes import bench_passes
from referee.bench.projection import projection_cases
from referee.bench.projection_ladder import ladder_cases, ladder_lines
from referee.bench.sandbox import bench_startup
from referee.bench.sprt import DATA, PAIRS, SprtBench, bench_sprt, load_sets
from referee.bench.web_attacks import ATTACKS, bench_web_attacks
from referee.cli.analyze import WORKERS_OPTION
from referee.cli.options import (
    MATCH_COUNT,
    MAX_CONCURRENCY,
    REPO,
    TABLES_WEIGHT_OPTION,
    BotTemplate,
    Seconds,
    sandbox_for,
)
from referee.errors import LadderError, RefereeError
from referee.rules.presets import DEFAULT_PRESET, PRESETS
from referee.stats.sequential import MIN_SETS, PRIOR_SETS, SprtBoundsError


@click.group()
def bench() -> None:
    """Benchmarks (figures recorded in docs/performance.md)."""


def _report(result: object, as_json: bool, text: str) -> None:
    """A benchmark's result: one JSON object (``--json``, for scripts) or its lines of text."""
    click.echo(msgspec.json.encode(result).decode() if as_json else text)


@bench.command("analyze")
@click.option(
    "--log",
    "log_path",
    default=None,
    type=click.Path(exists=True, dir_okay=False),
    help="Analyse this log's match (default: a greedy match played in-process).",
)
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--seat", default=0, show_default=True, type=int)
@WORKERS_OPTION
@click.option(
    "--passes",
    default=0,
    type=click.IntRange(0, 10_000),
    help="Instead: the race of passes against every legal pass valued on --worlds worlds, over N pass decisions.",
)
@click.option("--worlds", default=256, show_default=True, type=click.IntRange(8, 100_000), help="With --passes.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyze_bench(
    log_path: str | None, seed: int, seat: int, workers: int | None, passes: int, worlds: int, as_json: bool
) -> None:
    """`referee analyze` for one seat of a whole match: playouts/s, decisions/s, time per match."""
    if passes:
        race = bench_passes(passes, seed, worlds, workers)
        _report(
            race,
            as_json,
            f"{race.decisions} pass decisions of greedy American matches, {race.legal} legal passes each, "
            f"reference: every pass on {race.reference_worlds} worlds\n"
            f"  race: regret {race.race_regret:.3f} ± {race.race_regret_half:.3f} pts, found the best in "
            f"{race.race_found}, {race.race_playouts:,.0f} playouts a decision\n"
            f"  old set ({race.old_candidates:.1f} candidates): regret {race.old_regret:.3f} ± "
            f"{race.old_regret_half:.3f} pts, held the best in {race.old_found}",
        )
        return
    found = bench_analyze(log_path, seed, seat, workers)
    _report(
        found,
        as_json,
        f"{found.source}: {found.rounds} rounds, {found.analysed} of {found.decisions} decisions valued, "
        f"{found.workers} workers\n"
        f"  {found.seconds:.1f} s per match   {found.playouts_per_second:,.0f} playouts/s   "
        f"{found.decisions_per_second:.1f} decisions/s",
    )


@bench.command()
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, type=click.Choice(list(PRESETS)))
@click.option("--seconds", default=5.0, show_default=True, type=Seconds(), help="How long to play (> 0).")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option(
    "--playouts",
    is_flag=True,
    help="Instead: playouts (greedy policy) per second from mid-round positions, plain and from sampled worlds.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def engine(variant: str, seconds: float, seed: int, playouts: bool, as_json: bool) -> None:
    """Random legal hands through the rules API: hands and decisions per second."""
    if playouts:
        found = bench_playouts(variant, seconds, seed)
        _report(
            found,
            as_json,
            f"{found.variant}: {found.playouts} playouts ({found.policy}) from {found.positions} mid-round positions "
            f"in {found.seconds:.2f} s\n"
            f"  {found.playouts_per_second:,.0f} playouts/s   "
            f"{found.worlds_per_second:,.0f} sampled worlds + playout/s",
        )
        return
    result = bench_engine(variant, seconds, seed)
    _report(
        result,
        as_json,
        f"{result.variant}: {result.hands} hands, {result.decisions} decisions in {result.seconds:.2f} s\n"
        f"  {result.hands_per_second:,.0f} hands/s   {result.decisions_per_second:,.0f} decisions/s",
    )


@bench.command("openspiel")
@click.option("--blocks", default=6, show_default=True, type=click.IntRange(1, 1000), help="Blocks of each engine.")
@click.option("--seconds", default=3.0, show_default=True, type=Seconds(), help="Seconds per block (> 0).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_openspiel_command(blocks: int, seconds: float, as_json: bool) -> None:
    """Our engine against OpenSpiel's C++ Hearts, random American hands side by side in one
    run (needs `pip install -e '.[compare]'`)."""
    try:
        result = bench_openspiel(blocks, seconds)
    except OpenSpielMissing as err:
        raise click.ClickException(str(err)) from None
    blocks_text = [
        f"block {block}: ours {ours:,.0f} hands/s, OpenSpiel {theirs:,.0f}, ratio {ours / theirs:.2f}"
        for block, (ours, theirs) in enumerate(zip(result.ours, result.openspiel, strict=True), 1)
    ]
    _report(
        result,
        as_json,
        "\n".join(blocks_text) + "\n"
        f"median: ours {result.ours_median:,.0f} hands/s, OpenSpiel {result.openspiel_median:,.0f} hands/s, "
        f"ratio {result.ratio:.2f}",
    )


@bench.command("cluster")
@click.option("--matches", default=16, show_default=True, type=click.IntRange(1, 10_000), help="Matches each way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_cluster_command(matches: int, as_json: bool) -> None:
    """What a ladder match costs through Dask (needs `pip install -e '.[cluster]'`): the same
    matches played in-process and through a one-worker local cluster, and the coordinator's
    check of each returned log."""
    try:
        result = bench_cluster(matches, str(REPO))
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    _report(
        result,
        as_json,
        f"{result.matches} matches: in-process {result.direct_ms:,.1f} ms, through Dask {result.dask_ms:,.1f} ms "
        f"a match: overhead {result.overhead_ms:,.1f} ms ({result.result_bytes:,} bytes a result)\n"
        f"the coordinator's check of a returned log: {result.check_ms:,.1f} ms of CPU",
    )


@bench.command("hostile")
@click.option("--repeat", default=20, show_default=True, type=click.IntRange(1, 10_000), help="Tries per line.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per line.")
def bench_hostile_command(repeat: int, as_json: bool) -> None:
    """What the worst lines a bot can send cost the referee to decode or refuse."""
    for case in bench_hostile(repeat):
        line = f"{case.name:<24} {case.bytes:>7,} bytes  {case.outcome:<16} {case.microseconds:>9,.0f} us"
        _report(case, as_json, line)


@bench.command("sandbox")
@click.option("--bot", default=RANDOM_BOT, show_default=True, type=BotTemplate(), help="Bot command ({python}).")
@click.option("--starts", default=30, show_default=True, type=click.IntRange(1, 10_000), help="Starts each way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_sandbox_command(bot: str, starts: int, as_json: bool) -> None:
    """Start-up of a bot (process start to its hello) with and without the sandbox."""
    sandbox = sandbox_for("on", ())
    assert sandbox is not None
    result = bench_startup(sandbox, bot, starts, str(REPO))
    _report(
        result,
        as_json,
        f"{result.bot}: {result.starts} starts each way\n"
        f"  plain     median {result.plain_ms:7.1f} ms   p90 {result.plain_p90_ms:7.1f} ms\n"
        f"  sandboxed median {result.sandboxed_ms:7.1f} ms   p90 {result.sandboxed_p90_ms:7.1f} ms\n"
        f"  the sandbox adds {result.added_ms:.1f} ms per bot start",
    )


@bench.command("match")
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, type=click.Choice(list(PRESETS)))
@click.option("--games", default=20, show_default=True, type=MATCH_COUNT, help="Matches to play (>= 1).")
@click.option(
    "--concurrency",
    default=0,
    type=click.IntRange(0, MAX_CONCURRENCY),
    help="Matches at once (each with its own bots); 0: the echo comparison.",
)
@click.option(
    "--bot",
    default=RANDOM_BOT,
    show_default=True,
    type=BotTemplate(),
    help="Bot command ({python} and {seed} are filled in).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_match_command(variant: str, games: int, concurrency: int, bot: str, as_json: bool) -> None:
    """Matches between four random bots in real processes: throughput and the referee's own
    cost per decision, against raw line round trips through `cat`; or, with --concurrency K,
    K matches at once with the delay from each reply to the next request."""
    if concurrency > 0:
        many = bench_concurrent(variant, games, concurrency, bot, str(REPO))
        _report(
            many,
            as_json,
            f"{many.variant}: {many.matches} matches at concurrency {many.concurrency} in {many.seconds:.1f} s\n"
            f"  {many.matches_per_second:,.2f} matches/s   {many.decisions_per_second:,.0f} decisions/s\n"
            f"  reply -> next request: median {many.median_delay_us:,.0f} us, p99 {many.p99_delay_us:,.0f} us, "
            f"worst {many.worst_delay_us:,.0f} us\n  timeouts {many.timeouts}, faults {many.faults}",
        )
        return
    result = bench_match(variant, games, str(REPO), bot)
    _report(
        result,
        as_json,
        f"{result.variant}: {result.games} matches, {result.decisions} decisions in {result.seconds:.2f} s\n"
        f"  {result.matches_per_second:,.2f} matches/s   {result.decisions_per_second:,.0f} decisions/s\n"
        f"  referee CPU per decision {result.referee_us_per_decision:,.1f} us; echo CPU per round trip "
        f"{result.echo_cpu_us_per_round_trip:,.1f} us; ratio {result.ratio:.2f} (target <= 1.5)\n"
        f"  wall per decision {result.wall_us_per_decision:,.0f} us; echo wall per round trip "
        f"{result.echo_us_per_round_trip:,.0f} us; timeouts {result.timeouts}",
    )


@bench.command("floor")
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, type=click.Choice(list(PRESETS)))
@click.option("--games", default=10, show_default=True, type=MATCH_COUNT, help="Matches in each block (>= 1).")
@click.option("--blocks", default=5, show_default=True, type=click.IntRange(1, 100), help="Blocks of each case.")
@click.option(
    "--placement",
    "placements",
    multiple=True,
    type=click.Choice(PLACEMENTS),
    help="apart: the referee on one CPU, the bots on another; pinned: all on one (default: both).",
)
@click.option(
    "--log", "logs", multiple=True, type=click.Choice(["on", "off"]), help="With the log, without (default: both)."
)
@click.option("--bot", default=C_BOT, show_default=True, type=BotTemplate(), help="Bot command ({seed} is filled in).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_floor_command(
    variant: str, games: int, blocks: int, placements: tuple[str, ...], logs: tuple[str, ...], bot: str, as_json: bool
) -> None:
    """The referee's CPU per decision against its floor: the same conversation replayed through
    trio alone (no rules, clock or log), block after block, with the bots on the other CPU and
    pinned to one, the log on and off (issue 46); and the referee alone, its bots their taped
    replies in this process."""
    result = bench_floor(
        variant, games, blocks=blocks, bot=bot, placements=placements or PLACEMENTS,
        logs=[x == "on" for x in (logs or ("on", "off"))], cwd=str(REPO),
    )  # fmt: skip
    lines = [f"{variant}: {games} matches a block, {blocks} blocks a case, bots: {bot}"]
    for c in result.cases:
        lines.append(
            f"  {c.placement:6} log {'on ' if c.log else 'off'}  referee {c.referee_cpu_us:6.1f} us CPU "
            f"({c.referee_wall_us:6.1f} wall)  floor {c.floor_cpu_us:5.1f} ({c.floor_wall_us:6.1f})  "
            f"alone {c.alone_cpu_us:5.1f}  "
            f"ratio {c.cpu_ratio:.2f} CPU, {c.wall_ratio:.2f} wall  blocks {', '.join(map(str, c.cpu_ratios))}"
            + (f"  ({c.mismatches} replies differed)" if c.mismatches else "")
        )
    _report(result, as_json, "\n".join(lines))


@bench.command("fairness")
@click.option("--spinners", default=48, show_default=True, type=click.IntRange(1, 4096), help="Busy loops.")
@click.option("--matches", default=4, show_default=True, type=MATCH_COUNT, help="Seeded matches per scenario.")
@click.option("--playouts", default=30, show_default=True, type=click.IntRange(1, 100_000), help="Search work.")
@click.option("--time-per-move", "per_move", default=1.0, show_default=True, type=Seconds(), help="Decision time.")
@click.option("--scenario", "scenarios", multiple=True, type=click.Choice(SCENARIOS), help="Only these (repeatable).")
@click.option("--compare", is_flag=True, help="Also play every scenario without control groups (as before them).")
@click.option("--freeze-idle", is_flag=True, help="Freeze each bot's group while it is not being asked.")
@TABLES_WEIGHT_OPTION
@click.option(
    "--busy", default=0, show_default=True, type=click.IntRange(0, 64), help="Busy loops of other work all along."
)
@click.option("--sandbox", "sandbox_mode", default="on", show_default=True, type=click.Choice(["on", "off"]))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
def bench_fairness_command(
    spinners: int,
    matches: int,
    playouts: int,
    per_move: float,
    scenarios: tuple[str, ...],
    compare: bool,
    freeze_idle: bool,
    busy: int,
    sandbox_mode: str,
    as_json: bool,
) -> None:
    """A spinning bot at the search bot's table: the search bot's time per decision (p99) and
    every seat's time-outs, per way of spinning, with control groups (and without: --compare)."""
    sandbox = sandbox_for(sandbox_mode, ())
    if compare and sandbox is None:
        raise click.UsageError("--compare needs the sandbox: without it or a group, setsid spinners outlive their bot")
    cases = bench_fairness(
        spinners=spinners,
        matches=matches,
        playouts=playouts,
        per_move=per_move,
        scenarios=scenarios or SCENARIOS,
        compare=compare,
        freeze_idle=freeze_idle,
        sandbox=sandbox,
        busy=busy,
    )
    head = ("spinner", "groups", "decisions", "median ms", "p99 ms", "max ms", "waited p99", "timeouts")
    lines = ["{:<12} {:<6} {:>9} {:>9} {:>8} {:>8} {:>10} {:>8}".format(*head)]
    for case in cases:
        spinner = "none" if case.scenario == "none" else f"{case.scenario} {case.spinners}"
        waited = f"{case.waited_p99_ms:.1f}" if case.waited_p99_ms is not None else "-"
        lines.append(
            f"{spinner:<12} {_groups_column(case):<6} {case.decisions:>9} {case.median_ms:>9.1f} "
            f"{case.p99_ms:>8.1f} {case.max_ms:>8.1f} {waited:>10} {case.timeouts:>8}"
        )
    _report(cases, as_json, "\n".join(lines))


def _groups_column(case: FairnessCase) -> str:
    if not case.groups:
        return "no"
    return "frozen" if case.freeze_idle else "yes"


@bench.command("channels")
@click.option("--channel", "channels", multiple=True, type=click.Choice(CHANNELS), help="Only these (repeatable).")
@click.option("--period", "periods", multiple=True, type=Seconds(), help="Slot lengths in seconds (repeatable).")
@click.option("--bits", default=400, show_default=True, type=click.IntRange(8, 100_000), help="Bits sent per case.")
@click.option("--sandbox", "sandbox_mode", default="on", show_default=True, type=click.Choice(["on", "off"]))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
def bench_channels_command(
    channels: tuple[str, ...], periods: tuple[float, ...], bits: int, sandbox_mode: str, as_json: bool
) -> None:
    """Two sandboxed processes signal each other through a kernel facility they share: bits
    sent, errors, and the capacity at that error rate."""
    cases = bench_channels(sandbox_for(sandbox_mode, ()), channels or CHANNELS, periods or PERIODS, bits)
    lines = [f"{'channel':<8} {'slot ms':>8} {'bits':>6} {'errors':>6} {'raw bit/s':>9} {'capacity bit/s':>14}"]
    for case in cases:
        lines.append(
            f"{case.channel:<8} {case.period_ms:>8.1f} {case.bits:>6} {case.errors:>6} "
            f"{case.raw_bits_per_second:>9.1f} {case.capacity_bits_per_second:>14.1f}"
        )
    _report(cases, as_json, "\n".join(lines))


@bench.command("kernel-memory")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only these (repeatable).")
@click.option("--mib", default=512, show_default=True, type=click.IntRange(1, 4096), help="What the bot tries to pin.")
@click.option("--processes", default=8, show_default=True, type=click.IntRange(1, 64), help="Its processes.")
@click.option("--sandbox", "sandbox_mode", default="on", show_default=True, type=click.Choice(["on", "off"]))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
def bench_kernel_memory_command(
    kinds: tuple[str, ...], mib: int, processes: int, sandbox_mode: str, as_json: bool
) -> None:
    """A bot fills kernel objects of each kind (netlink, TCP, Unix sockets, pipes, memfd,
    descriptors) and holds them: what it pushed, what its group was charged, what the machine
    lost (``MemAvailable``), and the part outside its group."""
    cases = bench_kernel_memory(sandbox_for(sandbox_mode, ()), kinds or KINDS, mib, processes)
    head = f"{'kind':<8} {'sandbox':<9} {'pushed MiB':>10} {'objects':>7} {'refused':<13} {'group MiB':>9}"
    lines = [f"{head} {'machine MiB':>11} {'outside':>7}"]
    for case in cases:
        group = f"{case.group_mib:.1f}" if case.group_mib is not None else "-"
        lines.append(
            f"{case.kind:<8} {case.sandbox:<9} {case.pushed_mib:>10.1f} {case.objects:>7} {case.refused or '-':<13} "
            f"{group:>9} {case.machine_mib:>11.1f} {case.outside_mib:>7.1f}"
        )
    _report(cases, as_json, "\n".join(lines))


@bench.command("projection")
@click.option("--runs", default=120, show_default=True, type=click.IntRange(2, 1_000_000), help="Streams per case.")
@click.option("--horizon", default=4000, show_default=True, type=click.IntRange(60, 1_000_000), help="Sets per stream.")
@click.option(
    "--ladders", default=100, show_default=True, type=click.IntRange(0, 1_000_000), help="Ladders per kind (0: none)."
)
@click.option(
    "--ladder-horizon", default=1500, show_default=True, type=click.IntRange(60, 1_000_000), help="Sets per ladder."
)
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_projection_command(
    runs: int, horizon: int, ladders: int, ladder_horizon: int, seed: int, as_json: bool
) -> None:
    """Is "how many more sets" worth telling? The first projection against the sets the
    verdict then took, on streams drawn from real duplicate sets with a known difference, and
    the first range of a simulated ladder's order line against the sets it then took."""
    found = projection_cases(runs, horizon, seed)
    simulated = ladder_cases(ladders, ladder_horizon, seed) if ladders else []

    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    lines = [f"{'sample':18} {'truth':>6} {'first':>5} {'before':>6} {'cens':>4} {'ratio':>6} {'x2':>5} {'range':>5}"]
    lines += [
        f"{c.sample:18} {c.truth:6.2f} {c.first:5} {c.decided_before:6} {c.censored:4} {shown(c.median_ratio):>6}"
        f" {shown(c.within_2):>5} {shown(c.in_range):>5}"
        for c in found
        if c.decided_before < c.runs
    ]
    lines += ["", *ladder_lines(simulated)] if simulated else []
    _report({"cases": found, "ladders": simulated}, as_json, "\n".join(lines))


@bench.command("sprt")
@click.option("--runs", default=2000, show_default=True, type=click.IntRange(10, 10_000_000), help="Runs per case.")
@click.option(
    "--pair",
    "pairs",
    multiple=True,
    nargs=2,
    type=float,
    help="D0 D1: hypotheses to simulate, in points a match (repeatable; default: "
    + ", ".join(f"{d0:g} {d1:g}" for d0, d1 in PAIRS)
    + ").",
)
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Promised false positive rate at D0.")
@click.option("--beta", default=0.05, show_default=True, type=float, help="Promised false negative rate at D1.")
@click.option(
    "--min-sets", default=MIN_SETS, show_default=True, type=click.IntRange(2, 100_000), help="No verdict before."
)
@click.option("--horizon", default=1000, show_default=True, type=click.IntRange(2, 1_000_000), help="Looks up to.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option(
    "--sets",
    "sets_file",
    default=str(DATA),
    type=click.Path(exists=True, dir_okay=False),
    help="Measured set differences (JSON, as the default file) to draw from.",
)
@click.option(
    "--verdict-only", is_flag=True, help="Only ladder compare's verdict (the sign test and the confidence sequence)."
)
@click.option(
    "--prior-sets",
    default=PRIOR_SETS,
    show_default=True,
    type=click.FloatRange(0, 1000),
    help="Weight, in sets, of the SPRT's prior on the spread (0: the plain sample variance, as before issue 32).",
)
@click.option(
    "--rare/--no-rare",
    default=True,
    show_default=True,
    help="Also run the made-up rare-difference sample (+50 points in 2%% of the sets, true mean +1).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_sprt_command(
    runs: int,
    pairs: tuple[tuple[float, float], ...],
    alpha: float,
    beta: float,
    min_sets: int,
    horizon: int,
    seed: int,
    sets_file: str,
    verdict_only: bool,
    prior_sets: float,
    rare: bool,
    as_json: bool,
) -> None:
    """Error rates of the sequential test (at D0 and D1) and of repeated looks at the confidence
    sequence, by simulation from measured duplicate sets of real bots (docs/testing-bots.md)."""
    try:
        result = bench_sprt(
            runs=runs,
            seed=seed,
            pairs=pairs or PAIRS,
            alpha=alpha,
            beta=beta,
            min_sets=min_sets,
            horizon=horizon,
            data=load_sets(Path(sets_file)),
            verdict_only=verdict_only,
            prior_sets=prior_sets,
            rare=rare,
        )
    except SprtBoundsError as err:
        raise click.UsageError(str(err)) from None
    _report(result, as_json, _sprt_text(result))


def _sprt_text(result: SprtBench) -> str:
    lines = [f"{result.variant}: {result.runs} runs per case (seed {result.seed}), in {result.seconds:.1f} s"]
    lines.extend(
        f"  sample {s.name} (NEW {s.new}, OLD {s.old}): {s.sets} sets, mean {s.mean:+.2f}, sd {s.sd:.2f}, "
        f"skewness {s.skewness:+.2f}"
        for s in result.samples
    )
    if result.sprt:
        first = result.sprt[0]
        lines.append(
            f"SPRT, alpha {first.alpha:g}, beta {first.beta:g}, no verdict before {first.min_sets} sets, "
            f"prior on the spread {first.prior_sets:g} set(s); "
            "sets drawn from each sample, shifted to the true mean:"
        )
        lines.append(
            f"  {'sample':<20} {'sd':>5} {'d0':>5} {'d1':>5} {'truth':>5}  wrong  {'rate':>14}  mean sets  p95"
        )
        lines.extend(
            f"  {c.sample:<20} {c.spread:5.1f} {c.d0:+5.1f} {c.d1:+5.1f} {c.truth:+5.1f}  {c.wrong:<5}  "
            f"{c.error_rate:.3f} ± {c.error_se:.3f}  {c.mean_sets:9.1f}  {c.p95_sets}"
            + (f"  ({c.undecided} undecided)" if c.undecided else "")
            for c in result.sprt
        )
    if result.peeking:
        lines.append(
            f"repeated looks at a true difference of 0, after every set up to {result.peeking[0].horizon}: "
            "runs that ever excluded 0"
        )
        lines.extend(
            f"  {p.sample:<20} {p.method:<23} from set {p.first_look:<3}  {p.ever_excluded:.3f} ± {p.se:.3f}"
            for p in result.peeking
        )
    if result.verdict:
        lines.append(
            "ladder compare's verdict (sign test and confidence sequence at 2.5% each), looked at after every set "
            f"up to {result.verdict[0].horizon} at a true difference of 0: runs ever decided (promised: 0.05 together; "
            "symmetric: the centred sets with a random sign)"
        )
        lines.extend(
            f"  {p.sample:<20} {p.method:<34} from set {p.first_look:<3}  {p.ever_excluded:.3f} ± {p.se:.3f}"
            for p in result.verdict
        )
    if result.speed:
        lines.append(
            f"sets to the verdict at the sample's own mean (median of {result.speed[0].runs} runs; "
            f"'-': most not decided in {result.speed[0].horizon} sets), against the confidence sequence alone at 5%:"
        )
        lines.extend(
            f"  {v.sample:<20} mean {v.truth:+6.2f}  verdict {_sets(v.median_sets):>4} ({v.decided:.0%} decided)"
            f"  confidence sequence alone {_sets(v.sequence_median_sets):>4} ({v.sequence_decided:.0%} decided)"
            for v in result.speed
        )
    return "\n".join(lines)


@bench.command("ladder-web")
@click.option("--matches", default=10_000, show_default=True, type=click.IntRange(4, 1_000_000), help="Matches made.")
@click.option("--repeats", default=10, show_default=True, type=click.IntRange(1, 1000), help="Requests per page.")
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default=None,
    help="Time this ladder database as it is (default: make one of --matches matches in a temporary folder).",
)
@click.option(
    "--flood",
    "flood_url",
    default=None,
    metavar="URL",
    help="Instead: 16 clients ask the pages at URL as fast as they can until it is gone; the answers by status.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_ladder_web_command(matches: int, repeats: int, db: str | None, flood_url: str | None, as_json: bool) -> None:
    """The ladder's web pages over a big database: each page's time from request to answer."""
    if flood_url is not None:
        counts = flood(flood_url)
        _report(counts, as_json, ", ".join(f"{status}: {n}" for status, n in sorted(counts.items())))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(db) if db else make_ladder(Path(folder) / "bench.db", matches)
        found = bench_ladder_web(path, repeats)
    lines = [f"{'page':30} status   bytes  made: median ms  max ms  kept: median ms"]
    lines += [
        f"{p.page:30} {p.status:6} {p.bytes:7} {p.made_ms:16.1f} {p.made_max_ms:7.1f} {p.kept_ms:16.2f}" for p in found
    ]
    _report({"pages": found}, as_json, "\n".join(lines))


@bench.command("web-attacks")
@click.argument("url")
@click.option(
    "--seconds",
    default=10.0,
    show_default=True,
    type=click.FloatRange(1, 600),
    help="Each attack's length, and the watch after it.",
)
@click.option("--attack", "attacks", multiple=True, type=click.Choice(list(ATTACKS)), help="Only these (default: all).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_web_attacks_command(url: str, seconds: float, attacks: tuple[str, ...], as_json: bool) -> None:
    """The attacks of issue 41 on the pages at URL (this machine's loopback only), a viewer asking
    all along: what it got during each attack and after it."""
    try:
        found = bench_web_attacks(url, seconds, attacks or tuple(ATTACKS))
    except RefereeError as err:
        raise click.UsageError(str(err)) from None
    lines = [f"{r.attack:11} during: {r.during.summary()}; after: {r.after.summary()}" for r in found]
    _report({"attacks": found}, as_json, "\n".join(lines))


@bench.command("ladder-pool")
@click.option("--matches", default=10_000, show_default=True, type=click.IntRange(4, 1_000_000), help="Matches made.")
@click.option("--repeats", default=10, show_default=True, type=click.IntRange(1, 1000), help="Draws and changes timed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_ladder_pool_command(matches: int, repeats: int, as_json: bool) -> None:
    """A living ladder's decisions over a big database: drawing the next set, taking an edited list."""
    with tempfile.TemporaryDirectory() as folder:
        found = bench_ladder_pool(make_ladder(Path(folder) / "bench.db", matches), repeats)
    text = (
        f"{found.matches} matches: drawing the next set {found.draw_ms:.1f} ms (max {found.draw_max_ms:.1f}),"
        f" taking an edited bot list {found.change_ms:.1f} ms (max {found.change_max_ms:.1f})"
    )
    _report(found, as_json, text)


@bench.command("duel-feed")
@click.option("--sets", default=1000, show_default=True, type=click.IntRange(10, 100_000), help="Sets played.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_duel_feed_command(sets: int, as_json: bool) -> None:
    """A duel's choice of its next set as it grows: a call of its feed, early and late."""
    with tempfile.TemporaryDirectory() as folder:
        found = bench_duel_feed(Path(folder) / "duel.db", sets)
    text = (
        f"{found.sets} sets: a call of the feed {found.first_ms:.2f} ms over the first tenth,"
        f" {found.last_ms:.2f} ms over the last; {found.total_s:.2f} s in all"
    )
    _report(found, as_json, text)


def _sets(n: int | None) -> str:
    return "-" if n is None else str(n)
