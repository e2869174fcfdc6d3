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

Watching: while a match plays, its worker sends the log's new whole lines (``LogLines``) to a
Dask queue of the run; the coordinator writes them to ``SSSSS-R.jsonl`` in its logs folder, as
a local match's log grows, so ``/tables`` and ``referee watch`` see it. That copy is for
watching only: its path is the coordinator's own match, lines of another attempt or out of
order are dropped, and when the result comes it is removed, the verified log written in its
place (or the match sent again, which starts it over; a task run again after its worker died
starts it over too, and a log that stops growing is no table after ``LIVE_SECONDS``).

Bots on workers: the same commands, run from the same folder as on the coordinator. A worker
builds a bot (and starts it once, as the local roll call does) before the first match that
seats it there, keeps the build by what the bot is made of (``build_key``: command, build
line, folder, files' hash) and removes the builds that no pending task lists any more; a
sandboxed build's copy lies in the worker's own directory, which Dask purges at the next
worker start if the worker was killed. A bot a worker cannot build or start is refused by
name (``MatchDone.refused``): on a ladder the coordinator retires it and closes the sets that
seat it, and the others play on; fewer than two bots left end the run.

Dask is optional (``pip install -e '.[cluster]'``): it is imported only here, when
``--cluster`` is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.bots import LEAST, prepare_bots
from referee.ladder.feed import LadderFeed
from referee.ladder.roll_call import refusal, roll_call
from referee.ladder.runner import RunOptions, RunSummary, SetFeed, TableSlot, match_record, pending_sets
from referee.ladder.uploads import mark, playing
from referee.log_format import RoundScored
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.build_folder import remove_tree, scratch_in
from referee.players.building import BuiltBot
from referee.players.process import BotLimits, BotStartError
from referee.private_files import UntrustedFile, open_private
from referee.replay.reader import LogError, parse_log
from referee.replay.verify import verify
from referee.sandbox.bwrap import Sandbox, SandboxMode, SandboxUnavailable, choose_sandbox
from referee.store.records import MatchRecord, PoolChange, ScheduledMatch
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
    stream: str | None = None
    """The Dask queue the worker sends the log's lines to as they are written, for watching
    (``LogLines``); ``None``: not streamed."""


class LogLines(msgspec.Struct, frozen=True, kw_only=True):
    """New lines of a match's log, sent by the worker playing it for watching only: the
    coordinator writes them to the match's log in its logs folder (the path its own), and
    never takes them for the result (``MatchDone.log`` is what is verified)."""

    task: str
    """The Dask key of the task playing the match."""
    attempt: str
    """Drawn by each run of the task: a task run again (its worker died) starts over."""
    offset: int
    """Where ``data`` begins in the log."""
    data: bytes


class MatchDone(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker returns: the outcome and the log, or why it could not play."""

    set_index: int
    rotation: int
    worker: str
    outcome: MatchOutcome | None = None
    log: bytes = b""
    sandboxed: bool = False
    error: str | None = None
    """The match could not be played on this worker (the message says why)."""
    refused: dict[str, str] = msgspec.field(default_factory=dict)
    """Bots of the match this worker could not build or start, by name, with why (the
    message names the bot): on a ladder they are retired and the others play on."""


class ResultRefused(LadderError):
    """A worker's result that the coordinator does not accept (named in the message)."""


# -- the worker's side --------------------------------------------------------------------------
STREAM_EVERY = 0.25
"""Seconds between two looks at a match's log for new lines to send (``LogLines``)."""
STREAM_WAIT = 2.0
"""Seconds a worker waits to put lines on the queue before trying again at its next look."""
STREAM_CHUNK = 256 * 1024
"""Bytes of a log sent at most at once."""
STREAM_QUEUE = 1000
"""Messages the queue holds: a coordinator that stopped reading it stops the worker's lines."""


def play_task(task_bytes: bytes) -> bytes:
    """Play one match on this worker (a Dask task): the encoded ``MatchTask`` in, the encoded
    ``MatchDone`` out. A bot that cannot be built or started is a result naming it
    (``MatchDone.refused``), not an exception, so that Dask does not retry what cannot work."""
    task = msgspec.json.decode(task_bytes, type=MatchTask)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    done = MatchDone(set_index=task.set_index, rotation=task.rotation, worker=worker)
    try:
        sandbox = choose_sandbox(
            task.sandbox_mode, lambda line: None, task.sandbox_binds, loopback=task.sandbox_loopback
        )
        with _BUILDS.taken(task, sandbox) as (built, refused):
            if refused:
                named = {name: _on_worker(why, worker) for name, why in refused.items()}
                return msgspec.json.encode(msgspec.structs.replace(done, refused=named))
            with tempfile.TemporaryDirectory(prefix="hearts-match-", dir=_scratch()) as folder:
                path = Path(folder) / "match.jsonl"
                limits = BotLimits(sandbox=sandbox.hiding(folder) if sandbox is not None else None, cwd=task.cwd)
                with _streamed(task, path):
                    outcome = trio.run(_play, task, path, limits, built)
                return msgspec.json.encode(
                    msgspec.structs.replace(done, outcome=outcome, log=path.read_bytes(), sandboxed=sandbox is not None)
                )
    except (BotStartError, BotConfigError, SandboxUnavailable, LadderError) as err:
        return msgspec.json.encode(msgspec.structs.replace(done, error=f"on worker {worker}: {err}"))


def _on_worker(why: str, worker: str) -> str:
    first, newline, rest = why.partition("\n")
    return f"{first} (on worker {worker}){newline}{rest}"


def _scratch() -> str | None:
    """Where a match's temporary folder goes: inside the Dask worker's own local directory,
    which Dask purges once its worker is gone, so a worker killed mid-match (SIGKILL runs no
    clean-up) leaves nothing behind for long; the system's temporary folder outside a worker."""
    try:
        return str(dask_distributed().get_worker().local_directory)
    except (ValueError, LadderError):  # not in a worker
        return None


def build_key(entry: BotEntry, task: MatchTask) -> str:
    """What a bot's build on a worker is kept by: what it runs and is built from (its command,
    build line, folder and files' hash, ``referee.players.bot_content``) and how (the folder
    commands run from, the sandbox), not its name: a version whose files or build changed is
    built again, an unchanged one never."""
    made_of = [entry.command, entry.build, entry.folder, entry.content, entry.build_timeout]
    how = [task.cwd, task.sandbox_mode, task.sandbox_binds, task.sandbox_loopback]
    return hashlib.sha256(msgspec.json.encode([made_of, how])).hexdigest()


class WorkerBuilds:
    """The bots built on this worker process, by ``build_key``: each built (and started once,
    as the local roll call does, ``referee.ladder.roll_call``) before its first match here,
    only when a match seats it; a build no pending task names any more (a retired version,
    an old one) is removed (its sandboxed copy, in the worker's own directory:
    ``referee.players.build_folder.scratch_in``) once no match here uses it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: dict[str, BuiltBot] = {}
        self.failed: dict[str, str] = {}
        """Why a build or its start failed, by key: not tried again on this worker."""
        self.using: Counter[str] = Counter()

    @contextlib.contextmanager
    def taken(self, task: MatchTask, sandbox: Sandbox | None) -> Iterator[tuple[dict[str, BuiltBot], dict[str, str]]]:
        """Where each bot seated by ``task`` runs from, and the bots that cannot be built or
        started here with why; the builds are held until the match ends."""
        keys = {bot.name: build_key(bot, task) for bot in task.bots}
        with self.lock:
            self._prune(set(keys.values()))
            built, refused = self._prepare(task, sandbox, keys)
            held = [keys[name] for name in built]
            self.using.update(held)
        try:
            yield built, refused
        finally:
            with self.lock:
                self.using.subtract(held)

    def _prepare(
        self, task: MatchTask, sandbox: Sandbox | None, keys: Mapping[str, str]
    ) -> tuple[dict[str, BuiltBot], dict[str, str]]:
        entries = {bot.name: bot for bot in task.bots}
        cwd = Path(task.cwd) if task.cwd else None
        built: dict[str, BuiltBot] = {}
        refused: dict[str, str] = {}
        fresh: list[str] = []
        for name in dict.fromkeys(task.seats):
            key = keys.get(name)
            if key is None:
                raise LadderError(f"the task seats {name}, which it does not list")
            if key in self.failed:
                refused[name] = self.failed[key]
                continue
            if key not in self.ready:
                _scratch_for_builds()
                try:
                    self.ready[key] = prepare_bots([entries[name]], cwd, sandbox)[name]
                except (LadderError, BotConfigError) as err:
                    refused[name] = self.failed[key] = str(err)
                    continue
                fresh.append(name)
            built[name] = self.ready[key]
        if fresh:
            commands = {bot.name: bot.command for bot in task.bots}
            limits = BotLimits(sandbox=sandbox, cwd=task.cwd)
            options = RunOptions(logs=Path("."), config=task.config, cwd=cwd, limits=limits, built=built)
            for name, report in roll_call(commands, fresh, options).items():
                refused[name] = self.failed[keys[name]] = refusal(name, report)
                self._remove(keys[name])
                del built[name]
        return built, refused

    def _prune(self, wanted: set[str]) -> None:
        """Forget what no task names any more, and remove its builds no match here uses."""
        for key in [k for k in self.failed if k not in wanted]:
            del self.failed[key]
        for key in [k for k in self.ready if k not in wanted and self.using[k] <= 0]:
            self._remove(key)

    def _remove(self, key: str) -> None:
        gone = self.ready.pop(key, None)
        self.using.pop(key, None)
        if gone is not None and gone.copy is not None:
            remove_tree(gone.copy)


_BUILDS = WorkerBuilds()


def _scratch_for_builds() -> None:
    """On a Dask worker, sandboxed builds' copies go in its own directory (see ``scratch_in``)."""
    folder = _scratch()
    if folder is not None:
        scratch_in(Path(folder))


@contextlib.contextmanager
def _streamed(task: MatchTask, path: Path) -> Iterator[None]:
    """While the match plays, a thread sends the log's new whole lines to ``task.stream``
    (``LogLines``), best effort: what cannot be sent is sent with the next look."""
    if task.stream is None:
        yield
        return
    try:
        dask = dask_distributed()
        key = str(dask.get_worker().get_current_task())
        queue = dask.Queue(task.stream)
    except (ValueError, LadderError, OSError):  # not in a worker, or no scheduler
        yield
        return
    stop = threading.Event()
    thread = threading.Thread(target=_send_lines, args=(queue, key, path, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(STREAM_WAIT + 1)  # a put that hangs on a lost scheduler is left behind, never waited for
        with contextlib.suppress(Exception):
            queue.close()


def _send_lines(queue: Any, key: str, path: Path, stop: threading.Event) -> None:
    attempt = os.urandom(8).hex()
    sent = 0
    while not stop.wait(STREAM_EVERY):
        try:
            with open(path, "rb") as log:
                log.seek(sent)
                data = log.read(STREAM_CHUNK)
        except OSError:
            continue
        data = data[: data.rfind(b"\n") + 1]
        if not data:
            continue
        lines = LogLines(task=key, attempt=attempt, offset=sent, data=data)
        try:
            queue.put(msgspec.json.encode(lines), timeout=STREAM_WAIT)
        except Exception:
            continue
        sent += len(data)


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
        self.stream = f"hearts-logs-{os.urandom(8).hex()}"
        """The queue the workers send their logs' lines to (``LogLines``)."""
        self.copies = TableCopies(options.logs)
        """The logs of the matches in play, written from the workers' lines."""
        self.flight: _InFlight | None = None
        self.pruned = -PRUNE_EVERY
        """When ``bots`` last lost the versions no pending match seats (``time.monotonic``)."""

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def _task(self, match: ScheduledMatch) -> bytes:
        now = time.monotonic()
        if now - self.pruned >= PRUNE_EVERY:  # what no pending match seats any more, a worker removes
            self.pruned = now
            runnable = set(self.store.runnable())
            self.bots[:] = [bot for bot in self.bots if bot.name in runnable or bot.name in match.seats]
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
                stream=self.stream if self.client is not None else None,
            )
        )

    async def run(self) -> RunSummary:
        """Play every pending match (or the sets of ``feed``, ``window`` at a time); return when
        each is recorded (or raise ``LadderError``). Meanwhile the workers' logs are written
        in the logs folder as they grow (``LogLines``), for watching."""
        flight = _InFlight(self.feed or pending_sets(self.store), self.window if self.feed else None, self._submit)
        self.flight = flight
        try:
            flight.fill()
            if not flight.futures:
                return self.summary
            stream = dask_distributed().as_completed(flight.sent(), with_results=True, raise_errors=False)
            queue = await trio.to_thread.run_sync(self._queue)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self.copies.follow, queue, flight.by_key.get)
                    await self._results(flight, stream)
                    nursery.cancel_scope.cancel()
            finally:
                with contextlib.suppress(Exception):  # the queue goes with its last holder
                    queue.close()
            return self.summary
        finally:
            await trio.to_thread.run_sync(_cancel_all, flight.futures)
            self.copies.drop_all()
            self.flight = None

    def _queue(self) -> Any:
        return dask_distributed().Queue(self.stream, client=self.client, maxsize=STREAM_QUEUE)

    async def _results(self, flight: _InFlight, stream: Any) -> None:
        while True:
            item = await trio.to_thread.run_sync(_next, stream, abandon_on_cancel=True)
            if item is None:
                return
            future, value = item
            match = flight.by_key.pop(future.key, None)
            if match is None:  # cancelled: its set was closed
                continue
            problem = self._accept(match, value, future.key)
            if problem is not None:
                self.refused.append(problem)
                if self.on_refused is not None:
                    self.on_refused(problem)
                if flight.tries[match.key] >= MAX_TRIES:
                    raise LadderError(f"{problem}; refused {MAX_TRIES} times: stopping (finished matches are kept)")
                flight.again(match)
            for new in flight.sent():
                stream.add(new)

    def _submit(self, match: ScheduledMatch) -> Any:
        key = f"hearts-match/{match.key}/{os.urandom(4).hex()}"
        return self.client.submit(self.play, self._task(match), key=key, pure=False)

    def _accept(self, match: ScheduledMatch, value: object, key: str = "") -> str | None:
        """Record a worker's result (or retire the bots it could not build or start); why it
        was refused, or ``None``. The log written for watching goes (``TableCopies.drop``): the
        verified one takes its place, or the match is sent again."""
        self.copies.drop(key)
        if isinstance(value, BaseException):
            return f"match {match.key}: the task failed on the cluster: {type(value).__name__}: {value}"
        try:
            done = msgspec.json.decode(value, type=MatchDone) if isinstance(value, bytes) else None
        except msgspec.DecodeError as err:
            return f"match {match.key}: the worker's result cannot be read: {err}"
        if done is None:
            return f"match {match.key}: the worker's result is not bytes"
        if done.refused:
            self._retire(match, done)
            return None
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
        if self.flight is not None:
            self.flight.done(match)
        return None

    def _retire(self, match: ScheduledMatch, done: MatchDone) -> None:
        """Bots a worker could not build or start: on a ladder each is retired (its upload, if
        it came as one, refused), the sets that seat it closed, and the others play on, as a
        local run leaves such a bot out; elsewhere (a duel is about its bots), or when fewer
        than two bots are left, the run stops naming them."""
        reasons = "; ".join(done.refused.values())
        if not isinstance(self.feed, LadderFeed):
            raise LadderError(f"match {match.key}: {reasons}")
        closed: list[int] = []
        for name, why in done.refused.items():
            closed += self._retire_one(name, why)
        left = len(self.store.active())
        if left < LEAST:
            raise LadderError(f"{reasons}; a ladder needs at least two bots, {left} left")
        if self.flight is not None:
            for key in self.flight.close(closed):
                self.copies.drop(key)  # a table of a closed set is no table

    def _retire_one(self, name: str, why: str) -> list[int]:
        """Retire ``name`` and close the open sets that seat it (their matches never played);
        the sets closed."""
        version = next((v for v in self.store.versions() if v.name == name), None)
        if version is None:
            return []
        first, newline, rest = why.partition("\n")
        told = f"{first}; the ladder goes on without it{newline}{rest}"
        if version.active:
            change = PoolChange(datetime.now(UTC).isoformat(timespec="seconds"))
            change.retired.append(name)
            in_play = set(self.flight.left) if self.flight is not None else set()
            keep = in_play | set(getattr(self.feed, "handed", ()))
            self.store.change_pool(change, self.store.settings().games, keep=keep)
            upload = playing(self.store.path).get(version.entrant)
            if upload is not None and upload.version == name:
                mark(self.store.path, upload, "refused", first)
        seated = sorted({m.set_index for m in self.store.pending() if name in m.seats})
        if seated:
            self.store.close_sets(seated, f"{name} refused: {first}")
            told += f" ({len(seated)} set(s) seating it closed unfinished)"
        self.bots[:] = [bot for bot in self.bots if bot.name != name]
        if self.on_refused is not None and (version.active or seated):
            self.on_refused(told)
        return seated


PRUNE_EVERY = 2.0
"""Seconds between two looks for versions the tasks need not list any more (a look reads
the pending matches: not for every task of a large batch)."""
WATCHED_BYTES = 64 * 1024 * 1024
"""A match's log written for watching stops growing here (the verified log is not bounded by it)."""
WATCH_EVERY = 0.25
"""Seconds between two looks of the coordinator at the queue of lines."""


class TableCopies:
    """The logs of the matches in play on workers, written in the logs folder from the lines
    their workers send (``LogLines``), for watching only."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.watched: dict[str, _Watched] = {}
        """The logs being written, by task key."""

    async def follow(self, queue: Any, in_flight: Callable[[str], ScheduledMatch | None]) -> None:
        """Write each line the workers send into its match's log, until cancelled: a look at
        the queue every ``WATCH_EVERY`` seconds (that never waits on the scheduler, so no
        look is left waiting when the run ends). ``in_flight``: the match a task key plays."""
        while True:
            for raw in await trio.to_thread.run_sync(_take_lines, queue, abandon_on_cancel=True):
                self.write(raw, in_flight)
            await trio.sleep(WATCH_EVERY)

    def write(self, raw: object, in_flight: Callable[[str], ScheduledMatch | None]) -> None:
        """Lines of a match in play, appended to its log in the logs folder (named from the
        coordinator's own match, never from the worker's message); lines of a task not in
        flight, of an older attempt or out of order are dropped."""
        try:
            lines = msgspec.json.decode(raw, type=LogLines) if isinstance(raw, bytes) else None
        except msgspec.DecodeError:
            return
        match = in_flight(lines.task) if lines is not None else None
        if lines is None or match is None:
            return
        seen = self.watched.get(lines.task)
        path = self.logs / f"{match.key}.jsonl"
        if seen is None or (seen.attempt != lines.attempt and lines.attempt not in seen.older):
            if lines.offset != 0:
                return
            older = seen.older | {seen.attempt} if seen is not None else set()
            seen = self.watched[lines.task] = _Watched(path, lines.attempt, older=older)
            path.unlink(missing_ok=True)  # a killed worker's table, or a killed run's: started over
        if lines.attempt != seen.attempt or lines.offset != seen.size or seen.size + len(lines.data) > WATCHED_BYTES:
            return
        try:
            with open_private(path) as file:
                file.write(lines.data)
        except (OSError, UntrustedFile):
            return
        seen.size += len(lines.data)

    def drop(self, key: str) -> None:
        """Stop writing a task's lines and remove the copy written for watching (a verified
        log takes its place, or the match is sent again, or its set is closed)."""
        seen = self.watched.pop(key, None)
        if seen is not None:
            seen.path.unlink(missing_ok=True)

    def drop_all(self) -> None:
        for key in list(self.watched):
            self.drop(key)


class _Watched:
    """A match's log being written from a worker's lines: which attempt, how far."""

    def __init__(self, path: Path, attempt: str, older: set[str]) -> None:
        self.path = path
        self.attempt = attempt
        self.older = older
        self.size = 0


def _take_lines(queue: Any) -> list[object]:
    """What the queue holds now."""
    try:
        return list(queue.get(batch=True))
    except Exception:  # the client closing: nothing to watch now
        return []


class _InFlight:
    """The sets a cluster run has sent: each match's future, its tries, the matches left of
    each set; a set is taken from the feed whenever fewer than ``window`` are in flight
    (``None``: no limit, every set at once)."""

    def __init__(self, feed: SetFeed, window: int | None, submit: Callable[[ScheduledMatch], Any]) -> None:
        self.feed = feed
        self.window = window
        self.submit = submit
        self.by_key: dict[str, ScheduledMatch] = {}
        """The match each future in flight plays, by the future's key."""
        self.tries: dict[str, int] = {}
        self.futures: list[Any] = []
        self.left: dict[int, set[str]] = {}
        """The matches of each set in flight not yet recorded."""
        self.new: list[Any] = []
        """Futures sent since ``sent`` was last asked."""

    def _send(self, match: ScheduledMatch) -> None:
        future = self.submit(match)
        self.by_key[future.key] = match
        self.futures.append(future)
        self.new.append(future)

    def sent(self) -> list[Any]:
        """The futures sent since the last call (to be waited for)."""
        new, self.new = self.new, []
        return new

    def fill(self) -> None:
        """Take sets from the feed up to the window and send their matches."""
        while self.window is None or len(self.left) < self.window:
            group = self.feed()
            if group is None:
                break
            for match in group:
                self.tries[match.key] = 1
                self._send(match)
            if group:
                self.left[group[0].set_index] = {match.key for match in group}

    def done(self, match: ScheduledMatch) -> None:
        """A match recorded: when its set is complete, sets are sent in its place."""
        left = self.left.get(match.set_index, set())
        left.discard(match.key)
        if left or match.set_index not in self.left:
            return
        del self.left[match.set_index]
        self.fill()

    def again(self, match: ScheduledMatch) -> None:
        """Send a refused match once more."""
        self.tries[match.key] += 1
        self._send(match)

    def close(self, indexes: Sequence[int]) -> list[str]:
        """Sets closed while in flight: their futures cancelled and forgotten (a result that
        comes anyway is not taken), and sets sent in their place; the keys forgotten."""
        shut = set(indexes)
        dropped = []
        for future in self.futures:
            match = self.by_key.get(future.key)
            if match is not None and match.set_index in shut:
                del self.by_key[future.key]
                dropped.append(future.key)
                future.cancel()
        for index in shut:
            self.left.pop(index, None)
        self.fill()
        return dropped


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
