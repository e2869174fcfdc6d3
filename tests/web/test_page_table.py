"""The table as a person sees it, in a real headless Chromium against `referee play` running
for real: a whole match of every kind of table the presets make played through the page to its
result screen (3 to 6 players, the double deck, Dutch's two phases, Achterhoeks' declarations,
the shooter's choice, cards worth minus points, no passing);
the others' cards seen one by one as they are played; layouts of 3 to 6 players that stay
on the table and the page; and a spectator of `referee watch` who sees cards on the table
while a slow match plays.

Run as a script to remake the layout screenshots in the docs:
``python -m tests.web.test_page_table docs/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from referee.rules.presets import PRESETS, ruleset
from tests.browser import chromium_page
from tests.shared import verified
from tests.web.helpers import ROOT
from tests.web.test_page import Referee, slow_bot
from tests.web.test_watch_page import Watcher

WAITING = "document.querySelector('#hand .card.legal, #choices button, #result:not([hidden])') !== null"
"""The page has something for the person to do, or the match is over."""


def shortened(variant: str) -> tuple[str, ...]:
    """Options that end a preset's match within a few rounds, each in its own way (a target,
    a number of rounds, Dutch's two phases with a low turning point), so a whole match of
    every preset is played through the page in seconds."""
    rules = ruleset(variant)
    end = {"target": "target=20", "rounds": "rounds=2", "two_phase": "threshold=8"}[rules.end]
    return ("--set", end, "--set", "round_limit=4")


def act_once(page: Page, declare: bool) -> None:
    """The person's next action, whatever is asked: a pass of the first legal cards, the first
    raised card, a declaration (``declare`` or not) or the first way to score a moon."""
    if page.locator("#choices button:has-text('Pass')").count():
        need = int(page.locator("#choices button").first.inner_text().split("/")[1])
        for _ in range(need):
            page.locator("#hand .card.legal:not(.selected)").first.click()
        page.locator("#choices button:has-text('Pass')").click()
    elif page.locator("#choices button").count():
        declared = page.locator("#choices button:has-text('Declare')")
        if declared.count():
            (declared if declare else page.locator("#choices button:has-text('Do not declare')")).first.click()
        else:
            page.locator("#choices button").first.click()
    elif page.locator("#hand .card.legal").count():
        page.locator("#hand .card.legal").first.click()


def play_to_the_end(page: Page, notes: dict[str, Any]) -> None:
    """Act until the result screen, noting the longest list of declarations seen."""
    for step in range(3000):
        page.wait_for_function(WAITING, timeout=30_000)
        if page.locator("#result:not([hidden])").count():
            return
        said = page.locator("#declarations").inner_text()
        notes["declarations"] = max(notes.get("declarations", 0), said.count("declare"))
        act_once(page, declare=step % 2 == 0)
        page.wait_for_timeout(20)
    raise AssertionError("the match did not end")


def page_kind(variant: str) -> tuple[object, ...]:
    """What in a preset's rules the page shows differently: the seats, the deck's copies,
    declarations, the shooter's choice, how the match ends, passing, cards worth minus points.
    Presets alike in all of these (American, no-hold, Argentine; Black Maria and American for
    three; Dutch and Dutch modern) differ only in numbers the page prints as they come."""
    rules = ruleset(variant)
    return (
        rules.players,
        rules.copies,
        rules.declarations,
        rules.moon == "shooter_choice",
        rules.end,
        rules.pass_count > 0,
        any(points < 0 for points in rules.card_points.values()),
    )


KINDS = sorted({page_kind(v): v for v in sorted(PRESETS, reverse=True)}.values())
"""One preset of each kind (the first by name): a whole match through a browser takes about
10 s, and a second preset of the same kind tests nothing more of the page (its rules are played
through the machine in tests/rules, and by real bots in tests/match)."""


@pytest.mark.parametrize("variant", KINDS)
def test_a_whole_match_of_every_kind_of_table_through_the_page(page: Page, tmp_path: Path, variant: str) -> None:
    players = ruleset(variant).players
    referee = Referee(
        tmp_path / "match.jsonl",
        seed=21,
        extra=("--variant", variant, *shortened(variant)),
        bots=players - 1,
        ending=(),
    )
    notes: dict[str, Any] = {}
    try:
        page.goto(referee.url)
        play_to_the_end(page, notes)
        out = referee.finish()
    finally:
        referee.stop()
    assert "seat 0 person: ok" in out, out
    assert verified(tmp_path / "match.jsonl") == "verified"
    rounds = page.locator("#scores tbody tr").count()
    assert rounds >= 1 and f"{rounds} rounds)" in page.locator("#result").inner_text()
    if ruleset(variant).declarations:  # every seat's declaration is listed, not only the last
        assert notes["declarations"] == players, notes


def test_the_others_cards_are_seen_one_by_one(page: Page, tmp_path: Path) -> None:
    """Against bots that answer at once, with the pause `referee play` makes between cards: the
    table never gains two cards at one render (every change of it is recorded in the page, not
    sampled, so a busy machine cannot hide one), and the cards were sent to the person at least
    the pause apart (the log's times; without the pause the three bots' cards land together)."""
    log = tmp_path / "match.jsonl"
    referee = Referee(log, seed=5, paced=True, extra=("--card-pause", "0.4", "--trick-pause", "0.4"))
    page.add_init_script(trick_sizes("#trick .played"))
    try:
        page.goto(referee.url)
        for _ in range(400):
            sizes: list[int] = page.evaluate("window.sizes || []")
            rises = len([1 for a, b in pairwise(sizes) if b == a + 1])
            if rises >= 12 or page.locator("#result:not([hidden])").count():
                break
            if page.evaluate(WAITING):
                act_once(page, declare=False)
            page.wait_for_timeout(40)
    finally:
        referee.stop()
    steps = [b - a for a, b in pairwise(sizes) if b > a]
    assert len(steps) >= 12, sizes
    assert set(steps) == {1}, sizes  # each card arrived on its own
    gaps = [b - a for trick in tricks_sent(log, seat=0) for a, b in pairwise(trick)]
    assert len(gaps) >= 8 and min(gaps) >= 0.35, gaps  # paced by --card-pause 0.4


def tricks_sent(log: Path, seat: int) -> list[list[float]]:
    """The send times of the cards of each trick sent to ``seat``, from the log, the last list
    the trick in play (empty once a trick or round ended); a log being written may end in half a
    line."""
    tricks: list[list[float]] = [[]]
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # the line being written
            break
        if entry.get("type") != "send" or entry.get("seat") != seat:
            continue
        kind = entry["msg"]["type"]
        if kind == "card_played":
            tricks[-1].append(entry["t"])
        elif kind in ("trick_end", "round_end") and tricks[-1]:
            tricks.append([])
    return tricks


def trick_sizes(cards: str) -> str:
    """A script for ``add_init_script``: each number of ``cards`` (a selector) the page shows,
    as it changes, in ``window.sizes``, from the page's first render on."""
    return (
        "document.addEventListener('DOMContentLoaded', () => { window.sizes = [];"
        " const trick = document.getElementById('trick');"
        f" const note = () => {{ const n = document.querySelectorAll('{cards}').length;"
        "  if (window.sizes[window.sizes.length - 1] !== n) window.sizes.push(n); };"
        " note(); new MutationObserver(note).observe(trick, { childList: true, subtree: true }); });"
    )


SHAPES = {3: "american-3", 4: "american", 5: "american-5", 6: "double-deck"}

GEOMETRY = """() => {
  const box = (n) => n.getBoundingClientRect();
  const table = box(document.getElementById('table'));
  const seats = [...document.querySelectorAll('#seats .seat')].map((n) => ({ seat: n.dataset.seat, r: box(n) }));
  const inside = seats.every(({ r }) => r.left >= table.left && r.right <= table.right
    && r.top >= table.top && r.bottom <= table.bottom);
  const apart = seats.every((a, i) => seats.every((b, j) => i >= j || a.r.right <= b.r.left || b.r.right <= a.r.left
    || a.r.bottom <= b.r.top || b.r.bottom <= a.r.top));
  const centre = (r) => [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
  const wrong = [...document.querySelectorAll('#trick .played')].filter((n) => {
    const [x, y] = centre(box(n));
    const near = seats.map((s) => [Math.hypot(centre(s.r)[0] - x, centre(s.r)[1] - y), s.seat])
      .sort((a, b) => a[0] - b[0]);
    return near[0][1] !== n.dataset.seat;
  }).map((n) => n.dataset.seat);
  const cards = [...document.querySelectorAll('#trick .played')].map((n) => box(n));
  const apartFrom = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  const overlap = cards.some((a, i) => cards.some((b, j) => i < j && !apartFrom(a, b)))
    || cards.some((a) => seats.some((s) => !apartFrom(a, s.r)));  // a card on a seat's box hides it
  const width = document.documentElement.clientWidth;
  // every card of the hand on the screen and the one a tap at its middle reaches
  const untappable = [...document.querySelectorAll('#hand .card')].filter((n) => {
    const r = box(n);
    const [x, y] = centre(r);
    const hit = document.elementFromPoint(x - window.scrollX, y - window.scrollY);
    return r.left < 0 || r.right > width || !hit || hit.closest('.card') !== n;
  }).map((n) => n.dataset.card);
  const hand = box(document.getElementById('hand'));
  return { players: seats.length, inside, apart, wrong, overlap, played: cards.length, untappable,
    onscreen: table.left >= 0 && table.right <= width && hand.left >= 0 && hand.right <= width
      && hand.bottom <= window.innerHeight + window.scrollY,
    scroll: document.documentElement.scrollWidth, width };
}"""


SIZES = [(1300, 800), (1024, 800), (390, 844)]
"""A desktop, a small laptop, a phone."""
DRAWN = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Two frames on: a width that crossed the phone's has had its media query's change, and the
page its redraw (a rendering step reports the change before it runs the frame's callbacks)."""


@pytest.mark.browser
@pytest.mark.parametrize("players", sorted(SHAPES))
def test_tables_of_3_to_6_players_fit(tmp_path: Path, players: int) -> None:
    """Every seat box on the table and clear of the others, each card of a trick nearest the
    seat that played it and clear of the other cards, no sideways scrolling, the table and the
    hand on the screen and every card of the hand reached by a tap at its middle, while a
    round is played (sampled until each size has seen a full trick on the table), on a desktop,
    a small laptop and a phone (390 x 844: the page was 654 px wide there, the 9th card could
    not be tapped): one match, the window resized to each size before each sample, so the
    page's redraw on crossing the phone's width is in every phone sample."""
    variant = SHAPES[players]
    referee = Referee(
        tmp_path / "match.jsonl", seed=3, extra=("--variant", variant, "--trick-pause", "1"), bots=players - 1
    )
    seen: dict[tuple[int, int], list[dict[str, Any]]] = {size: [] for size in SIZES}
    try:
        with chromium_page(*SIZES[0]) as page:
            page.goto(referee.url)
            page.wait_for_function(WAITING, timeout=30_000)
            for _ in range(400):
                for width, height in SIZES:
                    page.set_viewport_size({"width": width, "height": height})
                    page.evaluate(DRAWN)
                    seen[width, height].append(page.evaluate(GEOMETRY))
                full = all(max(s["played"] for s in samples) == players for samples in seen.values())
                if full or page.locator("#result:not([hidden])").count():
                    break
                if page.evaluate(WAITING):
                    act_once(page, declare=False)
                page.wait_for_timeout(30)
    finally:
        referee.stop()
    for size, samples in seen.items():
        assert max(s["played"] for s in samples) == players, (size, samples[-1])  # a whole trick was drawn
        for sample in samples:
            assert sample["players"] == players
            assert sample["inside"] and sample["apart"], (size, sample)
            assert not sample["wrong"] and not sample["overlap"], (size, sample)
            assert sample["scroll"] <= sample["width"], (size, sample)
            shown = {k: v for k, v in sample.items() if k != "wrong"}
            assert sample["onscreen"] and not sample["untappable"], (size, shown)


SIDE_CARDS = """Object.fromEntries([...document.querySelectorAll('#trick .played')]
  .map((n) => [n.dataset.seat, parseFloat(n.style.left)]).filter(([, x]) => Math.abs(x - 50) > 1))"""
"""The trick's cards of the left and right seats (seat: its card's ``left``, % of the table)."""


@pytest.mark.browser
def test_a_phone_turned_mid_trick_moves_the_tricks_cards_at_once(tmp_path: Path) -> None:
    """The trick's cards lie nearer the middle on a phone's narrow table: a window narrowed (a
    phone turned) while a trick is on the table moves them there at once, before the next card
    (they stayed at the wide table's spots, off their seats, until something else was drawn)."""
    referee = Referee(tmp_path / "match.jsonl", seed=3)
    try:
        with chromium_page(1300, 820) as page:
            page.goto(referee.url)
            wide: dict[str, float] = {}
            for _ in range(60):  # to the person's turn to play with a side seat's card on the table
                page.wait_for_function(WAITING, timeout=30_000)
                wide = page.evaluate(SIDE_CARDS)
                if wide and page.locator("#hand .card.legal").count():
                    break
                act_once(page, declare=False)
                page.wait_for_timeout(30)
            page.set_viewport_size({"width": 390, "height": 844})
            moved = f"Object.entries({json.dumps(wide)}).every(([s, x]) => Math.abs(({SIDE_CARDS})[s] - x) > 1)"
            page.wait_for_function(moved, timeout=5_000)  # no card played meanwhile: it is the person's turn
            narrow: dict[str, float] = page.evaluate(SIDE_CARDS)
    finally:
        referee.stop()
    assert wide and set(narrow) == set(wide), (wide, narrow)
    for seat, x in wide.items():  # seat 1 sits left of the person (seat 0), seat 3 right
        side = -1 if seat == "1" else 1
        assert abs(x - (50 + side * 36 * 0.5)) < 0.01 and abs(narrow[seat] - (50 + side * 36 * 0.36)) < 0.01, (seat, x)


def test_a_spectator_sees_cards_on_the_table_while_a_slow_match_plays(page: Page, tmp_path: Path) -> None:
    """`referee watch` on the log of a match of slow bots (0.3 s a card): the log is written card
    by card while the match plays (it once was written a trick at a time), and the page shows
    the table's cards. The log is read by the test (a trick in play lasts over a second, a read
    takes microseconds); what the page shows is recorded in it (a MutationObserver) from its first
    render, since a busy machine may let the page's reads of the log take a whole trick at once."""
    log = tmp_path / "live.jsonl"
    bot = slow_bot(0.3)
    match = subprocess.Popen(
        [sys.executable, "-m", "referee", "match", "--set", "end=rounds", "--set", "rounds=1", "--seed", "4",
         "--sandbox", "off", "--log", str(log), *[bot] * 4],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    watcher = Watcher(log)
    page.add_init_script(trick_sizes("#trick .card"))
    in_trick: set[int] = set()  # cards of the trick in play, each time the log was read
    try:
        page.goto(watcher.url)
        for _ in range(1200):  # up to a minute (a round takes about 16 s)
            if match.poll() is not None or {1, 2, 3} <= in_trick:
                break
            if log.exists():
                in_trick.add(len(tricks_sent(log, seat=0)[-1]))
            time.sleep(0.05)
        sizes: list[int] = page.evaluate("window.sizes || []")
    finally:
        watcher.stop()
        match.kill()
        match.wait()
    assert {1, 2, 3} <= in_trick, in_trick  # the log held a trick of one, two and three cards
    assert any(sizes), sizes  # and the page showed cards on the table


def screenshots(folder: Path) -> None:
    """The seat mid-round at tables of 3, 5 and 6 players, for the docs (docs/play-seat.png is
    the 4-player table)."""
    for players in (3, 5, 6):
        log = Path(f"/tmp/play-{players}.jsonl")
        referee = Referee(log, seed=3, extra=("--variant", SHAPES[players], "--trick-pause", "1"), bots=players - 1)
        try:
            with chromium_page(1300, 820) as page:
                page.goto(referee.url)
                for _ in range(400):
                    page.wait_for_function(WAITING, timeout=30_000)
                    if (
                        page.locator("#trick .played").count() >= players - 1
                        and page.locator("#hand .card.legal").count()
                    ):
                        break
                    act_once(page, declare=False)
                    page.wait_for_timeout(200)
                page.wait_for_timeout(200)
                page.screenshot(path=str(folder / f"play-{players}-players.png"))
        finally:
            referee.stop()


if __name__ == "__main__":
    screenshots(Path(sys.argv[1]))
