"""A ladder's matches on a Dask cluster: a match is the unit of work.

The coordinator (``referee ladder run --cluster ADDRESS``, or ``local:N`` for a local cluster
of N worker processes) owns the SQLite store and the logs folder, as a local run does. It sends
each pending match to the cluster as one task; a worker plays it (its own trio run, fresh bot
processes sandboxed on that worker, the log in a temporary file) and returns the outcome and
the log's bytes (``MatchDone``, encoded with msgspec: the coordinator decodes it as untrusted
input). The coordinator trusts no worker: the log must be one complete match whose header is
the match it asked for (seed, rules, the command of every seat) and that the rules engine
verifies move by move; the outcome must agree with the verified log. Only then is the log
written and the result recorded, in one transaction, exactly once (the store keys a match by
set and rotation; a second result for a finished match changes nothing). A refused result is
named and its match sent again, up to ``MAX_TRIES`` times. A worker that dies mid-match is
Dask's to handle: the scheduler runs the task again on another worker.

Dask is optional (``pip install -e '.[cluster]'``): it is imported only here, when
``--cluster`` is given. Bots are found on a worker as on the coordinator: the same commands,
run from the same folder; each worker runs the bots' builds once, before its first match.
"""

from __future__ import annotations

import importlib
import os
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.bots import prepare_bots
from referee.ladder.runner import RunOptions, RunSummary, SetFeed, TableSlot, match_record, pending_sets
from referee.log_format import RoundScored
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.building import BuiltBot
from referee.players.process import BotLimits, BotStartError
from referee.private_files import open_private
from referee.replay.reader import LogError, parse_log
from referee.replay.verify import verify
from referee.sandbox.bwrap import SandboxMode, SandboxUnavailable, choose_sandbox
from referee.store.records import MatchRecord, ScheduledMatch
from referee.store.writer import LadderStore

MAX_TRIES = 3
"""Times a match is sent to the cluster before a refused result stops the ladder."""
LOCAL_PREFIX = "local:"


class MatchTask(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a worker needs to play one match (plain data: it crosses the network)."""

    set_index: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    rules: RuleSet
    bots: list[BotEntry]
    cwd: str | None
    config: MatchConfig
    sandbox_mode: SandboxMode
    sandbox_binds: tuple[str, ...] = ()
    sandbox_loopback: bool = False


class MatchDone(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker returns: the outcome and the log, or why it could not play."""

    set_index: int
    rotation: int
    worker: str
    outcome: MatchOutcome | None = None
    log: bytes = b""
    sandboxed: bool = False
    error: str | None = None
    """A bot could not be built or started on this worker (the message names it)."""


class ResultRefused(LadderError):
    """A worker's result that the coordinator does not accept (named in the message)."""


# -- the worker's side --------------------------------------------------------------------------
_built: dict[str, dict[str, BuiltBot]] = {}
"""Where each bot runs from on this worker, by the bot list and folder it was built from."""
_build_lock = threading.Lock()


def play_task(task_bytes: bytes) -> bytes:
    """Play one match on this worker (a Dask task): the encoded ``MatchTask`` in, the encoded
    ``MatchDone`` out. A bot that cannot be built or started is a result naming it, not an
    exception, so that Dask does not retry what cannot work."""
    task = msgspec.json.decode(task_bytes, type=MatchTask)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    done = MatchDone(set_index=task.set_index, rotation=task.rotation, worker=worker)
    try:
        sandbox = choose_sandbox(
            task.sandbox_mode, lambda line: None, task.sandbox_binds, loopback=task.sandbox_loopback
        )
        built = _build_once(task, sandbox)
        with tempfile.TemporaryDirectory(prefix="hearts-match-", dir=_scratch()) as folder:
            path = Path(folder) / "match.jsonl"
            limits = BotLimits(sandbox=sandbox.hiding(folder) if sandbox is not None else None, cwd=task.cwd)
            outcome = trio.run(_play, task, path, limits, built)
            return msgspec.json.encode(
                msgspec.structs.replace(done, outcome=outcome, log=path.read_bytes(), sandboxed=sandbox is not None)
            )
    except (BotStartError, BotConfigError, SandboxUnavailable, LadderError) as err:
        return msgspec.json.encode(msgspec.structs.replace(done, error=f"on worker {worker}: {err}"))


def _scratch() -> str | None:
    """Where a match's temporary folder goes: inside the Dask worker's own local directory,
    which Dask purges once its worker is gone, so a worker killed mid-match (SIGKILL runs no
    clean-up) leaves nothing behind for long; the system's temporary folder outside a worker."""
    try:
        return str(dask_distributed().get_worker().local_directory)
    except (ValueError, LadderError):  # not in a worker
        return None


def _build_once(task: MatchTask, sandbox: Any) -> dict[str, BuiltBot]:
    """Run the bots' builds once per worker process (and check their programs); where each
    bot runs from."""
    key = msgspec.json.encode([task.bots, task.cwd, task.sandbox_mode]).decode()
    with _build_lock:
        if key not in _built:
            _built[key] = prepare_bots(task.bots, Path(task.cwd) if task.cwd else None, sandbox)
        return _built[key]


async def _play(task: MatchTask, path: Path, limits: BotLimits, built: dict[str, BuiltBot]) -> MatchOutcome:
    cwd = Path(task.cwd) if task.cwd else None
    # one match per task: bots started ahead would have no next match here
    options = RunOptions(logs=path.parent, config=task.config, cwd=cwd, limits=limits, built=built, start_ahead=False)
    commands = {bot.name: bot.command for bot in task.bots}
    log = MatchLog(path)
    try:
        async with trio.open_nursery() as nursery:
            slot = TableSlot(commands, nursery, options, RunSummary())
            try:
                connections = await slot.take(task.seats)
                runner = MatchRunner(
                    connections, task.rules, seed=task.seed, config=task.config, log=log, nursery=nursery
                )
                outcome = await runner.run()
                await slot.give_back(task.seats, connections, runner)
            finally:
                await slot.close()
    finally:
        log.close()
    return outcome


# -- the coordinator's side ---------------------------------------------------------------------
def check_result(
    match: ScheduledMatch,
    rules: RuleSet,
    commands: Mapping[str, str],
    done: MatchDone,
    log_path: Path,
) -> MatchRecord:
    """The store's record of a worker's result, or ``ResultRefused`` naming what is wrong: the
    log must hold the one match asked for (seed, rules, seats), complete and verified by the
    rules engine, and the outcome must say what the log says."""
    where = f"match {match.key} from worker {done.worker}"
    if (done.set_index, done.rotation) != (match.set_index, match.rotation):
        raise ResultRefused(f"{where}: the result is for match {done.set_index}-{done.rotation}")
    if done.outcome is None:
        raise ResultRefused(f"{where}: no outcome")
    try:
        replay = parse_log(done.log, where)
    except LogError as err:
        raise ResultRefused(f"{where}: the log cannot be read: {err}") from None
    if len(replay.matches) != 1 or replay.cut_line is not None:
        raise ResultRefused(f"{where}: the log holds {len(replay.matches)} matches, or ends cut off")
    logged = replay.matches[0]
    header = logged.header
    if header.seed_number() != match.seed:
        raise ResultRefused(f"{where}: the log's seed is not the match's")
    if header.rules != rules:
        raise ResultRefused(f"{where}: the log's rules are not the ladder's")
    wanted = [commands[name] for name in match.seats]
    if [s.command for s in header.seats] != wanted:
        raise ResultRefused(f"{where}: the log's seats are not the match's seating")
    record = verify(logged)
    assert record.verification is not None
    if record.verification.status != "verified" or record.result is None:
        raise ResultRefused(f"{where}: the log does not verify: {record.verification.describe()}")
    outcome = done.outcome
    result = record.result
    claims = (outcome.seed, outcome.match_id, outcome.scores, outcome.winners, outcome.reason, outcome.rounds)
    facts = (str(header.seed_number()), header.match_id, result.scores, result.winners, result.reason, result.rounds)
    if claims != facts or [s.status for s in outcome.seats] != [s.status for s in record.seats]:
        raise ResultRefused(f"{where}: the outcome does not agree with its verified log")
    rounds = [line.entry.result for line in logged.entries if isinstance(line.entry, RoundScored)]
    return match_record(match, outcome, rounds, str(log_path), sandboxed=done.sandboxed, fresh_bots=True)


def dask_distributed() -> Any:
    """Dask's ``distributed`` (optional; untyped, hence ``Any``)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise LadderError("--cluster needs Dask: pip install -e '.[cluster]'") from None


def local_cluster(workers: int, **options: Any) -> Any:
    """A Dask cluster of ``workers`` processes on this machine, one match at a time each, with
    no dashboard.

    Its scheduler serves a few HTTP routes (health, metrics) even without a dashboard, by
    default on port 8787: a second local ladder on the machine (or a test beside another) found
    it taken, warned and moved. Here they take a free port of the loopback, as the scheduler's
    own port does."""
    dask = dask_distributed()
    return dask.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=50,
        **options,
    )


def cluster_client(address: str) -> tuple[Any, Any]:
    """A Dask client and the local cluster it started (``None`` for a running scheduler at
    ``tcp://host:8786``; ``local:N``: N worker processes, one match at a time each). Raises
    ``LadderError``."""
    dask = dask_distributed()
    if address.startswith(LOCAL_PREFIX):
        workers = int(address[len(LOCAL_PREFIX) :])
        cluster = local_cluster(workers)
        return dask.Client(cluster), cluster
    try:
        return dask.Client(address, timeout=10), None
    except OSError as err:
        raise LadderError(f"--cluster {address}: cannot reach the scheduler: {err}") from None


class ClusterRun:
    """Plays a store's pending matches on a Dask cluster (the counterpart of ``LadderRun``)."""

    def __init__(
        self,
        store: LadderStore,
        rules: RuleSet,
        bots: Sequence[BotEntry],
        options: RunOptions,
        *,
        client: Any,
        sandbox_mode: SandboxMode,
        sandbox_binds: Sequence[str] = (),
        sandbox_loopback: bool = False,
        on_result: Callable[[MatchRecord], None] | None = None,
        on_refused: Callable[[str], None] | None = None,
        play: Callable[[bytes], bytes] = play_task,
        feed: SetFeed | None = None,
        window: int = 1,
    ) -> None:
        self.store = store
        self.rules = rules
        self.bots = list(bots)
        self.commands = dict(store.bots())
        self.options = options
        self.client = client
        self.sandbox_mode = sandbox_mode
        self.sandbox_binds = tuple(sandbox_binds)
        self.sandbox_loopback = sandbox_loopback
        self.on_result = on_result
        self.on_refused = on_refused
        self.summary = RunSummary()
        self.refused: list[str] = []
        self.play = play
        """The task a worker runs (``play_task``; tests give a worker that cheats)."""
        self.feed = feed
        """Where the sets come from (``None``: every pending set of the store, all sent at once)."""
        self.window = window
        """With a ``feed``: the sets in flight at once (each of its matches a task of its own)."""

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def _task(self, match: ScheduledMatch) -> bytes:
        return msgspec.json.encode(
            MatchTask(
                set_index=match.set_index,
                rotation=match.rotation,
                seats=match.seats,
                seed=match.seed,
                rules=self.rules,
                bots=self.bots,
                cwd=str(self.options.cwd) if self.options.cwd is not None else None,
                config=self.options.config,
                sandbox_mode=self.sandbox_mode,
                sandbox_binds=self.sandbox_binds,
                sandbox_loopback=self.sandbox_loopback,
            )
        )

    async def run(self) -> RunSummary:
        """Play every pending match (or the sets of ``feed``, ``window`` at a time); return when
        each is recorded (or raise ``LadderError``)."""
        flight = _InFlight(self.feed or pending_sets(self.store), self.window if self.feed else None, self._submit)
        flight.fill()
        if not flight.futures:
            return self.summary
        stream = dask_distributed().as_completed(list(flight.futures), with_results=True, raise_errors=False)
        try:
            while True:
                item = await trio.to_thread.run_sync(_next, stream, abandon_on_cancel=True)
                if item is None:
                    return self.summary
                future, value = item
                match = flight.matches[future.key.split("/")[1]]
                problem = self._accept(match, value)
                if problem is None:
                    for added in flight.done(match):
                        stream.add(added)
                    continue
                self.refused.append(problem)
                if self.on_refused is not None:
                    self.on_refused(problem)
                if flight.tries[match.key] >= MAX_TRIES:
                    raise LadderError(f"{problem}; refused {MAX_TRIES} times: stopping (finished matches are kept)")
                stream.add(flight.again(match))
        finally:
            await trio.to_thread.run_sync(_cancel_all, flight.futures)

    def _submit(self, match: ScheduledMatch) -> Any:
        key = f"hearts-match/{match.key}/{os.urandom(4).hex()}"
        return self.client.submit(self.play, self._task(match), key=key, pure=False)

    def _accept(self, match: ScheduledMatch, value: object) -> str | None:
        """Record a worker's result; why it was refused, or ``None``."""
        if isinstance(value, BaseException):
            return f"match {match.key}: the task failed on the cluster: {type(value).__name__}: {value}"
        try:
            done = msgspec.json.decode(value, type=MatchDone) if isinstance(value, bytes) else None
        except msgspec.DecodeError as err:
            return f"match {match.key}: the worker's result cannot be read: {err}"
        if done is None:
            return f"match {match.key}: the worker's result is not bytes"
        if done.error is not None:
            raise LadderError(f"match {match.key}: a bot cannot be run {done.error}")
        path = self.options.logs / f"{match.key}.jsonl"
        try:
            record = check_result(match, self.rules, self.commands, done, path)
        except ResultRefused as err:
            return str(err)
        path.unlink(missing_ok=True)
        with open_private(path) as file:
            file.write(done.log)
        if self.store.record(record) is not None:
            self.summary.played += 1
            if self.on_result is not None:
                self.on_result(record)
        return None


class _InFlight:
    """The sets a cluster run has sent: each match's future, its tries, the matches left of
    each set; a set is taken from the feed whenever fewer than ``window`` are in flight
    (``None``: no limit, every set at once)."""

    def __init__(self, feed: SetFeed, window: int | None, submit: Callable[[ScheduledMatch], Any]) -> None:
        self.feed = feed
        self.window = window
        self.submit = submit
        self.matches: dict[str, ScheduledMatch] = {}
        self.tries: dict[str, int] = {}
        self.futures: list[Any] = []
        self.left: dict[int, set[str]] = {}
        """The matches of each set in flight not yet recorded."""

    def fill(self) -> list[Any]:
        """Take sets from the feed up to the window and send their matches: the new futures."""
        added: list[Any] = []
        while self.window is None or len(self.left) < self.window:
            group = self.feed()
            if group is None:
                break
            for match in group:
                self.matches[match.key] = match
                self.tries[match.key] = 1
                added.append(self.submit(match))
            if group:
                self.left[group[0].set_index] = {match.key for match in group}
        self.futures += added
        return added

    def done(self, match: ScheduledMatch) -> list[Any]:
        """A match recorded: when its set is complete, the futures of the sets sent in its place."""
        left = self.left.get(match.set_index, set())
        left.discard(match.key)
        if left or match.set_index not in self.left:
            return []
        del self.left[match.set_index]
        return self.fill()

    def again(self, match: ScheduledMatch) -> Any:
        """Send a refused match once more: its new future."""
        self.tries[match.key] += 1
        self.futures.append(self.submit(match))
        return self.futures[-1]


def _next(stream: Any) -> tuple[Any, object] | None:
    try:
        future, value = next(stream)
    except StopIteration:
        return None
    return future, value


def _cancel_all(futures: Sequence[Any]) -> None:
    for future in futures:
        if not future.done():
            future.cancel()
