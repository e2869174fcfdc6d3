"""The handshake slots of the TCP seats: connections accepted and greeted but not yet heard
from, and which of them gives way when a new connection needs a slot.

Nobody can be told apart before their hello, so the slots are bounded by what a connection
*does*, never by who gets there first (issue 31: silent connections from many loopback
addresses, 127.0.0.0/8 being free to use, kept slow bots out of a busy machine):

- at most ``MAX_PENDING`` connections in their handshake, at most ``MAX_PENDING_PER_ADDRESS``
  of them from one address (an IPv4 address, or an IPv6 /64);
- a connection keeps its slot for ``SQUAT_AFTER`` seconds after the referee's hello was written
  to it, whatever arrives meanwhile and from however many addresses; only then, while it has
  sent no complete line, is it a *squatter* whose slot a new connection may take;
- a connection whose hello line has arrived, read or still waiting unread in its socket (a
  referee slowed by a loaded machine has not got to it yet), is never evicted.

A new connection at its address's cap takes the slot of that address's oldest squatter (so
squatters on the address where the bots run cannot keep them out); with every slot taken, of
the oldest squatter of the address holding the most slots. With no squatter to push out it is
refused ``busy`` at once (the kits try again), and the listening goes on. Keeping a bot out
therefore takes every slot, from at least ``MAX_PENDING / MAX_PENDING_PER_ADDRESS``
addresses, each slot taken again within ``SQUAT_AFTER``: a flood the operator sees in the
printed refusals.
"""

from __future__ import annotations

import ipaddress
import socket
from collections import Counter
from dataclasses import dataclass, field

import trio

from protocol.codec import MAX_LINE
from referee.players.channel import SocketLink

MAX_PENDING = 256
"""Connections in their handshake at once: far more than the addresses of one machine's bots
need, few enough for the descriptors of one process (and at most 64 KB of unread line each)."""
MAX_PENDING_PER_ADDRESS = 4
"""Connections in their handshake from one address (an IPv4 address, an IPv6 /64)."""
SQUAT_AFTER = 2.0
"""Seconds a connection keeps its slot after the referee's hello, however many others arrive:
a bot answers within milliseconds, and within this even on a machine whose cores are busy."""


def address_key(host: str) -> str:
    """The address a peer's pending handshakes are counted under: its IPv4 address, or the /64
    network of an IPv6 address (one host usually holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class PendingLink(SocketLink):
    """A connection's link that notes what its peer has sent and when the referee greeted it:
    a connection in its handshake may be evicted only when it has been silent for long enough."""

    def __init__(self, stream: trio.SocketStream) -> None:
        super().__init__(stream)
        self.received = 0
        """Bytes the peer has sent (and the referee has read)."""
        self.spoke = False
        """A complete line has been read: the hello is being checked, never evicted."""
        self.greeted: float | None = None
        """When the referee's hello was written (trio's clock), ``None`` before."""

    async def send(self, data: bytes) -> None:
        await super().send(data)
        if self.greeted is None:
            self.greeted = trio.current_time()

    async def _receive_some(self) -> bytes | bytearray:
        data = await super()._receive_some()
        self.received += len(data)
        return data

    async def receive_line(self) -> bytes:
        line = await super().receive_line()
        self.spoke = True  # no checkpoint between the line's arrival and here
        return line

    def line_waiting(self) -> bool:
        """Whether a complete line has arrived that the referee has not read yet: a peek at the
        socket's receive buffer, without a wait (the referee's loop may be behind, the peer not)."""
        fd = self.stream.socket.fileno()
        if fd < 0:
            return False
        raw = socket.socket(fileno=fd)
        try:
            return b"\n" in raw.recv(MAX_LINE + 1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except OSError:  # nothing there (EAGAIN), or a socket already reset
            return False
        finally:
            raw.detach()  # the descriptor is the stream's: never close it here


@dataclass(eq=False)
class Slot:
    """A connection in its handshake. Cancelling ``scope`` evicts it."""

    address: str
    order: int
    """Accepted ``order``-th: the lowest is the oldest."""
    since: float = field(default_factory=trio.current_time)
    """When it was accepted (trio's clock): its hello limit counts from here."""
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    link: PendingLink | None = None
    evicted: bool = False

    def squatting(self, before: float) -> bool:
        """Greeted before ``before`` and not heard from since: its slot may go to a new
        connection. A connection not greeted yet has had no chance to answer."""
        link = self.link
        if link is None or link.spoke or link.greeted is None or link.greeted > before:
            return False
        return not link.line_waiting()


class Slots:
    """The handshake slots: who holds them, and the choice of a squatter to give one up."""

    def __init__(self, limit: int, per_address: int, squat_after: float) -> None:
        self.limit = limit
        self.per_address = per_address
        self.squat_after = squat_after
        self.by_address: Counter[str] = Counter()
        self._held: dict[int, Slot] = {}
        """The connections in their handshake, oldest first."""
        self._accepted = 0

    def __len__(self) -> int:
        return len(self._held)

    def take(self, address: str) -> Slot | str:
        """A slot for a new connection from ``address``, pushing a squatter out if need be, or
        why there is none (the message of a ``busy`` refusal)."""
        if self.by_address[address] >= self.per_address and not self._evict(address):
            return (
                f"too many connections from {address} in their handshake "
                f"(limit {self.per_address} per address); try again"
            )
        if len(self._held) >= self.limit and not self._evict():
            return f"too many connections in their handshake (limit {self.limit}); try again"
        self._accepted += 1
        slot = Slot(address, self._accepted)
        self._held[slot.order] = slot
        self.by_address[address] += 1
        return slot

    def _evict(self, address: str | None = None) -> bool:
        """Free a slot: drop the oldest squatter of the address holding the most slots (with
        ``address``: of that address). ``False`` when there is no squatter to drop."""
        before = trio.current_time() - self.squat_after
        candidates = sorted(
            (slot for slot in self._held.values() if address in (None, slot.address)),
            key=lambda slot: (-self.by_address[slot.address], slot.order),
        )
        victim = next((slot for slot in candidates if slot.squatting(before)), None)
        if victim is None:
            return False
        victim.evicted = True
        self.release(victim)
        victim.scope.cancel()
        return True

    def release(self, slot: Slot) -> None:
        """Give a connection's slot back (once; eviction gives it back early)."""
        if self._held.pop(slot.order, None) is None:
            return
        self.by_address[slot.address] -= 1
        if self.by_address[slot.address] <= 0:
            del self.by_address[slot.address]
