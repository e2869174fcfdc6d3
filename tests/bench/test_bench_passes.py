"""``referee bench analyze --passes``: the race of passes measured against every pass valued."""

from __future__ import annotations

import pytest

from referee.bench.passes import bench_passes


@pytest.mark.process  # a process pool
def test_the_pass_bench_measures_regrets_against_every_legal_pass() -> None:
    found = bench_passes(2, seed=3, worlds=8, workers=1)
    assert found.decisions == 2 and found.legal == 286 and found.reference_worlds == 8
    assert found.race_regret >= 0 and found.old_regret >= 0  # against the reference's own best
    assert 0 <= found.race_found <= 2 and 0 <= found.old_found <= 2
    assert found.race_playouts > 286 * 8  # every pass sifted, the field raced on
    assert 10 <= found.old_candidates <= 12  # C(5, 3), the policy's pass, the pass made
