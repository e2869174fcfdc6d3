"""The seat page as people use it (issue 34), in a real headless Chromium against `referee play`
running for real: a reload and a second device restore the whole table; a second tab is told
the seat is open elsewhere and can take it over; the selection of a pass is gone once passed and
the cards received stay marked until played; a round summary, a log of the round's tricks with
leader and winner, the result that can be closed, with its replay and a rematch; names
numbered the same everywhere; a double deck's cancellation said when it happens.

Every wait is for a condition on the page, never for a duration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from referee.replay.reader import read_log
from referee.replay.verify import verify
from tests.shared import verified
from tests.web.test_page import Referee
from tests.web.test_page_table import WAITING, act_once

SAYINGS = """() => { window.said = []; const note = document.getElementById('note');
  new MutationObserver(() => { if (note.textContent) window.said.push(note.textContent); })
    .observe(note, { childList: true, subtree: true, characterData: true }); }"""
"""Every text the page's note shows, kept in ``window.said``."""
pytestmark = pytest.mark.browser

MY_TURN = "document.querySelector('#hand .card.legal') !== null"
TABLE = """() => ({
  status: document.getElementById('status').textContent,
  stats: [...document.querySelectorAll('#seats .seat')].map((n) => n.textContent),
  trick: [...document.querySelectorAll('#trick .played')]
    .map((n) => n.dataset.seat + ':' + n.querySelector('.card').dataset.card),
  last: document.getElementById('last-trick').textContent,
  tricks: [...document.querySelectorAll('#tricks li')].map((n) => n.textContent),
  passed: document.getElementById('passed').textContent,
  sheet: [...document.querySelectorAll('#scores tbody tr')].map((n) => n.textContent),
  hand: [...document.querySelectorAll('#hand .card')]
    .map((n) => n.dataset.card + (n.classList.contains('received') ? '*' : '')),
})"""
"""What a person sees of the table, as text."""


def step(page: Page) -> bool:
    """Wait for the person's turn (or the end) and act once; whether the match is over."""
    page.wait_for_function(WAITING, timeout=30_000)
    if page.locator("#result:not([hidden])").count():
        return True
    act_once(page, declare=False)
    return False


def play_until(page: Page, condition: str, limit: int = 400, *, card_turn: bool = True) -> None:
    """Act until ``condition`` (JavaScript) holds while the person is to play a card (or, with
    ``card_turn=False``, to do anything): checked before each act, never only after one, since
    what an act lets the bots do next may undo the condition at once."""
    turn = f"({MY_TURN}) && " if card_turn else ""
    for _ in range(limit):
        page.wait_for_function(WAITING, timeout=30_000)
        if page.evaluate(f"() => {turn}({condition})"):
            return
        assert not page.locator("#result:not([hidden])").count(), "the match ended first"
        act_once(page, declare=False)
    raise AssertionError(f"never: {condition}")


def play_out(page: Page) -> None:
    for _ in range(2000):
        if step(page):
            return
    raise AssertionError("the match did not end")


MID_ROUND_TWO = (
    "document.querySelectorAll('#scores tbody tr').length === 1"
    " && document.querySelectorAll('#tricks li').length >= 3"
    " && document.querySelectorAll('#trick .played').length >= 1"
    " && [...document.querySelectorAll('#seats .stats')].some((n) => !n.textContent.endsWith('took 0'))"
)
"""Round 2, three tricks or more taken, points among them, the person to play to a trick already led."""


def test_a_reload_restores_the_whole_table(page: Page, tmp_path: Path) -> None:
    """Status, points taken, the trick in play, the last trick, the round's tricks, the pass
    and the score sheet are all back after a reload (the status read "pass 3 to ..." in the
    middle of the tricks, every "took" 0, the last trick and the pass gone)."""
    referee = Referee(tmp_path / "match.jsonl", seed=8, extra=("--set", "rounds=2"))
    try:
        page.goto(referee.url)
        play_until(page, MID_ROUND_TWO)
        before: dict[str, Any] = page.evaluate(TABLE)
        page.reload()
        page.wait_for_function(MY_TURN, timeout=30_000)
        after: dict[str, Any] = page.evaluate(TABLE)
        play_out(page)
        referee.finish()
    finally:
        referee.stop()
    assert "trick" in before["status"] and "pass" not in before["status"], before
    assert any("took 0" not in s for s in before["stats"]), before
    assert before["last"] and before["passed"].startswith("You passed"), before
    assert after == before
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_a_second_tab_is_told_and_can_take_the_seat_over(page: Page, tmp_path: Path) -> None:
    """A second page of the same address says the seat is open elsewhere (it said "dropped:
    the referee plays your seat" while the first still played); "Play here" takes the seat with
    the whole table; the first page is told; the match goes on from the second to the end."""
    referee = Referee(tmp_path / "match.jsonl", seed=8)
    assert page.context.browser is not None
    other = page.context.browser.new_page(viewport={"width": 390, "height": 844})  # a phone beside
    try:
        page.goto(referee.url)
        play_until(page, "document.querySelectorAll('#tricks li').length >= 2")
        first: dict[str, Any] = page.evaluate(TABLE)
        other.goto(referee.url)
        other.wait_for_selector("#elsewhere:not([hidden])", timeout=30_000)
        told = other.locator("#elsewhere").inner_text()
        still = page.locator("#status").inner_text()
        other.locator("#take-seat").click()
        other.wait_for_function(MY_TURN, timeout=30_000)
        taken: dict[str, Any] = other.evaluate(TABLE)
        page.wait_for_selector("#elsewhere:not([hidden])", timeout=30_000)
        left = page.locator("#elsewhere").inner_text()
        play_out(other)
        out = referee.finish()
    finally:
        other.close()
        referee.stop()
    assert "open in another tab or device" in told and "Play here" in told, told
    assert "dropped" not in still, still
    assert taken == first
    assert "now played in another tab" in left, left
    assert "seat 0 person: ok" in out, out
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_passed_cards_leave_no_selection_and_received_cards_stay_marked_until_played(
    page: Page, tmp_path: Path
) -> None:
    """Right after the pass no card of the new hand is raised as selected (the selection held
    places); each received card is marked until it is played, not only until the round's
    first card."""
    referee = Referee(tmp_path / "match.jsonl", seed=6)
    marks: list[tuple[int, str | None]] = []
    try:
        page.goto(referee.url)
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=30_000)
        act_once(page, declare=False)
        page.wait_for_selector("#hand .card.received", timeout=30_000)
        selected = page.locator("#hand .card.selected").count()
        for _ in range(20):
            page.wait_for_function(WAITING, timeout=30_000)
            received = page.locator("#hand .card.received")
            count = received.count()
            if not count or page.locator("#result:not([hidden])").count():
                break
            legal = page.locator("#hand .card.legal.received")
            if legal.count():  # play a received card: one mark less
                card = legal.first.get_attribute("data-card")
                legal.first.click()
                page.wait_for_function(f"document.querySelectorAll('#hand .card.received').length === {count - 1}")
                marks.append((count, card))
            else:
                act_once(page, declare=False)
        play_out(page)
        referee.finish()
    finally:
        referee.stop()
    assert selected == 0
    assert marks and marks[0][0] == 3, marks  # all three marked until the first of them was played


def test_round_summary_trick_log_result_replay_and_rematch(page: Page, tmp_path: Path) -> None:
    """Between rounds a summary (points taken, change, total, pass) stays until closed or the
    next round's first card; the round's tricks are listed with leader and winner; the result
    names seats as the table does (``random #1``), can be closed and opened again, opens the
    replay, has the person's own play analysed (the button, its "being analysed" state, then the
    replay viewer with the analysis, at the command's ``--analysis-budget``) and starts a rematch
    at the same address."""
    extra = ("--set", "rounds=2", "--analysis-budget", "8")  # the page's analysis, not its figures
    referee = Referee(tmp_path / "match.jsonl", seed=8, extra=extra, rematch=True)
    try:
        page.goto(referee.url)
        play_until(page, "document.querySelectorAll('#tricks li').length >= 4")
        log_lines = page.locator("#tricks li").all_inner_texts()
        # round 2's pass at the latest: the summary stays until the round's first card
        play_until(page, "!document.getElementById('summary').hidden", card_turn=False)
        summary = page.locator("#summary").inner_text()
        rows = page.locator("#summary-table tr[data-seat]").count()
        page.locator("#summary-close").click()
        closed = page.locator("#summary[hidden]").count()
        play_out(page)
        result = page.locator("#result-text").inner_text()
        page.locator("#result-close").click()
        hidden = page.locator("#result[hidden]").count()
        page.locator("#show-result").click()
        page.wait_for_selector("#replay-link", timeout=30_000)
        with page.expect_popup() as popup:
            page.locator("#replay-link").click()
        replay = popup.value
        replay.wait_for_load_state()
        title = replay.title()
        page.locator("#analyse").click()  # the person's own play analysed, in the referee's worker thread
        page.wait_for_selector("#analyse:has-text('being analysed')", timeout=10_000)
        page.wait_for_selector("#analysis-link", timeout=120_000)
        with page.expect_popup() as popup:
            page.locator("#analysis-link").click()
        analysed = popup.value
        analysed.wait_for_selector("#analysis-summary-panel:not([hidden])", timeout=10_000)
        summary_of_play = analysed.locator("#analysis-summary").inner_text()
        analysed_page = analysed.content()
        page.wait_for_selector("#rematch", timeout=30_000)
        page.locator("#rematch").click()
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=60_000)
        again = page.evaluate(TABLE)
    finally:
        referee.stop()
    assert all("led by" in line and ("took it" in line or "cancelled" in line) for line in log_lines), log_lines
    assert "Round 1 over" in summary and "Pass: 3 passed left" in summary, summary
    assert rows == 4 and closed == 1
    assert "random #1" in result and "random #3" in result, result
    assert hidden == 1
    assert title.startswith("Hearts replay"), title
    assert "person: mean loss" in summary_of_play and "random #1: mean" not in summary_of_play, summary_of_play
    assert '"first":8,"most":8' in analysed_page  # the budget asked for, not the default's 32 and 256
    assert again["sheet"] == [] and again["status"].startswith("round 1"), again


def test_a_double_deck_cancellation_is_said_when_it_happens(page: Page, tmp_path: Path) -> None:
    """Six players, two decks: each card that meets its twin in a trick is said to cancel it,
    as it is played (it cancelled without a word)."""
    log = tmp_path / "match.jsonl"
    referee = Referee(log, seed=11, extra=("--variant", "double-deck"), bots=5)
    try:
        page.goto(referee.url)
        page.evaluate(SAYINGS)
        play_out(page)
        referee.finish()
        said: list[str] = page.evaluate("window.said")
    finally:
        referee.stop()
    record = verify(read_log(log).matches[0])
    twins = sum(
        1
        for round_ in record.rounds
        for trick in round_.tricks
        for i, play in enumerate(trick.plays)
        if any(p.card == play.card for p in trick.plays[:i])
    )
    assert twins, "seed 11 deals no twins into one trick: pick another"
    assert len({s for s in said if "cancels" in s}) == twins, (said, twins)
