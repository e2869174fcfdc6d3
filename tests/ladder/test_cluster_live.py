"""A living ladder on a real local Dask cluster of two worker processes (issue 42, part 6): a
new bot the workers cannot run, or whose build line fails there, is refused by name and
retired while the others play on; a match in play on a worker is a table of ``/tables`` whose
log grows as it plays; a worker builds a bot once, again only when it changed, and removes the
sandboxed build copies no pending task lists; a killed worker's copies are gone once a worker
runs in its place; an upload taken while it runs plays from each worker's own copy of its
files (the coordinator's moved away), a broken one is refused with its reason; a season ends
and plays its final on the cluster as it does locally."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from referee.ladder.cluster import PRUNE_EVERY, ClusterRun
from referee.ladder.cluster_dask import local_cluster
from referee.ladder.cluster_worker import MatchDone, MatchTask, play_task
from referee.ladder.feed import LadderFeed
from referee.ladder.follow import PoolFollower
from referee.ladder.play import LadderPlan, RunOutput, play_ladder
from referee.ladder.runner import RunOptions
from referee.ladder.season import SeasonAsked
from referee.ladder.season_run import season_report
from referee.ladder.setup import logs_folder, open_ladder
from referee.ladder.upload_gate import UploadGate
from referee.ladder.uploads import files_of, playing, receive, uploads
from referee.match.config import MatchConfig
from referee.players.bot_config import BotEntry, read_bots
from referee.players.bot_content import with_content
from referee.rules import ruleset
from referee.sandbox.bwrap import SandboxMode
from referee.store.writer import LadderStore
from referee.web.ladder.tables import in_play
from tests.ladder.helpers import BOTS, PY, ROOT, bot_list, check_consistent
from tests.ladder.test_resume import done_count
from tests.ladder.test_season import START, stage_of
from tests.ladder.test_uploads import NOW, archive

pytest.importorskip("distributed", reason="Dask is in the test extra (pip install -e '.[test]')")
pytestmark = [pytest.mark.process, pytest.mark.xdist_group("cluster-two-workers")]

RULES = ruleset("american", {"end": "rounds", "rounds": 1})
HANG = 240
"""A hang guard, not a speed test: a loaded machine starts Dask's workers slowly."""
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A real scheduler with two worker processes, shared by this module's tests."""
    distributed = pytest.importorskip("distributed")
    with local_cluster(2) as cluster, distributed.Client(cluster) as dask_client:
        dask_client.wait_for_workers(2)
        yield dask_client


async def within_hang(call: Callable[[], Awaitable[object]]) -> None:
    with trio.fail_after(HANG):
        await call()


def write_list(folder: Path, bots: dict[str, tuple[str, str | None]], folders: Mapping[str, str] = {}) -> Path:
    """A bot list of ``name: (command, build line)``, some bots with a folder of their own
    (``folders``: a sandboxed build copies its bot's folder, the list's otherwise)."""
    path = folder / "bots.toml"
    text = ""
    for name, (command, build) in bots.items():
        text += f"[[bot]]\nname = {json.dumps(name)}\ncommand = {json.dumps(command)}\n"
        text += f"folder = {json.dumps(folders[name])}\n" if name in folders else ""
        text += f"build = {json.dumps(build)}\n\n" if build else "\n"
    path.write_text(text)
    return path


def living_ladder(
    folder: Path,
    client: Any,
    bots: dict[str, tuple[str, str | None]],
    games: int,
    told: list[str],
    *,
    config: MatchConfig | None = None,
    sandbox_mode: SandboxMode = "off",
    folders: Mapping[str, str] = {},
) -> tuple[LadderStore, ClusterRun, PoolFollower]:
    """A ladder run on the cluster as ``ladder run --cluster`` makes it, following its list."""
    listed = write_list(folder, bots, folders)
    entries = with_content(read_bots(listed), folder)
    db = folder / "ladder.db"
    store, _ = open_ladder(db, entries, RULES, games=games, seed=11, default_rules=ruleset("american"))
    logs_folder(db).mkdir(mode=0o700, exist_ok=True)
    feed = LadderFeed(store)
    options = RunOptions(logs=logs_folder(db), cwd=folder, config=config or MatchConfig())
    run = ClusterRun(
        store,
        RULES,
        entries,
        options,
        client=client,
        sandbox_mode=sandbox_mode,
        on_refused=told.append,
        feed=feed,
        window=2,
    )
    gate = UploadGate.of_run(sandbox_mode, sandboxed=sandbox_mode == "on", trusted=True, cluster=True)  # our own bots
    follower = PoolFollower(listed, folder, store, feed, run.commands, {}, None, (), told.append,
                            cluster_bots=run.bots, cluster_check=run.check, gate=gate)  # fmt: skip
    return store, run, follower


def rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_a_new_bot_no_worker_can_run_is_refused_by_name_and_the_others_play_on(tmp_path: Path, client: Any) -> None:
    good = {name: (BOTS["first"], None) for name in ("a", "b", "c")} | {"random": (BOTS["random"], None)}
    told: list[str] = []
    store, run, follower = living_ladder(tmp_path, client, good, 3, told)
    first_result = trio.Event()
    run.on_result = lambda record: first_result.set()

    async def edit_while_it_plays() -> None:
        await first_result.wait()
        write_list(tmp_path, {**good, "ghost": ("/no/such/program --play", None)})
        lines = await follower.look()
        assert "new entrant ghost" in lines

    async def main() -> None:
        with trio.fail_after(HANG):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(edit_while_it_plays)
                await run.run()
            await run.run()  # the sets drawn after the edit, if the first run ended before it was taken

    trio.run(main)
    refused = [line for line in told if line.startswith("bot ghost")]
    assert len(refused) == 1, told
    assert "/no/such/program" in refused[0] and "on worker" in refused[0]
    assert "the ladder goes on without it" in refused[0]
    ghost = next(v for v in store.versions() if v.name == "ghost")
    assert not ghost.active
    db = Path(store.path)
    store.close()
    closed, played = retired_and_played(db, "ghost", set(good))
    assert len(played) >= 2  # the sets in flight when the list changed, at least
    counts = check_consistent(db)
    assert len(played) + len(closed) == games_of(db)
    assert counts["total"] == counts["done"] + 4 * len(closed)  # a closed set's matches are never played


def test_a_new_bot_whose_build_fails_on_the_workers_is_refused_by_name_and_the_others_play_on(
    tmp_path: Path, client: Any
) -> None:
    good = {name: (BOTS["first"], None) for name in ("a", "b", "c", "d")}
    told: list[str] = []
    store, run, follower = living_ladder(tmp_path, client, good, 1, told)
    (tmp_path / "broken").mkdir()
    failing = "echo 'broken.c:1: error: expected a bot' >&2; exit 3"
    write_list(tmp_path, {**good, "broken": (BOTS["first"], failing)}, {"broken": "broken"})
    assert "new entrant broken" in trio.run(follower.look)  # a list's new bot: each worker checks it
    trio.run(within_hang, run.run)
    refused = [line for line in told if line.startswith("building broken failed")]
    assert len(refused) == 1, told  # retired at the first refusal: no worker is asked again
    first, *output = refused[0].splitlines()  # the line names it, its build's output follows
    assert "exited with code 3" in first and "on worker" in first and "the ladder goes on without it" in first
    assert first.endswith("set(s) seating it closed unfinished)")
    assert output == ["  | broken.c:1: error: expected a bot"]
    broken = next(v for v in store.versions() if v.name == "broken")
    assert not broken.active
    db = Path(store.path)
    store.close()
    retired_and_played(db, "broken", set(good))


def retired_and_played(db: Path, retired: str, good: set[str]) -> tuple[list[Any], list[Any]]:
    """The sets closed (each seating ``retired``) and those played (every match done, only
    ``good`` bots in the results): what a ladder that refused a bot and went on holds."""
    closed = rows(db, "SELECT bots FROM sets WHERE closed IS NOT NULL")
    assert closed and all(retired in json.loads(table) for (table,) in closed)
    played = rows(db, "SELECT set_index FROM sets WHERE closed IS NULL")
    assert played and check_consistent(db)["done"] == 4 * len(played)
    assert {bot for (bot,) in rows(db, "SELECT DISTINCT bot FROM results")} == good
    return closed, played


def games_of(db: Path) -> int:
    store = LadderStore(db)
    try:
        return store.settings().games
    finally:
        store.close()


def test_a_match_on_a_worker_is_a_table_whose_log_grows_as_it_plays(tmp_path: Path, client: Any) -> None:
    gate = tmp_path / "gate"
    step = f"{PY} {ROOT}/tests/bots/step_bot.py {gate} 1,5"
    bots = {"step": (step, None), "a": (BOTS["first"], None), "b": (BOTS["first"], None), "c": (BOTS["first"], None)}
    slow = MatchConfig(per_decision=120.0, bank=600.0)
    store, run, _ = living_ladder(tmp_path, client, bots, 1, [], config=slow)
    logs = run.options.logs
    seen: dict[str, bytes] = {}

    async def until(found: Callable[[], bool]) -> None:
        while not found():
            await trio.sleep(0.05)

    def tables() -> dict[str, bytes]:
        return {table.key: table.log.read_bytes() for table in in_play(store, logs)}

    async def watch() -> None:
        await until(lambda: any(b"play_request" in log for log in tables().values()))
        key, log = next((k, v) for k, v in tables().items() if b"play_request" in v)
        lines = log.decode().splitlines()
        assert json.loads(lines[0])["type"] == "header" and all(json.loads(line) for line in lines)
        seen["before"] = log
        (tmp_path / "gate-1").touch()  # its bot plays on, up to its fifth card
        await until(lambda: len(tables().get(key, b"")) > len(log))
        grown = tables()[key]
        assert grown.startswith(log)
        seen[key] = grown
        (tmp_path / "gate-5").touch()

    async def main() -> None:
        try:
            with trio.fail_after(HANG):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(watch)
                    await run.run()
        finally:  # whatever failed, no bot stays held on the module's workers
            for gate_file in ("gate-1", "gate-5"):
                (tmp_path / gate_file).touch()

    trio.run(main)
    (key,) = (k for k in seen if k != "before")
    assert in_play(store, logs) == []
    final = (logs / f"{key}.jsonl").read_bytes()  # the verified log took the watched one's place
    assert final.startswith(seen[key]) and len(final) > len(seen[key])
    assert sorted(p.name for p in logs.iterdir()) == [f"{m}.jsonl" for m in sorted(seen_keys(store))]
    store.close()


def seen_keys(store: LadderStore) -> list[str]:
    return [f"{row['set_index']:05d}-{row['rotation']}" for row in store.match_rows() if row["status"] == "done"]


def test_a_worker_builds_a_bot_once_and_again_only_when_it_changed(tmp_path: Path, client: Any) -> None:
    count = tmp_path / "builds"

    def built_as(label: str) -> str:
        return f"echo {label} $PPID >> {count}"  # $PPID: the worker process that ran the build

    bots = {name: (BOTS["first"], built_as(name)) for name in ("a", "b", "c", "d")}
    store, run, follower = living_ladder(tmp_path, client, bots, 2, [])
    trio.run(within_hang, run.run)
    before = count.read_text().split("\n")
    changed = {**bots, "a": (BOTS["first"], built_as("a2"))}  # another build line: version a@2
    write_list(tmp_path, changed)
    assert "new version a@2 of a (replaces a)" in trio.run(follower.look)
    trio.run(within_hang, run.run)
    builds = Counter(line for line in count.read_text().splitlines())
    assert max(builds.values()) == 1, builds  # no bot built twice by one worker
    by_bot = Counter(line.split()[0] for line in builds)
    assert set(by_bot) == {"a", "a2", "b", "c", "d"} and all(n <= 2 for n in by_bot.values()), by_bot
    workers_before = {line.split()[1] for line in before if line}
    assert all(f"{name} {pid}" in builds for name in "bcd" for pid in workers_before)
    assert check_consistent(Path(store.path))["done"] == 4 * 4  # 2 sets, then 2 for a@2
    store.close()


def worker_folders(client: Any) -> dict[str, Path]:
    """Each worker's own Dask directory, by its address: where its sandboxed builds' copies lie."""
    return {
        address: Path(folder) for address, folder in client.run(lambda dask_worker: dask_worker.local_directory).items()
    }


def build_copies(folders: Mapping[str, Path], label: str) -> dict[str, list[Path]]:
    """The copies of the builds of bot ``label`` (``@`` made ``_``) on each worker."""
    return {address: sorted(folder.glob(f"hearts-builds-*/{label}-*")) for address, folder in folders.items()}


@needs_bwrap
def test_a_worker_removes_the_build_copies_no_pending_task_lists(tmp_path: Path, client: Any) -> None:
    (tmp_path / "a").mkdir()
    bots = {"a": (BOTS["first"], "echo one > made")} | {name: (BOTS["first"], None) for name in "bcd"}
    store, run, follower = living_ladder(tmp_path, client, bots, 2, [], sandbox_mode="on", folders={"a": "a"})
    folders = worker_folders(client)
    trio.run(within_hang, run.run)
    first = build_copies(folders, "a")
    assert any(first.values()), first  # a sandboxed build writes a copy of its bot's folder
    assert all((copy / "made").read_text() == "one\n" for copies in first.values() for copy in copies)
    write_list(tmp_path, {**bots, "a": (BOTS["first"], "echo two > made")}, {"a": "a"})
    assert "new version a@2 of a (replaces a)" in trio.run(follower.look)
    time.sleep(max(0.0, run.pruned + PRUNE_EVERY - time.monotonic()))  # the coordinator's next look leaves a out
    trio.run(within_hang, run.run)
    second, left = build_copies(folders, "a_2"), build_copies(folders, "a")
    assert any(first[address] and second[address] for address in folders), (first, second)
    for address, copies in second.items():  # a worker that played a@2 holds a@2's copy and no longer a's
        assert not copies or (left[address] == [] and all(not copy.exists() for copy in first[address]))
    assert all((copy / "made").read_text() == "two\n" for copies in second.values() for copy in copies)
    assert check_consistent(Path(store.path))["done"] == 4 * 4  # 2 sets, then 2 for a@2
    store.close()


@needs_bwrap
def test_a_killed_workers_build_copies_are_gone_once_a_worker_runs_in_its_place(tmp_path: Path, client: Any) -> None:
    (tmp_path / "doomed").mkdir()
    bot = BotEntry(name="doomed", command=BOTS["first"], build="mkdir out && echo built > out/made", folder="doomed")
    task = MatchTask(
        set_index=-1, rotation=-1, seats=("doomed",), seed=0, rules=RULES, bots=[bot], cwd=str(tmp_path),
        config=MatchConfig(), sandbox_mode="on", check=True,
    )  # fmt: skip
    pids, folders = client.run(os.getpid), worker_folders(client)
    victim = sorted(pids)[0]
    done = client.submit(play_task, msgspec.json.encode(task), workers=[victim], pure=False).result(timeout=HANG)
    assert msgspec.json.decode(done, type=MatchDone).refused == {}
    [copy] = build_copies(folders, "doomed")[victim]  # its start-up check's build, kept for its matches
    assert (copy / "out" / "made").read_text() == "built\n"
    os.kill(pids[victim], signal.SIGKILL)  # no clean-up of its own runs
    deadline = time.monotonic() + HANG
    while victim in (workers := client.scheduler_info()["workers"]) or len(workers) < 2:
        assert time.monotonic() < deadline, "no worker took the killed one's place"
        time.sleep(0.1)
    assert not copy.exists() and not folders[victim].exists()


WHERE_BOT = """import os, sys
here = os.path.realpath(__file__)
if "ladder-uploads" in here:  # run from the coordinator's files: no worker may need them
    sys.exit(4)
with open(sys.argv[1], "a") as trail:
    trail.write(here + chr(10))
from first_legal_bot import play
play("alice")
"""


def test_an_upload_plays_on_both_workers_from_their_own_copy_and_a_broken_one_is_refused(
    tmp_path: Path, client: Any
) -> None:
    good = {name: (BOTS["first"], None) for name in ("a", "b", "c")} | {"random": (BOTS["random"], None)}
    told: list[str] = []
    store, run, follower = living_ladder(tmp_path, client, good, 2, told)
    db = Path(store.path)
    trail = tmp_path / "trail"
    first_result = trio.Event()
    run.on_result = lambda record: first_result.set()
    bot = {"bot.py": WHERE_BOT, "first_legal_bot.py": (ROOT / "tests/bots/first_legal_bot.py").read_text()}
    command = f"{PY} bot.py {trail}"

    async def upload_while_it_plays() -> None:
        await first_result.wait()
        receive(db, "alice", archive(bot), command=command, build=None, now=NOW)
        receive(db, "mallory", archive({"bot.py": "import sys\nsys.exit(3)\n"}), command=f"{PY} bot.py", build=None,
                now=NOW)  # fmt: skip
        lines = await follower.look()
        assert "new entrant alice" in lines
        files = files_of(db, playing(db)["alice"])
        files.rename(files.with_name("moved"))  # the coordinator's copy gone: the workers have theirs

    async def main() -> None:
        with trio.fail_after(HANG):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(upload_while_it_plays)
                await run.run()
            await run.run()  # the sets drawn for the newcomer, as a kept-running ladder plays them

    trio.run(main)
    alice, mallory = uploads(db)
    assert (alice.state, alice.version) == ("playing", "alice"), alice
    assert (
        mallory.state == "refused" and "failed its start-up check" in mallory.detail and "on worker" in mallory.detail
    )
    assert "mallory" not in {v.entrant for v in store.versions()} and "alice" in store.active()
    store.close()
    ran_from = set(trail.read_text().split())
    assert len(ran_from) == 2, ran_from  # each worker its own copy, named by the content hash
    assert all(f"/hearts-uploads/{alice.content}/bot.py" in path and "ladder-uploads" not in path for path in ran_from)
    played = rows(db, "SELECT COUNT(*) FROM results WHERE bot = 'alice'")[0][0]
    assert played >= 4, played
    assert check_consistent(db)["done"] == 4 * len(rows(db, "SELECT set_index FROM sets WHERE closed IS NULL"))


def test_a_season_on_the_cluster_stops_at_the_end_time_then_plays_its_final(tmp_path: Path, client: Any) -> None:
    config = bot_list(tmp_path, ["random", "heuristic", "first"])
    db = tmp_path / "season.db"

    def now() -> datetime:  # the end time passes once the first match is done
        return START + timedelta(hours=2 if done_count(db) >= 1 else 0)

    told: list[str] = []
    plan = LadderPlan(
        db=db, entries=read_bots(config), rules=None, default_rules=ruleset("american"), games=3, seed=11,
        concurrency=2, cwd=tmp_path, cluster=client.scheduler.address, bot_list=config,
        season=SeasonAsked(ends="+1h", final_top=2, final_sets=1), now=now,
    )  # fmt: skip
    result = play_ladder(plan, RunOutput(quiet=True, warn=told.append))
    store = LadderStore(db)
    try:
        statuses: dict[int, list[str]] = {}
        for row in store.match_rows():
            statuses.setdefault(row["set_index"], []).append(row["status"])
        # two sets in flight (one a worker) before the end: both whole; set 2 never began
        assert stage_of(store, "regular") == [0, 1, 2]
        assert statuses[0] == statuses[1] == ["done"] * 4 and statuses[2] == ["pending"] * 4
        season = store.season()
        assert season is not None and season.finalists is not None
        [final] = store.sets("final")
        assert set(final.table) == {f.bot for f in season.finalists} and statuses[final.index] == ["done"] * 4
        report = season_report(store, now())
        assert report is not None and report.state == "over" and report.order is not None
    finally:
        store.close()
    assert result.played == 12 and told[-1].startswith("the season ended at 2026-03-01T13:00:00+00:00: the final")
    assert check_consistent(db) == {"done": 12, "total": 16}
