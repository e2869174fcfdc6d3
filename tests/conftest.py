"""Settings for the whole suite.

Hypothesis by default fails an example that takes over 200 ms (``deadline``) and a test whose
data is slow to generate (``HealthCheck.too_slow``): both are verdicts on the machine's speed,
not on the code, and turn red when another process keeps the cores busy. The suite's
properties are about behaviour, so neither applies (docs/development.md); a test may still set
its own ``max_examples`` and other health checks."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("referee", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("referee")

pytest_plugins = [
    "tests.tiers",  # the tiers' markers and the guard of the fast tier
    "pytester",  # a suite run inside a test (tests/test_tiers.py)
]
