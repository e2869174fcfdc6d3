"""The sandbox every started bot runs in: bubblewrap (``bwrap``) around its command.

A bot is an untrusted program run by the operator. Without a sandbox it can read the referee's
open log through ``/proc/PPID/fd``, the seed from ``/proc/PPID/cmdline``, other bots' memory,
stop its neighbours, talk to a colluding bot over ``/tmp``, a loopback port or a key in the
kernel's keyrings, and leave processes behind. Inside the sandbox it has:

- its own PID namespace (it sees only its own processes; when the sandbox's init ends, the
  kernel kills every process in it, ``setsid`` and double forks included), IPC and UTS
  namespaces, and a network namespace with no interfaces but its own loopback;
- a new root with the system read-only (``/usr``, ``/etc``, ``/opt``), the folders of the files
  its command names, the folder it starts in whole when that folder is its own
  (``referee.sandbox.sight.own_folder``), its program's installation, the Python bot kit and the rules engine
  (``KIT``, ``ENGINE``) read-only at the same paths (never a
  folder other bots or the referee's files lie in, nor ``/tmp`` or a home folder whole: a Unix socket there would
  be a way out), a fresh ``/proc`` and ``/dev``, and a private writable ``/tmp`` and ``$HOME``
  (tmpfs, bounded, gone with the sandbox);
- the referee's own files (logs, the ladder's database and logs, token files) hidden even where
  they lie inside a folder it sees (an empty tmpfs or ``/dev/null`` mounted over them);
- a clean environment: ``PATH``, ``HOME``, ``LANG``, ``TMPDIR`` and what its configuration sets;
- a seccomp filter (``referee.sandbox.seccomp``) against the kernel keyrings and new user namespaces;
- when the referee runs as root: a random unprivileged uid of its own (``setpriv``: no
  capabilities, no new privileges), so it cannot read the referee's 0600 files even if it
  found them, and its process limit is its own. An unprivileged referee gets the same
  namespaces through a user namespace, with its own uid mapped.

The resource limits of ``BotLimits`` apply as before (set on ``bwrap``, inherited). The options
reach ``bwrap`` through a file descriptor (``--args``), so ``/proc/1/cmdline`` inside shows
only the bot's own command. What it does not stop is in docs/security.md.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final, Literal, NamedTuple, TypeAlias

import msgspec

from referee.errors import RefereeError
from referee.sandbox.cgroups import WARNING as GROUPS_WARNING
from referee.sandbox.cgroups import Unavailable
from referee.sandbox.groups import bot_groups
from referee.sandbox.seccomp import BOT_FAMILIES, BUILD_FAMILIES, LOOPBACK_FAMILIES, bot_filter
from referee.sandbox.sight import HOME, Place, crowding, inside, own_folder, shared, shown_paths, uses_folder
from referee.sandbox.sight import shared as _shared

SandboxMode: TypeAlias = Literal["auto", "on", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "on", "off")

SYSTEM_PATHS: Final = ("/usr", "/etc", "/opt")
"""Read-only in every sandbox (where they exist)."""
MERGED_DIRS: Final = ("/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin")
"""Symlinks into /usr on a merged-/usr system, read-only binds elsewhere."""
FIRST_UID: Final = 61_000
"""Bots run as uids from here on (when the referee is root), one per bot started."""
UIDS: Final = 1_000
PROCESSES: Final = 512
"""Processes and threads a bot with its own uid may have: room for a JVM, not a fork bomb."""
TMPFS_BYTES: Final = 256 * 1024 * 1024
"""Size of the private /tmp and of the home folder, each."""
WARNING: Final = (
    "warning: bubblewrap (bwrap) is not available: bots run NOT isolated (they can read the "
    "referee's files and other processes); install bubblewrap or pass --sandbox off to silence this"
)


class Launch(msgspec.Struct, frozen=True):
    """A sandboxed start: the command line (``bwrap --args FD``) and the descriptors to pass
    (the options and the seccomp filter, in memory files); close them once it has started."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    shown: tuple[str, ...] = ()
    """The places the bot is shown read-only besides what every sandbox shows (the paths its
    command names, its installation, its own folder when shown whole, the ``--sandbox-bind``
    paths), as computed from its command before it starts: what a hint about a path it
    failed on may be based on (``referee.sandbox.misses``), never a look at the host."""

    def close(self) -> None:
        for fd in self.pass_fds:
            os.close(fd)


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)  # not close-on-exec: bwrap reads it
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class SandboxUnavailable(RefereeError):
    """``--sandbox on`` was asked for and bubblewrap cannot run here."""


class Sandbox(msgspec.Struct, frozen=True, kw_only=True):
    """How to wrap a bot command in bubblewrap. ``hidden`` are the referee's files and folders
    to mask inside; ``binds`` extra read-only paths (a bot's toolchain outside the usual ones)."""

    bwrap: str
    privileged: bool
    """True when the referee runs as root: bots get unprivileged uids of their own."""
    binds: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    tmpfs_bytes: int = TMPFS_BYTES
    copies: tuple[tuple[str, str], ...] = ()
    """A bot's folder and the copy its build made and wrote (``referee.players.build_folder``):
    inside, the copy is seen at the folder's path, so paths are what they would be in place."""
    loopback: bool = False
    """``--sandbox-loopback``: a bot may open TCP and UDP sockets on its own loopback (else only
    Unix sockets: ``referee.sandbox.seccomp``)."""
    bots: tuple[Place, ...] = ()
    """The started bots of the run (a table's, a ladder's whole list): a folder where another
    one's files lie is no bot's own (``referee.sandbox.sight.own_folder``), shown whole to none."""

    @property
    def process_limit(self) -> int | None:
        """RLIMIT_NPROC for a bot: with a uid of its own (``privileged``) a fork bomb stops at
        ``PROCESSES``; without, the limit would count the operator's own processes too."""
        return PROCESSES if self.privileged else None

    def hiding(self, *paths: str | Path) -> Sandbox:
        """The same sandbox with more of the referee's paths hidden."""
        more = tuple(str(Path(p).absolute()) for p in paths)
        return msgspec.structs.replace(self, hidden=self.hidden + more)

    def among(self, places: Iterable[tuple[str | Sequence[str], str | Path]]) -> Sandbox:
        """The same sandbox knowing more bots of the run (each: its command, as a line or as
        words, and the folder it starts in). A command line that cannot be split is left out:
        that bot fails at its own start."""
        more: list[Place] = []
        for command, folder in places:
            with contextlib.suppress(ValueError):
                words = shlex.split(command) if isinstance(command, str) else command
                more.append((tuple(words), os.path.abspath(folder)))
        return msgspec.structs.replace(self, bots=self.bots + tuple(more))

    def with_copy(self, folder: str | Path, copy: str | Path) -> Sandbox:
        """The same sandbox showing ``copy`` (a build's) where ``folder`` is."""
        pair = (os.path.abspath(folder), os.path.abspath(copy))
        return msgspec.structs.replace(self, copies=(*self.copies, pair))

    def crowded(self, args: Sequence[str], cwd: str | Path, env: dict[str, str]) -> list[str]:
        """Why the folder ``args`` start in is not shown whole although they use it: the other
        bots' and the referee's paths that lie in it (``referee.sandbox.sight.crowding``); empty
        when it is shown whole, or when the bot does not use it, or it is a shared folder."""
        folder = os.path.abspath(cwd)
        if shared(folder) or not uses_folder(args, folder, self.host_path, env):
            return []
        return crowding(args, folder, others=self.bots, referees=self.hidden, host=self.host_path)

    def host_path(self, path: str) -> str:
        """Where a path inside the sandbox lies outside it: in a build's copy when it lies in
        that bot's folder, else where it is."""
        for folder, copy in self.copies:
            if inside(path, folder):
                return copy + path[len(folder) :]
        return path

    def wrap(
        self, args: Sequence[str], cwd: str | Path, env: dict[str, str], *, build: bool = False, uid: int | None = None
    ) -> Launch:
        """How to start ``args`` in ``cwd`` with exactly ``env`` in the sandbox: ``bwrap
        --args FD`` (the options come through a file descriptor, so that the sandbox's own
        ``/proc/1/cmdline`` is no map of the machine) and the seccomp filter's descriptor.
        With ``build``: a bot's build step, which may write in ``cwd`` (a copy of its bot's
        folder, ``referee.players.build_folder``) and reach the network (to fetch its
        dependencies). ``uid``: the unprivileged uid to run as when the referee is root (a
        bot's is drawn here; a build's is given, since its folder was made its own)."""
        options, shown = self._options(args, cwd, env, build=build, uid=uid)
        fds: list[int] = []
        families = BUILD_FAMILIES if build else LOOPBACK_FAMILIES if self.loopback else BOT_FAMILIES
        program = bot_filter(families=families)
        if program is not None:
            fds.append(_memfd("bot-seccomp", program))
            options[1:1] = ["--seccomp", str(fds[-1])]
        end = options.index("--")  # bwrap reads options from the descriptor; the command stays here
        fds.append(_memfd("bot-args", b"".join(a.encode() + b"\0" for a in options[1:end])))
        argv = [self.bwrap, "--args", str(fds[-1]), *options[end:]]
        return Launch(argv=argv, pass_fds=tuple(fds), shown=tuple(shown))

    def options(
        self, args: Sequence[str], cwd: str | Path, env: dict[str, str], *, build: bool = False, uid: int | None = None
    ) -> list[str]:
        """The whole ``bwrap`` command line that runs ``args`` in ``cwd`` with exactly ``env``:
        the namespaces, the file system the bot sees (mounted in this order: the system, the
        scratch folders, what its command names, its working folder, the copies and masks on
        top), its environment, then the command itself, run as a stranger when the referee is
        root."""
        return self._options(args, cwd, env, build=build, uid=uid)[0]

    def _options(
        self, args: Sequence[str], cwd: str | Path, env: dict[str, str], *, build: bool, uid: int | None
    ) -> tuple[list[str], list[str]]:
        """``options``, and the places the bot is shown read-only besides the system's."""
        folder = str(Path(cwd).absolute())
        out = [self.bwrap, *self._namespaces(build)]
        # the working folder exists (empty unless it holds the bot's files): it is shown whole
        # when it is the bot's own, else the bot's files are bound one by one below
        mounted: list[str] = []
        out += _system(mounted)
        out += self._scratch()
        own = not build and own_folder(args, folder, env, others=self.bots, referees=self.hidden, host=self.host_path)
        whole = [folder] if own else []
        sight = shown_paths(args, folder, env, [*self.binds, *whole], self.host_path, build=build)
        for path in sight.paths:  # after /tmp: a bot may live in it
            if not any(inside(path, m) for m in mounted):
                out += _parents(path, mounted)
                out += ["--ro-bind", self.host_path(path), path]
                mounted.append(path)
        folder = self._working_folder(out, args, folder, mounted, env, build=build)
        out += self._on_top(mounted, build=build)
        out += ["--chdir", folder, "--clearenv"]
        for key, value in {**sight.env, **env}.items():
            out += ["--setenv", key, value]
        out.append("--")
        if self.privileged:
            out += _as_stranger(uid, build=build)
        out += list(args)
        return out, sight.paths

    def _namespaces(self, build: bool) -> list[str]:
        """A namespace of its own for everything; a build keeps the network (to fetch its
        dependencies); without root, a user namespace, and no more of them inside."""
        out = [
            "--unshare-pid",
            *([] if build else ["--unshare-net"]),
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "bot",
        ]
        if not self.privileged:
            out += ["--unshare-user", "--disable-userns"]
        return out

    def _scratch(self) -> list[str]:
        """A fresh ``/proc`` and ``/dev``, and a private, bounded ``/tmp`` and home folder."""
        size = str(self.tmpfs_bytes)
        return [
            *("--proc", "/proc", "--dev", "/dev"),
            *("--perms", "1777", "--size", size, "--tmpfs", "/tmp"),
            *("--perms", "0755", "--dir", "/home", "--perms", "1777", "--size", size, "--tmpfs", HOME),
        ]

    def _working_folder(
        self, out: list[str], args: Sequence[str], folder: str, mounted: list[str], env: dict[str, str], *, build: bool
    ) -> str:
        """Where the bot starts (its mounts added to ``out``): a build's folder, writable; the
        bot's own folder when its command uses it; else a neutral one (the home folder)."""
        if build:  # the build's folder (a copy of its bot's), writable
            if _shared(folder):
                raise SandboxUnavailable(f"a build may not write in {folder}: a shared folder (give the bot its own)")
            out += _parents(folder, mounted)
            out += ["--bind", self.host_path(folder), folder]
            mounted.append(folder)
        elif not uses_folder(args, folder, self.host_path, env):
            folder = HOME  # a neutral working folder: the referee's own is none of the bot's business
        elif not any(inside(folder, m) for m in mounted):
            out += _parents(folder + "/x", mounted)
        return folder

    def _on_top(self, mounted: Sequence[str], *, build: bool) -> list[str]:
        """What is mounted over the folders shown: a built folder's copy, and the referee's own
        files hidden (an empty tmpfs over a folder, ``/dev/null`` over a file)."""
        out: list[str] = []
        for shown, copy in self.copies:  # a built folder inside a folder shown whole: the copy on top
            if not build and any(inside(shown, m) and shown != m for m in mounted):
                out += ["--ro-bind", copy, shown]
        for path in self.hidden:
            if any(inside(path, m) for m in mounted):
                if os.path.isdir(path):
                    out += ["--tmpfs", path]
                elif os.path.exists(path):
                    out += ["--ro-bind", "/dev/null", path]
        return out

    def environment(self, extra: dict[str, str] | None) -> dict[str, str]:
        """A bot's whole environment inside: PATH, HOME, LANG, TMPDIR and its own settings."""
        base = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": HOME,
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "TMPDIR": "/tmp",
        }
        return {**base, **(extra or {})}


def _system(mounted: list[str]) -> list[str]:
    """The system, read-only (each folder bound added to ``mounted``); on a merged-/usr
    system, ``/bin`` and the like as the links they are."""
    out: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.isdir(path):
            out += ["--ro-bind", path, path]
            mounted.append(path)
    for path in MERGED_DIRS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
            mounted.append(path)
    return out


def _as_stranger(uid: int | None, *, build: bool) -> list[str]:
    """For a referee run as root: the command run as an unprivileged uid of its own, with no
    groups, capabilities or new privileges (a build's uid is given: its folder was made its
    own)."""
    if uid is None:
        if build:
            raise ValueError("a build run by root needs the uid its folder was given")
        uid = FIRST_UID + secrets.randbelow(UIDS)  # unpredictable, and rarely shared with another referee
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
    ]


def _parents(path: str, mounted: Sequence[str]) -> list[str]:
    """Directories leading to a bind point, created 0755 so that an unprivileged bot can pass
    through them (bwrap would make them 0700)."""
    out: list[str] = []
    for parent in reversed(Path(path).parents):
        text = str(parent)
        if text != "/" and not any(inside(text, m) for m in mounted):
            out += ["--perms", "0755", "--dir", text]
    return out


TRANSIENT_ERRNOS: Final = frozenset({errno.ENFILE, errno.EMFILE, errno.EAGAIN, errno.ENOMEM})
"""Failures that say the machine is short of something right now, not that bubblewrap cannot
work here: the machine's file table full (another program, perhaps a bot, filled it),
processes or memory exhausted. Not ENOSPC: a host that turns namespaces off
(``user.max_user_namespaces = 0``) answers with it, for good."""
TRANSIENT_TEXTS: Final = tuple(os.strerror(e) for e in sorted(TRANSIENT_ERRNOS))
PROBE_TRIES: Final = 3


class ProbeFailure(NamedTuple):
    """Why the trivial sandbox did not start, and whether that may pass (``transient``)."""

    problem: str
    transient: bool


def _bwrap_works(bwrap: str, privileged: bool) -> ProbeFailure | None:
    """``None`` when a trivial sandbox starts here, else why not."""
    probe = Sandbox(bwrap=bwrap, privileged=privileged, tmpfs_bytes=1024 * 1024)
    try:
        launch = probe.wrap(["true"], "/usr", probe.environment(None))
    except OSError as err:  # the seccomp filter's file: out of descriptors or memory
        return ProbeFailure(str(err), err.errno in TRANSIENT_ERRNOS)
    try:
        done = subprocess.run(
            launch.argv,
            capture_output=True,
            timeout=20,
            check=False,
            stdin=subprocess.DEVNULL,
            pass_fds=launch.pass_fds,
        )
    except subprocess.TimeoutExpired as err:
        return ProbeFailure(str(err), True)
    except OSError as err:
        return ProbeFailure(str(err), err.errno in TRANSIENT_ERRNOS)
    finally:
        launch.close()
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", errors="replace").strip() or f"exit status {done.returncode}"
        return ProbeFailure(text, any(t in text for t in TRANSIENT_TEXTS))
    return None


_probed: dict[tuple[str, bool], ProbeFailure | None] = {}
"""Probe results that do not pass (success, or a lasting failure), kept for the process."""


def _probe(bwrap: str, privileged: bool, pause: Callable[[float], None]) -> ProbeFailure | None:
    """The probe, tried again after a pause while it fails for a passing reason."""
    key = (bwrap, privileged)
    if key in _probed:
        return _probed[key]
    failure = _bwrap_works(bwrap, privileged)
    for attempt in range(1, PROBE_TRIES):
        if failure is None or not failure.transient:
            break
        pause(0.5 * attempt)
        failure = _bwrap_works(bwrap, privileged)
    if failure is None or not failure.transient:
        _probed[key] = failure
    return failure


def choose_sandbox(
    mode: SandboxMode,
    warn: Callable[[str], None],
    binds: Sequence[str] = (),
    pause: Callable[[float], None] = time.sleep,
    *,
    loopback: bool = False,
) -> Sandbox | None:
    """The sandbox for ``--sandbox MODE``: ``off`` none; ``on`` bubblewrap or
    ``SandboxUnavailable``; ``auto`` bubblewrap when it works here, else none and one warning.

    Every started bot gets a control group of its own where the machine allows
    (``referee.sandbox.groups``); where it does not, ``auto`` warns once and ``on`` refuses.
    Decided once per run, before any bot starts. ``auto`` falls back only when bubblewrap
    cannot work on this machine (not installed, namespaces not permitted); when the probe fails
    because the machine is short of something right now (its file table full, say: what a bot
    filling it would cause), it is tried again, and then refused: a passing shortage must never
    start bots unsandboxed."""
    if mode == "off":
        return None
    bwrap = shutil.which("bwrap")
    privileged = os.geteuid() == 0
    problem = "bwrap is not installed (Debian: apt-get install bubblewrap)" if bwrap is None else None
    if bwrap is not None and privileged and shutil.which("setpriv") is None:
        problem = "setpriv (util-linux) is needed to run bots under their own uid"
    if problem is None and bwrap is not None:
        failure = _probe(bwrap, privileged, pause)
        if failure is not None and failure.transient:
            raise SandboxUnavailable(
                f"--sandbox {mode}: the sandbox could not be tried here just now ({failure.problem}), "
                f"{PROBE_TRIES} times: not starting bots unsandboxed; try again, or say --sandbox off"
            )
        problem = failure.problem if failure is not None else None
    if mode == "on" and problem is not None:  # refused before any group is made (and its reaper started)
        raise SandboxUnavailable(f"--sandbox on: cannot sandbox bots here: {problem}")
    groups = bot_groups()
    if isinstance(groups, Unavailable):
        if mode == "on":
            raise SandboxUnavailable(f"--sandbox on: cannot bound bots here: {groups.reason}")
        warn(f"{GROUPS_WARNING} ({groups.reason})")
    if problem is None and bwrap is not None:
        binds = tuple(os.path.abspath(b) for b in binds)
        return Sandbox(bwrap=bwrap, privileged=privileged, binds=binds, loopback=loopback)
    warn(f"{WARNING} ({problem})")
    return None
