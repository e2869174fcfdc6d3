"""What a user may type on the command line: click parameter types and checks shared by every
``referee`` command.

Each value is checked while click parses the options, before any bot starts or any file is
written, and a bad one becomes one line naming the option (exit status 2): a time that is not
a finite number of seconds, a port outside 0..65535, a bot command that cannot be split into
words, an environment pair without ``=``, a limit the system cannot set, a file that cannot be
written. Ranges are documented in each option's help and in docs/architecture.md.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import resource
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final, TypeVar

import click
import trio

from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TCP_PREFIX, Interrupted
from referee.players.bot_config import BotConfigError, command_words
from referee.players.process import DEFAULT_GROUP, DEFAULT_OPEN_FILES, BotLimits, BotStartError
from referee.sandbox.bwrap import SANDBOX_MODES, Sandbox, SandboxMode, SandboxUnavailable, choose_sandbox
from referee.sandbox.cgroups import BotGroupLimits, CgroupError
from referee.sandbox.groups import weigh_tables

MAX_SECONDS: Final = 86_400.0
"""Longest time any option takes (one day): longer is a typo, and would overflow the
milliseconds sent to bots."""
MAX_CPU_SECONDS: Final = 86_400
MAX_MEMORY_MB: Final = 1 << 20
"""1 TiB of address space: beyond it a limit means nothing (and soon overflows ``rlim_t``)."""
MAX_MATCHES: Final = 100_000
"""Most matches or duplicate sets one command schedules."""
MAX_CONCURRENCY: Final = 256
"""Most tables played at once (each starts its own bot processes)."""

PORT: Final = click.IntRange(0, 65535)
ILLEGAL_MOVE_CAP: Final = click.IntRange(min=0)
MATCH_COUNT: Final = click.IntRange(1, MAX_MATCHES)
CONCURRENCY: Final = click.IntRange(1, MAX_CONCURRENCY)
CPU_SECONDS: Final = click.IntRange(1, MAX_CPU_SECONDS)
MEMORY_MB: Final = click.IntRange(1, MAX_MEMORY_MB)


class Seconds(click.types.FloatParamType):
    """A time in seconds: a finite number, above zero (or zero with ``allow_zero``), at most
    ``MAX_SECONDS``. ``nan``, ``inf`` and negative times are refused."""

    name = "seconds"

    def __init__(self, *, allow_zero: bool = False, maximum: float = MAX_SECONDS) -> None:
        self.allow_zero = allow_zero
        self.maximum = maximum

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float | int) and not isinstance(value, bool):
            seconds = float(value)
        else:
            try:
                seconds = float(str(value))
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        low = ("0 or " if self.allow_zero else "") + "at least 0.001 (the protocol counts whole milliseconds)"
        too_small = seconds < 0.001 and not (seconds == 0 and self.allow_zero)
        if too_small or seconds > self.maximum:
            self.fail(f"{value!r} seconds: must be {low} and at most {self.maximum:g}", param, ctx)
        return seconds


class BotCommand(click.types.StringParamType):
    """A bot: a command line the referee can split into words (no unclosed quote, not empty,
    no NUL), or ``tcp:NAME[:TOKEN]`` where TCP seats are allowed. Returned unchanged."""

    name = "bot"

    def __init__(self, *, tcp: bool = True) -> None:
        self.tcp = tcp

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if not text.strip():
            self.fail("the bot's command line is empty", param, ctx)
        if self.tcp and text.startswith(TCP_PREFIX):
            if "\0" in text:
                self.fail(f"{text.partition(':')[0]}:... holds a NUL character", param, ctx)  # no token shown
            return text
        try:
            command_words(text)
        except BotConfigError as err:
            self.fail(str(err), param, ctx)
        return text


class BotTemplate(click.types.StringParamType):
    """A bot command with ``{python}`` and ``{seed}`` to fill in (``referee bench``): only those
    placeholders, and a command line once they are filled. Returned unchanged."""

    name = "command"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if not text.strip():
            self.fail("the bot's command line is empty", param, ctx)
        try:
            filled = text.format(python="python3", seed=1)
        except (KeyError, IndexError, ValueError) as err:
            self.fail(
                f"{text!r}: bad placeholder {err}; use {{python}} and {{seed}} (and {{{{ }}}} for braces)", param, ctx
            )
        try:
            command_words(filled)
        except BotConfigError as err:
            self.fail(str(err), param, ctx)
        return text


_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EnvPair(click.types.StringParamType):
    """``NAME=VALUE`` for a bot's environment: NAME not empty, no NUL. Returned unchanged."""

    name = "name=value"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        name, sep, _ = text.partition("=")
        if not sep:
            self.fail(f"expected NAME=VALUE, got {text!r}", param, ctx)
        if not name:
            self.fail(f"the variable's name is empty in {text!r}", param, ctx)
        if not _ENV_NAME.fullmatch(name):
            self.fail(f"{name!r} is not a variable name (letters, digits and _, not starting with a digit)", param, ctx)
        if "\0" in text:
            self.fail(f"{text!r} holds a NUL character", param, ctx)
        return text


class FilesLimit(click.types.IntParamType):
    """Open files a bot may hold: at least 1 and at most the referee's own hard limit
    (``RLIMIT_NOFILE``), which an unprivileged process cannot raise.

    Reads the integer itself rather than through ``IntParamType.convert``, which takes
    only ``SupportsInt`` in newer releases, and an option's value arrives as ``object``."""

    name = "integer"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, bool):
            self.fail(f"{value!r} is not a valid integer", param, ctx)
        if isinstance(value, int):
            count = value
        else:
            try:
                count = int(str(value).strip(), 10)
            except ValueError:
                self.fail(f"{value!r} is not a valid integer", param, ctx)
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        top = hard if hard != resource.RLIM_INFINITY else 1 << 20
        if not 1 <= count <= top:
            self.fail(f"{count} is not in the range 1 to {top} (the referee's hard RLIMIT_NOFILE)", param, ctx)
        return count


def resolvable_host(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--host`` callback: the name must resolve (``socket.getaddrinfo``)."""
    if value is None:
        return None
    try:
        socket.getaddrinfo(value, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise click.BadParameter(f"cannot resolve host {value!r}: {reason}", ctx, param) from None
    return value


def check_listen(host: str, port: int) -> None:
    """Raise ``click.UsageError`` when nothing could listen on ``host``:``port`` (an address
    not of this machine, a port in use or reserved), tried by binding and closing a socket."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in infos:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
    except OSError as err:
        raise click.UsageError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None


def check_output_file(path: str | Path, option: str, *, make_folders: bool) -> None:
    """Raise ``click.BadParameter`` (for ``option``) unless ``path`` can be written: an
    existing regular file that opens for appending, or a new file in a folder where one can
    be created (a probe file is created and removed). With ``make_folders`` the missing
    folders are created, as the writer would."""
    target = Path(path)
    try:
        _check_output_file(target, make_folders)
    except OSError as err:
        raise click.BadParameter(f"cannot write {str(target)!r}: {err.strerror or err}", param_hint=option) from None
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint=option) from None


def _check_output_file(target: Path, make_folders: bool) -> None:
    if target.is_dir():
        raise ValueError(f"{str(target)!r} is a directory")
    if target.exists():
        if not target.is_file():
            raise ValueError(f"{str(target)!r} exists and is not a regular file")
        with target.open("ab"):
            return
    folder = target.parent
    if not folder.is_dir():
        blocker = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("."))
        if not blocker.is_dir():
            raise ValueError(f"cannot write {str(target)!r}: {str(blocker)!r} is not a directory")
        if not make_folders:
            raise ValueError(f"cannot write {str(target)!r}: no directory {str(folder)!r}")
        folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.close(fd)
    target.unlink()


def check_output_folder(path: str | Path, option: str) -> None:
    """Raise ``click.BadParameter`` unless files can be created in the folder ``path``
    (created if missing, as the writer would)."""
    folder = Path(path)
    try:
        _check_output_file(folder / ".referee-write-probe", make_folders=True)
    except OSError as err:
        raise click.BadParameter(f"cannot write in {str(folder)!r}: {err.strerror or err}", param_hint=option) from None
    except ValueError as err:
        reason = str(err).rpartition(": ")[2]
        raise click.BadParameter(f"cannot write in {str(folder)!r}: {reason}", param_hint=option) from None


TIME_PER_MOVE_OPTION = click.option(
    "--time-per-move",
    default=MatchConfig().per_decision,
    show_default=True,
    type=Seconds(),
    help="Seconds per decision (> 0).",
)
"""The decision limit, the same on every command that plays matches."""
TIME_BANK_OPTION = click.option(
    "--time-bank",
    default=MatchConfig().bank,
    show_default=True,
    type=Seconds(allow_zero=True),
    help="Extra seconds per match (>= 0).",
)
"""The time bank, the same on every command that plays matches."""

SANDBOX_OPTION = click.option(
    "--sandbox",
    "sandbox_mode",
    type=click.Choice(SANDBOX_MODES),
    default="auto",
    show_default=True,
    help="Run started bots in bubblewrap: auto (when installed, else warn), on (refuse without), off.",
)


def as_sandbox_mode(value: str) -> SandboxMode:
    """``--sandbox``'s value as the sandbox's own type (click's Choice has checked it)."""
    return "on" if value == "on" else "off" if value == "off" else "auto"


SANDBOX_BIND_OPTION = click.option(
    "--sandbox-bind",
    "sandbox_binds",
    multiple=True,
    metavar="PATH",
    type=click.Path(exists=True),
    help="A path the sandboxed bots see read-only (a toolchain, data or weights outside their folder).",
)


SANDBOX_LOOPBACK_OPTION = click.option(
    "--sandbox-loopback",
    "sandbox_loopback",
    is_flag=True,
    help="Let sandboxed bots open TCP/UDP sockets on their own loopback (for a bot whose processes talk "
    "over it); else only Unix sockets. See docs/security.md.",
)


def _weigh_tables(ctx: click.Context, param: click.Parameter, value: int | None) -> None:
    try:
        weigh_tables(value)
    except CgroupError as err:
        raise click.BadParameter(str(err), ctx=ctx, param=param) from None


TABLES_WEIGHT_OPTION = click.option(
    "--tables-cpu-weight",
    type=click.IntRange(1, 10_000),
    default=None,
    expose_value=False,
    callback=_weigh_tables,
    help="CPU weight of all the bots together against the machine's other work (100: as one other "
    "process; 1000: ten times its share). For a busy machine; see docs/performance.md.",
)


_LIMIT_OPTIONS: Final = [
    click.option(
        "--cpu-limit", type=CPU_SECONDS, default=None, help="CPU seconds each started bot may use (default: none)."
    ),
    click.option("--memory-limit", type=MEMORY_MB, default=None, help="Address space of each started bot in MiB."),
    click.option(
        "--group-memory",
        type=MEMORY_MB,
        default=DEFAULT_GROUP.memory_mb,
        show_default=True,
        help="Memory of each started bot in MiB, all its processes, tmpfs files and memfd together.",
    ),
    click.option(
        "--group-processes",
        type=click.IntRange(1, 1 << 22),
        default=DEFAULT_GROUP.processes,
        show_default=True,
        help="Processes and threads of each started bot, all together.",
    ),
    click.option(
        "--group-cpu",
        type=click.FloatRange(0.01, 64),
        default=DEFAULT_GROUP.cpu_cores,
        show_default=True,
        help="CPU bandwidth of each started bot in cores, all its processes together.",
    ),
    click.option(
        "--freeze-idle",
        is_flag=True,
        help="Freeze each started bot whenever it is not being asked (no thinking on the others' time).",
    ),
    click.option(
        "--files-limit",
        type=FilesLimit(),
        default=None,
        help=f"Open files each process of a started bot may hold (1 to the hard limit; default {DEFAULT_OPEN_FILES}).",
    ),
    click.option(
        "--bot-cwd",
        type=click.Path(file_okay=False, exists=True),
        default=None,
        help="Working directory of the bots.",
    ),
    click.option(
        "--bot-env", multiple=True, type=EnvPair(), metavar="NAME=VALUE", help="Add to the bots' environment."
    ),
    click.option("--clean-env", is_flag=True, help="Bots get only PATH, HOME and --bot-env (always so in a sandbox)."),
]
"""The options of ``bot_limit_options``, in the order ``--help`` lists them."""


def bot_limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The bounds of each started bot as options (``--cpu-limit``, ``--memory-limit``, the
    control group's ``--group-memory``, ``--group-processes``, ``--group-cpu`` and
    ``--freeze-idle``, ``--files-limit``, ``--bot-cwd``, ``--bot-env``, ``--clean-env``), given
    to the command as one ``limits: BotLimits`` (without its sandbox, which the command adds):
    ten options that only ever travel together."""

    @functools.wraps(command)
    def with_limits(
        *args: Any,
        cpu_limit: int | None,
        memory_limit: int | None,
        group_memory: int,
        group_processes: int,
        group_cpu: float,
        freeze_idle: bool,
        files_limit: int | None,
        bot_cwd: str | None,
        bot_env: tuple[str, ...],
        clean_env: bool,
        **kwargs: Any,
    ) -> Any:
        env = dict(pair.partition("=")[::2] for pair in bot_env)
        limits = BotLimits(
            cpu_seconds=cpu_limit,
            memory_mb=memory_limit,
            open_files=files_limit or DEFAULT_OPEN_FILES,
            group=BotGroupLimits(memory_mb=group_memory, processes=group_processes, cpu_cores=group_cpu),
            freeze_idle=freeze_idle,
            cwd=bot_cwd,
            env=env or None,
            clean_env=clean_env,
        )
        return command(*args, limits=limits, **kwargs)

    for option in reversed(_LIMIT_OPTIONS):  # --help lists them in this order
        with_limits = option(with_limits)
    return with_limits


CARD_PAUSE: Final = 0.6
"""Seconds between two cards shown to a person: each card of the others is seen as it is
played, however fast the bots are (bots' clocks do not run during it)."""
TRICK_PAUSE: Final = 1.5
"""Seconds a finished trick stays in view, its winner marked, before the next lead."""


def pause_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--card-pause`` and ``--trick-pause``, the pace of a table with a person at it (a
    ``web:`` seat), given to the command as ``pauses=(card, trick)``. A table of bots alone
    never pauses, so the defaults are a person's."""

    @functools.wraps(command)
    def with_pauses(*args: Any, card_pause: float, trick_pause: float, **kwargs: Any) -> Any:
        return command(*args, pauses=(card_pause, trick_pause), **kwargs)

    with_pauses = click.option(
        "--trick-pause",
        default=TRICK_PAUSE,
        show_default=True,
        type=Seconds(allow_zero=True, maximum=10.0),
        help="With a person at the table: seconds a finished trick stays in view with its winner (0: none).",
    )(with_pauses)
    return click.option(
        "--card-pause",
        default=CARD_PAUSE,
        show_default=True,
        type=Seconds(allow_zero=True, maximum=10.0),
        help="With a person at the table: seconds between cards, so each is seen as it is played (0: none).",
    )(with_pauses)


def sandbox_for(mode: str, binds: tuple[str, ...], loopback: bool = False) -> Sandbox | None:
    """The sandbox for the command's bots (a warning on stderr when auto finds none), or a
    one-line error (exit 1) when ``on`` cannot be had."""
    try:
        return choose_sandbox(mode, lambda text: click.echo(text, err=True), binds, loopback=loopback)  # type: ignore[arg-type]
    except SandboxUnavailable as err:
        raise click.ClickException(str(err)) from None


def cluster_address(value: str | None) -> str | None:
    """``--cluster``: ``local:N`` (N from 1 to 64) or a scheduler address ``tcp://host:port``."""
    if value is None:
        return None
    if value.startswith("local:"):
        count = value[len("local:") :]
        if not count.isdigit() or not 1 <= int(count) <= 64:
            raise click.BadParameter(f"local:N needs N from 1 to 64, not {count!r}", param_hint="--cluster")
        return f"local:{int(count)}"
    scheme, sep, rest = value.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or scheme not in ("tcp", "tls") or not colon or not host or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(
            f"expected tcp://HOST:PORT (a Dask scheduler) or local:N, not {value!r}", param_hint="--cluster"
        )
    return value


REPO: Final = Path(__file__).resolve().parents[2]
"""The repository (sample bots and their bots file live here)."""


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``OPTION=VALUE`` pairs as a dict; a VALUE is read as JSON when it parses
    (``players=5``, ``remove=["2D"]``, ``moon_points=null``), else as a string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected OPTION=VALUE, got {pair!r}", param_hint="--set")
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError:
            value = text
        options[key.strip()] = value
    return options


Played = TypeVar("Played")


def run_matches(play: Callable[[], Awaitable[Played]]) -> Played:
    """``trio.run`` for the commands that play matches, with their exits: a bot that cannot
    start is an error with its message (exit 1), a signal before the first match began exits
    128 + the signal's number (``exit_if_interrupted`` does the same after one)."""
    try:
        return trio.run(play)
    except BotStartError as err:
        raise click.ClickException(str(err)) from None
    except Interrupted as err:
        raise click.exceptions.Exit(128 + err.signum) from None


def exit_if_interrupted(outcome: MatchOutcome | None) -> None:
    """Exit 128 + the signal's number when a signal stopped the match (after its report)."""
    if outcome is not None and outcome.interrupted_by is not None:
        raise click.exceptions.Exit(128 + outcome.interrupted_by)
