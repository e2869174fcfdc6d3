"""A control group per bot: one bound on the memory, processes and CPU of the whole bot.

Resource limits (``setrlimit``) count per process: a bot that forks, ``setsid``s or double forks
gets a fresh allowance in every child, a ``memfd`` or ``/dev/shm`` file escapes ``RLIMIT_AS``, and
the CPU time of children nobody waits for is never counted. A control group counts every process
the bot ever makes: children start in their parent's group and cannot leave it without write
access to the root-owned cgroup files. A bot is put in its group *before* its program runs
(``BotGroup.place``, while its process waits at the spawner's gate); a build joins between fork
and exec (``BotGroup.preexec``).

- **v1 / hybrid**: ``cpu``, ``cpuacct``, ``memory``, ``pids``, ``freezer`` are hierarchies of their
  own under ``ROOT/<controllers>`` (``cpu,cpuacct`` when joint). In each, a bot's group is
  ``<the referee's own cgroup there>/hearts-referee-<pid>/bot-<name>``; the referee stays put.
- **v2 (unified)**: a group holds processes or enables controllers for children, not both (the
  true root excepted). So unless its own cgroup ``<own>`` is the true root, the referee moves into
  the leaf ``<own>/referee-<pid>`` (refused when ``<own>`` holds other processes), then enables
  ``+cpu +memory +pids`` in ``<own>`` and in ``<own>/hearts-referee-<pid>``, whose children
  ``bot-<name>`` are the bots' groups (the referee's memory never counts against a bot).

Files are opened with ``O_NOFOLLOW`` in a folder opened with ``O_NOFOLLOW``: a planted symlink
makes an error, never a write elsewhere. Empty folders of referees that died (SIGKILL allows no
clean-up) are removed by the next ``detect``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.errors import RefereeError

ROOT: Final = Path("/sys/fs/cgroup")
PERIOD_US: Final = 100_000
"""The CFS period: the quota of ``cpu_cores`` cores is ``cpu_cores * PERIOD_US`` per period."""
V1_CONTROLLERS: Final = ("cpu", "cpuacct", "memory", "pids", "freezer")
V2_CONTROLLERS: Final = ("cpu", "memory", "pids")
PREFIX: Final = "hearts-referee-"
WARNING: Final = (
    "warning: control groups are not available: a bot's memory, processes and CPU are bounded "
    "per process only (a forking bot can exceed them)"
)
_STALE: Final = re.compile(r"(?:hearts-)?referee-(\d+)(?:\.\d+)?")
_hosts_made: dict[tuple[Path, int], int] = {}
"""Hosts made so far by (root, pid): a second host in one process gets folders of its own
(``hearts-referee-PID.2``), so that closing one never removes another's."""
_MIB: Final = 1024 * 1024


class CgroupError(RefereeError):
    """A control group could not be made, changed, read or removed (the message names the file)."""


TCP_BYTES = 64 * 1024 * 1024
"""On cgroup v1, a bot's TCP buffers (only a bot allowed its loopback, or one not sandboxed,
has TCP at all), beside its memory: v1 counts them apart and only for a group with this limit
written; without it 312 MiB of one bot's loopback buffers came from the host's pool. On v2
socket buffers count in ``memory.current``, within ``memory.max``."""


@dataclass(frozen=True)
class BotGroupLimits:
    """The bounds of one bot, all its processes together. ``cpu_cores`` is bandwidth (1.0: one
    core's worth of time per period, however many threads); ``cpu_weight`` is the share when
    bots compete for a busy machine, equal for every bot (v2 scale; v1 ``cpu.shares`` is
    ``cpu_weight * 1024 / 100``)."""

    memory_mb: int = 1024
    processes: int = 512
    cpu_cores: float = 1.0
    cpu_weight: int = 100

    def __post_init__(self) -> None:
        if self.memory_mb < 1 or self.processes < 1 or self.cpu_cores <= 0 or not 1 <= self.cpu_weight <= 10_000:
            raise CgroupError(f"invalid control group limits: {self}")

    @property
    def quota_us(self) -> int:
        return max(1000, round(self.cpu_cores * PERIOD_US))  # the kernel refuses less than 1 ms


@dataclass(frozen=True)
class Unavailable:
    """Why no control groups can be made here (one line, for a warning or a refusal)."""

    reason: str


def _mkdir(path: Path) -> None:
    """Make a cgroup folder (the kernel fills it with its files). A seam for tests' fake trees."""
    os.mkdir(path, 0o755)


def _rmdir(path: Path) -> None:
    """Remove a cgroup folder (allowed with its files in it, once no process is inside)."""
    os.rmdir(path)


def _fail(path: Path, what: str, err: OSError) -> CgroupError:
    why = "a symlink (not followed)" if err.errno in (errno.ELOOP, errno.ENOTDIR) else err.strerror
    return CgroupError(f"cannot {what} {path}: {why}")


def _open(path: Path, flags: int) -> int:
    """``path`` opened without following a symlink in its last two parts (raises ``OSError``)."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    finally:
        os.close(folder)


def _io(path: Path, data: bytes | None, missing_ok: bool) -> str | None:
    """Read a cgroup file (``data`` None) or write ``data`` to it; ``None`` when it does not
    exist and ``missing_ok`` (an optional file, or a group already removed)."""
    try:
        fd = _open(path, os.O_RDONLY if data is None else os.O_WRONLY | os.O_TRUNC)
        try:
            if data is not None:
                os.write(fd, data)
                return ""
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            return b"".join(chunks).decode("ascii", errors="replace")
        finally:
            os.close(fd)
    except OSError as err:
        if missing_ok and err.errno == errno.ENOENT:
            return None
        raise _fail(path, "read" if data is None else f"write {data.decode()!r} to", err) from err


def _write(path: Path, value: object, optional: bool = False) -> bool:
    """Write ``value`` to a cgroup file; ``False`` when ``optional`` and it does not exist."""
    return _io(path, str(value).encode(), optional) is not None


def _read(path: Path, missing: str | None = None) -> str:
    """A cgroup file's text; ``missing`` when given and the file (or its folder) is gone."""
    text = _io(path, None, missing is not None)
    return text if text is not None else missing or ""


def _keyed(text: str) -> dict[str, int]:
    """``key value`` lines (``memory.events``, ``cpu.stat``...) as a dict."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        with contextlib.suppress(ValueError):
            found[key] = int(value)
    return found


def _rmtree(path: Path) -> None:
    """Remove a cgroup folder and its sub-folders, bottom up, as far as they are empty."""
    with contextlib.suppress(OSError):
        for entry in list(os.scandir(path)):
            if entry.is_dir(follow_symlinks=False):
                _rmtree(Path(entry.path))
        _rmdir(path)


def _end_stale(path: Path) -> None:
    """Kill what a dead referee left in its folders (its reaper gone too: a ``pkill -9`` that
    named both), thawing a frozen group first: a frozen process dies only once thawed."""
    for folder, _, _ in os.walk(path):
        here = Path(folder)
        with contextlib.suppress(OSError):
            _write(here / "freezer.state", "THAWED", optional=True)
            _write(here / "cgroup.freeze", 0, optional=True)
        for pid in _read(here / "cgroup.procs", missing="").split():
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)


def _sweep(parent: Path, pid: int) -> None:
    """Remove the folders of referees that died without cleaning up, killing what is left in
    them (a folder that stays busy is tried again by the next referee)."""
    with contextlib.suppress(OSError):
        for entry in list(os.scandir(parent)):
            match = _STALE.fullmatch(entry.name)
            if (
                match
                and int(match[1]) != pid
                and entry.is_dir(follow_symlinks=False)
                and not Path(f"/proc/{match[1]}").exists()
            ):
                _end_stale(Path(entry.path))
                for _ in range(10):  # the killed leave within milliseconds
                    _rmtree(Path(entry.path))
                    if not os.path.lexists(entry.path):
                        break
                    time.sleep(0.02)


def _safe_name(name: str) -> str:
    """A folder name from a bot's name: no ``/``, no ``..``, nothing but ``[A-Za-z0-9_.-]``."""
    return "bot-" + (re.sub(r"[^A-Za-z0-9_.-]|\.{2,}", "_", name).strip(".")[:48] or "x")


class BotGroup:
    """One bot's control group: a folder in each hierarchy (one on v2). Made by
    ``CgroupHost.create``; a bot is put in it before its program runs (``place``), a build
    joins it between fork and exec (``preexec``)."""

    def __init__(self, name: str, version: int, folders: dict[str, Path]) -> None:
        self.name, self.version, self.removed = name, version, False
        self._join_fds: tuple[int, ...] = ()
        self._kept: tuple[int, ...] = ()
        """Descriptors of ``cpu_meter`` and ``freezer``, closed by ``remove``."""
        self.folders = folders
        """Controller (``cpu``, ``memory``...; v2 also ``cgroup``) -> the group's folder."""

    @property
    def paths(self) -> list[Path]:
        """Every folder of the group, once each (a joint ``cpu,cpuacct`` folder counts once)."""
        return list(dict.fromkeys(self.folders.values()))

    def _file(self, controller: str, name: str) -> Path:
        return self.folders[controller] / name

    def apply(self, limits: BotGroupLimits) -> None:
        """Write ``limits`` into the group's files."""
        memory, file = limits.memory_mb * _MIB, self._file
        if self.version == 1:
            _write(file("memory", "memory.limit_in_bytes"), memory)
            if not _write(file("memory", "memory.memsw.limit_in_bytes"), memory, optional=True):
                _write(file("memory", "memory.swappiness"), 0, optional=True)  # no swap accounting: no swap
            _write(file("memory", "memory.oom_control"), 0)  # the OOM killer on: it kills in the group
            # v1 charges TCP buffers only once this is written; the kernel's own pool is the host's
            _write(file("memory", "memory.kmem.tcp.limit_in_bytes"), min(memory, TCP_BYTES), optional=True)
            _write(file("cpu", "cpu.cfs_period_us"), PERIOD_US)
            _write(file("cpu", "cpu.cfs_quota_us"), limits.quota_us)
            _write(file("cpu", "cpu.shares"), limits.cpu_weight * 1024 // 100)
        else:
            _write(file("memory", "memory.max"), memory)
            _write(file("memory", "memory.swap.max"), 0, optional=True)  # absent without swap accounting
            _write(file("memory", "memory.oom.group"), 1, optional=True)  # an OOM kill kills the whole bot
            _write(file("cpu", "cpu.max"), f"{limits.quota_us} {PERIOD_US}")
            _write(file("cpu", "cpu.weight"), limits.cpu_weight)
        _write(file("pids", "pids.max"), limits.processes)

    def preexec(self) -> Callable[[], None]:
        """Open the group's ``cgroup.procs`` files now, in the parent, and return the function
        the child runs between fork and exec (``preexec_fn``): it only writes ``0`` ("me") to
        each, so nothing can deadlock, and the kernel checks the opener's rights (root), not
        the child's. Call ``close_join_fds`` once the child is started (or failed to)."""
        self.close_join_fds()
        for folder in self.paths:
            try:
                self._join_fds += (_open(folder / "cgroup.procs", os.O_WRONLY),)
            except OSError as err:
                self.close_join_fds()
                raise _fail(folder / "cgroup.procs", "open", err) from err
        joined = self._join_fds

        def join() -> None:
            for fd in joined:
                os.write(fd, b"0")

        return join

    def place(self, pid: int) -> None:
        """Move the process ``pid`` (with its threads) into the group, from the parent: the bot
        spawner's way (``referee.players.spawn``), its child waiting at a gate meanwhile, so the
        group holds it before the bot's program runs. Raises ``CgroupError``."""
        for folder in self.paths:
            _write(folder / "cgroup.procs", pid)

    def close_join_fds(self) -> None:
        """Close what ``preexec`` opened (in the parent, after the fork)."""
        fds, self._join_fds = self._join_fds, ()
        for fd in fds:
            os.close(fd)

    def pids(self) -> set[int]:
        """The processes in the group now (in any of its folders)."""
        return {int(p) for folder in self.paths for p in _read(folder / "cgroup.procs", missing="").split()}

    def _cpu_source(self) -> tuple[Path, Callable[[str], float]]:
        """The file holding the group's CPU time, and how to read seconds from its text."""
        if self.version == 1:
            return self._file("cpuacct", "cpuacct.usage"), lambda text: int(text) / 1e9
        return self._file("cpu", "cpu.stat"), lambda text: _keyed(text)["usage_usec"] / 1e6

    def cpu_seconds(self) -> float:
        """CPU time used by every process of the group so far, the ended ones included."""
        path, seconds = self._cpu_source()
        return seconds(_read(path))

    def cpu_meter(self) -> Callable[[], float]:
        """A cheap reader of ``cpu_seconds`` for a figure per decision: the file is opened once
        and read again from its start (``pread``) at each call. Closed by ``remove``."""
        path, seconds = self._cpu_source()
        fd = self._kept_fd(path, os.O_RDONLY)

        def read() -> float:
            return seconds(os.pread(fd, 4096, 0).decode("ascii", errors="replace"))

        return read

    def freezer(self) -> Callable[[bool], None]:
        """A cheap switch for ``--freeze-idle``: freeze (``True``) or thaw the group without
        waiting for the kernel to finish (a freeze settles within a millisecond or two; a bot
        asked again is thawed before its request is written). Closed by ``remove``."""
        if self.version == 1:
            fd, on, off = self._kept_fd(self._file("freezer", "freezer.state"), os.O_WRONLY), b"FROZEN", b"THAWED"
        else:
            fd, on, off = self._kept_fd(self._file("cgroup", "cgroup.freeze"), os.O_WRONLY), b"1", b"0"

        def switch(frozen: bool) -> None:
            os.pwrite(fd, on if frozen else off, 0)

        return switch

    def _kept_fd(self, path: Path, flags: int) -> int:
        try:
            fd = _open(path, flags)
        except OSError as err:
            raise _fail(path, "open", err) from err
        self._kept += (fd,)
        return fd

    def charged_bytes(self) -> int | None:
        """The memory the group is charged for now, kernel objects included (v1: the memory
        counter, which holds kernel memory, plus TCP buffers, counted apart; v2: ``memory.current``,
        sockets included), or ``None`` when the kernel does not report it."""
        names = (
            ("memory.usage_in_bytes", "memory.kmem.tcp.usage_in_bytes") if self.version == 1 else ("memory.current",)
        )
        texts = [_read(self._file("memory", name), missing="").strip() for name in names]
        return sum(int(t) for t in texts if t.isdigit()) if texts[0].isdigit() else None

    def memory_peak_mb(self) -> float | None:
        """The most memory the group has held at once, when the kernel reports it."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        text = _read(self._file("memory", name), missing="").strip()
        return int(text) / _MIB if text.isdigit() else None

    def exceeded(self) -> str | None:
        """Which bound the bot ran into: ``"memory"`` when the OOM killer killed in the group,
        ``"processes"`` when a fork was refused, else ``None`` (CPU is throttled, not exceeded).
        Ask before ``remove``: the counts go with the folders."""
        memory = self.folders["memory"]
        if self.version == 1:
            oom = _keyed(_read(memory / "memory.oom_control"))
            if "oom_kill" not in oom:  # before 4.13: any hit of the limit (the caller sees the death)
                oom["oom_kill"] = _keyed("n " + _read(memory / "memory.failcnt")).get("n", 0)
            killed = oom["oom_kill"]
        else:
            killed = _keyed(_read(memory / "memory.events")).get("oom_kill", 0)
        if killed > 0:
            return "memory"
        if _keyed(_read(self._file("pids", "pids.events"), missing="")).get("max", 0) > 0:
            return "processes"
        return None

    def _frozen(self) -> bool:
        if self.version == 1:
            return _read(self._file("freezer", "freezer.state")).strip() == "FROZEN"
        return _keyed(_read(self._file("cgroup", "cgroup.events"))).get("frozen") == 1

    def _set_frozen(self, frozen: bool, timeout: float) -> bool:
        """Freeze or thaw and wait until the kernel says it is done; ``False`` on time out."""
        deadline = time.monotonic() + timeout
        if self.version == 1:
            _write(self._file("freezer", "freezer.state"), "FROZEN" if frozen else "THAWED")
        else:
            _write(self._file("cgroup", "cgroup.freeze"), int(frozen))
        while self._frozen() != frozen:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def freeze(self, timeout: float = 1.0) -> None:
        """Stop every process of the group (they keep their state and use no CPU) until ``thaw``."""
        if not self._set_frozen(True, timeout):
            raise CgroupError(f"{self.name}: not frozen after {timeout} s")

    def thaw(self, timeout: float = 1.0) -> None:
        """Let a frozen group run again."""
        if not self._set_frozen(False, timeout):
            raise CgroupError(f"{self.name}: not thawed after {timeout} s")

    def _empty(self) -> bool:
        if self.version == 2:
            return _keyed(_read(self._file("cgroup", "cgroup.events"), missing="")).get("populated", 0) == 0
        return not self.pids()

    def kill_all(self, timeout: float = 2.0) -> None:
        """SIGKILL every process of the group and wait until it is empty. v2 ``cgroup.kill`` does
        it at once; else freeze (so none forks meanwhile), kill each pid, thaw, until empty."""
        deadline = time.monotonic() + timeout
        if self.version == 2 and not self._empty():
            _write(self._file("cgroup", "cgroup.kill"), 1, optional=True)
        while not self._empty():
            if time.monotonic() > deadline:
                raise CgroupError(f"{self.name}: processes {sorted(self.pids())} left after {timeout} s of killing")
            self._set_frozen(True, max(0.0, min(0.2, deadline - time.monotonic())))
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self._set_frozen(False, 0.5)  # always: on v1 a frozen (or freezing) task dies only once thawed
            time.sleep(0.005)

    def remove(self, attempts: int = 5) -> None:
        """Remove the group's folders (idempotent); processes still inside are killed first."""
        self.close_join_fds()
        kept, self._kept = self._kept, ()
        for fd in kept:
            os.close(fd)
        for attempt in range(attempts):
            busy: list[Path] = []
            for folder in self.paths:
                try:
                    _rmdir(folder)
                except FileNotFoundError:
                    pass
                except OSError as err:
                    if err.errno != errno.EBUSY or attempt == attempts - 1:
                        raise _fail(folder, "remove", err) from err
                    busy.append(folder)
            if not busy:
                self.removed = True
                return
            self.kill_all()
            time.sleep(0.01 * (attempt + 1))


class CgroupHost:
    """Where this referee makes bots' groups: its per-referee folders (made by ``detect``)."""

    def __init__(self, version: int, bases: dict[str, Path], pid: int, leaf: Path | None = None) -> None:
        self.version, self.pid, self._leaf = version, pid, leaf
        self.bases = bases
        """Controller -> this referee's folder in its hierarchy (v2: the same folder for all)."""
        self._groups: list[BotGroup] = []
        self._named: dict[str, int] = {}
        """The last number given to each group name (``bot-x``, ``bot-x-2``...)."""
        self.on_emptied: list[Callable[[], None]] = []
        """Run by ``close`` once every group and folder is gone, before the referee leaves its
        v2 leaf: the reaper's release (``referee.sandbox.reaper.guard``), which shares the leaf."""

    def create(self, name: str, limits: BotGroupLimits | None = None) -> BotGroup:
        """Make a group for the bot ``name`` (sanitized; ``-2``, ``-3``... when taken) in every
        hierarchy and write ``limits`` into it."""
        stem = _safe_name(name)
        bases = list(dict.fromkeys(self.bases.values()))
        self._groups = [g for g in self._groups if not g.removed]
        first = self._named.get(stem, 0) + 1
        for number in range(first, first + 1000):
            # a name is never used twice by one host: a group being removed in another thread
            # (folder by folder, again after EBUSY) must not take a new group's folders with it
            self._named[stem] = number
            folder_name = stem if number == 1 else f"{stem}-{number}"
            made: list[Path] = []
            try:
                for base in bases:
                    _mkdir(base / folder_name)
                    made.append(base / folder_name)
            except OSError as err:
                for path in reversed(made):
                    with contextlib.suppress(OSError):
                        _rmdir(path)
                if isinstance(err, FileExistsError):
                    continue
                raise _fail(base / folder_name, "create", err) from err
            group = BotGroup(folder_name, self.version, {c: p / folder_name for c, p in self.bases.items()})
            try:
                group.apply(limits or BotGroupLimits())
            except CgroupError:
                group.remove()
                raise
            self._groups.append(group)
            return group
        raise CgroupError(f"too many groups named {stem} in {bases[0]}")

    def weigh(self, weight: int) -> None:
        """The CPU weight (v2 scale, 1 to 10,000; v1 ``cpu.shares`` is ``weight * 1024 / 100``)
        of this referee's folder, which holds every bot's group: how the bots together share a
        busy machine with its other work."""
        if not 1 <= weight <= 10_000:
            raise CgroupError(f"invalid CPU weight {weight}: from 1 to 10000")
        if self.version == 1:
            _write(self.bases["cpu"] / "cpu.shares", weight * 1024 // 100)
        else:
            _write(self.bases["cpu"] / "cpu.weight", weight)

    def close(self) -> None:
        """Remove every group made here and the per-referee folders (the referee's leaf on v2
        too, when it can move back: its parent must then enable no controller for others)."""
        for group in self._groups:
            group.remove()
        self._groups.clear()
        for base in dict.fromkeys(self.bases.values()):
            try:
                _rmdir(base)
            except FileNotFoundError:
                pass
            except OSError as err:
                raise _fail(base, "remove", err) from err
        emptied, self.on_emptied = self.on_emptied, []
        for then in emptied:
            then()
        leaf, self._leaf = self._leaf, None
        if leaf is not None:  # back to <own> unless another referee's folders need its controllers
            own = leaf.parent
            try:
                if not [e for e in os.scandir(own) if e.is_dir(follow_symlinks=False) and e.name != leaf.name]:
                    enabled = _read(own / "cgroup.subtree_control").split()
                    if enabled:
                        _write(own / "cgroup.subtree_control", " ".join(f"-{c}" for c in enabled))
                    _write(own / "cgroup.procs", self.pid)
                    _rmdir(leaf)
            except OSError as err:
                raise _fail(leaf, "leave", err) from err


def _base_name(root: Path, pid: int) -> str:
    """``hearts-referee-PID`` for a process's first host under ``root``, then ``...PID.2``..."""
    count = _hosts_made[root, pid] = _hosts_made.get((root, pid), 0) + 1
    return f"{PREFIX}{pid}" if count == 1 else f"{PREFIX}{pid}.{count}"


def _make_base(base: Path) -> None:
    try:
        _mkdir(base)
    except FileExistsError:
        pass  # left by an earlier host of this same process
    except OSError as err:
        hint = " (not root and nothing delegated?)" if err.errno == errno.EACCES else ""
        raise CgroupError(f"cannot create {base}: {err.strerror}{hint}") from err


def _detect_v1(root: Path, lines: dict[str, str], pid: int) -> CgroupHost:
    bases: dict[str, Path] = {}
    name = _base_name(root, pid)
    for field, path in lines.items():
        for controller in set(field.split(",")) & set(V1_CONTROLLERS):
            mount = root / field if (root / field).is_dir() else root / controller
            own = mount / path.lstrip("/")
            if not own.is_dir():
                raise CgroupError(f"the referee's {controller} cgroup {own} is not visible here")
            bases[controller] = own / name
    missing = [c for c in V1_CONTROLLERS if c not in bases]
    if missing:
        raise CgroupError(f"cgroup v1: no {', '.join(missing)} controller mounted under {root}")
    host = CgroupHost(1, bases, pid)
    try:
        for base in dict.fromkeys(bases.values()):
            _sweep(base.parent, pid)
            _make_base(base)
        if _read(bases["memory"] / "memory.use_hierarchy", missing="1").strip() == "0":
            _write(bases["memory"] / "memory.use_hierarchy", 1)  # count the bots' memory in ours
    except CgroupError:
        with contextlib.suppress(CgroupError, OSError):
            host.close()
        raise
    return host


def _detect_v2(root: Path, path: str, pid: int) -> CgroupHost:
    own = root / path.lstrip("/")
    offered = _read(own / "cgroup.controllers").split()
    missing = [c for c in V2_CONTROLLERS if c not in offered]
    if missing:
        raise CgroupError(f"cgroup v2: {', '.join(missing)} not delegated to {own} (cgroup.controllers: {offered})")
    _sweep(own, pid)
    leaf = None
    if own != root or (root / "cgroup.type").exists():  # not the true root: no internal processes
        others = [p for p in _read(own / "cgroup.procs").split() if p != str(pid)]
        if others:
            raise CgroupError(
                f"cgroup v2: {own} holds other processes ({' '.join(others[:5])}): start the referee in a "
                "cgroup of its own (systemd-run --scope -p Delegate=yes ...)"
            )
        leaf = own / f"referee-{pid}"
        _make_base(leaf)
        _write(leaf / "cgroup.procs", pid)
    base = own / _base_name(root, pid)
    try:
        enabled = _read(own / "cgroup.subtree_control").split()
        wanted = " ".join(f"+{c}" for c in V2_CONTROLLERS if c not in enabled)
        if wanted:
            _write(own / "cgroup.subtree_control", wanted)
        _make_base(base)
        _write(base / "cgroup.subtree_control", " ".join(f"+{c}" for c in V2_CONTROLLERS))
    except CgroupError:
        with contextlib.suppress(CgroupError, OSError):
            CgroupHost(2, {"cgroup": base}, pid, leaf).close()
        raise
    return CgroupHost(2, {c: base for c in ("cgroup", *V2_CONTROLLERS)}, pid, leaf)


def detect(root: Path = ROOT, self_cgroup: str | None = None, pid: int | None = None) -> CgroupHost | Unavailable:
    """How bots' groups can be made here, and this referee's folders made (so the answer is
    tried, not guessed); ``Unavailable`` with the reason otherwise. ``self_cgroup`` (the text
    of ``/proc/self/cgroup``) and ``pid`` are for tests."""
    pid = os.getpid() if pid is None else pid
    try:
        if self_cgroup is None:
            self_cgroup = Path("/proc/self/cgroup").read_text()
        # hierarchy (``memory``, ``cpu,cpuacct``; ``""`` for v2) -> the referee's own cgroup there
        lines = {p[1]: p[2] for p in (line.split(":", 2) for line in self_cgroup.splitlines()) if len(p) == 3}
        if (root / "cgroup.controllers").exists():
            if "" not in lines:
                return Unavailable(f"cgroup v2 at {root} but no v2 line in /proc/self/cgroup")
            return _detect_v2(root, lines[""], pid)
        if not root.is_dir():
            return Unavailable(f"no control groups: {root} does not exist")
        return _detect_v1(root, lines, pid)
    except (CgroupError, OSError) as err:
        return Unavailable(str(err))
