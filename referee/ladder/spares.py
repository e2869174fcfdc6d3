"""Bots started ahead of their match: fresh bots at the speed of kept ones.

A ladder starts fresh bots for every match (a bot cannot carry what it saw into the next
rotation), and starting four sandboxed programs took longer than a match of quick bots: 0.35
of the kept bots' throughput. So while a match plays, the table starts the bots of its next
match (a duplicate set's rotations seat the same bots), each in its own group as always but
with the least CPU weight (``WAITING_WEIGHT``): a waiting bot starts up on idle CPU and cannot
take time from the match in play, however it spins. When its match comes, a spare gets the
weight of every other bot back, says its hello, and plays that one match: each spare is used
for exactly one match, as a bot started then would be. Spares never used are ended with the
table.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import msgspec
import trio

from referee.players.process import BotLimits, BotStartError, ProcessLink
from referee.sandbox.cgroups import CgroupError

WAITING_WEIGHT: Final = 1
"""A waiting spare's CPU weight (v2 scale, 1 to 10,000; every playing bot has 100)."""


class Spares:
    """Started, not yet spoken-to bot processes, by bot name."""

    def __init__(
        self, nursery: trio.Nursery, commands: Mapping[str, str], limits_for: Callable[[str], BotLimits]
    ) -> None:
        self.nursery = nursery
        self.commands = commands
        self.limits_for = limits_for
        self.waiting: dict[str, list[ProcessLink]] = {}
        self.starting: dict[str, int] = {}
        self.closed = False

    def ahead(self, seats: Sequence[str]) -> None:
        """Start, in the background, what the next match of these ``seats`` will need."""
        for name in set(seats):
            wanted = seats.count(name) - len(self.waiting.get(name, [])) - self.starting.get(name, 0)
            for _ in range(max(0, wanted)):
                self.starting[name] = self.starting.get(name, 0) + 1
                self.nursery.start_soon(self._start, name)

    def take(self, name: str) -> ProcessLink | None:
        """A live spare for ``name`` with a playing bot's CPU weight again, or ``None``."""
        pool = self.waiting.get(name, [])
        while pool:
            link = pool.pop()
            group = self.limits_for(name).group
            try:
                if link.group is not None and group is not None:
                    link.group.apply(group)  # the weight of every other bot
            except (CgroupError, OSError):
                self.nursery.start_soon(link.close)  # it would play on the waiting weight: not fair
                continue
            return link
        return None

    async def _start(self, name: str) -> None:
        limits = self.limits_for(name)
        if limits.group is not None:
            waiting = dataclasses.replace(limits.group, cpu_weight=WAITING_WEIGHT)
            limits = msgspec.structs.replace(limits, group=waiting)
        try:
            link = await ProcessLink.start(self.commands[name], self.nursery, limits=limits)
        except BotStartError:
            return  # started again for its match, where the failure is reported
        finally:
            self.starting[name] -= 1
        if self.closed:
            await link.close()
        else:
            self.waiting.setdefault(name, []).append(link)

    async def close(self) -> None:
        """End every spare that was not used; never raises."""
        self.closed = True
        links = [link for pool in self.waiting.values() for link in pool]
        self.waiting.clear()
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as closing:
                for link in links:
                    closing.start_soon(_close, link)


async def _close(link: ProcessLink) -> None:
    with contextlib.suppress(Exception):  # ending a spare must not end the table
        await link.close()
