"""``referee replay --html``: the viewer in a real headless browser (Debian's Chromium driven by
Playwright): stepping with the arrow keys and the buttons, the hands, the trick, the score sheet,
jumping to a round; and no network access.

Run as a script to remake the screenshot in the docs:
``python -m tests.replay.test_html docs/replay-viewer.png``.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser import chromium_page
from tests.replay.helpers import SETUPS, MatchLogs, replay
from tests.tiers import starts


@pytest.fixture(scope="module")
@starts("browser")
def browser_page() -> Iterator[Page]:
    with chromium_page(1400, 860) as page:
        yield page


class Viewer:
    """A loaded viewer page, with what a test reads from it."""

    def __init__(self, page: Page, html: Path) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda request: self.requests.append(request.url))
        page.goto(html.as_uri())

    def hand(self, seat: int) -> list[str]:
        return self.page.eval_on_selector_all(
            f'.seat[data-seat="{seat}"] .hand .card', "cards => cards.map(c => c.dataset.card)"
        )

    def trick(self) -> list[tuple[int, str]]:
        cards = self.page.eval_on_selector_all(
            "#trick .card", "cards => cards.map(c => [c.dataset.seat, c.dataset.card])"
        )
        return [(int(seat), card) for seat, card in cards]

    def winner(self) -> list[str]:
        return self.page.eval_on_selector_all("#trick .card.winner", "cards => cards.map(c => c.dataset.seat)")

    def step(self) -> int:
        label = self.page.inner_text("#step-label")
        match = re.fullmatch(r"step (\d+) of (\d+)", label)
        assert match, label
        return int(match.group(1))


def html_of(path: Path, out: Path) -> Path:
    result = replay("--html", out, path)
    assert result.exit_code == 0, result.output
    return out


def test_step_through_a_round(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    path = match_log("american")
    record: dict[str, Any] = json.loads(replay("--json", path).output)
    html = html_of(path, tmp_path / "american.html")
    text = html.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?https?:|@import""", text)
    viewer = Viewer(browser_page, html)
    page = viewer.page
    round0 = record["rounds"][0]
    # the deal: every hand, as dealt
    assert viewer.step() == 1
    for seat in range(4):
        assert sorted(viewer.hand(seat)) == sorted(round0["hands"][seat])
    # the passing: the received cards are marked
    page.keyboard.press("ArrowRight")
    assert "Passed left" in page.inner_text("#caption")
    assert page.locator('.seat[data-seat="1"] .card.received').count() == 3
    for seat in range(4):
        assert sorted(viewer.hand(seat)) == sorted(round0["hands_after_passing"][seat])
    # the first trick, card by card, with the arrow key and the button in turn
    first = round0["tricks"][0]
    for index, play in enumerate(first["plays"]):
        before = len(viewer.hand(play["seat"]))
        if index % 2:
            page.click("#next")
        else:
            page.keyboard.press("ArrowRight")
        assert viewer.trick() == [(p["seat"], p["card"]) for p in first["plays"][: index + 1]]
        assert len(viewer.hand(play["seat"])) == before - 1
        assert play["card"] not in viewer.hand(play["seat"]) or round0["hands"][play["seat"]].count(play["card"]) > 1
    assert viewer.winner() == [str(first["winner"])]
    assert f"Trick 1: {record['seats'][first['winner']]['name']} takes it" in page.inner_text("#caption")
    page.screenshot(path=str(tmp_path / "trick.png"), full_page=True)
    # back one card with the key and the button
    page.keyboard.press("ArrowLeft")
    assert len(viewer.trick()) == 3 and viewer.winner() == []
    page.click("#prev")
    assert len(viewer.trick()) == 2
    # the next trick starts empty but for its lead
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert viewer.trick() == [(round0["tricks"][1]["plays"][0]["seat"], round0["tricks"][1]["plays"][0]["card"])]
    # the end of the round: its result; the score sheet has every round and the final scores
    page.click("#last")
    assert "Round 1 scored" in page.inner_text("#caption")  # numbered from 1 for people
    sheet = page.locator("#scores tbody tr")
    assert sheet.count() == len(record["rounds"])
    final = page.eval_on_selector_all("#scores tfoot td", "cells => cells.map(c => c.textContent)")
    assert final == ["Final", *map(str, record["result"]["scores"])]
    # jump to a round
    page.select_option("#round-select", index=2)  # the option labelled 3
    assert "Round 3: dealt" in page.inner_text("#caption")
    assert page.locator("#scores tr.current").get_attribute("data-round") == "2"
    assert [len(viewer.hand(s)) for s in range(4)] == [13] * 4
    page.keyboard.press("PageDown")
    assert "Round 4: dealt" in page.inner_text("#caption")
    sheet.nth(1).click()
    assert "Round 2: dealt" in page.inner_text("#caption")
    page.keyboard.press("End")
    assert "Match over" in page.inner_text("#caption")
    page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
    assert viewer.errors == []
    assert all(url.startswith("file://") for url in viewer.requests), viewer.requests


def test_six_seats_and_faults(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    viewer = Viewer(browser_page, html_of(match_log("double_deck"), tmp_path / "six.html"))
    page = viewer.page
    assert page.locator(".seat").count() == 6
    assert [len(viewer.hand(s)) for s in range(6)] == [17] * 6
    page.screenshot(path=str(tmp_path / "six.png"), full_page=True)
    viewer = Viewer(browser_page, html_of(match_log("penalty"), tmp_path / "penalty.html"))
    page = viewer.page
    assert page.inner_text("#badge") == "verified ✓"
    page.click("#last")
    assert "revoke" in page.inner_text("#caption")
    assert "illegal_move" in page.inner_text("#notes")
    assert viewer.errors == []


def test_faults_with_hints_and_the_bots_stderr(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    """A crash, a debug print and a time-out: each note has its hint; a dropped seat's stderr
    (hostile here: markup and escapes) is in its panel as text, never as HTML."""
    source = match_log("mistakes")
    hostile = '<img src=x onerror="window.pwned=1">\x1b[2J</pre><script>window.pwned=2</script>\n'
    lines = []
    for raw in source.read_text().splitlines():
        entry = json.loads(raw)
        if entry["type"] == "stderr" and entry["seat"] == 0:
            entry["text"] += hostile
        lines.append(json.dumps(entry) + "\n")
    log = tmp_path / "mistakes.jsonl"
    log.write_text("".join(lines))
    (stderr,) = [e["text"] for e in map(json.loads, lines) if e["type"] == "stderr" and e["seat"] == 0]
    assert "Traceback (most recent call last):" in stderr
    viewer = Viewer(browser_page, html_of(log, tmp_path / "mistakes.html"))
    page = viewer.page
    seen: list[str] = []
    for _ in range(8):  # the deal, the passing, the first trick: a fault at each bot's first play
        seen.extend(page.locator("#notes .note").all_inner_texts())
        if page.locator('#notes .note[data-seat="0"]').count():
            break
        page.keyboard.press("ArrowRight")
    crash = page.locator('#notes .note[data-seat="0"]')
    assert crash.count() == 1
    assert "crash: the bot exited with code 1" in crash.inner_text()
    assert "the bot's program ended: its stderr" in crash.locator(".advice").inner_text()
    assert "program: exited with code 1" in crash.inner_text()
    panel = page.locator('details.stderr[data-seat="0"]')
    assert panel.get_attribute("open") is not None  # a dropped seat's stderr is open
    assert page.locator('details.stderr[data-seat="3"]').get_attribute("open") is None
    assert "(empty)" in page.locator('details.stderr[data-seat="3"] summary').inner_text()
    shown = panel.locator("pre").text_content()
    assert shown == stderr  # all of it, as text
    assert "RuntimeError: no strategy for this trick" in panel.inner_text()
    page.evaluate("document.querySelectorAll('details.stderr').forEach((d) => { d.open = false; })")
    crash.locator("button").click()
    assert panel.get_attribute("open") is not None
    for _ in range(4):
        page.keyboard.press("ArrowRight")
        seen.extend(page.locator("#notes .note").all_inner_texts())
    everything = " ".join(seen)
    assert "stdout carries the protocol only" in everything and "it sent: my hand is [" in everything
    assert "was the line flushed?" in everything
    assert page.locator("#stderr img, #stderr script, #notes img").count() == 0
    assert page.evaluate("window.pwned") is None
    facts = page.inner_text("#facts")
    assert "mistake-crash: crash (exited with code 1)" in facts
    assert viewer.errors == []


def test_legend_fragment_history_and_summary(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    path = match_log("american")
    record: dict[str, Any] = json.loads(replay("--json", path).output)
    html = html_of(path, tmp_path / "american.html")
    page = browser_page
    # a URL fragment opens a step: the 12th of the third round (both counted from 1)
    viewer = Viewer(page, html)
    first_of_round = [viewer.step()]
    page.goto(html.as_uri() + "#round=3&step=12")
    steps_before = page.evaluate("roundStart[2]")
    assert viewer.step() == steps_before + 12
    assert page.locator("#scores tr.current").get_attribute("data-round") == "2"
    page.keyboard.press("ArrowRight")  # stepping keeps the fragment up to date, to copy a link
    assert page.url.endswith("#round=3&step=13")
    page.evaluate("location.hash = '#step=2'")  # a global step, from 1
    page.wait_for_function("document.getElementById('step-label').textContent.startsWith('step 2 ')")
    assert first_of_round == [1]
    # the legend names every mark
    legend = page.inner_text("#legend")
    for words in ("penalty card", "received in the passing", "takes the trick", "the referee", "dealer", "dropped"):
        assert words in legend
    assert page.locator("#legend .card.received").count() == 1
    # the trick history of the round, up to the step shown
    page.goto(html.as_uri() + "#round=1&step=1")
    assert page.locator("#history li").count() == 0
    page.keyboard.press("ArrowRight")  # the passing
    for _ in range(6):  # the first trick and two cards of the second
        page.keyboard.press("ArrowRight")
    items = page.locator("#history li")
    assert items.count() == 2 and items.nth(1).locator(".card").count() == 2
    winner = record["seats"][record["rounds"][0]["tricks"][0]["winner"]]["name"]
    assert f"→ {winner}" in items.nth(0).inner_text() and items.nth(0).locator(".card.winner").count() == 1
    assert page.locator("#summary-panel").is_hidden()
    # the round's end: every trick, and the summary of who took which penalty cards
    page.click("#last")
    assert page.locator("#history li").count() == 13
    assert page.locator("#summary-panel").is_visible()
    assert "Round 1 summary" in page.inner_text("#summary-title")
    cards_of = "rows => rows.map(r => [...r.querySelectorAll('.card')].map(c => c.dataset.card))"
    taken = page.eval_on_selector_all("#summary tbody tr", cards_of)
    assert sorted(c for cards in taken for c in cards) == sorted([*(r + "H" for r in "23456789TJQKA"), "QS"])
    result = record["rounds"][0]["result"]
    numbers = "cells => cells.map(c => Number(c.textContent))"
    points = page.eval_on_selector_all("#summary tbody tr td:nth-child(3)", numbers)
    assert points == result["points_taken"]
    items.nth(3).click()  # a trick in the history opens it
    assert "Trick 4:" in page.inner_text("#caption")


def test_moons_declarations_and_the_phase_change(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    viewer = Viewer(browser_page, html_of(match_log("moon_choice"), tmp_path / "moon.html"))
    page = viewer.page
    page.click("#last")
    assert "shot the moon" in page.inner_text("#summary") and "chose" in page.inner_text("#summary")
    viewer = Viewer(browser_page, html_of(match_log("achterhoeks"), tmp_path / "achterhoeks.html"))
    page.click("#last")
    assert re.search(r"declared: (kept|broken)", page.inner_text("#summary"))
    path = match_log("dutch")
    record: dict[str, Any] = json.loads(replay("--json", path).output)
    phases = [r["result"]["match_phase"] for r in record["rounds"] if r["result"]]
    viewer = Viewer(browser_page, html_of(path, tmp_path / "dutch.html"))
    marked = page.locator("#scores tbody tr.phase")
    assert 2 in phases  # the seed's match goes up to 50 and counts down after
    assert marked.count() == 1 and "phase 2" in marked.inner_text()
    assert marked.get_attribute("data-round") == str(phases.index(2))
    assert viewer.errors == []


def test_long_names_and_a_dropped_seats_stderr(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    long = "a-bot-with-a-really-quite-long-name-v2.3"
    text = match_log("mistakes").read_text()
    name = json.loads(text.splitlines()[0])["seats"][1]["name"]
    log = tmp_path / "named.jsonl"
    log.write_text(text.replace(name, long))  # in the header and in the bot's hello alike
    viewer = Viewer(browser_page, html_of(log, tmp_path / "named.html"))
    page = viewer.page
    name = page.locator('.seat[data-seat="1"] .name')
    assert long in name.inner_text()
    assert page.evaluate("(n) => n.scrollWidth <= n.clientWidth", name.element_handle())
    head = page.locator("#scores thead .who").nth(1)
    assert head.inner_text().replace("\n", "") == long
    assert page.evaluate("(n) => n.scrollWidth <= n.clientWidth", head.element_handle())
    for _ in range(8):  # the crash, where it happened: the reason and the end of its stderr
        if page.locator('#notes .note[data-seat="0"]').count():
            break
        page.keyboard.press("ArrowRight")
    tail = page.locator('#notes .note[data-seat="0"] pre.tail')
    assert "RuntimeError: no strategy for this trick" in tail.inner_text()
    assert page.locator('.seat[data-seat="0"] .tag.fault').inner_text() == "crash"
    assert page.inner_text("#badge") == "verified ✓"
    assert viewer.errors == []


def screenshot(out: Path) -> None:
    """The docs' screenshot: a match of the sample bots, in the middle of a trick."""
    with tempfile.TemporaryDirectory() as directory:
        logs = MatchLogs(Path(directory))
        html = html_of(logs("american"), Path(directory) / "viewer.html")
        with chromium_page(1400, 860) as page:
            page.goto(html.as_uri())
            page.select_option("#round-select", index=1)
            for _ in range(1 + 4 * 4 + 3):  # from the deal: the passing, four tricks, three cards of the fifth
                page.keyboard.press("ArrowRight")
            page.screenshot(path=str(out), full_page=True)
    print(f"wrote {out} ({SETUPS['american'].variant}, seed {SETUPS['american'].seed})")


if __name__ == "__main__":
    screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "replay-viewer.png"))


PHONE_FIT = """() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
  off: [...document.querySelectorAll('.seat, #trick .card, #caption, .controls button')]
    .filter((n) => { const r = n.getBoundingClientRect();
      return r.width && (r.left < 0 || r.right > window.innerWidth); })
    .map((n) => n.className),
  names: [...document.querySelectorAll('.seat .name')].map((n) => n.firstChild.textContent),
  takers: [...document.querySelectorAll('ol.history .to')].map((n) => n.textContent) })"""


@pytest.mark.parametrize("name", ["american", "double_deck"])
def test_the_viewer_fits_a_phone(browser_page: Page, match_log: MatchLogs, tmp_path: Path, name: str) -> None:
    """At 390 x 844 (issue 34: the viewer was 654 px wide): every step of the first trick and
    of the end without sideways scroll, seats, trick cards and buttons on the screen; seats
    named as the seat and watch pages name them (``random #2`` when names repeat)."""
    html = html_of(match_log(name), tmp_path / f"{name}.html")
    seen: list[dict[str, Any]] = []
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        viewer = Viewer(page, html)
        for _ in range(12):
            seen.append(page.evaluate(PHONE_FIT))
            page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        seen.append(page.evaluate(PHONE_FIT))
        assert viewer.errors == []
    finally:
        page.set_viewport_size({"width": 1400, "height": 860})
    for sample in seen:
        assert sample["scroll"] <= sample["width"] and not sample["off"], sample
    names, takers = seen[0]["names"], seen[-1]["takers"]
    assert len(set(names)) == len(names), names
    if name == "double_deck":  # six bots of one name: numbered on the table and in the tricks' list
        assert all("#" in n for n in names) and takers, (names, takers)
        assert all("#" in t for t in takers if t != "cancelled"), takers
