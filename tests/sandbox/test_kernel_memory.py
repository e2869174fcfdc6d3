"""Kernel memory a bot pins is charged to its own control group or refused (issue 31): a real
bot (``referee/bench/kernel_peer.py``, started as the referee starts bots) fills kernel objects
with several processes, and the group's own files, read from outside, say who pays."""

from __future__ import annotations

import shutil

import msgspec
import pytest

from referee.bench.kernel_memory import bench_kernel_kind
from referee.sandbox.bwrap import Sandbox, choose_sandbox
from referee.sandbox.cgroups import CgroupHost
from referee.sandbox.groups import bot_groups

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(not isinstance(bot_groups(), CgroupHost), reason="no control groups here"),
]
BUDGET_MIB = 48
PROCESSES = 3


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    found = choose_sandbox("on", lambda _: None)
    assert found is not None
    return found


@pytest.mark.parametrize("kind", ["netlink", "tcp"])
def test_sockets_of_no_use_to_a_bot_are_refused(sandbox: Sandbox, kind: str) -> None:
    """Netlink replies (3 GiB before) and loopback TCP buffers (312 MiB) were held outside the
    bot's group; a bot now cannot open either socket, so it pushes nothing."""
    case = bench_kernel_kind(kind, sandbox, BUDGET_MIB, PROCESSES)
    assert (case.refused, case.pushed_mib, case.objects) == ("EAFNOSUPPORT", 0.0, 0), case


@pytest.mark.parametrize("kind", ["unix", "pipe", "memfd"])
def test_what_a_bot_may_fill_is_charged_to_its_group(sandbox: Sandbox, kind: str) -> None:
    """Unix socket queues and pipe buffers are charged to the bot's group (against its memory
    bound) like its own memory (memfd: the baseline)."""
    case = bench_kernel_kind(kind, sandbox, BUDGET_MIB, PROCESSES)
    assert case.pushed_mib >= BUDGET_MIB * 0.9, case
    assert case.group_mib is not None and case.group_mib >= case.pushed_mib * 0.9, case


def test_loopback_tcp_when_allowed_is_counted_in_the_group(sandbox: Sandbox) -> None:
    """With ``--sandbox-loopback`` TCP works on the bot's own loopback and its buffers are
    counted in its group (cgroup v1: ``memory.kmem.tcp``, written for every bot; v2: in
    ``memory.current``)."""
    case = bench_kernel_kind("tcp", msgspec.structs.replace(sandbox, loopback=True), BUDGET_MIB, PROCESSES)
    assert case.sandbox == "loopback" and case.pushed_mib >= BUDGET_MIB * 0.9, case
    assert case.group_mib is not None and case.group_mib >= case.pushed_mib * 0.9, case
