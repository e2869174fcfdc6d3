"""docs/check.md lists every step with what it verifies (the block is generated)."""

from __future__ import annotations

from referee.check.docs import PAGE, render, steps_table
from referee.check.steps import STEPS


def test_the_step_list_in_the_docs_is_current() -> None:
    page = PAGE.read_text()
    assert render(page) == page, "docs/check.md is out of date: run `python -m referee.check.docs`"


def test_every_step_is_listed_once_with_its_summary() -> None:
    table = steps_table()
    for number, step in enumerate(STEPS, 1):
        assert f"| {number} | `{step.name}` | {step.summary.replace('|', chr(92) + '|')} |" in table
    assert len({s.name for s in STEPS}) == len(STEPS) == 46
