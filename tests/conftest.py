"""Settings for the whole suite.

Hypothesis by default fails an example that takes over 200 ms (``deadline``) and a test whose
data is slow to generate (``HealthCheck.too_slow``): both are verdicts on the machine's speed,
not on the code, and turn red when another process keeps the cores busy. The suite's
properties are about behaviour, so neither applies (docs/development.md); a test may still set
its own ``max_examples`` and other health checks.

The suite runs in parallel (pytest-xdist, docs/development.md): the one thing tests build in
the repository itself, the sample C bot (``make`` in ``sample_bots/c``, as ``bots.toml`` says),
is built once before the first test, under a lock the workers share, when the run holds a test
that starts processes; a worker's ``make`` then finds it up to date instead of racing another's
build of it.

Where ``PYTHONDONTWRITEBYTECODE`` is set (as on this machine), Python never caches the
referee's compiled modules, so each of the suite's thousands of processes (``referee``
command lines, Python bots importing the kit) would compile them again: they are compiled once
under the same lock, and every process reads them (the setting stops writing, not reading).
The setting also stops pytest caching its rewrite of each test module's asserts, and rewriting
them all is most of a worker's collection (about 8 s of CPU in each worker, each run): bytecode
is written while the suite is collected (the test modules' rewrites and the modules they
import), and the machine's setting is back before the first test.

matplotlib lists the machine's fonts with ``fc-list`` (a process) the first time it is used
there, and caches the list: a test marked ``fonts`` plots in-process, in the fast tier, so the
list is made before the first test, once, and no such test starts a process on a fresh machine
(which one made it first used to depend on the order the workers took the tests)."""

from __future__ import annotations

import compileall
import fcntl
import hashlib
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("referee", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("referee")

WRITES_BYTECODE = not sys.dont_write_bytecode
"""The machine's setting (``PYTHONDONTWRITEBYTECODE``), which collection does without."""
sys.dont_write_bytecode = False

pytest_plugins = [
    "tests.tiers",  # the tiers' markers and the guard of the fast tier
    "pytester",  # a suite run inside a test (tests/test_tiers.py)
]

REPOSITORY = Path(__file__).resolve().parent.parent
C_BOT = REPOSITORY / "sample_bots" / "c"
COMPILED = ("referee", "protocol", "sample_bots/python", "tests/bots")
"""What the suite's processes import from the repository, compiled before the first test."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fonts: draws with matplotlib in-process (its font list is made before the run)")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse at once a run whose sandbox tests cannot pass here, saying why: a sandbox runs its
    bot as a user of its own, which may not enter a repository closed to other users (a clone in
    ``mktemp -d``, mode 0700), and a dozen sandbox tests would fail minutes later, one by one."""
    config = session.config
    if hasattr(config, "workerinput") or shutil.which("bwrap") is None:
        return  # a worker (the controller has checked), or no sandbox: its tests skip
    if "not process" in (config.getoption("markexpr") or ""):
        return  # the fast tier starts no bot
    mode = REPOSITORY.stat().st_mode
    if not mode & stat.S_IXOTH:
        raise pytest.UsageError(
            f"{REPOSITORY} is closed to other users (mode {stat.S_IMODE(mode):o}), and the sandboxed bots of the tests "
            f"run as users of their own: open it (chmod o+rx {REPOSITORY}), or run the fast tier (-m 'not process')"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    sys.dont_write_bytecode = not WRITES_BYTECODE
    if any(item.get_closest_marker("fonts") for item in session.items):
        import matplotlib.font_manager  # noqa: F401, PLC0415  (makes and caches the font list, once a machine)
    if not any(item.get_closest_marker("process") for item in session.items):
        return
    key = hashlib.sha256(str(C_BOT).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"hearts-referee-c-bot-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not WRITES_BYTECODE:  # py_compile writes whatever the setting says
            for folder in COMPILED:
                compileall.compile_dir(REPOSITORY / folder, quiet=2)  # a read-only tree: left as it is
        if shutil.which("make") is None or not (shutil.which("cc") or shutil.which("gcc")):
            return  # the tests that need the C bot skip
        # a failed build is left to the tests that use the bot, which say why
        subprocess.run(["make", "-s", "-C", str(C_BOT)], capture_output=True, timeout=300, check=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    browser = sys.modules.get("tests.browser")  # imported only where a browser test ran
    if browser is not None:
        browser.close_shared()
