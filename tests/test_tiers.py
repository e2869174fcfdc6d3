"""The fast tier's guard (tests/tiers.py): a test that is not marked ``process`` cannot start one,
however it tries, and fails saying so; a marked test, or one whose fixture says it starts
processes, can, and is left out of the fast tier.

The first tests run in the fast tier themselves: each way of starting a process is refused
here (and, should the guard let one through, the command is ``true``, and a forked child exits at
once). The last runs a small suite of its own in a pytest process, so it is in the slow tier."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio
from hypothesis import settings

from tests import tiers

ROOT = Path(__file__).resolve().parent.parent
TRUE = "/bin/true"


@contextmanager
def refused() -> Iterator[None]:
    """The block must be refused a process; the refusal is then forgiven, since it is this test's
    point (otherwise the guard fails the test when its phase ends)."""
    if tiers._WATCH.active and not tiers._WATCH.blocking:
        pytest.skip("--tiers-record lets processes start")
    with pytest.raises(tiers.ProcessInFastTier, match="fast tier"):
        yield
    tiers._WATCH.started.clear()


def fork_and_leave() -> None:
    if os.fork() == 0:  # only if the guard failed: the child must not go on running the suite
        os._exit(0)


async def trio_run_process() -> None:
    await trio.run_process([TRUE])


async def asyncio_subprocess() -> None:
    process = await asyncio.create_subprocess_exec(TRUE)
    await process.wait()


def multiprocessing_spawn() -> None:
    process = multiprocessing.get_context("spawn").Process(target=print)
    process.start()
    process.join()


WAYS: dict[str, Callable[[], object]] = {
    "subprocess.run": lambda: subprocess.run([TRUE], check=False),
    "subprocess.Popen": lambda: subprocess.Popen([TRUE]).wait(),
    "os.system": lambda: os.system(TRUE),
    "os.popen": lambda: os.popen(TRUE).close(),
    "os.fork": fork_and_leave,
    "os.posix_spawn": lambda: os.waitpid(os.posix_spawn(TRUE, [TRUE], {}), 0),
    "os.posix_spawnp": lambda: os.waitpid(os.posix_spawnp("true", ["true"], os.environ), 0),
    "trio.run_process": lambda: trio.run(trio_run_process),
    "asyncio subprocess": lambda: asyncio.run(asyncio_subprocess()),
    "multiprocessing spawn": multiprocessing_spawn,
}


@pytest.mark.parametrize("way", list(WAYS))
def test_every_way_of_starting_a_process_is_refused_in_the_fast_tier(way: str) -> None:
    with refused():
        WAYS[way]()


def test_this_module_runs_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("process") is None
    assert hasattr(subprocess.Popen._execute_child, "__wrapped__"), "the guard is not installed"  # type: ignore[attr-defined]


class _Options:
    """A configuration's ``getoption`` as :func:`tiers.is_fast_tier` asks it."""

    def __init__(self, markexpr: str) -> None:
        self.markexpr = markexpr

    def getoption(self, name: str, default: object = None) -> object:
        return self.markexpr if name == "markexpr" else default


@pytest.mark.parametrize(
    ("markexpr", "fast"),
    [
        ("not process", True),
        ("not process and not fonts", True),
        ("not (process or browser)", True),
        ("", False),
        ("not browser", False),  # the process tests that start no browser still run
        ("process", False),
        ("fonts", True),  # only the fonts tests, none of which starts a process
    ],
)
def test_the_fast_tier_is_any_run_that_leaves_out_every_process_test(markexpr: str, fast: bool) -> None:
    assert tiers.is_fast_tier(_Options(markexpr)) is fast  # type: ignore[arg-type]


def test_property_tests_try_a_third_of_their_examples_in_the_fast_tier_only(request: pytest.FixtureRequest) -> None:
    """This run's own setting: the whole number in the whole suite, a third in the fast tier,
    for the tests that name a number and for those that take hypothesis's default."""
    fast = tiers.is_fast_tier(request.config)
    assert [tiers.examples(n) for n in (5, 15, 60, 300)] == ([5, 10, 20, 100] if fast else [5, 15, 60, 300])
    assert settings.default.max_examples == (33 if fast else 100)


INNER = """
import subprocess

import pytest

from tests.tiers import starts


@pytest.fixture
@starts("compiler")
def compiled():
    subprocess.run(["true"], check=True)
    return "built"


@pytest.fixture
def built(compiled):  # through another fixture: still marked
    return compiled


def test_unmarked_start():
    subprocess.run(["true"], check=True)


def test_unmarked_start_that_hides_the_refusal():
    try:
        subprocess.run(["true"], check=True)
    except Exception:
        pass


@pytest.fixture
def plain_fixture_starting_one():
    subprocess.run(["true"], check=True)


def test_unmarked_fixture_start(plain_fixture_starting_one):
    pass


@pytest.mark.process
def test_marked_start():
    assert subprocess.run(["true"], check=True).returncode == 0


def test_fixture_marks(built, request):
    assert built == "built"
    assert request.node.get_closest_marker("compiler") and request.node.get_closest_marker("process")


def test_no_process():
    assert 1 + 1 == 2
"""


@pytest.mark.process
def test_the_guard_fails_unmarked_tests_and_the_marks_choose_the_tier(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_inner=INNER)
    everything = pytester.runpytest_subprocess("-p", "tests.tiers", "-p", "no:cacheprovider", "-rf")
    everything.assert_outcomes(passed=3, failed=2, errors=1)
    everything.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_unmarked_fixture_start*",
            "this test is in the fast tier and started a process: Popen._execute_child: true",
            "*test_unmarked_start *",
            "this test is in the fast tier and started a process: Popen._execute_child: true",
            "*test_unmarked_start_that_hides_the_refusal*",
            "this test is in the fast tier and tried to start 1 process(es), first Popen._execute_child: true",
        ]
    )
    assert "Mark the test" in everything.stdout.str()
    fast = pytester.runpytest_subprocess("-p", "tests.tiers", "-p", "no:cacheprovider", "-m", "not process")
    fast.assert_outcomes(passed=1, failed=2, errors=1, deselected=2)
