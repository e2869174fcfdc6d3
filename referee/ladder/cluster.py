"""A ladder's matches on a Dask cluster, as the coordinator runs them: a match is the unit of work.

The coordinator (``referee ladder run --cluster ADDRESS``, or ``local:N`` for a local cluster
of N worker processes, ``referee.ladder.cluster_dask``) owns the SQLite store and the logs
folder, as a local run does. It sends each pending match to the cluster as one task
(``referee.ladder.cluster_worker`` plays it), accepts a result only once it is checked
(``referee.ladder.cluster_check``: the coordinator trusts no worker), and then writes the log
and records the result, in one transaction, exactly once (the store keys a match by set and
rotation; a second result for a finished match changes nothing). A refused result is named and
its match sent again, up to ``MAX_TRIES`` times. A worker that dies mid-match is Dask's to
handle: the scheduler runs the task again on another worker. Meanwhile the workers' logs are
copied into the logs folder for watching (``referee.ladder.cluster_watch``).

A bot a worker cannot build or start is refused by name (``MatchDone.refused``): on a ladder
the coordinator retires it (its upload, if it came as one, refused) and closes the sets that
seat it, and the others play on; fewer than two bots left end the run. An uploaded version's
files go to the workers with its tasks (``referee.ladder.cluster_uploads``), and before an
upload is taken one worker builds and starts it (``ClusterRun.check``): its start-up check.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.bots import LEAST
from referee.ladder.cluster_check import ResultRefused, check_result
from referee.ladder.cluster_dask import dask_distributed
from referee.ladder.cluster_uploads import UploadPacks
from referee.ladder.cluster_watch import STREAM_QUEUE, TableCopies
from referee.ladder.cluster_worker import MatchDone, MatchTask, play_task
from referee.ladder.feed import LadderFeed
from referee.ladder.runner import RunOptions, RunSummary, SetFeed, pending_sets
from referee.ladder.uploads import mark, playing
from referee.players.bot_config import BotEntry
from referee.private_files import open_private
from referee.sandbox.bwrap import SandboxMode
from referee.store.records import PoolChange, ScheduledMatch, StoredMatch
from referee.store.writer import LadderStore

MAX_TRIES = 3
"""Times a match is sent to the cluster before a refused result stops the ladder."""
PRUNE_EVERY = 2.0
"""Seconds between two looks for versions the tasks need not list any more (a look reads
the pending matches: not for every task of a large batch)."""
CHECK_WAIT = 900.0
"""Seconds a new upload's start-up check waits for a worker (its build may take
``BUILD_TIMEOUT``); then the upload is refused."""


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
        on_result: Callable[[StoredMatch], None] | None = None,
        on_refused: Callable[[str], None] | None = None,
        play: Callable[..., bytes] = play_task,
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
        self.packs = UploadPacks(store.path, client)
        """The uploaded versions' files, handed to Dask once per content hash."""

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def _task(self, match: ScheduledMatch) -> tuple[bytes, dict[str, Any]]:
        """The task of ``match`` and the files of the uploads it seats (the task's second
        argument, when there are any)."""
        now = time.monotonic()
        if now - self.pruned >= PRUNE_EVERY:  # what no pending match seats any more, a worker removes
            self.pruned = now
            runnable = set(self.store.runnable())
            self.bots[:] = [bot for bot in self.bots if bot.name in runnable or bot.name in match.seats]
            self.packs.keep_only(self.bots)
        return self._made(match.seats, self.bots, set_index=match.set_index, rotation=match.rotation, seed=match.seed)

    def _made(
        self, seats: Sequence[str], bots: list[BotEntry], *, set_index: int, rotation: int, seed: int
    ) -> tuple[bytes, dict[str, Any]]:
        packed, files = self.packs.for_task([bot for bot in bots if bot.name in seats])
        task = MatchTask(
            set_index=set_index,
            rotation=rotation,
            seed=seed,
            seats=tuple(seats),
            rules=self.rules,
            bots=bots,
            cwd=str(self.options.cwd) if self.options.cwd is not None else None,
            config=self.options.config,
            sandbox_mode=self.sandbox_mode,
            sandbox_binds=self.sandbox_binds,
            sandbox_loopback=self.sandbox_loopback,
            stream=self.stream if self.client is not None else None,
            packed=packed,
        )
        return msgspec.json.encode(task), files

    def check(self, entries: Sequence[BotEntry]) -> dict[str, str]:
        """The start-up check of new versions on the cluster (blocking: the follower calls it in
        a thread, before it takes an upload): one worker builds each, with its files carried
        there, and starts it once, as the first match seating it there would (and keeps the
        build for its matches). Why each it refused, by name; every one refused, with why,
        when no worker could check them within ``CHECK_WAIT``."""
        names = [entry.name for entry in entries]
        bots = [bot for bot in self.bots if bot.name not in names] + list(entries)
        data, files = self._made(names, bots, set_index=-1, rotation=-1, seed=0)
        task = msgspec.json.decode(data, type=MatchTask)
        data = msgspec.json.encode(msgspec.structs.replace(task, check=True, stream=None))
        future = self.client.submit(self.play, data, files, key=f"hearts-check/{os.urandom(4).hex()}", pure=False)
        try:
            value = future.result(timeout=CHECK_WAIT)
            done = msgspec.json.decode(value, type=MatchDone)
        except Exception as err:  # the scheduler's, the task's, a timeout: no worker answered
            return {name: f"bot {name}: no worker could check it: {type(err).__name__}: {err}" for name in names}
        finally:
            future.release()
        if done.error is not None:
            return {name: f"bot {name}: cannot be checked {done.error}" for name in names}
        return dict(done.refused)

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
        data, files = self._task(match)
        return self.client.submit(self.play, data, *([files] if files else []), key=key, pure=False)

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
        if version.active:
            change = PoolChange(datetime.now(UTC).isoformat(timespec="seconds"))
            change.retired.append(name)
            in_play = set(self.flight.left) if self.flight is not None else set()
            keep = in_play | set(getattr(self.feed, "handed", ()))
            self.store.change_pool(change, self.store.settings().games, keep=keep)
            upload = playing(self.store.path).get(version.entrant)
            if upload is not None and upload.version == name:
                mark(self.store.path, upload, "refused", why)
        seated = sorted({m.set_index for m in self.store.pending() if name in m.seats})
        if seated:
            self.store.close_sets(seated, f"{name} refused: {first}")
        closed = f" ({len(seated)} set(s) seating it closed unfinished)" if seated else ""
        told = f"{first}; the ladder goes on without it{closed}{newline}{rest}"  # the output after the line
        self.bots[:] = [bot for bot in self.bots if bot.name != name]
        if self.on_refused is not None and (version.active or seated):
            self.on_refused(told)
        return seated


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
