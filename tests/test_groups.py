"""The suite's ``xdist_group`` marks hold: under ``--dist loadgroup`` (``pyproject.toml``'s
``addopts``) every test of a group runs on one worker.

The suite relies on it twice: each kit's tests are a group so the kit is built once a run, not
once per worker (the C++ kit's sanitizer build alone is seconds of CPU), and the tests that start
``spinner_bot.py`` are a group because one of them looks at the whole machine for spinners left
behind. Nothing fails when grouping is lost, the tests are only spread out: pytest 9.2 did that
silently to pytest-xdist 3.8 (node ids became structured, and the group suffix xdist writes into
``_nodeid`` went nowhere: pytest-dev/pytest-xdist#1386), which is why ``pyproject.toml`` keeps
pytest below 9.2 until xdist follows. This test is what sees it: a small suite, run in two
workers, writes each test's worker and asserts one worker per group.
"""

from __future__ import annotations

from pathlib import Path

import pytest

INNER = """
import os
import pathlib

import pytest

OUT = pathlib.Path(os.environ["GROUPS_OUT"])


def ran(name):
    with OUT.open("a") as out:
        out.write(f"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n")


pytestmark = pytest.mark.xdist_group("kit")


@pytest.mark.parametrize("n", range(6))
def test_kit(n):
    ran("kit")


@pytest.mark.xdist_group("spinners")  # the closest mark names the group, as in the suite
@pytest.mark.parametrize("n", range(6))
def test_spinner(n):
    ran("spinners")
"""


@pytest.mark.process
def test_each_group_runs_on_one_worker(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    out = pytester.path / "workers.txt"
    monkeypatch.setenv("GROUPS_OUT", str(out))
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup")
    result.assert_outcomes(passed=12)
    workers: dict[str, set[str]] = {}
    for line in out.read_text().splitlines():
        group, worker = line.split()
        workers.setdefault(group, set()).add(worker)
    assert set(workers) == {"kit", "spinners"}
    assert all(len(ran_on) == 1 for ran_on in workers.values()), f"a group was spread over workers: {workers}"


def test_the_suite_is_distributed_by_group(pytestconfig: pytest.Config) -> None:
    """The README's ``-n 3`` gets ``--dist loadgroup`` from ``pyproject.toml``."""
    addopts = pytestconfig.getini("addopts")
    assert "--dist" in addopts and addopts[addopts.index("--dist") + 1] == "loadgroup"


def test_the_spinner_tests_share_a_group() -> None:
    """Every test module that starts ``spinner_bot.py`` names the group ``spinners``."""
    this = Path(__file__).resolve()
    texts = {path: path.read_text() for path in this.parent.rglob("test_*.py") if path != this}
    users = [path for path, text in texts.items() if "spinner_bot" in text]
    assert users, "no test starts the spinner"
    for path in users:
        assert 'xdist_group("spinners")' in texts[path], f"{path} starts spinner_bot.py outside the group"
