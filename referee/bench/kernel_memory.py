"""``referee bench kernel-memory``: how much of the machine's memory a bot can pin in kernel
objects outside its control group.

A bot (``kernel_peer.py``, started as the referee starts bots: sandbox, uid, group, limits)
fills one kind of kernel object with several processes, up to a budget, and holds it. From
outside, the bench reads the machine's ``MemAvailable`` before and while it holds, and what its
group is charged (``BotGroup.charged_bytes``); what the machine lost beyond the group's charge
is memory the bot holds that no bound of its own limits. Figures go to ``docs/security.md``.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import msgspec
import trio

from referee.players.process import BotLimits, ProcessLink
from referee.sandbox.bwrap import Sandbox

PEER = Path(__file__).resolve().parent / "kernel_peer.py"
KINDS = ("netlink", "tcp", "unix", "pipe", "memfd", "fds", "mqueue", "timers")
SETTLE = 0.5
"""Seconds between the bot's report and the reading: the kernel frees and charges lazily."""


class KernelMemoryCase(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    sandbox: str
    """``on``, ``loopback`` (``--sandbox-loopback``) or ``off``."""
    pushed_mib: float
    """What the bot pushed into the kernel (bytes written, sent, or objects for ``fds``)."""
    objects: int
    refused: str | None
    """The first refusal the bot met (an ``errno`` name), ``None`` if it reached its budget."""
    group_mib: float | None
    """What the bot's group was charged while it held them."""
    machine_mib: float
    """How much ``MemAvailable`` fell while it held them."""
    outside_mib: float
    """What the machine lost beyond the group's charge (0 when it is all charged)."""


def available_bytes() -> int:
    """``MemAvailable`` from ``/proc/meminfo``."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("/proc/meminfo has no MemAvailable")


def bench_kernel_kind(kind: str, sandbox: Sandbox | None, mib: int, processes: int) -> KernelMemoryCase:
    limits = BotLimits(sandbox=sandbox)
    before = available_bytes()

    async def held() -> tuple[bytes, int | None, int]:
        async with trio.open_nursery() as nursery:
            start = functools.partial(ProcessLink.start, nursery=nursery, cwd=PEER.parent, limits=limits)
            bot = await start([sys.executable, str(PEER), kind, str(mib), str(processes)])
            try:
                with trio.fail_after(120):
                    line = await bot.receive_line()
                await trio.sleep(SETTLE)
                charged = bot.group.charged_bytes() if bot.group is not None else None
                return line, charged, available_bytes()
            finally:
                await bot.close(0.5)

    line, charged, during = trio.run(held)
    report = msgspec.json.decode(line)
    machine = max(0, before - during)
    outside = max(0, machine - (charged or 0))
    mode = "off" if sandbox is None else "loopback" if sandbox.loopback else "on"
    return KernelMemoryCase(
        kind=kind,
        sandbox=mode,
        pushed_mib=round(report["pushed"] / (1 << 20), 1) if kind not in ("fds", "timers") else 0.0,
        objects=report["objects"],
        refused=report["refused"],
        group_mib=round(charged / (1 << 20), 1) if charged is not None else None,
        machine_mib=round(machine / (1 << 20), 1),
        outside_mib=round(outside / (1 << 20), 1),
    )


def bench_kernel_memory(
    sandbox: Sandbox | None, kinds: tuple[str, ...] = KINDS, mib: int = 512, processes: int = 8
) -> list[KernelMemoryCase]:
    """Each kind, as configured; ``tcp`` also with the bot's loopback allowed (else it is
    refused before it starts)."""
    cases = []
    for kind in kinds:
        cases.append(bench_kernel_kind(kind, sandbox, mib, processes))
        if kind == "tcp" and sandbox is not None and not sandbox.loopback:
            cases.append(bench_kernel_kind(kind, msgspec.structs.replace(sandbox, loopback=True), mib, processes))
    return cases
