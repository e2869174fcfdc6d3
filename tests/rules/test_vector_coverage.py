"""The vectors show every rule: an engine that lacks any one option of a preset (turned off, or
set otherwise) disagrees with at least one line of that preset's vectors
(``referee.rules.vector_coverage``), and docs/vectors.md's coverage table is the one made here."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.rules.vector_coverage import GAPS, coverage, coverage_table
from referee.rules.vectors import GAMES, preset_bytes

DOC = Path(__file__).resolve().parents[2] / "docs" / "vectors.md"
pytestmark = pytest.mark.xdist_group("vector-coverage")  # one worker: each preset's coverage made once
BEGIN, END = "<!-- coverage table: begin -->", "<!-- coverage table: end -->"


@pytest.mark.parametrize("preset", sorted(GAMES))
def test_every_rule_of_the_preset_moves_a_vector_line(preset: str) -> None:
    found = coverage(preset)
    assert found, "no change of the rules was tried"
    unseen = [m.change for m, moved in found if moved == 0 and (preset, m.change) not in GAPS]
    assert unseen == [], f"{preset}: an engine with {unseen} passes every vector: choose GAMES that show it"
    shown = [m.change for m, moved in found if moved > 0 and (preset, m.change) in GAPS]
    assert shown == [], f"{preset}: {shown} are shown now: take them out of GAPS"


def test_every_gap_listed_is_a_change_of_its_preset() -> None:
    tried = {(preset, m.change) for preset in {p for p, _ in GAPS} for m, _moved in coverage(preset)}
    assert set(GAPS) <= tried, sorted(set(GAPS) - tried)


@pytest.mark.parametrize("preset", sorted(GAMES))
def test_each_vectors_file_stays_small(preset: str) -> None:
    """Issue 47: each file under about 200 KB (the double deck's rounds are 80 KB each: its
    across and hold are the first tricks of a match started there)."""
    assert len(preset_bytes(preset)) < 200_000


def test_the_coverage_table_in_the_docs_is_the_generated_one() -> None:
    text = DOC.read_text()
    assert BEGIN in text and END in text, f"docs/vectors.md lacks the markers {BEGIN} and {END}"
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    made = coverage_table()
    assert shown == made, (
        "docs/vectors.md's coverage table is out of date: put between its markers the output of\n"
        "python -c 'from referee.rules.vector_coverage import coverage_table; print(coverage_table())'"
    )
