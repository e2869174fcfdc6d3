"""Deal seeds that a bot cannot guess.

A seed and the rules give away every hand of a match, and a bot sees its own hands, so a seed
from a small space can be found by trying them all (32 bits: hours on one core, minutes on
many). Random seeds are 128 bits from ``secrets``; the seeds of a series of matches (``referee
serve``) are hashes of the first, so one recovered seed tells nothing of the next. A seed the
user gives still reproduces its match exactly.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

SEED_BITS: Final = 128


def random_seed() -> int:
    """A fresh, unguessable seed."""
    return secrets.randbits(SEED_BITS)


def series_seed(first: int, index: int) -> int:
    """The seed of match ``index`` of a series: ``first`` itself for the first match (so
    ``--seed`` reproduces it), a hash of ``first`` and ``index`` for the others."""
    if index == 0:
        return first
    digest = hashlib.sha256(f"hearts-series:{first}:{index}".encode()).digest()
    return int.from_bytes(digest[: SEED_BITS // 8], "big")
