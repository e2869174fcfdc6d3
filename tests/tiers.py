"""The suite's tiers (docs/development.md): a test either starts no process, and is in the fast
tier (``pytest -m "not process"``, the command to run after each change), or it is marked
``process`` (``browser`` and ``compiler`` imply it).

Membership is not a hand list that can drift. A test is marked by what it uses: a fixture that
starts processes says so with :func:`starts`, and every test that requests it, directly or
through other fixtures, is marked at collection. And it is checked: during the setup, call and
teardown of a test that is not marked, starting a process in any way (``subprocess``, and so
``trio.run_process``, ``trio.lowlevel.open_process`` and asyncio's subprocesses; ``os.fork``,
``forkpty``, ``posix_spawn``, ``exec*``, ``system``; ``multiprocessing``) raises
:class:`ProcessInFastTier` and fails the test with what it started and how to mark it, in the
full suite as in the fast tier, so a test cannot sit in the wrong tier unseen.
(``tests/test_tiers.py`` proves the guard.)

``--tiers-record FILE`` lets every process start and writes, for each test, the commands it
started (JSON): how the marks were first found, and how to see which marked tests start none.

Property tests try fewer examples in the fast tier (:func:`examples`): the whole suite, which
CI runs before anything lands, tries each test's full number; the fast tier, run after each
change, a third of it (at least ``FAST_FLOOR``), new random ones on every run, so repeated runs
add up to the whole number and more (docs/development.md, "Tiers")."""

from __future__ import annotations

import _posixsubprocess
import json
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

import pytest
from _pytest.mark.expression import Expression
from hypothesis import settings

MARKERS: Final = {
    "process": "starts a process (a bot, the referee's command line, a tool): not in the fast tier",
    "browser": "drives a headless browser (implies process)",
    "compiler": "builds a kit or a bot with a compiler (implies process)",
}
IMPLY_PROCESS: Final = ("browser", "compiler")
RECORD_OPTION: Final = "--tiers-record"

F = TypeVar("F", bound=Callable[..., Any])


def starts(marker: str = "process") -> Callable[[F], F]:
    """Put under ``@pytest.fixture``: every test that uses the fixture gets ``marker``."""
    if marker not in MARKERS:
        raise ValueError(f"no tier marker {marker!r}: one of {sorted(MARKERS)}")

    def mark(function: F) -> F:
        function.tier_marker = marker  # type: ignore[attr-defined]
        return function

    return mark


class ProcessInFastTier(RuntimeError):
    """A test that is not marked ``process`` tried to start one."""


def _fixture_markers(item: pytest.Item) -> set[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    found = set()
    for name in item.fixturenames:  # type: ignore[attr-defined]
        for definition in info.name2fixturedefs.get(name, ()):
            marker = getattr(definition.func, "tier_marker", None)
            if marker:
                found.add(marker)
    return found


FAST_SHARE: Final = 3
"""The fast tier tries one example in this many of a property test's number."""
FAST_FLOOR: Final = 10
"""Fewest examples a property test tries in the fast tier."""
_FAST: list[bool] = [False]
"""Whether this run is the fast tier (set before the test modules are imported)."""


def examples(number: int) -> int:
    """A property test's ``max_examples``: ``number`` in the whole suite, a third of it (at least
    ``FAST_FLOOR``, never more than ``number``) in the fast tier (module docstring)."""
    return min(number, max(FAST_FLOOR, number // FAST_SHARE)) if _FAST[0] else number


def is_fast_tier(config: pytest.Config) -> bool:
    """Whether ``-m`` leaves out every test marked ``process``: the fast tier."""
    chosen = config.getoption("markexpr", "")

    def marked(name: str, /, **_: str | int | bool | None) -> bool:
        return name == "process"

    return bool(chosen) and not Expression.compile(chosen).evaluate(marked)


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    _FAST[0] = is_fast_tier(config)
    if _FAST[0]:  # the tests that name no number: hypothesis's 100, cut as examples() cuts
        settings.register_profile("referee-fast", settings.default, max_examples=examples(100))
        settings.load_profile("referee-fast")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        RECORD_OPTION,
        metavar="FILE",
        default=None,
        help="let tests start processes and write, for each test, what it started (JSON)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in sorted(_fixture_markers(item)):
            if item.get_closest_marker(marker) is None:
                item.add_marker(marker)
        if item.get_closest_marker("process") is None and any(item.get_closest_marker(m) for m in IMPLY_PROCESS):
            item.add_marker("process")


class _Watch:
    """What the current test started; the patched functions report here, from any thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = False  # during the run loop (not in a pytester run of the guard's own test)
        self.blocking = False
        self.started: list[str] = []

    def report(self, what: str) -> None:
        with self.lock:
            self.started.append(what)
        if self.blocking:
            raise ProcessInFastTier(f"this test is in the fast tier and started a process: {what}\n{_HOW_TO_MARK}")


_HOW_TO_MARK: Final = (
    "Mark the test (or its module: pytestmark = pytest.mark.process; browser or compiler where that is what it "
    "starts), or, if a fixture starts it, decorate the fixture with @tests.tiers.starts(...) under @pytest.fixture. "
    "Better still, where the process adds nothing, test the logic in-process (docs/development.md, 'Tiers')."
)

_WATCH: Final = _Watch()


def _describe(args: object) -> str:
    if isinstance(args, (str, bytes, os.PathLike)):
        return repr(os.fsdecode(args))
    try:
        return " ".join(os.fsdecode(a) for a in args)  # type: ignore[attr-defined]
    except TypeError:
        return repr(args)


_INSIDE: Final = threading.local()
"""Set while a patched function runs in this thread: ``subprocess`` calls ``posix_spawn`` or
``fork_exec`` in turn, and one process is one report."""


def _reporting(name: str, original: Callable[..., Any], describe: Callable[..., str]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if getattr(_INSIDE, "depth", 0):
            return original(*args, **kwargs)
        if _WATCH.active:
            _WATCH.report(f"{name}: {describe(*args, **kwargs)}")
        _INSIDE.depth = 1
        try:
            return original(*args, **kwargs)
        finally:
            _INSIDE.depth = 0

    guarded.__wrapped__ = original  # type: ignore[attr-defined]
    return guarded


def _patches() -> list[tuple[object, str, Callable[..., str]]]:
    """(owner, attribute, describe) of every way a test could start a process."""

    def first(*args: Any, **_: Any) -> str:
        return _describe(args[1]) if len(args) > 1 else ""

    def nothing(*_: Any, **__: Any) -> str:
        return ""

    def popen(_self: object, args: object, *_: Any, **__: Any) -> str:
        return _describe(args)

    def fork_exec(args: object, *_: Any, **__: Any) -> str:
        return _describe(args)

    patches: list[tuple[object, str, Callable[..., str]]] = [
        (subprocess.Popen, "_execute_child", popen),
        (_posixsubprocess, "fork_exec", fork_exec),
        (os, "system", lambda command, *_, **__: _describe(command)),
    ]
    for name in ("fork", "forkpty"):
        patches.append((os, name, nothing))
    for name in ("posix_spawn", "posix_spawnp", "execv", "execve"):
        patches.append((os, name, first))
    return [(owner, name, describe) for owner, name, describe in patches if hasattr(owner, name)]


@contextmanager
def _installed() -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in _patches()]
    for (owner, name, describe), (_, _, original) in zip(_patches(), saved, strict=True):
        label = f"{getattr(owner, '__name__', owner)}.{name}"
        setattr(owner, name, _reporting(label, original, describe))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    """The patches stay in place for the whole run; each test's phases switch what they do."""
    _WATCH.active = True
    record_to = session.config.getoption(RECORD_OPTION)
    session.stash[_RECORD] = {}
    try:
        with _installed():
            return (yield)
    finally:
        _WATCH.active = False
        if record_to:
            Path(record_to).write_text(json.dumps(session.stash[_RECORD], indent=1, sort_keys=True) + "\n")


_RECORD: Final = pytest.StashKey[dict[str, list[str]]]()


@contextmanager
def _phase(item: pytest.Item) -> Iterator[None]:
    watch = _WATCH
    if not watch.active:
        yield
        return
    recording = item.config.getoption(RECORD_OPTION) is not None
    watch.blocking = not recording and item.get_closest_marker("process") is None
    watch.started = []
    try:
        yield
    except ProcessInFastTier as refusal:  # the refusal itself, as the test saw it
        raise pytest.fail.Exception(str(refusal), pytrace=False) from None
    finally:
        started, watch.started, watch.blocking = watch.started, [], False
        if recording and started:
            item.session.stash[_RECORD].setdefault(item.nodeid, []).extend(started)
    if started and item.get_closest_marker("process") is None:
        # the test went on: the code under test caught the refusal, or a thread did
        pytest.fail(
            f"this test is in the fast tier and tried to start {len(started)} process(es), first {started[0]}\n"
            + _HOW_TO_MARK,
            pytrace=False,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _phase(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _phase(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _phase(item):
        return (yield)
