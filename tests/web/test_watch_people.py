"""``referee watch`` as people watch (issue 34), in a real headless Chromium: the trick in the
table's middle, each card before its seat; a finished trick held with its winner even when the
log already holds the next lead; ``--pace`` shows a finished log move by move, every trick
taken by its winner in view; names numbered as on the seat page; a phone's width.

Every wait is for a condition on the page, never for a duration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser import chromium_page
from tests.web.test_watch_page import Watcher, cut, finished_log

pytestmark = pytest.mark.browser

PLACES = """() => {
  const box = (n) => n.getBoundingClientRect();
  const centre = (r) => [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
  const table = box(document.getElementById('table'));
  const placed = (selector) => [...document.querySelectorAll(selector)]
    .map((n) => ({ seat: n.dataset.seat, c: centre(box(n)) }));
  const seats = placed('#seats .seat');
  const cards = placed('#trick .played');
  const wrong = cards.filter(({ seat, c }) => seats.map((s) => [Math.hypot(s.c[0] - c[0], s.c[1] - c[1]), s.seat])
    .sort((a, b) => a[0] - b[0])[0][1] !== seat).map((p) => p.seat);
  const middle = cards.length ? [cards.reduce((a, p) => a + p.c[0], 0) / cards.length,
    cards.reduce((a, p) => a + p.c[1], 0) / cards.length] : null;
  return { played: cards.length, wrong, middle, table: centre(table), size: [table.width, table.height],
    inside: cards.every(({ c }) => c[0] > table.left && c[0] < table.right && c[1] > table.top && c[1] < table.bottom),
    scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
    names: [...document.querySelectorAll('#seats .seat .name')].map((n) => n.firstChild.textContent) };
}"""

CAPTIONS = """() => { window.seen = []; const caption = document.getElementById('caption');
  new MutationObserver(() => window.seen.push([caption.textContent,
      document.querySelectorAll('#trick .played').length, document.querySelectorAll('#trick .card.winner').length]))
    .observe(caption, { childList: true, subtree: true, characterData: true }); }"""
"""Every caption the page shows, with the cards on the table and the winner's mark then."""


@pytest.mark.parametrize(("width", "height"), [(1300, 820), (390, 844)])
def test_the_trick_lies_in_the_middle_before_its_seats(tmp_path: Path, width: int, height: int) -> None:
    """Three cards of a trick in play: each nearest the seat that played it, around the table's
    middle (the trick was drawn in the table's top-left corner), inside the table; no sideways
    scroll at a phone's width; seats named as the seat page names them."""
    lines = finished_log(tmp_path / "done.jsonl")
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[: cut(lines, 7)]))
    watcher = Watcher(log)
    try:
        with chromium_page(width, height) as page:
            page.goto(watcher.url)
            page.wait_for_function("document.querySelectorAll('#trick .played').length === 3", timeout=30_000)
            place: dict[str, Any] = page.evaluate(PLACES)
    finally:
        watcher.stop()
    assert place["inside"] and place["scroll"] <= place["width"], place
    assert place["names"] == ["random #0", "random #1", "random #2", "random #3"], place
    if width > 600:  # on a phone the seats are listed above the trick
        assert not place["wrong"], place
        (x, y), (cx, cy), (w, h) = place["middle"], place["table"], place["size"]
        assert abs(x - cx) < 0.15 * w and abs(y - cy) < 0.15 * h, place


def test_a_finished_trick_is_held_with_its_winner(page: Page, tmp_path: Path) -> None:
    """The log arrives with trick 1 finished and trick 2 led in one piece (bots do not wait for
    spectators): the page holds trick 1, its four cards and its winner marked, "takes it",
    before it shows the lead of trick 2."""
    lines = finished_log(tmp_path / "done.jsonl")
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[: cut(lines, 3)]))
    watcher = Watcher(log)
    try:
        page.goto(watcher.url)
        page.wait_for_function("document.querySelectorAll('#trick .played').length === 3", timeout=30_000)
        page.evaluate(CAPTIONS)
        with log.open("ab") as more:
            more.write(b"".join(lines[cut(lines, 3) : cut(lines, 5)]))
        page.wait_for_function("document.getElementById('caption').textContent.includes('trick 2')", timeout=30_000)
        seen: list[list[Any]] = page.evaluate("window.seen")
    finally:
        watcher.stop()
    held = [s for s in seen if "trick 1" in s[0] and "takes it" in s[0]]
    assert held and held[0][1:] == [4, 1], seen
    assert seen.index(held[0]) < next(i for i, s in enumerate(seen) if "trick 2" in s[0]), seen


def test_a_paced_watch_shows_every_trick_taken(page: Page, tmp_path: Path) -> None:
    """`referee watch --pace` on a finished log: the match is shown move by move and every
    trick is seen on the table, whole, with its winner marked, "takes it" (the finished log
    showed its end at once)."""
    log = tmp_path / "done.jsonl"
    finished_log(log)
    watcher = Watcher(log, "--pace", "0.1")
    try:
        page.goto(watcher.url)
        page.wait_for_selector("#caption", timeout=30_000)
        page.evaluate(CAPTIONS)
        page.wait_for_selector("#result:not([hidden])", timeout=120_000)
        seen: list[list[Any]] = page.evaluate("window.seen")
    finally:
        watcher.stop()
    taken = {s[0].split(":")[0] for s in seen if "takes it" in s[0] and s[1:] == [4, 1]}
    assert len(taken) == 13, seen
