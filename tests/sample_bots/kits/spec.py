"""What the kits' suite (``tests/sample_bots/test_kits.py``) knows of a kit: how to build it, how
to run its sample bot and its probes, and what it cannot do. One :class:`Kit` a language, in
the modules beside this one; a test takes a ``kit`` and is run for every kit that can do what
it checks (``tests/sample_bots/conftest.py``).

A kit the tests build (C++, Go, Java, Rust) is built once a run, from a copy of its folder under
the session's temporary directory, so no build product is ever left in the repository
(:class:`Builds`)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from protocol.ruleset import RuleSet
from referee.rules import SeatView
from referee.rules.vectors import SeatState

ROOT = Path(__file__).resolve().parents[3]
PROBES = Path(__file__).resolve().parent / "probes"
"""The sources of the programs the tests write on a kit (state probes, faulty bots)."""
BUILD_TIMEOUT = 900.0
"""Seconds a build may take: a hang guard, generous for a cold cache on a loaded machine."""
T = TypeVar("T")


@dataclass(frozen=True)
class Built:
    """A kit's sample bot, ready to run: ``command`` (the documented one) from ``folder``, or
    ``argv`` from anywhere."""

    folder: Path
    command: str
    argv: list[str]
    warnings: str = ""
    """What the build said that an author should never see (nothing, for a clean build)."""
    env: dict[str, str] = field(default_factory=dict)
    """The environment its build ran in (for more builds in the same copy)."""


@dataclass(frozen=True)
class Position:
    """A play the sample bot makes: to ``trick``, from ``legal``, in ``preset``'s rules."""

    trick: tuple[str, ...]
    legal: tuple[str, ...]
    plays: str
    preset: str = "american"


ExpectedState = Callable[[SeatView, list[int], RuleSet], dict[str, Any]]
VectorExtra = Mapping[str, Callable[[SeatState], Any]]


@dataclass(frozen=True)
class StateProbe:
    """A program on the kit that writes its table state (``STATE {json}``) to stderr at each
    play, and the engine's view of the seat in the probe's terms."""

    build: Callable[[Built, Path], list[str]]
    """From the sample's build and a scratch folder: the probe's command line."""
    expected: ExpectedState
    presets: tuple[str, ...]
    """The presets it follows the engine in."""
    sort: tuple[str, ...] = ()
    """Lists it may keep in any order (compared sorted)."""
    ignored: tuple[str, ...] = ()
    """Keys it reports that are not compared with the engine."""
    stray: str | None = None
    """A line it prints on stdout at each play, which the kit must send to stderr instead."""
    vector_extra: VectorExtra = field(default_factory=dict)
    snake: bool = False
    """Its report's keys are in snake case (Rust), not camelCase."""
    after: Callable[[str, RuleSet], None] | None = None
    """More checks of its stderr after two matches in ``rules``."""
    clean: Callable[[str], None] | None = None
    """Checks its stderr wherever it ran (the C++ probe's: no sanitizer report)."""


@dataclass(frozen=True)
class Hostile:
    """Lines no referee sends, for the kit's reader."""

    ignored: tuple[bytes, ...]
    """Lines it survives without an answer (``lenient``: or with an answer to an id over 900000)."""
    answered: tuple[tuple[bytes, bytes], ...] = ()
    """Odd but readable requests, and the exact reply to each."""
    lenient: bool = False
    """It still answers a line it can read as a request (or a hello), with a valid message."""
    logged: tuple[str, ...] = ()
    """What its stderr says afterwards."""
    unlogged: tuple[str, ...] = ()
    """What its stderr never says."""
    on_probe: bool = False
    """Fed to the kit's state probe instead of its sample bot (the C++ probe's sanitizers see
    any memory error the lines cause)."""


@dataclass(frozen=True)
class Tcp:
    """How a kit's sample bot plays over TCP (``--tcp HOST:PORT`` and a token)."""

    refused_log: str = "cannot connect to"
    """What it logs when a connection is refused."""
    giving_up: Mapping[str, str] = field(default_factory=lambda: {"0": "0 s", "0.5": "0.5 s"})
    """How it writes the --retry-for seconds given (``giving up after ...``)."""


@dataclass(frozen=True)
class Kit:
    """One kit (its language's library for bots) and its sample bot."""

    name: str
    """The test id: cpp, go, java, rust, javascript, c."""
    language: str
    folder: Path
    build: Callable[[Path], Built]
    """Builds the sample bot in a scratch folder (or finds it, for a kit run in place)."""
    tools: tuple[str, ...]
    """Programs it needs: its tests skip without them."""
    bot_name: str | None = None
    """What its sample bot calls itself in its hello."""
    built_by_tests: bool = False
    """Built by these tests, once a run: its tests are an ``xdist_group`` and marked ``compiler``."""
    timeout: float = 10.0
    """Seconds a started bot may take to reply or exit: a hang guard."""
    lint: Callable[[Built, Path], str] | None = None
    """Builds it with every warning on (in a scratch folder): what the compiler or linter said."""
    ignored: tuple[str, ...] = ()
    """What its .gitignore lists: its build products."""
    build_line: tuple[str, str] | None = None
    """(a file of the folder, the build line the tests run, which that file gives)."""
    test_products: tuple[str, ...] = ()
    """What only these tests build, which is never in the repository's folder."""
    passes: tuple[str, ...] | None = None
    """What the sample bot passes from ``kit_driver.HAND`` (sorted), if it chooses."""
    plays: tuple[Position, ...] = ()
    max_id: int | None = None
    """The largest request id it echoes exactly (None: any, digit for digit)."""
    fatal_exit: int = 1
    """Its exit status after a fatal error."""
    fatal_log: str | None = "referee error {code} (fatal): {message}"
    """What it logs on a fatal error (None: its own words)."""
    line_limit: bool = True
    """It reads a line of the protocol's 65536 bytes (before the newline) and skips a longer one."""
    quiet: bool = True
    """It writes nothing to stderr when nothing goes wrong (Go logs each match's end)."""
    check_variants: tuple[str, ...] = ()
    """Variants besides American in which ``referee check`` is run (none: no check here)."""
    sandbox_build: str | None = None
    """A build line the referee's own build step runs in the sandbox before the sandboxed check,
    as a ladder does (None: the check runs the tests' build)."""
    matches: bool = False
    """It plays whole matches through the referee here (the others do in test_sample_bots.py)."""
    probe: StateProbe | None = None
    hostile: Hostile | None = None
    tcp: Tcp | None = None

    def __str__(self) -> str:
        return self.name


def kits(
    where: Callable[[Kit], bool] = lambda _: True, each: tuple[str, Callable[[Kit], Iterable[object]]] | None = None
) -> pytest.MarkDecorator:
    """The kits a test that takes ``kit`` runs for: those ``where`` selects; with ``each``, a
    name and a kit's values of it, once for each (``tests/sample_bots/conftest.py``)."""
    mark: pytest.MarkDecorator = pytest.mark.kits(where, each=each)
    return mark


def only(name: str) -> pytest.MarkDecorator:
    """The test runs for the kit ``name`` alone (a thing only that kit has)."""
    return kits(lambda kit: kit.name == name)


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------
def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A build command, its output captured (behind the hang guard)."""
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False)


def built_ok(result: subprocess.CompletedProcess[str]) -> str:
    """What a build that must succeed wrote."""
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def copy_folder(kit: Kit, destination: Path) -> Path:
    """The kit's folder as a bot author gets it: its sources, without any build product an
    author left in it (which must not hide a broken build here)."""
    products = [word.strip("/") for word in kit.ignored] + [*kit.test_products]
    shutil.copytree(kit.folder, destination, ignore=shutil.ignore_patterns(*products))
    return destination


class Builds:
    """What the tests build on the kits, each once a session, on first use: ``get(key, make)``
    calls ``make(scratch folder)`` the first time and keeps its result, or its failure (a kit
    whose tools are missing is skipped, each time it is asked for)."""

    def __init__(self, scratch: Callable[[str], Path]) -> None:
        self.scratch = scratch
        self.done: dict[str, Any] = {}
        self.failed: dict[str, BaseException] = {}

    def get(self, key: str, make: Callable[[Path], T]) -> T:
        if key in self.failed:
            raise self.failed[key]
        if key not in self.done:
            try:
                self.done[key] = make(self.scratch(key))
            except (Exception, pytest.skip.Exception) as error:
                self.failed[key] = error
                raise
        result: T = self.done[key]
        return result

    def sample(self, kit: Kit) -> Built:
        missing = [tool for tool in kit.tools if shutil.which(tool) is None]
        if missing:
            pytest.skip(f"{kit.language}: {', '.join(missing)} not installed")
        return self.get(kit.name, kit.build)

    def probe(self, kit: Kit) -> list[str]:
        probe = kit.probe
        assert probe is not None, f"{kit.name} has no state probe"
        built = self.sample(kit)
        return self.get(f"{kit.name}-probe", lambda scratch: probe.build(built, scratch))


BAD_COMMAND_LINES: dict[str, list[str]] = {
    "no-address": ["--tcp"],
    "no-port": ["--tcp", "nonsense"],
    "port-out-of-range": ["--tcp", "127.0.0.1:99999"],
    "port-zero": ["--tcp", "127.0.0.1:0"],
    "port-not-a-number": ["--tcp", "127.0.0.1:http"],
    "negative-retry": ["--retry-for", "-1"],
    "negative-retry-with-tcp": ["--tcp", "h:1", "--retry-for", "-1"],
}
"""Command lines every kit refuses with exit status 2 (the Python kit's ``main`` too)."""
