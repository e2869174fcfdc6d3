"""Fixtures of the kits' tests: bot programs started on pipes, ended when the test ends; and the
kits themselves (``tests/sample_bots/kits``).

A test that takes ``kit`` runs once for each kit (``kits.KITS``), or for those its ``kits``
mark selects (``kits.kits``: ``@kits(lambda kit: kit.tcp is not None)``); a mark's ``each`` gives
each kit's values of one more argument (``each=("variant", lambda kit: kit.check_variants)``).
The tests of a kit these tests build (C++, Go, Java, Rust) are an ``xdist_group`` of their own,
so one worker builds it once a run (``pyproject.toml``: ``--dist loadgroup``), and those that
use its build (``built``, ``probe``) are marked ``compiler``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bot_process import TIMEOUT, Start, bots_started
from tests.sample_bots.kits import KITS, Builds, Built, Kit
from tests.tiers import starts

BUILDING = ("built", "probe")
"""The fixtures that build a kit: a test that uses one is marked ``compiler`` for a built kit."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kits(where, each=None): the kits a test that takes ``kit`` runs for")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "kit" not in metafunc.fixturenames:
        return
    mark = metafunc.definition.get_closest_marker("kits")
    where = mark.args[0] if mark else lambda _: True
    each = mark.kwargs["each"] if mark else None
    building = any(name in metafunc.fixturenames for name in BUILDING)
    params = []
    for kit in filter(where, KITS):
        marks: list[Any] = []
        if kit.built_by_tests:
            marks.append(pytest.mark.xdist_group(f"kit-{kit.name}"))
            if building:
                marks.append(pytest.mark.compiler)
        if each is None:
            params.append(pytest.param(kit, marks=marks, id=kit.name))
        else:
            params += [pytest.param(kit, v, marks=marks, id=f"{kit.name}-{v}") for v in each[1](kit)]
    names = "kit" if each is None else f"kit,{each[0]}"
    metafunc.parametrize(names, params)


@pytest.fixture
def reply_timeout(request: pytest.FixtureRequest) -> float:
    """Seconds a started bot may take for a reply or its exit: a hang guard (a kit whose bots
    start slowly, a JVM or a sanitizer build say, gives its own)."""
    if "kit" in request.fixturenames:
        kit: Kit = request.getfixturevalue("kit")
        return kit.timeout
    return TIMEOUT


@pytest.fixture
@starts("process")
def start(tmp_path: Path, reply_timeout: float) -> Iterator[Start]:
    """``start(command, env=None)``: a bot program on pipes, from the repository root."""
    with bots_started(tmp_path, reply_timeout) as start_bot:
        yield start_bot


@pytest.fixture(scope="session")
def kit_builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    """Every build of the session (each kit's once, on first use)."""
    return Builds(lambda key: tmp_path_factory.mktemp(f"kit-{key}"))


@pytest.fixture
@starts("process")
def built(kit: Kit, kit_builds: Builds) -> Built:
    """The kit's sample bot, built (skipped where the kit's tools are missing)."""
    return kit_builds.sample(kit)


@pytest.fixture
@starts("process")
def probe(kit: Kit, kit_builds: Builds) -> list[str]:
    """The command line of the kit's state probe, built."""
    return kit_builds.probe(kit)
