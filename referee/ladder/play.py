"""Play a ladder from a bot list: build the bots, create or resume the database, hold its run
lock, close up its files (0600, logs folder 0700, hidden from the sandbox), play the pending
matches (with the live view or quietly). This is what ``referee ladder run`` calls, and, with
a ``RunKind`` of their own (how the database is made and its sets handed out), ``referee duel``
and ``referee gauntlet`` (``referee.duel``)."""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import time
import traceback
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

import trio
from rich.console import Console
from rich.text import Text

from protocol.ruleset import RuleSet
from referee.errors import LadderError, RefereeError
from referee.ladder.bots import LEAST, prepare_bots
from referee.ladder.feed import LadderFeed
from referee.ladder.follow import PoolFollower, version_entries, versions_built
from referee.ladder.progress import LiveProgress
from referee.ladder.roll_call import crowded_folders, refusal, roll_call
from referee.ladder.runner import LadderRun, RunOptions, RunSummary, SetFeed
from referee.ladder.season import SeasonAsked, utc_now
from referee.ladder.season_run import SeasonFeed, SeasonRun, check_season, keep_season, season_start
from referee.ladder.setup import check_same_ladder, close_up, logs_folder, open_ladder, private_files, run_lock
from referee.ladder.upload_gate import UploadGate, check_run
from referee.ladder.uploads import entry_of, playing
from referee.match.config import MatchConfig
from referee.players.bot_config import BotEntry
from referee.players.bot_content import with_content
from referee.players.building import BuiltBot
from referee.players.process import BotLimits
from referee.private_files import private_folder
from referee.sandbox.bwrap import Sandbox, SandboxMode, choose_sandbox
from referee.store.records import StoredMatch

if TYPE_CHECKING:
    from referee.ladder.cluster import ClusterRun
    from referee.store.writer import LadderStore


IDLE_LOOK = 1.0
"""Seconds between two looks for new sets when a kept-running ladder has played every one."""


class LadderInterrupted(LadderError):
    """The run was interrupted (Ctrl-C); what was done is kept, the rest stays pending."""


@dataclass
class LadderResult:
    played: int
    """Matches played by this run."""
    seconds: float
    done: int
    total: int
    notes: list[str] = field(default_factory=list)
    restarts: dict[str, int] = field(default_factory=dict)
    after_goodbye: list[str] = field(default_factory=list)
    """A line for each bot whose program ended in an error after goodbye (``RunSummary``)."""

    @property
    def matches_per_minute(self) -> float:
        return 60 * self.played / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True, kw_only=True)
class LadderPlan:
    """What ``referee ladder run`` was asked to play, and how: one object for the ladder in
    ``db`` (its bots, rules, games and seed when it is new) and for how its matches are run
    (the referee's config, the sandbox, concurrency, fresh or kept bots, a cluster)."""

    db: str | Path
    entries: Sequence[BotEntry]
    rules: RuleSet | None
    """The rules of a new ladder (``None``: ``default_rules``, or the stored ones on resume)."""
    default_rules: RuleSet
    games: int | None = None
    seed: int | None = None
    concurrency: int = 1
    config: MatchConfig = field(default_factory=MatchConfig)
    cwd: Path | None = None
    sandbox_mode: SandboxMode = "off"
    sandbox_binds: Sequence[str] = ()
    sandbox_loopback: bool = False
    """``--sandbox-loopback``: bots may use TCP and UDP on their own loopback."""
    trust_uploads: bool = False
    """``--trust-uploads``: take entrants' uploads even where the bots run unsandboxed
    (``referee.ladder.upload_gate``); dangerous."""
    keep_bots: bool = False
    start_ahead: bool = True
    cluster: str | None = None
    """``tcp://host:port`` or ``local:N``: the matches are played by a Dask cluster's workers."""
    bot_list: Path | None = None
    """The bot list ``entries`` were read from: a running ladder follows its edits
    (``referee.ladder.follow``); ``None``: the pool stays as it is for this run."""
    keep_running: bool = False
    """When every set is played, wait for more (a new bot or version in the list) instead of
    ending: the run ends on Ctrl-C or SIGTERM only."""
    season: SeasonAsked | None = None
    """The season's flags (``referee.ladder.season``): kept in the database; ``None``: the
    season stored, if any."""
    now: Callable[[], datetime] = utc_now
    """The season's clock (tests give their own)."""


Beside = Callable[[Callable[[], None]], Awaitable[None]]
"""A view served beside the tables while they play (``ladder run --web``: the ladder's pages,
``referee.web.ladder``, from a process of its own); it calls the function it is given once
it is listening, and is cancelled when the run ends."""
Background = Callable[..., Awaitable[None]]
"""A task beside the tables, started with ``nursery.start``: the first match waits until it
says it has started (``task_status.started()``)."""
VIEW_WAIT = 10.0
"""How long the first match waits for the view to listen or fail (its process imports the
referee first): its failure is then told before any match, not lost when a short run ends
first. A view slower than this still comes up; the tables just do not wait longer."""


@dataclass(frozen=True, kw_only=True)
class RunOutput:
    """Where a run tells what it does: quietly, or a live view on ``console``; ``warn`` gets
    one-line warnings (the sandbox's, a refused worker's)."""

    quiet: bool = False
    console: Console | None = None
    warn: Callable[[str], None] | None = None
    beside: Beside | None = None
    """A view served while the tables play; its failure is told to ``warn`` and never stops
    the run."""


class LiveView(Protocol):
    """A live view of a run (``LiveProgress`` for a ladder): a context manager around the run,
    told of every result, redrawn by ``tick`` until cancelled."""

    def __enter__(self) -> LiveView: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def on_result(self, record: StoredMatch) -> None: ...

    async def tick(self) -> None: ...


class RunKind(Protocol):
    """What a run's database holds and how its sets are handed out: a ladder's whole schedule
    (``LadderKind``), or a duel's sets scheduled one at a time while its test has not decided
    (``referee.duel.run.DuelRun``)."""

    def check(self, plan: LadderPlan) -> None:
        """Before anything is built or started: raise ``LadderError`` when ``plan.db`` holds
        another run than ``plan`` asks for."""

    def pool(self, plan: LadderPlan, warn: Callable[[str], None]) -> LadderPlan:
        """Before anything is built: the plan with the bots the run plays (a ladder's versions
        follow their files, its uploads taken play on, its season may freeze the list; what it
        leaves is told to ``warn``)."""

    def leaves_out(self) -> bool:
        """Whether a bot whose build is refused, or that cannot start, is left out and the run
        plays on without it (a ladder, after a roll call before its first match), rather than
        ending the run (a duel: its own roll call is ``ready``)."""

    def open(self, plan: LadderPlan) -> tuple[LadderStore, list[str]]:
        """Under the run lock: the store, created or resumed, and notes for the user."""

    def ready(self, store: LadderStore, commands: Mapping[str, str], options: RunOptions) -> list[str]:
        """Once the bots are built, before the first set (not on a cluster: its workers build
        them): a duel starts each of its bots once (``referee.ladder.roll_call``). Notes for the
        user."""

    def feed(self, store: LadderStore) -> SetFeed | None:
        """Where the tables take their sets (``None``: every pending set, in order)."""

    def view(self, store: LadderStore, console: Console | None, workers: Callable[[], int] | None) -> LiveView:
        """The live view of the run (when it is not quiet)."""

    def season_run(self, store: LadderStore, plan: LadderPlan, warn: Callable[[str], None] | None) -> SeasonRun | None:
        """What the run does at its season's end time (``None``: it has none)."""


class LadderKind:
    """A ladder: every bot of the config against every other, its whole schedule made when the
    database is created (or extended by a larger ``--games``); with a season, its sets end at
    the season's end time and its final follows (``referee.ladder.season_run``)."""

    def __init__(self, now: Callable[[], datetime] = utc_now) -> None:
        self.now = now

    def check(self, plan: LadderPlan) -> None:
        check_same_ladder(plan.db, plan.entries, plan.rules, plan.seed)
        check_season(plan.db, plan.season, self.now())

    def pool(self, plan: LadderPlan, warn: Callable[[str], None]) -> LadderPlan:
        """A version follows its files (``referee.players.bot_content``) and the uploads taken
        (``referee.ladder.uploads``) play on; once the season's submissions have closed, no new
        version (``referee.ladder.season_run.frozen_entries``), each left told to ``warn``."""
        listed = with_content(plan.entries, plan.cwd or Path.cwd())
        names = {e.name for e in listed}
        taken = [entry_of(plan.db, u) for u in playing(plan.db).values() if u.entrant not in names]
        entries, left = season_start(plan.db, [*listed, *taken], plan.now())
        for line in left:
            warn(line)
        return dataclasses.replace(plan, entries=entries)

    def leaves_out(self) -> bool:
        return True

    def open(self, plan: LadderPlan) -> tuple[LadderStore, list[str]]:
        store, notes = open_ladder(
            plan.db, plan.entries, plan.rules, games=plan.games, seed=plan.seed, default_rules=plan.default_rules
        )
        try:
            notes += keep_season(store, plan.season, self.now())
        except BaseException:
            store.close()
            raise
        return store, notes

    def ready(self, store: LadderStore, commands: Mapping[str, str], options: RunOptions) -> list[str]:
        return []

    def feed(self, store: LadderStore) -> SetFeed | None:
        return SeasonFeed(store, self.now) if store.season() is not None else LadderFeed(store)

    def view(self, store: LadderStore, console: Console | None, workers: Callable[[], int] | None) -> LiveView:
        return LiveProgress(store, console, workers=workers)

    def season_run(self, store: LadderStore, plan: LadderPlan, warn: Callable[[str], None] | None) -> SeasonRun | None:
        found = store.season()
        return SeasonRun(store, plan.now, warn) if found is not None and found.ends is not None else None


def play_ladder(plan: LadderPlan, output: RunOutput | None = None, kind: RunKind | None = None) -> LadderResult:
    """Create or resume the ladder in ``plan.db`` (a duel's or a gauntlet's database with their
    ``kind``) and play every pending match, each with
    freshly started bots (``keep_bots``: live processes kept between matches), in the sandbox of
    ``sandbox_mode`` (``referee.sandbox.bwrap.choose_sandbox``; the ladder's own files hidden in it).
    Raises ``LadderError`` (``LadderInterrupted`` on Ctrl-C), ``SandboxUnavailable``,
    ``BotConfigError`` or ``BotStartError``.

    With ``cluster`` the matches are played by the workers of a Dask cluster
    (``referee.ladder.cluster``), which build the bots and choose their sandbox themselves; this
    process keeps the store and the logs."""
    output = output or RunOutput()
    kind = kind or LadderKind(plan.now)
    if plan.concurrency < 1:
        raise LadderError("--concurrency must be at least 1")
    close_up(plan.db)  # before anything opens them: the ladder's files are the referee's own, no link
    kind.check(plan)
    plan = kind.pool(plan, _warner(output))
    tables: Tables = LocalTables() if plan.cluster is None else ClusterTables(plan.cluster)
    plan, untold = tables.prepare(plan, kind, output)
    with _opened(plan, kind) as (store, rules, notes):
        notes[:0] = untold
        with tables.started(plan, kind, (store, rules, notes), output) as started:
            background = _guarded(output)
            if started.follower is not None:
                background.append(_at_once(started.follower.run))
            season = kind.season_run(store, plan, output.warn)
            seconds = _drive(started.run, store, notes, output, kind, workers=started.workers, background=background,
                             keep_running=plan.keep_running, season=season)  # fmt: skip
        return _result(started.run.summary, store, seconds, notes)


Opened = tuple["LadderStore", RuleSet, list[str]]
"""The run's store under its run lock, the ladder's rules and the notes to show (``_opened``)."""


@dataclass(frozen=True)
class Started:
    """The tables ready to play the store's sets: the run, the follower of the bot list (``None``
    without a list, or with a feed it cannot add sets to) and the count of the cluster's
    workers for the live view (``None``: the tables are here)."""

    run: LadderRun | ClusterRun
    follower: PoolFollower | None
    workers: Callable[[], int] | None = None


class Tables(Protocol):
    """Where a run's matches are played: in this process (``LocalTables``) or by the workers of
    a Dask cluster (``ClusterTables``)."""

    def prepare(self, plan: LadderPlan, kind: RunKind, output: RunOutput) -> tuple[LadderPlan, list[str]]:
        """Before the run lock: the plan with the bots that can play, and notes not yet told."""

    def started(
        self, plan: LadderPlan, kind: RunKind, opened: Opened, output: RunOutput
    ) -> contextlib.AbstractContextManager[Started]:
        """Under the run lock: the run of the store's sets, ready (``kind.ready``, then its feed)."""


class LocalTables:
    """The tables in this process (``LadderRun``): every bot built here first, in the sandbox
    the plan asks for (the ladder's own files hidden in it)."""

    def __init__(self) -> None:
        self.built: dict[str, BuiltBot] = {}
        self.sandbox: Sandbox | None = None
        self.hidden: Sandbox | None = None
        """``sandbox`` with the ladder's own files hidden: what the bots start in."""
        self.private: Sequence[Path] = ()
        self.limits = BotLimits()
        self.gate = UploadGate(sandboxed=False)

    def prepare(self, plan: LadderPlan, kind: RunKind, output: RunOutput) -> tuple[LadderPlan, list[str]]:
        db = plan.db
        self.sandbox = choose_sandbox(plan.sandbox_mode, _warner(output), plan.sandbox_binds,
                                      loopback=plan.sandbox_loopback)  # fmt: skip
        self.gate = UploadGate.of_run(plan.sandbox_mode, sandboxed=self.sandbox is not None, trusted=plan.trust_uploads)
        check_run(db, self.gate)  # before any build: an upload taken is never built unsandboxed
        existed = Path(db).exists()
        self.private = private_files(db)
        hidden = self.hidden = self.sandbox.hiding(*self.private) if self.sandbox is not None else None
        self.limits = BotLimits(sandbox=hidden, cwd=str(plan.cwd) if plan.cwd is not None else None)
        self.built, plan, untold = _prepared(plan, kind, (hidden, self.private, self.limits), output.warn)
        if not existed and Path(db).exists():  # a build may write in its folder: not the ladder's files
            raise LadderError(f"{db} appeared while the bots were built: a build wrote it; refusing to use it")
        return plan, untold

    @contextlib.contextmanager
    def started(self, plan: LadderPlan, kind: RunKind, opened: Opened, output: RunOutput) -> Iterator[Started]:
        store, rules, notes = opened
        options = RunOptions(
            logs=logs_folder(plan.db),
            config=plan.config,
            concurrency=plan.concurrency,
            cwd=plan.cwd,
            limits=self.limits,
            keep_bots=plan.keep_bots,
            start_ahead=plan.start_ahead,
            built=self.built,
        )
        commands = dict(store.bots())
        self.built.update(versions_built(store, self.built, cwd=plan.cwd, sandbox=self.hidden, private=self.private,
                                         notes=notes))  # fmt: skip
        notes.extend(kind.ready(store, commands, options))
        feed = kind.feed(store)
        run = LadderRun(store, rules, commands, options, feed=feed)
        follower = None
        if plan.bot_list is not None and isinstance(feed, LadderFeed):  # a pool change adds sets to a ladder's
            follower = PoolFollower(plan.bot_list, plan.cwd, store, feed, commands, self.built, self.sandbox,
                                    self.private, output.warn, options=options, now=plan.now,
                                    gate=self.gate)  # fmt: skip
        yield Started(run, follower)


class ClusterTables:
    """The tables of a Dask cluster (``ClusterRun``): its workers build the bots and choose
    their sandbox themselves; the store, its lock and the logs stay here. With a feed of sets,
    ``plan.concurrency`` of them are in flight at once (at least one a worker thread on a
    ladder). As locally, a ladder follows its list and takes its uploads (each checked by a
    worker first, ``ClusterRun.check``), and its season ends it (``SeasonRun``)."""

    def __init__(self, cluster: str) -> None:
        self.cluster = cluster
        """``tcp://host:port`` or ``local:N`` (``LadderPlan.cluster``)."""
        self.gate = UploadGate(sandboxed=False)

    def prepare(self, plan: LadderPlan, kind: RunKind, output: RunOutput) -> tuple[LadderPlan, list[str]]:
        """Only ``--sandbox on`` holds every worker to a sandbox: an upload is taken only so."""
        self.gate = UploadGate.of_run(plan.sandbox_mode, sandboxed=plan.sandbox_mode == "on",
                                      trusted=plan.trust_uploads, cluster=True)  # fmt: skip
        check_run(plan.db, self.gate)
        return plan, []

    @contextlib.contextmanager
    def started(self, plan: LadderPlan, kind: RunKind, opened: Opened, output: RunOutput) -> Iterator[Started]:
        from referee.ladder.cluster import ClusterRun  # noqa: PLC0415 - Dask is optional
        from referee.ladder.cluster_dask import cluster_client  # noqa: PLC0415

        store, rules, _ = opened
        options = RunOptions(logs=logs_folder(plan.db), config=plan.config, cwd=plan.cwd)
        client, local = cluster_client(self.cluster)
        try:
            feed = kind.feed(store)
            window = max(plan.concurrency, _threads(client)) if isinstance(feed, LadderFeed) else plan.concurrency
            run = ClusterRun(store, rules, version_entries(store, plan.entries), options, client=client,
                             sandbox_mode=plan.sandbox_mode, sandbox_binds=plan.sandbox_binds,
                             sandbox_loopback=plan.sandbox_loopback,
                             on_refused=output.warn, feed=feed, window=window)  # fmt: skip
            follower = None
            if plan.bot_list is not None and isinstance(feed, LadderFeed):
                follower = PoolFollower(plan.bot_list, plan.cwd, store, feed, run.commands, {}, None, (), output.warn,
                                        cluster_bots=run.bots, now=plan.now, cluster_check=run.check,
                                        gate=self.gate)  # fmt: skip
            yield Started(run, follower, run.workers)
        finally:
            client.close()
            if local is not None:
                local.close()


def _result(summary: RunSummary, store: LadderStore, seconds: float, notes: list[str]) -> LadderResult:
    done, total = store.progress()
    return LadderResult(
        played=summary.played,
        seconds=seconds,
        done=done,
        total=total,
        notes=notes,
        restarts=dict(summary.restarts),
        after_goodbye=summary.goodbye_lines(),
    )


def _prepared(
    plan: LadderPlan,
    kind: RunKind,
    where: tuple[Sandbox | None, Sequence[Path], BotLimits],
    warn: Callable[[str], None] | None,
) -> tuple[dict[str, BuiltBot], LadderPlan, list[str]]:
    """The bots built (``prepare_bots``, in ``where``'s sandbox, the ladder's ``private`` files
    left out) and, on a ladder, each started once with its ``limits`` to take its hello
    (``referee.ladder.roll_call``). On a ladder a bot whose build cannot be copied or sealed
    (``BuildRefused``: its author's doing), whose program is missing, or that cannot get to its hello, is left out of
    this run, as if it were not in the bot list (on a ladder already begun it retires until it
    can be built and started again), and so is a bot whose program is missing (one entrant's
    missing file must not stop the whole class at the next start), and the others play: the plan without it, and why,
    told to ``warn`` at once (returned as notes when there is none). A duel or a gauntlet is
    about its bots: a refused build ends it, and its own roll call (``RunKind.ready``) keeps a
    bot that cannot start out of its sets. Raises ``LadderError`` when fewer than two bots are
    left."""
    sandbox, private, limits = where
    refused: list[RefereeError] = []
    ladder = kind.leaves_out()
    built = prepare_bots(plan.entries, plan.cwd, sandbox, private, refused if ladder else None)
    reasons = [str(err) for err in refused]
    crowded: list[str] = []
    if ladder and len(built) >= LEAST:  # no bot is started for a ladder that cannot play
        reasons += _unready(plan, built, limits, crowded)
    left = [e for e in plan.entries if e.name in built]
    if len(left) < LEAST:
        raise LadderError(f"{'; '.join(reasons)}; a ladder needs at least two bots, {len(left)} left")
    lines = [*crowded, *(_going_on(why) for why in reasons)]
    if warn is None:
        return built, dataclasses.replace(plan, entries=left), lines
    for line in lines:
        warn(line)
    return built, dataclasses.replace(plan, entries=left), []


def _going_on(why: str) -> str:
    """A refusal's first line says that the others play; its explanation follows."""
    first, newline, rest = why.partition("\n")
    return f"{first}; the ladder goes on without it{newline}{rest}"


def _unready(plan: LadderPlan, built: dict[str, BuiltBot], limits: BotLimits, crowded: list[str]) -> list[str]:
    """Start every built bot once, as its matches will (its folder, its sandbox, its limits),
    and take its hello: why each that could not is refused, and it taken out of ``built``.
    ``crowded`` gets a line for each folder bots use that is shown whole to none of them
    (``referee.ladder.roll_call.crowded_folders``)."""
    options = RunOptions(logs=logs_folder(plan.db), config=plan.config, cwd=plan.cwd, limits=limits, built=built)
    names = [e.name for e in plan.entries if e.name in built]
    commands = {e.name: e.command for e in plan.entries}
    crowded += crowded_folders(commands, names, options)
    failed = roll_call(commands, names, options)
    for name in failed:
        del built[name]
    return [refusal(name, report) for name, report in failed.items()]


@contextlib.contextmanager
def _opened(plan: LadderPlan, kind: RunKind) -> Iterator[Opened]:
    """The ladder's store under its run lock, created or resumed, its files closed up and its
    logs folder made: the store, the ladder's rules and the notes to show."""
    with run_lock(plan.db):
        store, notes = kind.open(plan)
        try:
            rules = store.settings().rules
            close_up(plan.db)
            private_folder(logs_folder(plan.db))  # it must exist to be hidden from the bots
            yield store, rules, notes
        finally:
            store.close()


def _warner(output: RunOutput) -> Callable[[str], None]:
    return output.warn or (lambda line: None)


def _guarded(output: RunOutput) -> list[Background]:
    """``output.beside`` as a background task whose failure is told, never raised: a web page
    must not stop the ladder it shows. It counts as started once the view listens, fails, or
    ``VIEW_WAIT`` has passed."""
    beside = output.beside
    if beside is None:
        return []
    warn = _warner(output)

    async def guarded(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        told = False

        def settled() -> None:
            nonlocal told
            if not told:
                told = True
                task_status.started()

        async with trio.open_nursery() as waiting:
            waiting.start_soon(_call_after, VIEW_WAIT, settled)
            try:
                await beside(settled)
            except Exception as error:  # the view is gone; the tables play on
                warn(f"the web view stopped: {traceback.format_exception_only(error)[-1].strip()}")
            finally:
                settled()
                waiting.cancel_scope.cancel()

    return [guarded]


async def _call_after(seconds: float, call: Callable[[], None]) -> None:
    await trio.sleep(seconds)
    call()


def _at_once(task: Callable[[], Awaitable[None]]) -> Background:
    """A background task with nothing to wait for: started as soon as it runs."""

    async def started(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        await task()

    return started


def _threads(client: Any) -> int:
    """The cluster's worker threads now: a ladder keeps as many sets in flight (each of a set's
    matches is a task of its own, so every thread has work while sets are drawn as they end)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def _drive(
    run: LadderRun | ClusterRun,
    store: LadderStore,
    notes: Sequence[str],
    output: RunOutput,
    kind: RunKind,
    *,
    workers: Callable[[], int] | None = None,
    background: Sequence[Background] = (),
    keep_running: bool = False,
    season: SeasonRun | None = None,
) -> float:
    """Play the run (quietly, or under the live view after printing the notes); the seconds it
    took. Ctrl-C or SIGTERM becomes ``LadderInterrupted`` saying what was kept."""
    start = time.perf_counter()
    try:
        if output.quiet:
            trio.run(_with_sigterm, run, None, background, keep_running, season)
        else:
            for note in notes:
                (output.console or Console()).print(Text(note))
            with kind.view(store, output.console, workers) as live:
                run.on_result = live.on_result
                trio.run(_with_sigterm, run, live, background, keep_running, season)
    except BaseException as error:
        if _is_interrupt(error):
            done, total = store.progress()
            raise LadderInterrupted(
                f"interrupted: {done} of {total} matches done and kept; run the same command again to go on"
            ) from None
        raise
    return time.perf_counter() - start


async def _with_sigterm(
    run: LadderRun | ClusterRun,
    live: LiveView | None,
    background: Sequence[Background] = (),
    keep_running: bool = False,
    season: SeasonRun | None = None,
) -> None:
    """Run the ladder (with its progress ticker and the ``background`` tasks, such as the bot
    list's follower); SIGTERM stops it like Ctrl-C: every bot is ended and the finished
    matches are kept. With a ``season`` the run waits for its end time, lets the sets begun
    finish, plays the final and ends (``--keep-running`` or not)."""
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_sigterm_to_interrupt)
            if live is not None:
                nursery.start_soon(live.tick)
            for task in background:
                await nursery.start(task)
            await run.run()
            if season is not None:
                await season.carry_on(run)
            while keep_running and season is None:  # the follower may add sets: look for them now and then
                await trio.sleep(IDLE_LOOK)
                await run.run()
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None  # as run.run raised it: callers catch by type
        raise


async def _sigterm_to_interrupt() -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            raise KeyboardInterrupt


def _is_interrupt(error: BaseException) -> bool:
    if isinstance(error, KeyboardInterrupt):
        return True
    if isinstance(error, BaseExceptionGroup):
        rest = error.split(KeyboardInterrupt)[1]
        return rest is None
    return False
