"""Ladders on a real local Dask cluster (issue 16): every match played by a worker, verified
and recorded once by the coordinator; a tampered result refused with its reason; a result
that arrives twice recorded once; a worker killed mid-match and its match run again; the
coordinator killed with SIGKILL and resumed without re-running a finished match."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import msgspec
import pytest
import trio
from click.testing import CliRunner

from referee.cli import main
from referee.ladder.cluster import ClusterRun
from referee.ladder.cluster_check import ResultRefused, check_result
from referee.ladder.cluster_dask import local_cluster
from referee.ladder.cluster_uploads import UploadNotCarried, WorkerUploads, pack_files
from referee.ladder.cluster_worker import MatchDone, MatchTask, play_task
from referee.ladder.runner import RunOptions
from referee.ladder.setup import logs_folder, open_ladder
from referee.ladder.uploads import files_of, receive
from referee.match.config import MatchConfig
from referee.players.bot_config import read_bots
from referee.rules import ruleset
from referee.store.writer import LadderStore
from tests.ladder.helpers import ROOT, bot_list, check_consistent
from tests.ladder.test_resume import done_count, result_rows, wait_for
from tests.ladder.test_uploads import archive

pytest.importorskip("distributed", reason="Dask is in the test extra (pip install -e '.[test]')")

SHORT = ["--set", "end=rounds", "--set", "rounds=1"]
RULES = ruleset("american", {"end": "rounds", "rounds": 1})


def new_store(tmp_path: Path, names: list[str], games: int = 2) -> tuple[LadderStore, Path]:
    config = bot_list(tmp_path, names)
    db = tmp_path / "ladder.db"
    store, _ = open_ladder(db, read_bots(config), RULES, games=games, seed=5, default_rules=ruleset("american"))
    logs_folder(db).mkdir(mode=0o700, exist_ok=True)
    return store, db


def task_for(store: LadderStore, index: int = 0) -> tuple[MatchTask, object]:
    match = store.pending()[index]
    bots = read_bots(str(Path(store.path).parent / "bots.toml"))
    task = MatchTask(
        set_index=match.set_index,
        rotation=match.rotation,
        seats=match.seats,
        seed=match.seed,
        rules=store.settings().rules,
        bots=bots,
        cwd=str(ROOT),
        config=MatchConfig(),
        sandbox_mode="auto",
    )
    return task, match


@pytest.mark.process
def test_a_ladder_on_a_local_cluster_plays_verifies_and_records_every_match(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "heuristic"])
    db = tmp_path / "ladder.db"
    result = CliRunner().invoke(
        main,
        ["ladder", "run", str(config), "--db", str(db), "--games", "2", "--seed", "3", *SHORT, "--cluster", "local:2"],
    )
    assert result.exit_code == 0, result.output
    assert "8 of 8 matches" in result.output and "sandboxed" in result.output
    counts = check_consistent(db)
    assert counts == {"done": 8, "total": 8}
    logs = sorted(logs_folder(db).glob("*.jsonl"))
    assert len(logs) == 8
    for log in logs:
        assert oct(log.stat().st_mode & 0o777) == "0o600"
        verified = CliRunner().invoke(main, ["replay", str(log), "--verify"])
        assert verified.exit_code == 0 and "verified" in verified.output, verified.output


@pytest.mark.process
def test_a_tampered_result_is_refused_with_its_reason(tmp_path: Path) -> None:
    store, _ = new_store(tmp_path, ["random", "heuristic"])
    task, match = task_for(store)
    done = msgspec.json.decode(play_task(msgspec.json.encode(task)), type=MatchDone)
    assert done.error is None and done.outcome is not None
    commands = dict(store.bots())
    path = tmp_path / "m.jsonl"
    good = check_result(match, RULES, commands, done, path)  # type: ignore[arg-type]
    assert good.reason == done.outcome.reason and [s.bot for s in good.seats] == list(task.seats)

    lines = done.log.decode().splitlines()
    header = json.loads(lines[0])

    def with_log(new_lines: list[str]) -> MatchDone:
        return msgspec.structs.replace(done, log=("\n".join(new_lines) + "\n").encode())

    other_seed = [json.dumps({**header, "seed": str(int(header["seed"]) + 1)}), *lines[1:]]
    swapped = dict(header, seats=[dict(s, command="python3 evil.py") for s in header["seats"]])
    play_at = next(i for i, line in enumerate(lines) if '"type":"recv"' in line and '\\"play\\"' in line)
    recv = json.loads(lines[play_at])
    card = json.loads(recv["line"])["card"]
    recv["line"] = recv["line"].replace(card, "2H" if card != "2H" else "3H")
    cheat = [*lines[:play_at], json.dumps(recv), *lines[play_at + 1 :]]
    wrong_score = msgspec.structs.replace(
        done, outcome=msgspec.structs.replace(done.outcome, scores=[s + 1 for s in done.outcome.scores])
    )
    cases = {
        "seed": with_log(other_seed),
        "seating": with_log([json.dumps(swapped), *lines[1:]]),
        "does not verify": with_log(cheat),
        "does not agree": wrong_score,
        "cut off": msgspec.structs.replace(done, log=done.log[:-1]),
        "is for match": msgspec.structs.replace(done, rotation=done.rotation + 1),
    }
    for reason, tampered in cases.items():
        with pytest.raises(ResultRefused, match=reason):
            check_result(match, RULES, commands, tampered, path)  # type: ignore[arg-type]


@pytest.mark.process
def test_a_result_that_arrives_twice_is_recorded_once(tmp_path: Path) -> None:
    store, db = new_store(tmp_path, ["random", "heuristic"])
    task, match = task_for(store)
    value = play_task(msgspec.json.encode(task))
    run = ClusterRun(store, RULES, task.bots, RunOptions(logs=logs_folder(db)), client=None, sandbox_mode="auto")
    assert run._accept(match, value) is None  # type: ignore[arg-type]
    assert run._accept(match, value) is None  # type: ignore[arg-type]
    assert run.summary.played == 1
    rows = [r for r in result_rows(db) if (r[0], r[1]) == (task.set_index, task.rotation)]
    assert len(rows) == 4


@pytest.mark.process
def test_a_worker_killed_mid_match_has_its_match_played_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    store, db = new_store(tmp_path, ["first", "heuristic"], games=3)
    bots = read_bots(str(tmp_path / "bots.toml"))
    killed: list[int] = []
    scratch, temporary = tmp_path / "scratch", tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))  # the workers' temporary folder: this test's own
    with (
        local_cluster(2, local_directory=str(scratch)) as cluster,
        distributed.Client(cluster) as client,
    ):

        def kill_a_busy_worker(record: object) -> None:
            if killed:
                return
            busy = [addr for addr, tasks in client.processing().items() if tasks]
            pids = client.run(os.getpid)
            if busy:
                killed.append(pids[busy[0]])
                os.kill(pids[busy[0]], signal.SIGKILL)

        run = ClusterRun(
            store,
            RULES,
            bots,
            RunOptions(logs=logs_folder(db), cwd=ROOT),
            client=client,
            sandbox_mode="auto",
            on_result=kill_a_busy_worker,
        )
        trio.run(run.run)
    assert killed, "no worker was busy when the first result came in"
    assert check_consistent(db) == {"done": 12, "total": 12}
    assert len(result_rows(db)) == 12 * 4
    assert len(list(logs_folder(db).glob("*.jsonl"))) == 12
    # the killed worker's match folder is in its own scratch space (Dask purges it), not in /tmp
    assert list(temporary.glob("hearts-match-*")) == []
    assert all(scratch in folder.parents for folder in scratch.rglob("hearts-match-*"))


@pytest.mark.process
def test_the_coordinator_killed_with_sigkill_resumes_without_replaying(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "ladder.db"
    command = [
        sys.executable, "-c", "from referee.cli import main; main()", "ladder", "run", str(config), "--db", str(db),
        "--games", "3", "--seed", "9", *SHORT, "--cluster", "local:1", "--quiet",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        # a hang guard, not a speed test: a loaded machine starts Dask's workers slowly
        wait_for(lambda: done_count(db) >= 2 or process.poll() is not None, timeout=300)
        assert process.poll() is None, "the run ended before it could be killed: " + process.communicate()[1].decode()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    finally:
        _kill_group(process.pid)
    kept = result_rows(db)
    assert 2 * 4 <= len(kept) < 12 * 4
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert check_consistent(db) == {"done": 12, "total": 12}
    assert result_rows(db)[: len(kept)] == kept  # the finished matches were not played again


def _kill_group(pid: int) -> None:
    """The killed coordinator's local workers (its process group) go too, as on a crash."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    time.sleep(0.2)


@pytest.mark.process
def test_a_local_cluster_serves_its_routes_on_a_free_loopback_port(recwarn: pytest.WarningsRecorder) -> None:
    """Dask's scheduler serves health and metrics routes even with no dashboard, on port 8787
    unless told: with the port taken (another ladder, another test), it warned and moved. Ours
    listens on a free port of the loopback, whatever holds 8787."""
    pytest.importorskip("distributed")
    with contextlib.ExitStack() as stack:
        holder = stack.enter_context(socket.socket())
        with contextlib.suppress(OSError):  # something else may hold it already: the same case
            holder.bind(("127.0.0.1", 8787))
            holder.listen()
        cluster = stack.enter_context(local_cluster(1))
        bound = [sock.getsockname() for sock in cluster.scheduler.http_server._sockets.values()]
    assert bound and all(host == "127.0.0.1" and port != 8787 for host, port in bound), bound
    assert not [w for w in recwarn if "already in use" in str(w.message)]


def test_bad_cluster_addresses_are_usage_errors(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "heuristic"])
    for address in ("local:0", "local:x", "host:8786", "tcp://nohost", "http://h:1"):
        db = str(tmp_path / "x.db")
        result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", db, "--cluster", address])
        assert result.exit_code == 2 and "--cluster" in result.output, (address, result.output)


@pytest.mark.process
def test_a_bot_a_worker_cannot_run_is_a_named_error_not_a_hung_ladder(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "ghost"], ghost="/no/such/program --play")
    db = tmp_path / "ladder.db"
    result = CliRunner().invoke(
        main,
        ["ladder", "run", str(config), "--db", str(db), "--games", "1", *SHORT, "--cluster", "local:1", "--quiet"],
    )
    assert result.exit_code == 1, result.output
    assert "bot ghost" in result.output and "on worker" in result.output and "/no/such/program" in result.output
    assert check_consistent(db)["done"] == 0


@pytest.mark.process
def test_bench_cluster_reports_the_overhead_per_match() -> None:
    result = CliRunner().invoke(main, ["bench", "cluster", "--matches", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output.strip().splitlines()[-1])
    assert data["matches"] == 1 and data["direct_ms"] > 0 and data["dask_ms"] > 0
    assert data["overhead_ms"] == pytest.approx(data["dask_ms"] - data["direct_ms"], abs=0.2)
    assert data["result_bytes"] > 1000 and data["check_ms"] > 0


def cheating_worker(task_bytes: bytes) -> bytes:
    """Plays the match, then (the first time for each match, as the marker file says) claims a
    better score for seat 0 than the log shows."""
    value = play_task(task_bytes)
    task = msgspec.json.decode(task_bytes, type=MatchTask)
    marker = Path(os.environ["CHEAT_DIR"]) / f"{task.set_index}-{task.rotation}"
    if marker.exists():
        return value
    marker.touch()
    done = msgspec.json.decode(value, type=MatchDone)
    assert done.outcome is not None
    scores = [done.outcome.scores[0] - 5, *done.outcome.scores[1:]]
    return msgspec.json.encode(
        msgspec.structs.replace(done, outcome=msgspec.structs.replace(done.outcome, scores=scores))
    )


@pytest.mark.process
def test_a_cheating_worker_is_refused_and_its_matches_played_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import the tests
    monkeypatch.setenv("CHEAT_DIR", str(tmp_path))
    store, db = new_store(tmp_path, ["random", "heuristic"], games=1)
    refused: list[str] = []
    with (
        local_cluster(1) as cluster,
        distributed.Client(cluster) as client,
    ):
        run = ClusterRun(
            store,
            RULES,
            read_bots(str(tmp_path / "bots.toml")),
            RunOptions(logs=logs_folder(db), cwd=ROOT),
            client=client,
            sandbox_mode="auto",
            on_refused=refused.append,
            play=cheating_worker,
        )
        trio.run(run.run)
    assert len(refused) == 4 and all("does not agree with its verified log" in r for r in refused), refused
    assert check_consistent(db) == {"done": 4, "total": 4}
    assert len(result_rows(db)) == 16


@pytest.mark.process
def test_a_changed_pool_plays_on_the_cluster_with_its_new_versions(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "heuristic"])
    db = tmp_path / "ladder.db"
    first = ["ladder", "run", str(config), "--db", str(db), "--games", "1", "--seed", "3", *SHORT, "--quiet"]
    assert CliRunner().invoke(main, [*first, "--cluster", "local:1"]).exit_code == 0
    # a new version of random (another command line) and a late entrant
    config = bot_list(
        tmp_path, ["random", "heuristic", "first"], random=f"{sys.executable} {ROOT}/sample_bots/python/random_bot.py x"
    )
    again = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(db), *SHORT, "--quiet",
                                      "--cluster", "local:1"])  # fmt: skip
    assert again.exit_code == 0, again.output
    seated = {bot for (bot,) in result_rows_of(db, "SELECT DISTINCT bot FROM results")}
    assert {"random", "random@2", "first", "heuristic"} <= seated
    check_consistent(db)


def result_rows_of(db: Path, query: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_an_uploads_files_reach_a_worker_as_the_same_tree_or_the_bot_is_refused(tmp_path: Path) -> None:
    """The coordinator's pack of an upload (``cluster_uploads.pack_files``) unpacks on a worker
    to the tree it was, its content hash the upload's (one lone folder, an empty folder and
    an executable bit kept); bytes that are not the upload's are refused, never used."""
    db = tmp_path / "l.db"
    tree = io.BytesIO()
    with tarfile.open(fileobj=tree, mode="w") as tar:
        for name in ("top/", "top/top/", "top/top/empty/"):  # "top" is the archive's wrapper, "top/top" the bot's
            tar.addfile(_folder(name))
        script = tarfile.TarInfo("top/top/run.sh")
        script.size, script.mode = 3, 0o755
        tar.addfile(script, io.BytesIO(b"hi\n"))
    kept = receive(db, "alice", tree.getvalue(), command="sh top/run.sh", build=None, now="2026-01-01T00:00:00+00:00")
    assert kept.state == "received" and kept.content is not None
    folder = files_of(db, kept)
    packed = pack_files(folder)
    assert packed == pack_files(folder)  # the same tree, the same bytes
    copies = WorkerUploads()
    copy = copies.folder(kept.content, packed, tmp_path / "worker")
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*")) == ["top", "top/empty", "top/run.sh"]
    assert os.access(copy / "top" / "run.sh", os.X_OK)
    other = receive(db, "bob", archive({"bot.py": "x"}), command="python3 bot.py", build=None, now=kept.received)
    assert other.content is not None
    with pytest.raises(UploadNotCarried, match="content hash"):
        copies.folder(other.content, packed, tmp_path / "worker")  # bytes that are not bob's
    with pytest.raises(UploadNotCarried, match="could not pack"):
        copies.folder("0" * 64, "the coordinator could not pack its files: gone", tmp_path / "worker")
    (folder / "link").symlink_to("/etc/passwd")
    with pytest.raises(UploadNotCarried, match="link: not a folder or a regular file"):
        pack_files(folder)
    copies.remove(kept.content, {})
    assert not copy.exists()


def _folder(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name.rstrip("/"))
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    return info
