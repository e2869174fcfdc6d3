"""A control group per bot (referee.sandbox.cgroups): with real processes where this machine
lets us make groups (root), the kernel's bounds on a whole bot (memory written to a memfd or a
tmpfs, a fork bomb of setsid children, CPU of busy children), freezing and killing all; with
fake cgroup trees (v2 and v1), exactly which files get which values, and symlinks refused."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.sandbox import cgroups
from referee.sandbox.cgroups import BotGroup, BotGroupLimits, CgroupError, CgroupHost, Unavailable, detect
from referee.sandbox.reaper import guard

PY = sys.executable
MIB = 1024 * 1024


# --- real processes -------------------------------------------------------------------------


@pytest.fixture
def host() -> Iterator[CgroupHost]:
    if os.geteuid() != 0:
        pytest.skip("making control groups needs root")
    found = detect()
    if isinstance(found, Unavailable):
        pytest.skip(f"control groups are unavailable here: {found.reason}")
    try:
        yield found
    finally:
        found.close()


def start(group: BotGroup, argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start ``argv`` inside ``group`` the way the referee's spawn code should."""
    join = group.preexec()
    try:
        return subprocess.Popen(argv, preexec_fn=join, **options)  # noqa: PLW1509
    finally:
        group.close_join_fds()


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie holds no resources)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def stop(group: BotGroup, *processes: subprocess.Popen[bytes]) -> None:
    group.kill_all()
    for process in processes:
        process.kill()
        process.wait(timeout=5)


@pytest.mark.process
def test_a_memfd_beyond_the_memory_bound_is_oom_killed(host: CgroupHost) -> None:
    group = host.create("memfd", BotGroupLimits(memory_mb=64))
    code = "import os\nfd = os.memfd_create('x')\nchunk = b'x' * (1 << 20)\nfor _ in range(200): os.write(fd, chunk)"
    child = start(group, [PY, "-c", code])
    try:
        assert child.wait(timeout=20) == -9  # SIGKILL from the kernel's OOM killer
        assert group.exceeded() == "memory"
        assert os.getpid() not in group.pids()  # the referee is outside: it lives on
        peak = group.memory_peak_mb()
        assert peak is None or peak <= 64
    finally:
        stop(group, child)


@pytest.mark.process
def test_a_tmpfs_file_beyond_the_memory_bound_is_oom_killed(host: CgroupHost) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    target = shm / f"cgroup-test-{uuid.uuid4().hex}"
    group = host.create("shm", BotGroupLimits(memory_mb=64))
    child = start(group, ["sh", "-c", f"head -c 200M /dev/zero > {target}"])
    try:
        assert child.wait(timeout=20) != 0
        assert group.exceeded() == "memory"
        assert target.stat().st_size < 100 * MIB
    finally:
        stop(group, child)
        target.unlink(missing_ok=True)


@pytest.mark.process
def test_a_fork_bomb_of_setsid_children_stops_at_the_process_bound(host: CgroupHost) -> None:
    group = host.create("forks", BotGroupLimits(processes=16))
    code = (
        "import subprocess, sys, time\nmade = 0\nfor _ in range(50):\n"
        "    try:\n        subprocess.Popen(['setsid', 'sleep', '30'])\n        made += 1\n"
        "    except OSError:\n        pass\nprint(made, flush=True)\ntime.sleep(30)"
    )
    child = start(group, [PY, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        made = int(child.stdout.readline())
        assert made < 16  # the child itself is one of the 16
        assert group.exceeded() == "processes"
        inside = group.pids()
        assert child.pid in inside
        assert len(inside) <= 16
        group.kill_all()
        assert not group.pids()
        assert not [pid for pid in inside if running(pid)]
    finally:
        stop(group, child)


@pytest.mark.process
def test_cpu_time_of_busy_children_stays_under_the_quota(host: CgroupHost) -> None:
    group = host.create("spin", BotGroupLimits(cpu_cores=0.5))
    spin = "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end: pass"
    code = (
        "import subprocess, sys\n"
        f"for p in [subprocess.Popen(['setsid', sys.executable, '-c', {spin!r}]) for _ in range(4)]: p.wait()"
    )
    began = time.monotonic()
    child = start(group, [PY, "-c", code])
    try:
        assert child.wait(timeout=20) == 0
        wall = time.monotonic() - began
        used = group.cpu_seconds()
        # the quota caps it whatever the load: 0.5 s per wall second (+ a period or two of slack)
        assert 0 < used <= 0.5 * wall + 0.3, (used, wall)
    finally:
        stop(group, child)


@pytest.mark.process
def test_a_frozen_bot_stops_and_runs_again_when_thawed(host: CgroupHost, tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    code = (
        "import os, sys, time\nn = 0\nwhile True:\n    n += 1\n"
        "    with open(sys.argv[1] + '.tmp', 'w') as f: f.write(str(n))\n"
        "    os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n    time.sleep(0.001)"
    )
    group = host.create("counter", BotGroupLimits())
    child = start(group, [PY, "-c", code, str(counter)])

    def moves(within: float) -> bool:
        first = counter.read_text() if counter.exists() else ""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if counter.exists() and counter.read_text() != first:
                return True
            time.sleep(0.01)
        return False

    try:
        assert moves(10)
        group.freeze()
        assert not moves(0.3)
        group.thaw()
        assert moves(10)
    finally:
        group.thaw()
        stop(group, child)


@pytest.mark.process
def test_remove_and_close_leave_no_folder(host: CgroupHost) -> None:
    first = host.create("../same/name", BotGroupLimits())
    second = host.create("../same/name", BotGroupLimits())
    assert first.name != second.name  # uniquified
    for group in (first, second):
        for controller, folder in group.folders.items():
            assert folder.parent == host.bases[controller]  # no way out of our folder
            assert folder.is_dir()
    child = start(first, ["sleep", "30"])
    try:
        first.remove()  # a live process inside: killed, then removed
        first.remove()  # idempotent
        assert not [f for f in first.paths if f.exists()]
        assert child.wait(timeout=5) == -9
    finally:
        stop(first, child)
    host.close()
    assert not [f for f in second.paths if f.exists()]
    assert not [b for b in host.bases.values() if b.exists()]
    host.close()  # idempotent


# --- fake trees -----------------------------------------------------------------------------

V2_NOT_ON_ROOT = {
    "cgroup": "type events freeze kill",
    "memory": "max swap.max oom.group events peak",
    "pids": "max events",
    "cpu": "max weight stat",
}
"""The files of a v2 group that the root has not (by controller: ``memory`` -> ``memory.max``...)."""


KILLED_REFEREE = """
import os, subprocess, sys
from referee.sandbox.cgroups import detect
from referee.sandbox.reaper import guard
host = detect()
guard(host)
for name, frozen in (("awake", False), ("frozen", True)):
    group = host.create(name)
    join = group.preexec()
    subprocess.Popen(["bash", "-c", f"setsid bash -c 'exec -a {sys.argv[1]}-{name} sleep 300' & wait"], preexec_fn=join)
    group.close_join_fds()
    while len(group.pids()) < 2:
        pass
    if frozen:
        group.freeze()
print(" ".join(str(p) for p in host.bases.values()), flush=True)
os.kill(os.getpid(), 9)
"""


@pytest.mark.process
def test_a_referee_killed_by_sigkill_takes_its_groups_along(host: CgroupHost) -> None:
    """No clean-up runs in a process killed by SIGKILL: its reaper kills the setsid children
    it left in its groups, a frozen group's too (thawed first, or they could never die), and
    removes the folders."""
    title = f"reaped-{uuid.uuid4().hex[:10]}"
    done = subprocess.run([PY, "-c", KILLED_REFEREE, title], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == -9, done.stderr
    bases = {Path(p) for p in done.stdout.split()}
    deadline = time.monotonic() + 10
    while (left := _titled(title)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == [], "a killed referee's bots outlived it"
    while any(base.exists() for base in bases) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(base.exists() for base in bases)


def _titled(title: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", f"^{title}-"], capture_output=True, text=True, check=False)
    return found.stdout.split()


@pytest.mark.process
def test_a_closed_host_ends_its_reaper(host: CgroupHost) -> None:
    reaper = guard(host)
    assert reaper.pid is not None and running(reaper.pid)
    pid = reaper.pid
    host.close()
    assert not running(pid)


@pytest.fixture
def fake_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """mkdir fills a new folder with (empty) interface files, as cgroupfs does: the parent's,
    plus v2's non-root ones; rmdir removes a folder with its files but no sub-folder."""

    def mkdir(path: Path) -> None:
        os.mkdir(path)
        names = {e.name for e in os.scandir(path.parent) if e.is_file(follow_symlinks=False)}
        if "cgroup.controllers" in names:
            names.update(f"{c}.{n}" for c, files in V2_NOT_ON_ROOT.items() for n in files.split())
        for name in names:
            (path / name).write_text("")

    def rmdir(path: Path) -> None:
        if not path.exists() and not path.is_symlink():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        if path.is_symlink() or not path.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", str(path))
        if any(e.is_dir() for e in os.scandir(path)):
            raise OSError(errno.EBUSY, "Device or resource busy", str(path))
        for entry in os.scandir(path):
            os.unlink(entry.path)
        os.rmdir(path)

    monkeypatch.setattr(cgroups, "_mkdir", mkdir)
    monkeypatch.setattr(cgroups, "_rmdir", rmdir)


def lay_out(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def written(folder: Path) -> dict[str, str]:
    """The files of a fake group something was written to (the fake kernel makes them empty)."""
    return {e.name: Path(e.path).read_text() for e in os.scandir(folder) if e.is_file() and Path(e.path).read_text()}


def dead_pid() -> int:
    pid = 4_000_000
    while running(pid):
        pid -= 1
    return pid


V2_ROOT = {"cgroup.controllers": "cpuset cpu io memory pids\n", "cgroup.subtree_control": "", "cgroup.procs": "1\n"}
LIMITS = BotGroupLimits(memory_mb=64, processes=16, cpu_cores=0.5)
V2_LIMITS = {
    "memory.max": str(64 * MIB),
    "memory.swap.max": "0",
    "memory.oom.group": "1",
    "pids.max": "16",
    "cpu.max": "50000 100000",
    "cpu.weight": "100",
}


@pytest.mark.usefixtures("fake_kernel")
def test_v2_at_the_true_root_writes_the_limits(tmp_path: Path) -> None:
    lay_out(tmp_path, V2_ROOT)
    stale = tmp_path / f"hearts-referee-{dead_pid()}"
    lay_out(stale / "bot-x", {})
    found = detect(tmp_path, "0::/\n", pid=4242)
    assert isinstance(found, CgroupHost)
    assert found.version == 2
    assert not stale.exists()  # a dead referee's empty folders are swept
    base = tmp_path / "hearts-referee-4242"
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    assert written(base) == {"cgroup.subtree_control": "+cpu +memory +pids"}
    assert not (tmp_path / "referee-4242").exists()  # the true root may hold processes

    group = found.create("seat 1", LIMITS)
    folder = base / "bot-seat_1"
    assert group.paths == [folder]
    assert written(folder) == V2_LIMITS

    join = group.preexec()
    join()  # what the child does between fork and exec
    group.close_join_fds()
    assert (folder / "cgroup.procs").read_text() == "0"

    (folder / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n")
    assert group.cpu_seconds() == 1.5
    (folder / "memory.peak").write_text(f"{128 * MIB}\n")
    assert group.memory_peak_mb() == 128
    assert group.exceeded() is None
    (folder / "pids.events").write_text("max 2\n")
    assert group.exceeded() == "processes"
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 40\noom 1\noom_kill 1\noom_group_kill 1\n")
    assert group.exceeded() == "memory"

    (folder / "cgroup.events").write_text("populated 1\nfrozen 1\n")
    group.freeze()
    assert (folder / "cgroup.freeze").read_text() == "1"
    (folder / "cgroup.events").write_text("populated 1\nfrozen 0\n")
    group.thaw()
    assert (folder / "cgroup.freeze").read_text() == "0"
    with pytest.raises(CgroupError, match="not frozen"):
        group.freeze(timeout=0.05)

    found.weigh(1000)  # --tables-cpu-weight: every bot together against the machine's other work
    assert (base / "cpu.weight").read_text() == "1000"

    (folder / "cgroup.events").write_text("populated 0\nfrozen 0\n")
    found.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == []


@pytest.mark.parametrize("own", ["user.slice/app.scope", ""])
@pytest.mark.usefixtures("fake_kernel")
def test_v2_below_the_root_moves_the_referee_into_a_leaf(tmp_path: Path, own: str) -> None:
    lay_out(tmp_path, V2_ROOT)
    folder = tmp_path / own
    lay_out(folder, {**V2_ROOT, "cgroup.type": "domain\n", "cgroup.procs": "4242\n"})  # "": a cgroup namespace
    found = detect(tmp_path, f"0::/{own}\n", pid=4242)
    assert isinstance(found, CgroupHost)
    leaf, base = folder / "referee-4242", folder / "hearts-referee-4242"
    assert (leaf / "cgroup.procs").read_text() == "4242"
    assert (folder / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    assert (base / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    group = found.create("seat", LIMITS)
    assert written(base / "bot-seat") == V2_LIMITS
    assert group.folders["memory"].parent == base  # a sibling of the referee's leaf

    (folder / "cgroup.subtree_control").write_text("cpu memory pids\n")  # as the kernel shows it
    found.close()
    assert (folder / "cgroup.subtree_control").read_text() == "-cpu -memory -pids"
    assert (folder / "cgroup.procs").read_text() == "4242"  # moved back
    assert not leaf.exists()
    assert not base.exists()


@pytest.mark.usefixtures("fake_kernel")
def test_a_dead_referees_frozen_leftovers_are_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A referee and its reaper both killed (one ``pkill -9``): the next referee thaws and kills
    what they left, then removes the folders (here the fake kernel's processes never leave)."""
    lay_out(tmp_path, V2_ROOT)
    stale = tmp_path / f"hearts-referee-{dead_pid()}"
    lay_out(stale / "bot-x", {"cgroup.freeze": "1", "cgroup.procs": "31337\n31338\n"})
    killed: list[tuple[int, int, str]] = []
    frozen = stale / "bot-x" / "cgroup.freeze"
    monkeypatch.setattr(cgroups.os, "kill", lambda pid, sig: killed.append((pid, sig, frozen.read_text())))
    monkeypatch.setattr(cgroups.time, "sleep", lambda _: None)
    assert isinstance(detect(tmp_path, "0::/\n", pid=4242), CgroupHost)
    assert killed == [(31337, signal.SIGKILL, "0"), (31338, signal.SIGKILL, "0")]  # thawed first
    assert not stale.exists()


@pytest.mark.usefixtures("fake_kernel")
def test_v2_unavailable_says_why(tmp_path: Path) -> None:
    lay_out(tmp_path, V2_ROOT)
    lay_out(tmp_path / "shared", {**V2_ROOT, "cgroup.procs": "4242\n77\n"})
    lay_out(tmp_path / "nopids", {**V2_ROOT, "cgroup.controllers": "cpu memory\n"})
    crowded = detect(tmp_path, "0::/shared\n", pid=4242)
    assert isinstance(crowded, Unavailable)
    assert "other processes" in crowded.reason
    assert not (tmp_path / "shared" / "referee-4242").exists()
    missing = detect(tmp_path, "0::/nopids\n", pid=4242)
    assert isinstance(missing, Unavailable)
    assert "pids" in missing.reason
    nothing = detect(tmp_path / "absent", "1:cpu:/\n", pid=4242)
    assert isinstance(nothing, Unavailable)


V1_FILES = {
    "cpu": "cgroup.procs cpu.cfs_period_us cpu.cfs_quota_us cpu.shares",
    "cpuacct": "cgroup.procs cpuacct.usage",
    "memory": "cgroup.procs memory.limit_in_bytes memory.memsw.limit_in_bytes memory.oom_control "
    "memory.use_hierarchy memory.max_usage_in_bytes memory.failcnt memory.kmem.tcp.limit_in_bytes",
    "pids": "cgroup.procs pids.max pids.events",
    "freezer": "cgroup.procs freezer.state",
}


@pytest.mark.parametrize("joint", [False, True])
@pytest.mark.usefixtures("fake_kernel")
def test_v1_writes_the_limits_in_each_hierarchy(tmp_path: Path, joint: bool) -> None:
    own = {"memory": "process_api/abc"}
    mounts = {c: "cpu,cpuacct" if joint and c.startswith("cpu") else c for c in V1_FILES}
    for controller, names in V1_FILES.items():
        lay_out(tmp_path / mounts[controller] / own.get(controller, ""), dict.fromkeys(names.split(), ""))
    cpu_lines = "2:cpu,cpuacct:/\n" if joint else "2:cpuacct:/\n1:cpu:/\n"
    text = f"9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/process_api/abc\n{cpu_lines}0::/\n"
    found = detect(tmp_path, text, pid=4242)
    assert isinstance(found, CgroupHost)
    assert found.version == 1
    group = found.create("seat", LIMITS)
    at = {c: tmp_path / m / own.get(c, "") / "hearts-referee-4242" / "bot-seat" for c, m in mounts.items()}
    assert group.folders == at
    assert len(group.paths) == (4 if joint else 5)
    assert written(at["memory"]) == {
        "memory.limit_in_bytes": str(64 * MIB),
        "memory.memsw.limit_in_bytes": str(64 * MIB),
        "memory.oom_control": "0",
        "memory.kmem.tcp.limit_in_bytes": str(64 * MIB),  # else v1 counts a bot's TCP buffers nowhere
    }
    assert written(at["cpu"]) == {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "50000", "cpu.shares": "1024"}
    assert written(at["pids"]) == {"pids.max": "16"}
    assert written(at["freezer"]) == {}

    join = group.preexec()
    join()
    group.close_join_fds()
    assert all((folder / "cgroup.procs").read_text() == "0" for folder in group.paths)

    (at["cpuacct"] / "cpuacct.usage").write_text("2500000000\n")
    assert group.cpu_seconds() == 2.5
    (at["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 0\n")
    (at["pids"] / "pids.events").write_text("max 3\n")
    assert group.exceeded() == "processes"
    (at["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    assert group.exceeded() == "memory"
    group.freeze()
    assert (at["freezer"] / "freezer.state").read_text() == "FROZEN"
    group.thaw()
    assert (at["freezer"] / "freezer.state").read_text() == "THAWED"

    found.weigh(1000)  # --tables-cpu-weight: every bot together against the machine's other work
    assert (at["cpu"].parent / "cpu.shares").read_text() == "10240"
    with pytest.raises(CgroupError, match="invalid CPU weight"):
        found.weigh(0)

    for folder in group.paths:
        (folder / "cgroup.procs").write_text("")
    found.close()
    assert not [p for p in tmp_path.rglob("*referee-4242*")]


@pytest.mark.usefixtures("fake_kernel")
def test_a_planted_symlink_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cg"
    lay_out(root, V2_ROOT)
    decoy = tmp_path / "decoy"
    lay_out(decoy, {"cgroup.freeze": "untouched", "memory.max": "untouched", "cgroup.events": "frozen 1\n"})
    found = detect(root, "0::/\n", pid=4242)
    assert isinstance(found, CgroupHost)

    group = found.create("bot", LIMITS)
    folder = group.paths[0]
    (folder / "cgroup.freeze").unlink()
    (folder / "cgroup.freeze").symlink_to(decoy / "cgroup.freeze")
    with pytest.raises(CgroupError, match=r"cgroup\.freeze: a symlink"):
        group.freeze()
    assert (decoy / "cgroup.freeze").read_text() == "untouched"

    for name in os.listdir(folder):  # the whole folder replaced by a symlink
        os.unlink(folder / name)
    folder.rmdir()
    folder.symlink_to(decoy)
    with pytest.raises(CgroupError, match="symlink"):
        group.freeze()
    assert (decoy / "cgroup.freeze").read_text() == "untouched"
    folder.unlink()

    plain = cgroups._mkdir

    def planting(path: Path) -> None:  # a symlink where the limit goes, as the group is made
        plain(path)
        if path.name.startswith("bot-"):
            (path / "memory.max").unlink()
            (path / "memory.max").symlink_to(decoy / "memory.max")

    monkeypatch.setattr(cgroups, "_mkdir", planting)
    with pytest.raises(CgroupError, match=r"memory\.max: a symlink"):
        found.create("other", LIMITS)
    assert (decoy / "memory.max").read_text() == "untouched"
    assert not (root / "hearts-referee-4242" / "bot-other").exists()  # rolled back
    found.close()


@pytest.mark.process  # this process's host starts its reaper
def test_tables_cpu_weight_weighs_this_referees_real_host() -> None:
    """``--tables-cpu-weight`` sets the weight of the folder that holds every bot's group, on
    this machine's real hierarchy (the option's callback is ``weigh_tables``)."""
    from referee.sandbox.groups import bot_groups, weigh_tables  # noqa: PLC0415 - this process's host

    found = bot_groups()
    if isinstance(found, Unavailable):
        pytest.skip(f"control groups are unavailable here: {found.reason}")
    name = "cpu.shares" if found.version == 1 else "cpu.weight"
    try:
        weigh_tables(500)
        assert (found.bases["cpu"] / name).read_text().strip() == ("5120" if found.version == 1 else "500")
    finally:
        weigh_tables(100)  # as made: the default
    assert (found.bases["cpu"] / name).read_text().strip() == ("1024" if found.version == 1 else "100")
