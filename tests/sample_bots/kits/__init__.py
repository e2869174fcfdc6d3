"""The kits the suite runs (``tests/sample_bots/test_kits.py``), one :class:`Kit` a language."""

from __future__ import annotations

from tests.sample_bots.kits.c import C
from tests.sample_bots.kits.cpp import CPP
from tests.sample_bots.kits.go import GO
from tests.sample_bots.kits.java import JAVA
from tests.sample_bots.kits.javascript import JAVASCRIPT
from tests.sample_bots.kits.rust import RUST
from tests.sample_bots.kits.spec import Builds, Built, Kit, kits, only

KITS: tuple[Kit, ...] = (CPP, GO, JAVA, RUST, JAVASCRIPT, C)

__all__ = ["KITS", "Builds", "Built", "Kit", "kits", "only"]
