"""The page in a real headless Chromium (Playwright, as the replay viewer's tests): a person plays
a whole round of ``american`` by clicking (passing included) against the random sample bot, with
`referee play` running for real; an illegal click is refused with the rule's reason; keyboard
play; the log verifies.

Run as a script to remake the screenshot in the docs:
``python -m tests.web.test_page docs/play-seat.png``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page

from tests.browser import chromium_page, page_address
from tests.shared import verified
from tests.web.helpers import RANDOM, ROOT


class Referee:
    """`referee play` for one round, in a subprocess: its page address and its log."""

    def __init__(
        self,
        log: Path,
        *,
        seed: int = 5,
        extra: tuple[str, ...] = (),
        bots: int = 3,
        bot: str = RANDOM,
        paced: bool = False,
        ending: tuple[str, ...] = ("--set", "end=rounds", "--set", "rounds=1"),
        rematch: bool = False,
    ) -> None:
        self.log = log
        pauses = () if paced else ("--card-pause", "0", "--trick-pause", "0")  # paced: as a person gets it
        offer = () if rematch else ("--no-rematch",)  # without: the referee waits for the page's choice
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "play", *ending, *pauses, *offer,
             "--seed", str(seed), "--log", str(log), "--sandbox", "off", *extra, *[bot] * bots],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.url = page_address(self.process)

    def finish(self) -> str:
        out, err = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, err
        return out

    def stop(self) -> None:
        """Stop it as a person would (SIGTERM: it ends its bots and its scratch folder), killed
        if it does not end within 10 s."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.communicate()


def act(page: Page) -> bool:
    """One click's worth of the person's turn, if it is theirs: pass the first three legal cards,
    or play the first raised one; whether it acted."""
    if page.locator("#choices button:has-text('Pass')").count():
        for _ in range(3):
            page.locator("#hand .card.legal:not(.selected)").first.click()
        page.locator("#choices button:has-text('Pass')").first.click()
        return True
    if page.locator("#hand .card.legal").count():
        page.locator("#hand .card.legal").first.click()
        return True
    return False


def pass_and_play(page: Page, *, plays: int, pause_ms: int) -> None:
    """From the first round's pass: pass the first three legal cards, then play the first legal
    card ``plays`` times, ``pause_ms`` after each."""
    page.wait_for_selector("#choices button:has-text('Pass')", timeout=10_000)
    for _ in range(3):
        page.locator("#hand .card.legal:not(.selected)").first.click()
    page.locator("#choices button:has-text('Pass')").click()
    for _ in range(plays):
        page.wait_for_selector("#hand .card.legal", timeout=10_000)
        page.locator("#hand .card.legal").first.click()
        page.wait_for_timeout(pause_ms)


def play_round(page: Page, *, keyboard: bool = False, illegal: list[str] | None = None) -> None:
    """Click (or key) through one round: pass the first legal cards, play the first raised one."""
    page.wait_for_selector(".card.legal", timeout=10_000)
    for _ in range(200):
        if page.locator("#result:not([hidden])").count():
            return
        buttons = page.locator("#choices button:has-text('Pass')")
        if buttons.count():
            legal = page.locator("#hand .card.legal:not(.selected)")
            for _ in range(3):
                if keyboard:
                    page.keyboard.press("Space")
                    page.keyboard.press("ArrowRight")
                else:
                    legal.first.click()
            if keyboard:
                page.keyboard.press("Enter")
            else:
                buttons.first.click()
        elif page.locator("#hand .card.legal").count():
            if illegal is not None and not illegal and page.locator("#hand .card:not(.legal)").count():
                page.locator("#hand .card:not(.legal)").first.click()
                illegal.append(page.locator("#message").inner_text())
            if keyboard:
                page.keyboard.press("Enter")  # the cursor starts on the first legal card
            else:
                page.locator("#hand .card.legal").first.click()
        page.wait_for_timeout(50)
    raise AssertionError("the round did not end")


def test_a_person_plays_a_whole_round_by_clicking(page: Page, tmp_path: Path) -> None:
    referee = Referee(tmp_path / "match.jsonl")
    try:
        page.goto(referee.url)
        refused: list[str] = []
        play_round(page, illegal=refused)
        out = referee.finish()
    finally:
        referee.stop()
    assert "Match over" in page.locator("#result").inner_text()
    assert refused and refused[0].startswith("Refused: ")
    assert re.search(r"must_follow_suit|hearts_not_broken|no_points_first_trick|first_lead", refused[0])
    assert "seat 0 person: ok" in out
    assert verified(tmp_path / "match.jsonl") == "verified"
    assert page.locator("#scores tbody tr").count() == 1


def test_a_double_deck_round_is_played_to_the_end(page: Page, tmp_path: Path) -> None:
    """Six players, two decks: playing one copy of a doubled card takes one from the hand (it
    took both, and the page then waited for a card it no longer showed), and choosing one copy
    to pass chooses one."""
    referee = Referee(tmp_path / "match.jsonl", seed=11, extra=("--variant", "double-deck"), bots=5)
    try:
        page.goto(referee.url)
        play_round(page)
        out = referee.finish()
    finally:
        referee.stop()
    assert "Match over" in page.locator("#result").inner_text()
    assert "seat 0 person: ok" in out
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_one_copy_of_a_doubled_card_is_chosen_alone(page: Page, tmp_path: Path) -> None:
    """The seed deals the person a pair; one click chooses one copy of it."""
    referee = Referee(tmp_path / "match.jsonl", seed=11, extra=("--variant", "double-deck"), bots=5)
    try:
        page.goto(referee.url)
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=10_000)
        codes = page.locator("#hand .card").evaluate_all("nodes => nodes.map(n => n.dataset.code || n.textContent)")
        pairs = [i for i in range(1, len(codes)) if codes[i] == codes[i - 1]]
        if not pairs:
            raise AssertionError(f"seed 11 deals the person no pair: {codes}")
        page.locator("#hand .card").nth(pairs[0]).click()
        assert page.locator("#hand .card.selected").count() == 1
    finally:
        referee.stop()


def test_seats_of_the_same_name_are_told_apart_and_the_pass_is_named(page: Page, tmp_path: Path) -> None:
    """Three bots named "random": the page numbers them; the first pass goes left, in words."""
    referee = Referee(tmp_path / "match.jsonl")
    try:
        page.goto(referee.url)
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=10_000)
        prompt = page.locator("#prompt").inner_text()
        assert "Choose 3 cards to pass left, to random #1" in prompt, prompt
    finally:
        referee.stop()


def test_the_seat_to_act_is_marked_whoever_it_is(page: Page, tmp_path: Path) -> None:
    """While a bot thinks, its seat is marked as the one to act (only the person's was), and
    the cards of the trick appear as they are played."""
    referee = slow_referee(tmp_path)
    seen: set[str] = set()
    bots = {"slow #1", "slow #2", "slow #3"}
    try:
        page.goto(referee.url)
        page.wait_for_selector(".card.legal", timeout=10_000)
        for _ in range(400):  # until each bot was seen to act (a trick or two), or the round ends
            if seen >= bots or page.locator("#result:not([hidden])").count():
                break
            if not act(page) and page.locator("#trick .played").count():
                marked = page.locator(".seat.turn .name").all_inner_texts()
                if len(marked) == 1:
                    seen.add(marked[0])
            page.wait_for_timeout(50)
    finally:
        referee.stop()
    assert seen >= bots, seen  # each bot was seen to be the one to act


def slow_referee(tmp_path: Path) -> Referee:
    """`referee play` against three slow bots (0.4 s a card), for what a person sees while
    bots think."""
    return Referee(tmp_path / "match.jsonl", bot=slow_bot(0.4))


def slow_bot(delay: float) -> str:
    """The command of a bot that takes ``delay`` seconds for each card."""
    return f"{sys.executable} {ROOT}/tests/bots/slow_bot.py {delay}"


def test_received_and_passed_cards_are_shown(page: Page, tmp_path: Path) -> None:
    """After the pass, the three received cards are marked in the hand (each until it is
    played) and what was passed, to whom, stays written for the round."""
    referee = slow_referee(tmp_path)
    try:
        page.goto(referee.url)
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=10_000)
        act(page)
        page.wait_for_selector("#hand .card.received", timeout=10_000)
        assert page.locator("#hand .card.received").count() == 3
        passed = page.locator("#passed").inner_text()
        assert re.match(r"You passed .+ to slow #1 and received .+ from slow #3\.", passed), passed
        for _ in range(600):  # until the round's first card (the person's, when they hold the 2 of clubs)
            if page.locator("#trick .played").count():
                break
            act(page)
            page.wait_for_timeout(50)
        # still marked after the round's first card (each until it is played; issue 34)
        assert page.locator("#hand .card.received").count() >= 2
        assert page.locator("#passed").inner_text().startswith("You passed")
    finally:
        referee.stop()


def test_a_finished_trick_stays_a_moment_with_its_winner_marked(page: Page, tmp_path: Path) -> None:
    """The four cards of a finished trick stay on the table, the winner's marked and named,
    before the trick is gathered (it vanished at once into "Last trick")."""
    referee = slow_referee(tmp_path)
    held: list[str] = []
    try:
        page.goto(referee.url)
        page.wait_for_selector(".card.legal", timeout=10_000)
        for _ in range(600):
            if held or page.locator("#result:not([hidden])").count():
                break
            if page.locator("#trick .played").count() == 4 and page.locator("#trick .played.won").count() == 1:
                held.append(page.locator("#message").inner_text())
            else:
                act(page)
            page.wait_for_timeout(50)
    finally:
        referee.stop()
    assert held and re.search(r"takes the trick \(\d+ points\)", held[0]), held


def test_the_score_sheet_survives_a_reload(page: Page, tmp_path: Path) -> None:
    referee = Referee(tmp_path / "match.jsonl", extra=("--set", "rounds=2"))
    try:
        page.goto(referee.url)
        page.wait_for_selector(".card.legal", timeout=10_000)
        for _ in range(400):  # play until round 1 is scored
            if page.locator("#scores tbody tr").count() == 1:
                break
            act(page)
            page.wait_for_timeout(50)
        assert page.locator("#scores tbody tr").count() == 1
        page.reload()
        page.wait_for_selector(".card.legal", timeout=30_000)
        assert page.locator("#scores tbody tr").count() == 1  # round 1 is still on the sheet
        play_round(page)
        referee.finish()
    finally:
        referee.stop()
    assert page.locator("#scores tbody tr").count() == 2
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_keyboard_play(page: Page, tmp_path: Path) -> None:
    referee = Referee(tmp_path / "match.jsonl", seed=9)
    try:
        page.goto(referee.url)
        play_round(page, keyboard=True)
        referee.finish()
    finally:
        referee.stop()
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_a_reload_mid_trick_resumes(page: Page, tmp_path: Path) -> None:
    referee = Referee(tmp_path / "match.jsonl", seed=11)
    try:
        page.goto(referee.url)
        pass_and_play(page, plays=3, pause_ms=100)
        page.reload()
        play_round(page)
        referee.finish()
    finally:
        referee.stop()
    assert verified(tmp_path / "match.jsonl") == "verified"


def test_the_clock_running_out_plays_by_the_match_policy(page: Page, tmp_path: Path) -> None:
    """A person who does not answer: at the end of the decision limit (no bank) the match's
    policy (forfeit) drops the seat, the page says so, the referee's fallback plays the seat to
    the end of the match, and the log verifies."""
    referee = Referee(tmp_path / "match.jsonl", seed=13, extra=("--time-per-move", "1", "--time-bank", "0"))
    try:
        page.goto(referee.url)
        page.wait_for_selector("#choices button:has-text('Pass')", timeout=10_000)  # ...and do nothing
        page.wait_for_function("document.getElementById('status').textContent.includes('dropped')", timeout=15_000)
        idle_writes = page.evaluate(CLOCK_WRITES)  # nothing asked of the person now
        out = referee.finish()
    finally:
        referee.stop()
    assert idle_writes == 0  # the clock's ticks write nothing unchanged (a relayout each, on a phone)
    assert "timeout" in page.locator("#message").inner_text()
    assert "seat 0 person: timeout" in out
    assert verified(tmp_path / "match.jsonl") == "verified"


CLOCK_WRITES = """() => new Promise((done) => { let writes = 0;
  const seen = new MutationObserver((records) => { writes += records.length; });
  const options = { childList: true, characterData: true, subtree: true, attributes: true };
  setTimeout(() => { seen.observe(document.getElementById('clock'), options); }, 400); // the drop's tick first
  setTimeout(() => { seen.disconnect(); done(writes); }, 1400); })"""
"""How many times the clock was written in one second (five ticks)."""


def screenshot(out: Path) -> None:
    """The human seat mid-round, for docs/play-seat.png, and at a phone's width beside it
    (docs/play-seat-phone.png); then the round's summary on a phone (docs/play-summary-phone.png)."""
    for width, height, name in ((1300, 820, out), (390, 844, out.with_name(f"{out.stem}-phone{out.suffix}"))):
        referee = Referee(Path("/tmp/play-seat.jsonl"), seed=3)
        try:
            with chromium_page(width, height) as page:
                page.goto(referee.url)
                pass_and_play(page, plays=4, pause_ms=150)
                page.wait_for_selector("#hand .card.legal", timeout=10_000)
                page.wait_for_timeout(300)
                page.screenshot(path=str(name))
        finally:
            referee.stop()
    referee = Referee(Path("/tmp/play-summary.jsonl"), seed=3, extra=("--set", "rounds=2"))
    try:
        with chromium_page(390, 844) as page:
            page.goto(referee.url)
            page.wait_for_selector(".card.legal", timeout=10_000)
            while not page.locator("#summary:not([hidden])").count():
                act(page)
                page.wait_for_timeout(50)
            page.screenshot(path=str(out.with_name("play-summary-phone.png")), full_page=True)
    finally:
        referee.stop()


if __name__ == "__main__":
    screenshot(Path(sys.argv[1]))
