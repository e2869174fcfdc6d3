"""The sandbox against a cheating bot (tests/bots/attacker_bot.py), with real processes and
`referee match` run as its own process: the bot cannot read the referee's command line,
environment, open files or log, cannot see or stop its neighbours, cannot share a file or a
port with a second bot, finds nothing of an earlier match, and leaves no process behind (not
even when the referee is killed); every honest seat ends `ok`. Python, Node, C and a JVM bot
run inside it."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from referee.sandbox.bwrap import FIRST_UID, Sandbox, choose_sandbox

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
GOOD = f"{PY} {ROOT}/tests/bots/first_legal_bot.py"
ATTACKER = f"{PY} {ROOT}/tests/bots/attacker_bot.py"

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]


def referee(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "referee.cli", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def attacks(log: Path) -> dict[int, list[dict[str, Any]]]:
    """What each seat's attacker reported (from the stderr kept in the log)."""
    found: dict[int, list[dict[str, Any]]] = {}
    for entry in map(json.loads, log.read_text().splitlines()):
        if entry["type"] == "stderr":
            found[entry["seat"]] = [
                json.loads(line[len("ATTACK ") :]) for line in entry["text"].splitlines() if line.startswith("ATTACK ")
            ]
    return found


def lingering(marker: str) -> list[str]:
    done = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True, check=False)
    return [line for line in done.stdout.splitlines() if "pgrep" not in line and "pytest" not in line]


def bots(marker: str) -> list[str]:
    """The processes titled with ``marker`` but the referee (its command line names it too)."""
    return [line for line in lingering(marker) if "referee.cli" not in line]


def gone(marker: str, seconds: float = 10.0) -> bool:
    """Whether every process titled with ``marker`` has ended (polled, bounded)."""
    deadline = time.monotonic() + seconds
    while lingering(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def one_round(*bots: str, log: Path, extra: tuple[str, ...] = (), **kw: Any) -> dict[str, Any]:
    done = referee(
        "match",
        "--json",
        "--sandbox",
        "on",
        "--set",
        "end=rounds",
        "--set",
        "rounds=1",
        "--log",
        str(log),
        *extra,
        *bots,
        **kw,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_bot_cannot_read_the_referees_command_line_environment_files_or_log(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    seed = "271828182845904523536028747135266249"
    secret = f"SECRET-{marker}"
    log = tmp_path / "match.jsonl"
    (tmp_path / "secrets").write_text(f"{seed}|{secret}")
    tmp_path.chmod(0o755)  # the bot's folder must be open to the bot's own uid (pytest makes it 0700)
    # the bare path makes the sandbox show the bot that one file (its folder is under /tmp: shared)
    spy = f"{ATTACKER} snoop {marker} log={log} secrets={tmp_path / 'secrets'} {tmp_path / 'secrets'}"
    extra = ("--seed", seed, "--bot-cwd", str(tmp_path))
    result = one_round(spy, GOOD, GOOD, GOOD, log=log, extra=extra, env={"REFEREE_SECRET": secret})
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    (snoop,) = attacks(log)[0]
    assert snoop["found"] == [], snoop  # neither the seed nor the referee's environment
    assert snoop["log_bytes"] == 0  # the log is hidden even inside the bot's own folder
    assert snoop["pids"] <= 3  # bwrap's init, the bot, nothing else
    assert log.stat().st_mode & 0o777 == 0o600


def test_a_bot_cannot_see_or_stop_its_neighbours(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    log = tmp_path / "match.jsonl"
    result = one_round(f"{ATTACKER} signal {marker}", GOOD, f"{ATTACKER} signal {marker}b", GOOD, log=log)
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    reports = attacks(log)
    for seat in (0, 2):
        (signalled,) = reports[seat]
        assert signalled["stopped"] == 0, signalled  # it sees only its sandbox's init, which is not its to stop


@pytest.mark.parametrize("loopback", [False, True], ids=["unix-only", "loopback"])
def test_two_bots_cannot_share_a_file_or_a_port(tmp_path: Path, loopback: bool) -> None:
    """Without ``--sandbox-loopback`` a bot cannot open a TCP socket at all (EAFNOSUPPORT);
    with it, it listens on its own loopback, which no other bot reaches."""
    marker = uuid.uuid4().hex[:12]
    port = str(20000 + int(marker[:4], 16) % 20000)
    log = tmp_path / "match.jsonl"
    result = one_round(
        f"{ATTACKER} share {marker} port={port}",
        GOOD,
        f"{ATTACKER} look {marker}-b peer={marker} port={port}",
        GOOD,
        log=log,
        extra=("--sandbox-loopback",) if loopback else (),
    )
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    reports = attacks(log)
    (shared,) = [r for r in reports[0] if r["attack"] == "share"]
    assert shared["wrote"] and shared["listening"] is loopback  # it did its part, in its own sandbox
    if not loopback:
        (refused,) = [r for r in reports[0] if r["attack"] == "share_listen_error"]
        assert "Address family not supported" in refused["error"], refused
    (looked,) = reports[2]
    assert looked["found"] == [] and looked["connected"] is False, looked
    assert not list(Path("/tmp").glob(f"share-{marker}"))  # nothing reached the real /tmp


def test_nothing_survives_from_an_earlier_match(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    for name in ("first.jsonl", "second.jsonl"):
        log = tmp_path / name
        result = one_round(f"{ATTACKER} remember {marker}", GOOD, GOOD, GOOD, log=log)
        assert result["seats"][0]["status"] == "ok"
        (remembered,) = attacks(log)[0]
        assert remembered["found"] == [], remembered


def test_a_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    log = tmp_path / "match.jsonl"
    result = one_round(f"{ATTACKER} linger {marker}", GOOD, GOOD, GOOD, log=log)
    assert result["seats"][0]["status"] == "ok"
    (lingered,) = attacks(log)[0]
    assert lingered["started"] == 2
    assert gone(marker), lingering(marker)


@pytest.mark.parametrize("when", ["starting", "lingering"])
def test_a_killed_referee_leaves_no_sandboxed_process(tmp_path: Path, when: str) -> None:
    """Killed as the sandbox starts (before bubblewrap arms its own parent-death signal: the
    gate's covers it) or once the bot's lingerers are up."""
    marker = uuid.uuid4().hex[:12]
    slow = f"{PY} {ROOT}/tests/bots/hostile_bot.py sleep {marker}"  # never answers a play request
    process = subprocess.Popen(
        [
            PY,
            "-m",
            "referee.cli",
            "match",
            "--sandbox",
            "on",
            "--time-per-move",
            "60",
            "--time-bank",
            "0",
            f"{ATTACKER} linger {marker}",
            slow,
            GOOD,
            GOOD,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    up = ("bwrap",) if when == "starting" else (f"linger-{marker}", f"linger2-{marker}")
    deadline = time.monotonic() + 30
    while not all(any(u in line for line in bots(marker)) for u in up) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bots(marker), "the bots never started"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert gone(marker), lingering(marker)


def test_bots_run_under_their_own_unprivileged_uid(tmp_path: Path) -> None:
    sandbox = choose_sandbox("on", lambda _: None)
    assert sandbox is not None
    if not sandbox.privileged:
        pytest.skip("the referee is not root: bots keep its uid inside a user namespace")
    tmp_path.chmod(0o755)
    probe = tmp_path / "probe.py"
    probe.write_text("import os; print(os.getuid(), os.getgid(), os.getgroups(), open('/proc/self/status').read())")
    launch = sandbox.wrap([PY, str(probe)], str(tmp_path), sandbox.environment(None))
    done = subprocess.run(
        launch.argv, capture_output=True, text=True, check=False, timeout=30, pass_fds=launch.pass_fds
    )
    assert done.returncode == 0, done.stderr
    uid, gid, *_ = done.stdout.split(maxsplit=2)
    assert int(uid) >= FIRST_UID and int(gid) >= FIRST_UID
    assert "CapEff:\t0000000000000000" in done.stdout
    assert "NoNewPrivs:\t1" in done.stdout


def test_the_environment_is_clean(tmp_path: Path) -> None:
    sandbox = Sandbox(bwrap=shutil.which("bwrap") or "bwrap", privileged=os.geteuid() == 0)
    env = sandbox.environment({"MY_SETTING": "1"})
    launch = sandbox.wrap(["env"], str(tmp_path), env)
    leaky = {**os.environ, "LEAK": "x"}
    done = subprocess.run(
        launch.argv, capture_output=True, text=True, check=False, timeout=30, env=leaky, pass_fds=launch.pass_fds
    )
    assert done.returncode == 0, done.stderr
    names = {line.partition("=")[0] for line in done.stdout.splitlines()}
    assert names - {"PWD"} == {"PATH", "HOME", "LANG", "TMPDIR", "MY_SETTING"}  # bwrap sets PWD to the folder


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(f"{PY} sample_bots/python/heuristic_bot.py", id="python"),
        pytest.param("node sample_bots/javascript/bot.js", id="node"),
        pytest.param("sample_bots/c/bot", id="c"),
        pytest.param("java tests/bots/java/Bot.java", id="jvm"),
    ],
)
def test_each_language_plays_inside_the_sandbox(command: str, tmp_path: Path) -> None:
    program = command.split(maxsplit=1)[0]
    if shutil.which(program) is None and not (ROOT / program).exists():
        pytest.skip(f"{program} is not here")
    if program == "java" and not (ROOT / "tests/bots/java/Bot.java").exists():
        pytest.skip("no Java test bot")
    if program == "sample_bots/c/bot":
        subprocess.run(["make", "-s", "-C", "sample_bots/c"], cwd=ROOT, check=True)
    log = tmp_path / "match.jsonl"
    result = one_round(command, GOOD, GOOD, GOOD, log=log, extra=("--startup", "30"))
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4, log.read_text()[-2000:]


def test_a_crash_is_seen_at_once_even_with_a_setsid_child_holding_stdout(tmp_path: Path) -> None:
    """Outside a sandbox the child keeps the pipe open and the crash looks like a silent bot
    (a timeout); inside, the bot's end ends its whole PID namespace."""
    marker = uuid.uuid4().hex[:12]
    log = tmp_path / "match.jsonl"
    crasher = f"{PY} {ROOT}/tests/bots/hostile_bot.py setsid_child {marker}"
    result = one_round(crasher, GOOD, GOOD, GOOD, log=log, extra=("--time-per-move", "30", "--time-bank", "0"))
    assert [s["status"] for s in result["seats"]] == ["crash", "ok", "ok", "ok"]
    assert gone(marker), lingering(marker)


def run_inside(tmp_path: Path, script: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a shell script as a sandboxed bot would run (the script is named, so it is seen)."""
    sandbox = choose_sandbox("on", lambda _: None)
    assert sandbox is not None
    tmp_path.chmod(0o755)
    path = tmp_path / "probe.sh"
    path.write_text(script)
    path.chmod(0o644)
    launch = sandbox.wrap(["sh", str(path)], str(cwd or tmp_path), sandbox.environment(None))
    try:
        return subprocess.run(
            launch.argv, capture_output=True, text=True, check=False, timeout=30, pass_fds=launch.pass_fds
        )
    finally:
        launch.close()


def test_keyrings_and_new_user_namespaces_are_refused(tmp_path: Path) -> None:
    """The kernel keyrings outlive a bot's processes (a note from one match to the next, or to
    another bot) and a user namespace hands a bot every capability in it: both are refused."""
    done = run_inside(
        tmp_path,
        f'{PY} -c "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); '
        "print('add_key', libc.syscall(248, b'user', b'note', b'x', 1, -4), ctypes.get_errno()); "
        "print('keyctl', libc.syscall(250, 0, -4, 0), ctypes.get_errno())\"; "
        "unshare -U true; echo unshare=$?",
    )
    assert "add_key -1 1" in done.stdout and "keyctl -1 1" in done.stdout, done.stdout + done.stderr  # EPERM
    assert "unshare=1" in done.stdout


def test_file_watches_are_refused(tmp_path: Path) -> None:
    """inotify, fanotify and dnotify (fcntl F_NOTIFY) tell one bot at once what another does to
    a file both see (a channel of 56 kbit/s between two bots through a file in /usr): refused
    with ENOSYS. Outside the sandbox the same calls work (the probe itself is sound)."""
    script = (
        f'{PY} -c "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); '
        "fd = libc.inotify_init1(0); print('inotify_init1', fd, ctypes.get_errno()); "
        "print('add_watch', libc.inotify_add_watch(fd, b'/usr/bin', 1), ctypes.get_errno()); "
        "print('inotify_init', libc.syscall(253), ctypes.get_errno()); "
        "print('fanotify_init', libc.fanotify_init(0, 0), ctypes.get_errno()); "
        "d = os.open('/usr/bin', os.O_RDONLY); "
        "print('dnotify', libc.fcntl(d, 1026, 0x80000001), ctypes.get_errno())\""
    )
    done = run_inside(tmp_path, script)
    lines = done.stdout.splitlines()
    expected = ["inotify_init1 -1 38", "add_watch -1 38", "inotify_init -1 38", "fanotify_init -1 38", "dnotify -1 38"]
    assert lines == expected, done.stdout + done.stderr
    outside = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False, timeout=30)
    assert not outside.stdout.startswith("inotify_init1 -1"), outside.stdout + outside.stderr


def test_file_locks_do_nothing_inside(tmp_path: Path) -> None:
    """A lock on a file two bots both see (in /usr) is a channel of 5,000 bit/s between them:
    inside, flock and fcntl's lock commands succeed without locking, so a second process
    always gets the lock; outside, the same script finds it taken."""
    script = (
        f'{PY} -c "import fcntl, os, struct, subprocess, sys; '
        "fd = os.open('/usr/bin/env', os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
        "fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack('hh4xqqi4x', fcntl.F_RDLCK, 0, 0, 0, 0)); "
        "probe = ('import fcntl, os, struct; fd = os.open(\\'/usr/bin/env\\', os.O_RDONLY); '"
        " 'got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(\\'hh4xqqi4x\\', fcntl.F_WRLCK, 0, 0, 0, 0)); '"
        " 'fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); print(\\'flock free\\', flush=True); '"
        " 'print(\\'posix\\', struct.unpack(\\'hh4xqqi4x\\', got)[0])'); "
        "subprocess.run([sys.executable, '-c', probe])\""
    )
    inside = run_inside(tmp_path, script)
    assert inside.stdout.splitlines() == ["flock free", f"posix {fcntl.F_UNLCK}"], inside.stdout + inside.stderr
    outside = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False, timeout=30)
    assert "flock free" not in outside.stdout and "BlockingIOError" in outside.stderr, outside.stdout + outside.stderr


def test_the_referees_folder_and_shared_folders_are_not_seen_whole(tmp_path: Path) -> None:
    """A Unix socket in a folder the bot sees is a way out of its network namespace (a read-only
    mount does not stop connect): the referee's folder and /tmp are never bound whole, only the
    bot's own folder."""
    other = tmp_path / "other"
    other.mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(other / "host.sock"))
    server.listen(1)
    bot = tmp_path / "bot"
    bot.mkdir()
    bot.chmod(0o755)
    try:
        done = run_inside(
            bot,
            f"ls {tmp_path}; ls /tmp; ls; ls {bot}; "
            f"{PY} -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{other}/host.sock')\" "
            "&& echo CONNECTED",
            cwd=ROOT,
        )
    finally:
        server.close()
    assert "CONNECTED" not in done.stdout, done.stdout
    seen = done.stdout.split()
    assert "bot" in seen and "probe.sh" in seen  # its own folder (and the folders leading to it)
    assert "other" not in seen and "host.sock" not in seen
    assert "sample_bots" not in seen  # the referee's folder (its cwd here) is not shown whole


def test_a_bot_run_from_tmp_does_not_see_tmp(tmp_path: Path) -> None:
    done = run_inside(tmp_path, "ls /tmp", cwd=Path("/tmp"))
    # only the folders leading to what it was given: its script, and the bot kit when the
    # referee itself lives in /tmp (a clone for CI, say)
    leading = {tmp_path.parts[2]} | ({ROOT.parts[2]} if ROOT.parts[1] == "tmp" else set())
    assert set(done.stdout.split()) <= leading, done.stdout


def test_the_sandbox_init_shows_no_map_of_the_machine(tmp_path: Path) -> None:
    done = run_inside(tmp_path, "tr '\\000' ' ' < /proc/1/cmdline")
    assert "--ro-bind" not in done.stdout and "--setenv" not in done.stdout, done.stdout
    assert "--args" in done.stdout


ENGINE_BOT = """
import json, sys
sys.path.insert(0, {root!r})
from protocol.bot import Bot, main
report = {{}}
try:
    import random
    import referee.rules
    from referee.rules.sampling import sample_round
    round_ = referee.rules.Match(referee.rules.ruleset("american"), 1).next_round()
    world = sample_round(round_.deck, referee.rules.seat_view(round_, 0), random.Random(1))
    report["engine"] = referee.rules.__file__
    report["world_cards"] = sum(map(int.bit_count, world.hands))
except Exception as err:
    report["engine"] = repr(err)
try:
    report["log_bytes"] = len(open({log!r}, "rb").read())
except OSError as err:
    report["log_bytes"] = 0
    report["log_error"] = type(err).__name__
sys.stderr.write("ENGINE " + json.dumps(report) + "\\n")

class First(Bot):
    name = "engine-user"
    def choose_pass(self, state, request):
        return request.legal[: request.count]
    def choose_play(self, state, request):
        return request.legal[0]

raise SystemExit(main(First))
"""


def test_a_bot_can_import_the_rules_engine_but_not_read_the_log(tmp_path: Path) -> None:
    """The referee package is shown read-only (``ENGINE``) so a bot can search with
    ``referee.rules``; the match log stays out of reach."""
    tmp_path.chmod(0o755)
    log = tmp_path / "match.jsonl"
    bot = tmp_path / "engine_bot.py"
    bot.write_text(ENGINE_BOT.format(root=str(ROOT), log=str(log)))
    bot.chmod(0o644)
    result = one_round(f"{PY} {bot}", GOOD, GOOD, GOOD, log=log)
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    (stderr,) = [json.loads(e) for e in log.read_text().splitlines() if '"stderr"' in e and '"seat":0' in e]
    (line,) = [x for x in stderr["text"].splitlines() if x.startswith("ENGINE ")]
    report = json.loads(line[len("ENGINE ") :])
    assert report["engine"] == str(ROOT / "referee" / "rules" / "__init__.py"), report
    assert report["world_cards"] == 52
    assert report["log_bytes"] == 0, report


def test_a_bot_that_needs_no_folder_starts_in_a_neutral_one(tmp_path: Path) -> None:
    """A bot named by its absolute path learns nothing of the folder the referee runs in (its
    ``PWD`` named it); one named relatively keeps the folder it needs."""
    secret = tmp_path / "final-of-the-secret-cup"
    secret.mkdir(mode=0o755)
    done = run_inside(tmp_path, 'pwd; echo "PWD=$PWD"; ls -a', cwd=secret)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["/home/bot", "PWD=/home/bot"]
    assert "secret" not in done.stdout
    sandbox = choose_sandbox("on", lambda _: None)
    assert sandbox is not None
    (tmp_path / "probe.sh").rename(secret / "probe.sh")
    launch = sandbox.wrap(["sh", "probe.sh"], str(secret), sandbox.environment(None))
    try:
        kept = subprocess.run(
            launch.argv, capture_output=True, text=True, check=False, timeout=30, pass_fds=launch.pass_fds
        )
    finally:
        launch.close()
    assert kept.stdout.splitlines()[:2] == [str(secret), f"PWD={secret}"], kept.stderr


KERNEL_PROBE = """
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
def call(name, *args):
    got = libc.syscall(*args)
    print(name, got if got >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
for family in ("AF_NETLINK", "AF_PACKET", "AF_INET", "AF_INET6", "AF_UNIX"):
    try:
        socket.socket(getattr(socket, family), socket.SOCK_DGRAM).close()
        print(family, "ok")
    except OSError as err:
        print(family, errno.errorcode[err.errno])
class Iov(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
page = ctypes.create_string_buffer(4096)
iov = Iov(ctypes.cast(page, ctypes.c_void_p), 4096)
fd = os.open("/usr/bin/env", os.O_RDONLY)
call("preadv2 RWF_NOWAIT", 327, fd, ctypes.byref(iov), 1, 0, 0, 8)
call("preadv2", 327, fd, ctypes.byref(iov), 1, 0, 0, 0)
call("fadvise DONTNEED", 221, fd, 0, 0, 4)
call("readahead", 187, fd, 0, 4096)
call("cachestat", 451, fd, ctypes.byref((ctypes.c_uint64 * 2)(0, 0)), ctypes.byref((ctypes.c_uint64 * 8)()), 0)
mapped = libc.mmap(None, 4096, 1, 1, fd, 0)
call("mincore", 27, ctypes.c_void_p(mapped), 4096, ctypes.byref((ctypes.c_ubyte * 1)()))
call("io_uring_setup", 425, 4, ctypes.byref((ctypes.c_ubyte * 120)()))
call("io_setup", 206, 4, ctypes.byref(ctypes.c_ulong(0)))
call("userfaultfd", 323, 1)
call("bpf", 321, 0, 0, 0)
call("perf_event_open", 298, 0, 0, -1, -1, 0)
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe names x86-64 system call numbers")
def test_kernel_objects_outside_the_group_and_page_cache_state_are_refused(tmp_path: Path) -> None:
    """Issue 31: a bot's empty network namespace still let it open any socket family (3 GiB of
    netlink replies queued outside its group), and two bots (or a bot and the next match's)
    passed every bit of a deal through a read-only file's page cache (clear with fadvise,
    read with RWF_NOWAIT). Inside: only Unix sockets, advice does nothing, the cache's state
    cannot be read, and io_uring, AIO, userfaultfd, BPF and perf counters are not there.
    Outside, the same probe gets further (the probe itself is sound)."""
    (tmp_path / "probe.py").write_text(KERNEL_PROBE)
    (tmp_path / "probe.py").chmod(0o644)
    inside = run_inside(tmp_path, f"{PY} {tmp_path}/probe.py")
    got = dict(line.rsplit(" ", 1) for line in inside.stdout.splitlines())
    assert got == {
        "AF_NETLINK": "EAFNOSUPPORT",
        "AF_PACKET": "EAFNOSUPPORT",
        "AF_INET": "EAFNOSUPPORT",
        "AF_INET6": "EAFNOSUPPORT",
        "AF_UNIX": "ok",
        "preadv2 RWF_NOWAIT": errno.errorcode[errno.EOPNOTSUPP],  # ENOTSUP: the same number
        "preadv2": "4096",
        "fadvise DONTNEED": "0",
        "readahead": "0",
        "cachestat": "ENOSYS",
        "mincore": "ENOSYS",
        "io_uring_setup": "ENOSYS",
        "io_setup": "ENOSYS",
        "userfaultfd": "ENOSYS",
        "bpf": "ENOSYS",
        "perf_event_open": "ENOSYS",
    }, inside.stdout + inside.stderr
    outside = subprocess.run([PY, str(tmp_path / "probe.py")], capture_output=True, text=True, check=False, timeout=30)
    seen = dict(line.rsplit(" ", 1) for line in outside.stdout.splitlines())
    assert seen["AF_NETLINK"] == "ok" and seen["AF_INET"] == "ok", outside.stdout + outside.stderr
    assert seen["preadv2 RWF_NOWAIT"] not in ("EOPNOTSUPP", "ENOSYS") and seen["mincore"] == "0"


def test_a_bot_trying_the_kernel_plays_on_and_its_match_verifies(tmp_path: Path) -> None:
    """The attacks of issue 31 from a seat of a real match: refused, the seat still plays, every
    seat ends ``ok`` and the log verifies move by move."""
    log = tmp_path / "match.jsonl"
    result = one_round(f"{ATTACKER} kernel k{uuid.uuid4().hex[:8]}", GOOD, GOOD, GOOD, log=log)
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    (tried,) = attacks(log)[0]
    assert tried["opened"] == {
        "AF_NETLINK": "Address family not supported by protocol",
        "AF_INET": "Address family not supported by protocol",
        "AF_UNIX": "ok",
    }, tried
    assert tried["nowait"] == "Operation not supported", tried
    verified = referee("replay", "--verify", str(log))
    assert verified.returncode == 0, verified.stdout + verified.stderr
