"""A bot page's "where this bot loses points" (``referee.web.ladder.losses``): the figures of its
analysed matches kept in the database, shown to the public too, every text escaped, each of the
three worst decisions linked to its step of the replay, and at a phone's width (390 px) no
sideways scroll in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from playwright.sync_api import Page

from referee.store.analysis import SeatAnalysis, WorstDecision, bot_analyses, store_analyses, to_analyse
from referee.store.writer import LadderStore
from referee.web.ladder.losses import phase_means
from tests.web.ladder_helpers import HOSTILE, View

CSS = Path(__file__).resolve().parents[2] / "referee" / "web" / "static" / "ladder.css"


def analysed(db: Path, bot: str, count: int = 3) -> list[str]:
    """``count`` of ``bot``'s matches stored as analysed, a markup card in the worst; their keys."""
    store = LadderStore(db)
    try:
        todo = to_analyse(store.db, bot, count)
        for i, match in enumerate(todo):
            rows = [
                SeatAnalysis(
                    match=match.match, seat=seat, bot=bot, analysed="2026-01-01T00:00:00Z", settings={"seed": 1},
                    decisions=40, valued=30, total_loss=12.0 + i,
                    phases={"lead": (10, 5.0, 9.0), "follow": (20, 7.0, 8.0)},
                    grades={"best": 20, "good": 6, "mistake": 3, "blunder": 1}, luck=-4.5 + i, luck_half=2.0,
                    expected=30.0, actual=34,
                    worst=[WorstDecision(round=1, step=7 + i, trick=2, phase="lead", chosen=HOSTILE, best="2C",
                                         loss=9.0 - i, low=6.0 - i, high=12.0 - i, verdict="blunder")],
                )
                for seat in match.seats
            ]  # fmt: skip
            store_analyses(store.db, rows)
        return [m.key for m in todo]
    finally:
        store.close()


def test_the_store_keeps_each_match_once_and_resumes(db: Path) -> None:
    store = LadderStore(db)
    try:
        first = to_analyse(store.db, "alpha", 100)
    finally:
        store.close()
    keys = analysed(db, "alpha", 2)
    assert keys == [m.key for m in first[:2]]
    store = LadderStore(db)
    try:
        rest = to_analyse(store.db, "alpha", 100)
        assert [m.key for m in rest] == [m.key for m in first[2:]]  # the analysed ones are not offered again
        back = bot_analyses(store.db, "alpha", 10)
    finally:
        store.close()
    assert [a.key for a in back] == keys and back[0].worst[0].chosen == HOSTILE
    assert back[0].phases["lead"] == (10, 5.0, 9.0)


def test_phase_means_have_intervals_over_the_decisions() -> None:
    row = SeatAnalysis(match=1, seat=0, bot="a", analysed="", settings={}, decisions=4, valued=4, total_loss=4.0,
                       phases={"lead": (4, 4.0, 10.0)}, grades={}, luck=0.0, luck_half=0.0, expected=0.0,
                       actual=0)  # fmt: skip
    n, mean, half = phase_means([row])["lead"]
    assert (n, mean) == (4, 1.0) and half == pytest.approx(1.96 * ((10 - 4) / 3 / 4) ** 0.5)


def bot_page(db: Path, name: str, *, public: bool) -> str:
    async def get() -> str:
        view = View(db, public_view=public)
        try:
            status, html = await view.get(f"/bot/{name}")
        finally:
            view.close()
        assert status == 200
        return html

    return trio.run(get)


def test_the_public_sees_where_a_bot_loses_points_escaped(db: Path) -> None:
    assert "None of its matches analysed yet" in bot_page(db, "alpha", public=True)
    keys = analysed(db, "alpha")
    html = bot_page(db, "alpha", public=True)
    assert "Where this bot loses points" in html
    assert f'href="/match/{keys[0]}#round=2&amp;step=7"' in html  # the worst: its replay at that step
    assert html.index(f"/match/{keys[0]}#round") < html.index(f"/match/{keys[1]}#round")
    assert HOSTILE not in html and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "blunder 3" in html and "mistake 9" in html  # grade counts over the three matches
    assert "Luck over its matches" in html and "Loss per decision, by phase" in html


@pytest.mark.browser
def test_the_losses_fit_a_phone(page: Page, db: Path) -> None:
    analysed(db, "alpha")
    html = bot_page(db, "alpha", public=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(html.replace('<link rel="stylesheet" href="/ladder.css">', f"<style>{CSS.read_text()}</style>"))
    assert page.locator("#losses").count() == 1
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{width - 390} px of sideways scroll"
