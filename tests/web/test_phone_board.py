"""The leaderboard and the duel's table at a phone's width (390 px) in Chromium (issue 43): a
bot's name wraps only where a word ends (a space, a hyphen) or is shortened with its whole name
in its title (and on its page, a tap away), never broken mid-word (``heuris|tic``); the duel's
table fits without sideways scroll. The pages are made in-process, their stylesheet inlined."""

from __future__ import annotations

from pathlib import Path

import trio
from playwright.sync_api import Page

from referee.ladder.schedule import draw_sets
from referee.rules import ruleset
from referee.store.records import LadderSettings, Season
from referee.store.writer import LadderStore
from tests.duel.helpers import undecided_duel
from tests.ladder.helpers import record_of
from tests.web.ladder_helpers import View

CSS = Path(__file__).resolve().parents[2] / "referee" / "web" / "static" / "ladder.css"
NAMES = ["heuristic", "javascript", "search-bot-with-a-long-name", "averyveryverylongbotnamewithoutanybreak"]
BREAKS = """(link) => {
  // each place the name's text goes to a new line, as [the character before, the one after]
  const text = link.firstChild, breaks = [];
  let top = null;
  for (let i = 0; i < text.length; i++) {
    const range = document.createRange();
    range.setStart(text, i); range.setEnd(text, i + 1);
    const rect = range.getClientRects()[0];
    if (!rect || rect.width === 0) continue;  // clipped or a space at a line's end
    if (top !== null && rect.top > top + 2) breaks.push(text.data.slice(i - 1, i + 1));
    top = rect.top;
  }
  return breaks;
}"""


def page_html(db: Path) -> str:
    """The board of the database at ``db``, as the server sends it, with its stylesheet inlined."""

    async def get() -> str:
        view = View(db)
        try:
            status, html = await view.get("/")
        finally:
            view.close()
        assert status == 200
        return html

    html = trio.run(get)
    return html.replace('<link rel="stylesheet" href="/ladder.css">', f"<style>{CSS.read_text()}</style>")


def ladder(folder: Path) -> Path:
    path = folder / "phone.db"
    store = LadderStore(path)
    rules = ruleset("american")
    settings = LadderSettings(9, rules, 2, "2026-01-01T00:00:00+00:00")
    store.initialize(settings, [(b, f"./run {b}") for b in NAMES], draw_sets(NAMES, rules.players, 9, 2))
    for match in store.pending():
        store.record(record_of(match, [10 * (i + 1) for i in range(len(match.seats))]))
    store.close()
    return path


def fits(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{width - 390} px of sideways scroll"


def test_names_on_the_phone_leaderboard_break_only_between_words(page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(page_html(ladder(tmp_path)))
    fits(page)
    links = page.locator("table.board a.bot")
    assert links.count() == len(NAMES)
    for index in range(links.count()):
        link = links.nth(index)
        name = link.inner_text()
        assert link.get_attribute("title") == name  # the whole name, shortened or not
        breaks = link.evaluate(BREAKS)
        assert all(before in " -" or after == " " for before, after in breaks), (name, breaks)
    whole = page.locator("table.board a.bot", has_text="heuristic")
    assert whole.evaluate("(a) => a.scrollWidth <= a.clientWidth")  # a short name is shown whole


def test_the_duels_table_fits_a_phone(page: Page, tmp_path: Path) -> None:
    undecided_duel(tmp_path / "duel.db")
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(page_html(tmp_path / "duel.db"))
    assert page.locator("table.duel td").count() > 0
    fits(page)


def test_the_season_block_fits_a_phone(page: Page, tmp_path: Path) -> None:
    """The leaderboard's Season block (issue 42, part 7), with its times and the final, on a phone."""
    db = ladder(tmp_path)
    store = LadderStore(db)
    store.set_season(Season(ends="2026-03-01T18:00:00+00:00", closes="2026-03-01T12:00:00+00:00", final_top=3,
                            final_sets=10, ends_given="2026-03-01T18:00:00+00:00"))  # fmt: skip
    store.close()
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(page_html(db))
    assert page.locator("section.season").inner_text().count("2026-03-01") == 2
    fits(page)
