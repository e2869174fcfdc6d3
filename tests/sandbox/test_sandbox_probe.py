"""``--sandbox auto`` decides once, and a passing shortage never starts bots unsandboxed.

Issue 22: a bot filled the machine's file table, and a ``referee match`` started meanwhile
found bubblewrap "not available" and ran its bots without a sandbox. Here the probe really
fails for want of descriptors (this process's own limit lowered until ``pipe`` fails with
EMFILE, the per-process twin of the machine's ENFILE): the choice is tried again, and refused
when the shortage lasts; it succeeds once descriptors are free again."""

from __future__ import annotations

import os
import resource
import shutil
from collections.abc import Iterator

import pytest

from referee.sandbox import bwrap
from referee.sandbox.bwrap import Sandbox, SandboxUnavailable, choose_sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


@pytest.fixture(autouse=True)
def fresh_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap, "_probed", {})


class Starved:
    """Holds every descriptor this process may open (its soft limit lowered to what is open
    now plus a few), so that the next ``pipe`` fails with EMFILE; ``release`` gives them back."""

    def __init__(self) -> None:
        self.saved = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.held: list[int] = []

    def __enter__(self) -> Starved:
        used = len(os.listdir("/proc/self/fd"))
        resource.setrlimit(resource.RLIMIT_NOFILE, (used + 8, self.saved[1]))
        try:
            while True:
                self.held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            pass
        return self

    def release(self) -> None:
        for fd in self.held:
            os.close(fd)
        self.held.clear()
        resource.setrlimit(resource.RLIMIT_NOFILE, self.saved)

    def __exit__(self, *exc: object) -> None:
        self.release()


@pytest.fixture
def starved() -> Iterator[Starved]:
    with Starved() as s:
        yield s


@pytest.mark.process
def test_a_shortage_that_lasts_is_refused_not_an_unsandboxed_start(starved: Starved) -> None:
    warnings: list[str] = []
    pauses: list[float] = []
    with pytest.raises(SandboxUnavailable) as caught:
        choose_sandbox("auto", warnings.append, pause=pauses.append)
    starved.release()
    message = str(caught.value)
    assert message.startswith("--sandbox auto: the sandbox could not be tried here just now (")
    assert "Too many open files" in message and "not starting bots unsandboxed" in message
    assert warnings == []  # no "bots are not isolated" fallback
    assert len(pauses) == bwrap.PROBE_TRIES - 1
    # the shortage was not remembered: with descriptors free the same run's next choice works
    assert isinstance(choose_sandbox("auto", warnings.append), Sandbox)


@pytest.mark.process
def test_a_shortage_that_passes_while_it_is_tried_again_gives_the_sandbox(starved: Starved) -> None:
    warnings: list[str] = []
    chosen = choose_sandbox("auto", warnings.append, pause=lambda seconds: starved.release())
    assert isinstance(chosen, Sandbox) and warnings == []


def test_on_is_refused_the_same_way(starved: Starved) -> None:
    with pytest.raises(SandboxUnavailable, match=r"^--sandbox on: the sandbox could not be tried"):
        choose_sandbox("on", pytest.fail, pause=lambda seconds: None)


def test_a_lasting_reason_still_falls_back_with_the_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not installed: ``auto`` warns once and runs without (what it always did)."""
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    warnings: list[str] = []
    assert choose_sandbox("auto", warnings.append) is None
    assert len(warnings) == 1 and "bwrap is not installed" in warnings[0]
