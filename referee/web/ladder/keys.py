"""Wrong entrants' keys, counted by address: an address that brings ``WRONG_KEYS`` wrong keys
is refused any key (429) until enough time has passed (one forgiven every ``FORGIVE_SECONDS``).

A key is 256 random bits (``referee.ladder.entrants``): no guessing reaches one, so the count is
not what keeps keys secret. It keeps a script from making the pages check a key without end
(each one a SHA-256 and a comparison with every entrant's digest), and says plainly to a
browser that keeps an old key that it is old. Addresses are counted as the slots count them
(an IPv4 address, an IPv6 /64; behind a trusted proxy, the client it names); at most
``ADDRESSES`` are remembered, the oldest forgotten first."""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

import trio

WRONG_KEYS: Final = 10
FORGIVE_SECONDS: Final = 60.0
ADDRESSES: Final = 4096


class WrongKeys:
    """The wrong keys of each address, each forgiven ``forgive`` seconds after the last."""

    def __init__(self, limit: int = WRONG_KEYS, forgive: float = FORGIVE_SECONDS) -> None:
        self.limit = limit
        self.forgive = forgive
        self._wrong: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Address -> (wrong keys counted, when the count was last changed)."""

    def _count(self, address: str) -> float:
        count, at = self._wrong.get(address, (0.0, 0.0))
        return max(0.0, count - (trio.current_time() - at) / self.forgive)

    def refused(self, address: str) -> bool:
        """Whether ``address`` has brought too many wrong keys to be asked of another now (the
        ``limit``-th counted, less than a whole one forgiven since)."""
        return address in self._wrong and self._count(address) > self.limit - 1

    def count(self, address: str) -> None:
        """One more wrong key from ``address``."""
        self._wrong[address] = (self._count(address) + 1, trio.current_time())
        self._wrong.move_to_end(address)
        while len(self._wrong) > ADDRESSES:
            self._wrong.popitem(last=False)
