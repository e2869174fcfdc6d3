"""A running ladder's follower against a hostile hand and against itself (``referee/ladder/follow.py``,
issue 41): whatever is put where its list was (a FIFO, a device, a socket, a directory, a huge
file, a ``.env``) is "not taken", named, without blocking the run, and the ladder plays on; and
looks are one at a time, so ``SIGHUP`` while an edit's bots are being built never makes the same
change twice (it crashed the ladder: ``UNIQUE constraint failed: bots.name``)."""

from __future__ import annotations

import json
import math
import os
import signal
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path

import pytest
import trio
import trio.testing

from referee.errors import LadderError
from referee.ladder.feed import LadderFeed
from referee.ladder.follow import PoolFollower
from referee.ladder.pool import pool_change
from referee.ladder.setup import open_ladder
from referee.players.bot_config import BotEntry, read_bots
from referee.players.building import BuiltBot
from referee.rules import ruleset
from referee.store.writer import LadderStore
from tests.ladder.helpers import BOTS, bot_list
from tests.ladder.hostile_lists import DOTENV, HOSTILE, writer_at

NAMES = ["first", "random", "heuristic"]
LATE = "".join(
    f'[[bot]]\nname = "{n}"\ncommand = {json.dumps(BOTS.get(n, BOTS["first"]))}\n\n' for n in [*NAMES, "late"]
)
"""The list with a late entrant: what an edit that is taken saves."""


class Following:
    """A ladder of ``NAMES`` and the follower of its list, whose every warning is heard in order."""

    def __init__(self, folder: Path) -> None:
        self.config = bot_list(folder, NAMES)
        db = folder / "l.db"
        store, _ = open_ladder(db, read_bots(self.config), None, games=2, default_rules=ruleset("american"))
        store.close()
        self.store = LadderStore(db)
        self.told: list[str] = []
        self.send, self.heard = trio.open_memory_channel[str](math.inf)
        self.follower = PoolFollower(self.config, folder, self.store, LadderFeed(self.store), dict(self.store.bots()),
                                     {}, None, (), self.tell)  # fmt: skip

    def tell(self, line: str) -> None:
        self.told.append(line)
        self.send.send_nowait(line)

    def pool(self) -> list[tuple[str, str | None]]:
        return [(v.name, v.retired) for v in self.store.versions()]


@pytest.fixture
def following(tmp_path: Path) -> Iterator[Following]:
    made = Following(tmp_path)
    yield made
    made.store.close()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()


# -- a hostile list --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [*sorted(HOSTILE), "dotenv"])
async def test_a_running_ladder_names_a_hostile_list_not_taken_and_plays_on(
    kind: str, following: Following, autojump_clock: trio.testing.MockClock
) -> None:
    config, before = following.config, following.pool()
    _remove(config)
    if kind == "dotenv":
        (config.parent / ".env").write_text(DOTENV)
        config.symlink_to(config.parent / ".env")
        words = "not a bot list: it has no [[bot]] table"
    else:
        make, words = HOSTILE[kind]
        make(config)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(following.follower.run)
        # a FIFO's reader that blocked would be handed an edit it would take: "not taken" fails
        with writer_at(config, LATE) if "fifo" in kind else nullcontext():
            line = await following.heard.receive()
        assert line.startswith(f"{config}: not taken (") and words in line and "the ladder goes on" in line, line
        for secret in ("SECRET_KEY", "DATABASE_PASSWORD", "API_TOKEN", "hunter2"):
            assert secret not in line
        assert following.pool() == before
        # a fixed list saved in its place is taken
        _remove(config)
        config.write_text(LATE)
        assert await following.heard.receive() == f"{config}: new entrant late"
        nursery.cancel_scope.cancel()
    assert following.pool() == [*before, ("late", None)]
    assert sum("not taken" in line for line in following.told) == 1


async def test_a_refusal_is_said_again_on_sighup_and_a_missing_list_is_waited_for(following: Following) -> None:
    config = following.config
    _remove(config)
    assert await following.follower.look(force=True) == [] and following.told == []  # gone: nothing to say
    os.mkfifo(config)
    assert await following.follower.look() == [] and len(following.told) == 1
    assert await following.follower.look() == [] and len(following.told) == 1  # the same refusal: said once
    assert await following.follower.look(force=True) == [] and len(following.told) == 2  # asked again: said again
    assert all("is a FIFO" in line for line in following.told)


# -- one look at a time ----------------------------------------------------------------------------
class SlowBuild:
    """A build that takes as long as the test says: it waits for ``release`` (in its worker
    thread, as a real build does), and counts the looks that got as far as building."""

    def __init__(self) -> None:
        self.started = trio.Event()
        self.release = trio.Event()
        self.builds: list[list[str]] = []

    async def reached(self, follower: PoolFollower, looks: int) -> None:
        """Until ``looks`` looks have gone as far as they can while the build waits: to the
        build, or to the line for the one look at a time."""
        while len(self.builds) + follower.looking.statistics().tasks_waiting < looks:
            await trio.sleep(0)  # the looks' readings are in worker threads: let them end

    def __call__(self, entries: Sequence[BotEntry]) -> dict[str, BuiltBot]:
        self.builds.append([e.name for e in entries])
        trio.from_thread.run_sync(self.started.set)
        trio.from_thread.run(self.release.wait)
        return {}


async def test_looks_at_once_during_a_slow_build_make_one_change(
    following: Following, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = SlowBuild()
    monkeypatch.setattr(following.follower, "_build", slow)
    following.config.write_text(LATE)
    results: list[list[str]] = []

    async def look() -> None:
        results.append(await following.follower.look(force=True))

    async with trio.open_nursery() as nursery:
        try:
            for _ in range(20):  # the periodic look and a burst of SIGHUPs, all at once
                nursery.start_soon(look)
            await slow.started.wait()
            await slow.reached(following.follower, 20)
        finally:
            slow.release.set()
    assert slow.builds == [["late"]]  # the others waited, then found nothing new
    assert sorted(results, key=len)[:19] == [[]] * 19
    assert _one_change(results[-1] if results[-1] else max(results, key=len))
    assert [v.name for v in following.store.versions()] == [*NAMES, "late"]
    assert _one_change([line.removeprefix(f"{following.config}: ") for line in following.told])


async def test_sighup_in_a_loop_while_a_slow_build_is_taken(
    following: Following, monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.testing.MockClock
) -> None:
    """The attack as it was made: ``kill -HUP`` again and again while the run takes an edit."""
    slow = SlowBuild()
    monkeypatch.setattr(following.follower, "_build", slow)
    following.config.write_text(LATE)
    # a SIGHUP the run's receiver had not read when it closed is sent again (trio does): ignored,
    # never the default action, which would end the test's process
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(following.follower.run)
            try:
                await slow.started.wait()  # the periodic look saw the edit and is building
                for _ in range(30):
                    os.kill(os.getpid(), signal.SIGHUP)
                    await trio.sleep(0.5)
                await slow.reached(following.follower, 2)  # a signal's look beside the periodic one
            finally:
                slow.release.set()
            assert await following.heard.receive() == f"{following.config}: new entrant late"
            for _ in range(5):
                os.kill(os.getpid(), signal.SIGHUP)  # after the change: each look finds nothing new
                await trio.sleep(3)
            nursery.cancel_scope.cancel()
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert slow.builds == [["late"]]
    assert _one_change([line.removeprefix(f"{following.config}: ") for line in following.told])
    assert [v.name for v in following.store.versions()] == [*NAMES, "late"]


def _one_change(lines: list[str]) -> bool:
    """The lines of one edit taken: the late entrant, and its catch-up sets as a start tells them."""
    return lines[0] == "new entrant late" and all("to catch up" in line for line in lines[1:]) and len(lines) <= 2


# -- the store: a change made already is a no-op -----------------------------------------------------
def test_a_change_the_store_holds_already_is_a_no_op(following: Following) -> None:
    """A change worked out twice from the same pool (a restart between a change and its
    telling): the second is not made again, and the sets are not added twice."""
    store = following.store
    entries = [*read_bots(following.config), BotEntry(name="late", command=BOTS["first"])]
    change = pool_change(store.versions(), [e for e in entries if e.name != "heuristic"], "2026-12-03T10:00:00+00:00")
    again = pool_change(store.versions(), [e for e in entries if e.name != "heuristic"], "2026-12-03T10:00:05+00:00")
    store.change_pool(change, store.settings().games + 3)
    pool, games, sets = following.pool(), store.settings().games, store.sets()
    assert store.change_pool(again, games + 3) == []
    assert (following.pool(), store.settings().games, store.sets()) == (pool, games, sets)
    assert ("heuristic", "2026-12-03T10:00:00+00:00") in pool  # retired once, at the first change's time


def test_a_change_from_an_older_pool_that_names_another_bot_is_refused_whole(following: Following) -> None:
    store = following.store
    old = store.versions()
    entries = read_bots(following.config)
    store.change_pool(pool_change(old, [*entries, BotEntry(name="late", command="x")], "t1"), 2)
    before = following.pool()
    stale = pool_change(old, [*entries[:2], BotEntry(name="late", command="y")], "t2")  # also retires heuristic
    with pytest.raises(LadderError, match="version late is already in the ladder as another bot"):
        store.change_pool(stale, 2)
    assert following.pool() == before
