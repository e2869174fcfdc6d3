"""``referee bench ladder-web``: its ladder holds what a run records, and every page it times
answers (no timing is asserted: the figures are in docs/performance.md)."""

from __future__ import annotations

from pathlib import Path

from referee.bench.ladder_web import CRASHER, bench_ladder_web, make_ladder
from tests.ladder.helpers import check_consistent


def test_the_bench_ladder_is_consistent_and_every_page_answers(tmp_path: Path) -> None:
    db = make_ladder(tmp_path / "bench.db", matches=80, bots=6)
    assert check_consistent(db) == {"done": 80, "total": 80}
    found = {p.page: p for p in bench_ladder_web(db, repeats=2)}
    assert f"/bot/{CRASHER}" in found and "/match/00019-3" in found
    assert {page: p.status for page, p in found.items() if p.status != 200} == {"/match/00019-3": 404}  # no logs
    assert all(p.made_ms > 0 and p.kept_ms > 0 and p.bytes > 0 for p in found.values())
