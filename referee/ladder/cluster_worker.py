"""What runs on a cluster's worker: one match a task (``play_task``), the bots it seats built
once per worker and kept by what they are made of (``WorkerBuilds``).

A worker plays a match in its own trio run, with fresh bot processes sandboxed on that
worker, the log in a temporary file, and returns the outcome and the log's bytes
(``MatchDone``, encoded with msgspec: the coordinator decodes it as untrusted input,
``referee.ladder.cluster_check``). While it plays, the log's lines go to the coordinator for
watching (``referee.ladder.cluster_watch``).

Bots on workers: a bot of the list runs with the same command, from the same folder as on the
coordinator; an uploaded bot from the worker's own copy of its files, which came with the task
(``referee.ladder.cluster_uploads``). A worker builds a bot (and starts it once, as the local
roll call does) before the first match that seats it there, keeps the build by what the bot is
made of (``build_key``: command, build line, folder, files' hash) and removes the builds that
no pending task lists any more; a sandboxed build's copy lies in the worker's own directory,
which Dask removes when the worker was killed (its nanny as it sees it die, or the next worker
started there). A bot a worker cannot build or start (or whose uploaded files it cannot have)
is refused by name (``MatchDone.refused``): on a ladder the coordinator retires it and closes
the sets that seat it, and the others play on. A task may also only check bots
(``MatchTask.check``): build and start them, no match: the start-up check of an upload on a
cluster.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import socket
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.bots import prepare_bots
from referee.ladder.cluster_dask import worker_scratch
from referee.ladder.cluster_uploads import UploadNotCarried, WorkerUploads
from referee.ladder.cluster_watch import streamed
from referee.ladder.roll_call import refusal, roll_call
from referee.ladder.runner import RunOptions, RunSummary, TableSlot
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.players.bot_config import BotConfigError, BotEntry
from referee.players.build_folder import remove_tree, scratch_in
from referee.players.building import BuiltBot
from referee.players.process import BotLimits, BotStartError
from referee.sandbox.bwrap import Sandbox, SandboxMode, SandboxUnavailable, choose_sandbox


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
    packed: dict[str, str] = msgspec.field(default_factory=dict)
    """The seated bots that are uploads, by name: their content hash, the key of their files'
    bytes in the task's second argument (``referee.ladder.cluster_uploads``)."""
    check: bool = False
    """Only build and start the seated bots, once each (a new upload's start-up check): no
    match is played."""


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


def play_task(task_bytes: bytes, files: Mapping[str, object] | None = None) -> bytes:
    """Play one match on this worker (a Dask task): the encoded ``MatchTask`` in (and, when it
    seats uploads, their files' bytes by content hash: Dask hands the task the scattered
    data), the encoded ``MatchDone`` out. A bot that cannot be built or started is a result
    naming it (``MatchDone.refused``), not an exception, so that Dask does not retry what
    cannot work."""
    task = msgspec.json.decode(task_bytes, type=MatchTask)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    done = MatchDone(set_index=task.set_index, rotation=task.rotation, worker=worker)
    try:
        sandbox = choose_sandbox(
            task.sandbox_mode, lambda line: None, task.sandbox_binds, loopback=task.sandbox_loopback
        )
        with _BUILDS.taken(task, sandbox, files or {}) as (built, refused):
            if refused:
                named = {name: _on_worker(why, worker) for name, why in refused.items()}
                return msgspec.json.encode(msgspec.structs.replace(done, refused=named))
            if task.check:
                return msgspec.json.encode(done)
            with tempfile.TemporaryDirectory(prefix="hearts-match-", dir=worker_scratch()) as folder:
                path = Path(folder) / "match.jsonl"
                limits = BotLimits(sandbox=sandbox.hiding(folder) if sandbox is not None else None, cwd=task.cwd)
                with streamed(task.stream, path):
                    outcome = trio.run(_play, task, path, limits, built)
                return msgspec.json.encode(
                    msgspec.structs.replace(done, outcome=outcome, log=path.read_bytes(), sandboxed=sandbox is not None)
                )
    except (BotStartError, BotConfigError, SandboxUnavailable, LadderError) as err:
        return msgspec.json.encode(msgspec.structs.replace(done, error=f"on worker {worker}: {err}"))


def _on_worker(why: str, worker: str) -> str:
    first, newline, rest = why.partition("\n")
    return f"{first} (on worker {worker}){newline}{rest}"


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
    ``referee.players.build_folder.scratch_in``, and its uploaded files' copy) once no match
    here uses it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: dict[str, BuiltBot] = {}
        self.failed: dict[str, str] = {}
        """Why a build or its start failed, by key: not tried again on this worker."""
        self.using: Counter[str] = Counter()
        self.uploads = WorkerUploads()
        self.copied: dict[str, str] = {}
        """The content hash of the uploaded files each build here runs from, by key."""

    @contextlib.contextmanager
    def taken(
        self, task: MatchTask, sandbox: Sandbox | None, files: Mapping[str, object]
    ) -> Iterator[tuple[dict[str, BuiltBot], dict[str, str]]]:
        """Where each bot seated by ``task`` runs from, and the bots that cannot be built or
        started here with why; the builds are held until the match ends."""
        keys = {bot.name: build_key(bot, task) for bot in task.bots}
        with self.lock:
            self._prune(set(keys.values()))
            built, refused = self._prepare(task, sandbox, keys, files)
            held = [keys[name] for name in built]
            self.using.update(held)
        try:
            yield built, refused
        finally:
            with self.lock:
                self.using.subtract(held)

    def _prepare(
        self, task: MatchTask, sandbox: Sandbox | None, keys: Mapping[str, str], files: Mapping[str, object]
    ) -> tuple[dict[str, BuiltBot], dict[str, str]]:
        entries = {bot.name: bot for bot in task.bots}
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
                try:
                    self.ready[key] = self._build(entries[name], key, task, sandbox, files)
                except (LadderError, BotConfigError) as err:
                    refused[name] = self.failed[key] = str(err)
                    self._remove(key)
                    continue
                fresh.append(name)
            built[name] = self.ready[key]
        if fresh:
            commands = {bot.name: bot.command for bot in task.bots}
            cwd = Path(task.cwd) if task.cwd else None
            limits = BotLimits(sandbox=sandbox, cwd=task.cwd)
            options = RunOptions(logs=Path("."), config=task.config, cwd=cwd, limits=limits, built=built)
            for name, report in roll_call(commands, fresh, options).items():
                refused[name] = self.failed[keys[name]] = refusal(name, report)
                self._remove(keys[name])
                del built[name]
        return built, refused

    def _build(
        self, entry: BotEntry, key: str, task: MatchTask, sandbox: Sandbox | None, files: Mapping[str, object]
    ) -> BuiltBot:
        """Build one bot here: an upload from this worker's copy of its files (made now from the
        task's bytes, or kept from before), any other from its own folder."""
        scratch = worker_scratch()
        if scratch is not None:  # sandboxed builds' copies go in the worker's own directory
            scratch_in(Path(scratch))
        content = task.packed.get(entry.name)
        if content is not None:
            try:
                folder = self.uploads.folder(content, files.get(content), Path(scratch or _process_scratch()))
            except UploadNotCarried as err:
                raise LadderError(f"bot {entry.name}: its uploaded files cannot be had here: {err}") from None
            self.copied[key] = content
            entry = msgspec.structs.replace(entry, folder=str(folder))
        return prepare_bots([entry], Path(task.cwd) if task.cwd else None, sandbox)[entry.name]

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
        content = self.copied.pop(key, None)
        if content is not None:
            self.uploads.remove(content, self.copied)


_BUILDS = WorkerBuilds()
_PROCESS_SCRATCH: list[str] = []


def _process_scratch() -> str:
    """Where uploaded files' copies go outside a Dask worker (a test calling ``play_task``):
    a temporary folder of this process."""
    if not _PROCESS_SCRATCH:
        _PROCESS_SCRATCH.append(tempfile.mkdtemp(prefix="hearts-worker-"))
        atexit.register(remove_tree, Path(_PROCESS_SCRATCH[0]))
    return _PROCESS_SCRATCH[0]


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
