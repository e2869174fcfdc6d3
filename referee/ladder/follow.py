"""A running ladder follows its bot list: the organizer edits the file (adds a bot, changes a
bot's command, build or folder, removes one) and saves it, or sends the run ``SIGHUP``, and the
run changes its pool without a restart (``referee.ladder.pool``), between two sets.

The list is looked at every ``POLL`` seconds (its content) and at once on ``SIGHUP``, one look at
a time: a signal during a slow build waits for it, then finds nothing new, so no change is ever
made twice. It is read off the event loop, as hostile input (``referee.players.list_file``: a
regular file of at most 1 MiB; a FIFO or a device is refused without being read). An edit is
taken whole or not at all: a list that cannot be read, or whose new bots fail their build,
miss their program or fail the start-up check a start makes (``referee.ladder.roll_call``:
started once each, as their matches will start them, they must answer ``hello``), is named
in one warning and the pool stays as it was (the run goes on; fix
the file and save it again). An edit taken is one transaction in
the store (``LadderStore.change_pool``): new versions are drawn from the next set on; sets not
begun that seat a retired version are drawn again; the sets being played are finished with the
versions they began with.

Also here: where each version runs from when a run starts (``versions_built``), including the
retired versions still seated in a set begun before they were retired."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import signal
from collections.abc import AsyncIterator, Callable, Mapping, MutableMapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import msgspec
import trio

from referee.errors import BotConfigError, RefereeError
from referee.ladder.bots import prepare_bots
from referee.ladder.feed import LadderFeed
from referee.ladder.pool import pool_change
from referee.ladder.roll_call import refusal, take_roll
from referee.ladder.runner import RunOptions
from referee.ladder.season import closed_reason, moment, taking_versions, utc_now
from referee.ladder.setup import catch_up_line, sets_for_newcomers
from referee.ladder.upload_gate import NOT_SAID, UploadGate, keep_gate, start_warning
from referee.ladder.uploads import State as UploadState
from referee.ladder.uploads import Upload, entry_of, mark, playing, waiting
from referee.players.bot_config import BotEntry, bots_in
from referee.players.bot_content import with_content
from referee.players.building import BuiltBot
from referee.players.list_file import ListMissing, read_list_file
from referee.sandbox.bwrap import Sandbox
from referee.store.entrants import entrants
from referee.store.records import BotVersion
from referee.store.writer import LadderStore

POLL = 2.0
"""Seconds between two looks at the bot list."""


def versions_built(
    store: LadderStore,
    built: Mapping[str, BuiltBot],
    *,
    cwd: Path | None,
    sandbox: Sandbox | None,
    private: Sequence[Path],
    notes: list[str],
) -> dict[str, BuiltBot]:
    """Where each version that may play runs from, by its name: an active version from its
    entrant's build (``built``, by entrant); a retired version seated in a begun set from its
    stored entry, built again. A retired version that cannot be built or found any more is
    given up: the sets it began are closed (their pending matches never played; a note says
    so), rather than end the whole ladder."""
    found: dict[str, BuiltBot] = {}
    runnable = set(store.runnable())
    for version in store.versions():
        if version.active and version.entrant in built:
            found[version.name] = built[version.entrant]
        elif not version.active and version.name in runnable:
            try:
                found[version.name] = prepare_bots([version.runs_as()], cwd, sandbox, private)[version.name]
            except RefereeError as err:
                _give_up(store, version, str(err), notes)
    return found


def version_entries(store: LadderStore, entries: Sequence[BotEntry]) -> list[BotEntry]:
    """The entries that start each version that may play, under the versions' names (what a
    cluster's workers build and start): an active version's from the bot list, a retired
    one's as stored."""
    listed = {e.name: e for e in entries}
    runnable = set(store.runnable())
    found = []
    for version in store.versions():
        if version.name not in runnable:
            continue
        entry = listed.get(version.entrant) if version.active else None
        found.append(msgspec.structs.replace(entry, name=version.name) if entry is not None else version.runs_as())
    return found


def _give_up(store: LadderStore, version: BotVersion, why: str, notes: list[str]) -> None:
    begun = sorted({m.set_index for m in store.pending() if version.name in m.seats})
    store.close_sets(begun, f"{version.name} retired and cannot be started again: {why}")
    notes.append(f"{len(begun)} begun set(s) of retired {version.name} closed unfinished: {why}")


STEPS: Final[dict[UploadState, str]] = {
    "building": "its build is running, in the sandbox, on a copy of its files",
    "checking": "built; started once, as a start checks a bot, to answer its hello",
}
"""What an entrant's page says of an upload while it is taken."""


class PoolFollower:
    """Follows the bot list of a running ladder (see the module's docstring). Mutates the run's
    ``commands`` and ``built`` maps, which its tables read for every match they start."""

    def __init__(  # noqa: PLR0917 - what a pool change touches, from play_ladder
        self,
        bot_list: Path,
        cwd: Path | None,
        store: LadderStore,
        feed: LadderFeed,
        commands: MutableMapping[str, str],
        built: MutableMapping[str, BuiltBot],
        sandbox: Sandbox | None,
        private: Sequence[Path],
        tell: Callable[[str], None] | None,
        cluster_bots: list[BotEntry] | None = None,
        options: RunOptions | None = None,
        now: Callable[[], datetime] = utc_now,
        cluster_check: Callable[[Sequence[BotEntry]], Mapping[str, str]] | None = None,
        gate: UploadGate | None = None,
    ) -> None:
        self.bot_list = bot_list
        self.cwd = cwd
        self.store = store
        self.feed = feed
        self.commands = commands
        self.built = built
        self.sandbox = sandbox
        self.private = private
        self.tell = tell or (lambda line: None)
        self.cluster_bots = cluster_bots
        """On a cluster: the run's entries, which the workers build (nothing is built here)."""
        self.options = options
        """How the run starts its bots: a new version is started once so, before it is taken
        (the start-up check a restart makes); ``None``: no check."""
        self.cluster_check = cluster_check
        """On a cluster: the start-up check of an upload's new version, by a worker
        (``ClusterRun.check``: blocking, called in a thread); why each it refused, by name.
        ``None``: uploads are not taken (no worker could have their files)."""
        self.now = now
        """The season's clock: after its submissions freeze no new version is taken
        (``referee.ladder.season``)."""
        self.gate = gate if gate is not None else NOT_SAID
        """Whether uploads are taken (``referee.ladder.upload_gate``): only when the run's bots
        are sandboxed, or the organizer trusts them (given ``None``: ``NOT_SAID``, they are not)."""
        self.looking = trio.Lock()
        """Held across a whole look (read, build, change): a ``SIGHUP`` during a slow build waits,
        then reads the list against the pool the first look left, and finds nothing new."""
        read = self._read()
        self.seen = read[0] if read is not None else None
        self.settled: set[tuple[str, int]] = set()
        """Uploads (entrant, number) found taken or refused: never read again (``waiting``)."""
        self.listed: list[BotEntry] | None = None
        """The list's entries as last taken (with their content): what an upload is taken
        beside. ``None`` until a list is read whole."""
        if read is not None and not isinstance(read[1], BotConfigError):
            with contextlib.suppress(RefereeError, ValueError):
                self.listed = with_content(bots_in(read[1], bot_list), self.cwd or Path.cwd())
        self._open_gate()

    def _open_gate(self) -> None:
        """Keep the run's gate for the pages (the upload form and the entrant's page read it),
        and tell the organizer when the ladder has entrants whose uploads it refuses."""
        keep_gate(self.store.path, self.gate)
        warning = start_warning(self.gate, len(entrants(self.store.db)))
        if warning is not None:
            self.tell(warning)

    def _read(self) -> tuple[bytes, bytes | BotConfigError] | None:
        """The list's bytes, or why they are refused (``read_list_file``), with a fingerprint
        of either (a refusal is said once, not at every look); ``None`` while there is no file.
        Blocking: a running ladder calls it in a worker thread."""
        try:
            data = read_list_file(self.bot_list)
        except ListMissing:
            return None
        except BotConfigError as err:
            return hashlib.sha256(b"refused: " + str(err).encode()).digest(), err
        return hashlib.sha256(data).digest(), data

    async def run(self) -> None:
        """Look at the list every ``POLL`` seconds and on ``SIGHUP``, until cancelled."""
        with trio.open_signal_receiver(signal.SIGHUP) as hangups:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._on_hangup, hangups)
                while True:
                    await trio.sleep(POLL)
                    await self.look()

    async def _on_hangup(self, hangups: AsyncIterator[int]) -> None:
        async for _ in hangups:
            await self.look(force=True)

    async def look(self, *, force: bool = False) -> list[str]:
        """Read the list if it changed (or ``force``) and apply it; what changed, as lines. One
        look at a time (``looking``): the change is worked out from the store's versions once
        the lock is held, so two looks never make the same change."""
        async with self.looking:
            lines: list[str] = []
            read = await trio.to_thread.run_sync(self._read)
            if read is not None and (read[0] != self.seen or force):
                self.seen, content = read
                try:
                    lines += await self._take(content)
                except (RefereeError, ValueError, OSError) as err:
                    self.tell(f"{self.bot_list}: not taken ({err}); the ladder goes on with the bots it had")
            for upload in await trio.to_thread.run_sync(self._received):
                lines += await self._take_upload(upload)
            return lines

    def _received(self) -> list[Upload]:
        """The uploads waiting to be taken, oldest first (none on a cluster that cannot check
        them on a worker: ``cluster_check``)."""
        if self.cluster_bots is not None and self.cluster_check is None:
            return []
        return waiting(self.store.path, self.settled)

    async def _take_upload(self, upload: Upload) -> list[str]:
        """One entrant's upload beside the list and the other uploads taken: built, checked as
        a start checks, taken into the pool as its entrant's new version, and its state
        written (``playing``, or ``refused`` with why: at once, nothing of it run, when the
        run's bots are not sandboxed, ``gate``); an upload never stops the ladder."""
        db = self.store.path
        try:
            closed = self.gate.refusal()
            if closed is not None:  # nothing of it is built or started
                raise RefereeError(closed)
            if self.listed is None:
                raise RefereeError("the bot list has not been read whole yet; save it, then upload again")
            if upload.entrant in {e.name for e in self.listed}:
                raise RefereeError(f"the bot list has an entrant {upload.entrant}: one entrant, one way in")
            season = self.store.season()
            if season is not None and season.closes is not None and moment(upload.received) >= moment(season.closes):
                raise RefereeError(f"received at {upload.received}, after {closed_reason(season)}")
            others = [entry_of(db, u) for u in playing(db).values() if u.entrant != upload.entrant]

            def step(state: UploadState) -> None:  # the entrant's page shows it as it moves
                mark(db, upload, state, STEPS[state])

            lines = await self._apply([*self.listed, *others, entry_of(db, upload)], taking=True, upload=step)
        except (RefereeError, ValueError, OSError) as err:
            mark(db, upload, "refused", str(err))
            self.tell(f"upload {upload.seq} of {upload.entrant}: refused ({err}); the ladder goes on")
            return []
        version = next((v for v in reversed(self.store.versions()) if v.entrant == upload.entrant), None)
        name = version.name if version is not None else upload.entrant
        mark(db, upload, "playing", f"{name} playing", version=name)
        for line in lines:
            self.tell(f"upload {upload.seq} of {upload.entrant}: {line}")
        return lines

    async def _take(self, content: bytes | BotConfigError) -> list[str]:
        """Apply the list read (or raise why it is not taken): nothing is changed until the
        new bots are built, and then all in one transaction."""
        if isinstance(content, BotConfigError):
            raise content
        entries = await trio.to_thread.run_sync(bots_in, content, self.bot_list)
        entries = await trio.to_thread.run_sync(with_content, entries, self.cwd or Path.cwd())
        db = self.store.path
        taken = [entry_of(db, u) for u in playing(db).values() if u.entrant not in {e.name for e in entries}]
        lines = await self._apply([*entries, *taken], taking=taking_versions(self.store.season(), self.now()))
        self.listed = entries
        for line in lines:
            self.tell(f"{self.bot_list}: {line}")
        return lines

    async def _apply(
        self, entries: list[BotEntry], *, taking: bool, upload: Callable[[UploadState], None] | None = None
    ) -> list[str]:
        """Make exactly ``entries`` the pool: build the new versions, check their start, then
        one transaction; what changed, as lines (raises why it cannot). Not ``taking``
        versions (submissions closed): a change that adds one is refused whole. An
        ``upload``'s steps are told as they begin (``building``, ``checking``); on a cluster its
        version is checked by a worker (``cluster_check``), a list's new versions by each
        worker as it first seats them."""
        if len(entries) < 2 or len({e.name for e in entries}) != len(entries):
            raise RefereeError("a ladder needs at least two bots, each of its own name")
        change = pool_change(self.store.versions(), entries, _now())
        if change.empty:
            return []
        season = self.store.season()
        if change.added and not taking and season is not None:
            raise RefereeError(closed_reason(season))
        new = [v.runs_as() for v in change.added]
        if upload is not None and new:
            upload("building")
        ready = await trio.to_thread.run_sync(self._build, new)
        if upload is not None and new:
            upload("checking")
        await self._start_up_check(change.added, ready, on_workers=upload is not None)
        extra = sets_for_newcomers(self.store, change)
        games = self.store.settings().games + extra
        self.store.change_pool(change, games, keep=self.feed.handed)
        self.built.update(ready)
        self.commands.update({v.name: v.command for v in change.added})
        if self.cluster_bots is not None:  # a version back in the list is built again by the workers that need it
            back = [v.runs_as() for v in self.store.versions() if v.name in change.back]
            again = {b.name for b in [*new, *back]}
            self.cluster_bots[:] = [b for b in self.cluster_bots if b.name not in again] + new + back
        lines = change.describe()
        if extra:
            lines.append(catch_up_line(extra, games))
        return lines

    async def _start_up_check(
        self, added: Sequence[BotVersion], ready: Mapping[str, BuiltBot], *, on_workers: bool = False
    ) -> None:
        """The check a start makes (``referee.ladder.roll_call``), on the new versions: each is
        started once as its matches will start it and must answer its hello; raises naming
        every one that did not, with why (the edit is then not taken). On a cluster, with
        ``on_workers``, one worker builds and starts them (``cluster_check``); otherwise
        skipped there (each worker checks what it starts), and where the run gave no
        ``options``."""
        if self.cluster_bots is not None:
            if on_workers and added and self.cluster_check is not None:
                entries = [v.runs_as() for v in added]  # abandoned on Ctrl-C: the client's end ends its wait
                refused = await trio.to_thread.run_sync(self.cluster_check, entries, abandon_on_cancel=True)
                if refused:
                    raise RefereeError("\n".join(refused.values()))
            return
        if self.options is None or not added:
            return
        commands = {**self.commands, **{v.name: v.command for v in added}}
        options = dataclasses.replace(self.options, built={**self.built, **ready})
        failed = await take_roll(commands, [v.name for v in added], options)
        if failed:
            raise RefereeError("\n".join(refusal(name, report) for name, report in failed.items()))

    def _build(self, entries: Sequence[BotEntry]) -> dict[str, BuiltBot]:
        if self.cluster_bots is not None:
            return {}  # each worker builds what its matches need
        hidden = self.sandbox.hiding(*self.private) if self.sandbox is not None else None
        return prepare_bots(entries, self.cwd, hidden, self.private) if entries else {}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
