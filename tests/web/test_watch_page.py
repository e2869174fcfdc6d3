"""``referee watch`` in a real headless Chromium (Playwright): the page follows a log as it is
written, shows every hand and the trick, names a garbage line, and reaches the result screen.

Run as a script to remake the screenshot in the docs:
``python -m tests.web.test_watch_page docs/watch.png``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page

from tests.browser import chromium_page, page_address
from tests.replay.helpers import MatchLogs
from tests.web.helpers import RANDOM, ROOT


def finished_log(path: Path, seed: int = 4) -> list[bytes]:
    """The lines of a one-round match of the random sample bot."""
    bots = [RANDOM] * 4
    subprocess.run(
        [sys.executable, "-m", "referee", "match", "--set", "end=rounds", "--set", "rounds=1", "--seed", str(seed),
         "--sandbox", "off", "--log", str(path), *bots],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return path.read_bytes().splitlines(keepends=True)


class Watcher:
    """`referee watch` in a subprocess: its page address."""

    def __init__(self, log: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "watch", str(log), *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.url = page_address(self.process)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def cut(lines: list[bytes], plays: int) -> int:
    """How many lines end just after the ``plays``-th card play is told to the last seat."""
    count = 0
    for index, line in enumerate(lines):
        if b'"seat":3,"msg":{"type":"card_played"' in line:
            count += 1
            if count == plays:
                return index + 1
    raise AssertionError("not that many plays")


def test_the_page_follows_a_log_to_the_result(page: Page, tmp_path: Path) -> None:
    lines = finished_log(tmp_path / "done.jsonl")
    log = tmp_path / "live.jsonl"
    watcher = Watcher(log)
    try:
        page.goto(watcher.url)
        page.wait_for_selector("#status:has-text('waiting for')", timeout=10_000)
        assert "waiting for live.jsonl" in page.locator("#status").inner_text()  # its name, no server path
        at = cut(lines, 6)
        log.write_bytes(b"".join(lines[:at]) + b"garbage\n")
        page.wait_for_selector("#trick .card", timeout=10_000)
        # the finished first trick is held with its winner a moment, then the second is shown
        page.wait_for_function("document.querySelectorAll('#trick .card').length === 2", timeout=10_000)
        assert page.locator("#seats .seat").count() == 4
        # every hand is shown: 52 cards less the 6 played (the second trick has 2 cards)
        assert page.locator("#seats .card").count() == 52 - 6
        assert page.locator("#trick .card").count() == 2
        assert page.locator("#last-trick .card").count() == 4
        assert "Round 1, trick 2" in page.locator("#caption").inner_text()
        assert "skipped: not a log entry" in page.locator("#notes").inner_text()
        assert page.locator("#badge").inner_text() == "in play"
        with log.open("ab") as file:
            file.write(b"".join(lines[at:]))
        page.wait_for_selector("#result:not([hidden])", timeout=10_000)
    finally:
        watcher.stop()
    assert "won" in page.locator("#result").inner_text()
    assert page.locator("#result li").count() == 4
    assert page.locator("#scores tbody tr").count() == 1 and page.locator("#scores tfoot tr").count() == 1
    assert page.locator("#badge").inner_text() == "verified ✓"
    assert "1 bad line skipped" in page.locator("#status").inner_text()
    assert str(tmp_path) not in page.content()


def test_faults_show_as_they_happen(page: Page, tmp_path: Path) -> None:
    lines = MatchLogs(tmp_path)("mistakes").read_bytes().splitlines(keepends=True)  # seat 0 crashes
    log = tmp_path / "live.jsonl"
    watcher = Watcher(log)
    try:
        page.goto(watcher.url)
        at = next(i for i, line in enumerate(lines) if b'"type":"fault"' in line and b'"seat":0' in line)
        log.write_bytes(b"".join(lines[: at + 1]))
        page.wait_for_selector('#notes .note[data-seat="0"]', timeout=10_000)
        assert "crash" in page.locator('#notes .note[data-seat="0"]').inner_text()
        assert page.locator('#seats .seat[data-seat="0"] .tag.fault').inner_text() == "crash"
        assert page.locator("#seats .seat.dropped").count() == 1
    finally:
        watcher.stop()


def test_a_wrong_token_shows_nothing(page: Page, tmp_path: Path) -> None:
    log = tmp_path / "done.jsonl"
    finished_log(log)
    watcher = Watcher(log)
    try:
        page.goto(watcher.url.split("#")[0] + "#token=wrong")
        page.wait_for_selector("#status:has-text('disconnected')", timeout=10_000)
        assert page.locator("#seats .seat").count() == 0
    finally:
        watcher.stop()


def screenshot(out: Path) -> None:
    """The live view mid-round, for docs/watch.png, and at a phone's width (docs/watch-phone.png)."""
    folder = Path("/tmp/watch-shot")
    folder.mkdir(exist_ok=True)
    lines = finished_log(folder / "done.jsonl", seed=8)
    log = folder / "live.jsonl"
    for width, height, name in ((1300, 820, out), (390, 844, out.with_name(f"{out.stem}-phone{out.suffix}"))):
        log.unlink(missing_ok=True)
        watcher = Watcher(log)
        try:
            with chromium_page(width, height) as page:
                page.goto(watcher.url)
                log.write_bytes(b"".join(lines[: cut(lines, 22)]))
                page.wait_for_selector("#trick .card", timeout=10_000)
                page.wait_for_timeout(300)
                page.screenshot(path=str(name), full_page=width < 600)
        finally:
            watcher.stop()


if __name__ == "__main__":
    screenshot(Path(sys.argv[1]))
