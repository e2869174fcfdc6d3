"""The ladder's pages as an organizer uses them, in a real headless Chromium (Playwright):
``referee ladder run CONFIG --web`` plays while the leaderboard updates without a reload; a bot's
page, the match list, a match's verified replay; a crashing bot's page shows its stderr as text;
a table in play is one click from its watch page, its seats named by the ladder's names (two
entries of one program, not their one ``hello`` name); no page scrolls sideways at a phone's
width.

Run as a script to remake the screenshots in docs/ladder.md:
``python -m tests.web.test_ladder_page docs/``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import URL, chromium_page
from tests.web.helpers import ROOT

pytestmark = pytest.mark.browser

PY = sys.executable
CRASHER = """import os, sys
sys.stderr.write("crasher: about to fail <b>not bold</b>\\n")
sys.stderr.flush()
os.execv(sys.executable, [sys.executable, {hostile!r}, "crash"])
"""
NAMES = ("lucky", "plucky", "heuristic", "crasher")
"""The ladder's names: ``lucky`` and ``plucky`` are one program (the random bot)."""
PHONE = 390


def ladder_config(folder: Path) -> Path:
    crasher = folder / "crasher.py"
    crasher.write_text(CRASHER.format(hostile=str(ROOT / "tests/bots/hostile_bot.py")))
    commands = {
        "lucky": f"{PY} {ROOT}/sample_bots/python/random_bot.py",
        "plucky": f"{PY} {ROOT}/sample_bots/python/random_bot.py",
        "heuristic": f"{PY} {ROOT}/sample_bots/python/heuristic_bot.py",
        "crasher": f"{PY} {crasher}",
    }
    config = folder / "bots.toml"
    config.write_text("".join(f'[[bot]]\nname = "{n}"\ncommand = {json.dumps(c)}\n\n' for n, c in commands.items()))
    return config


@contextmanager
def running_ladder(folder: Path, games: int = 40) -> Iterator[str]:
    """``referee ladder run --web`` in a subprocess: the address of its pages, once two
    matches are rated. Stopped (SIGKILL) at the end."""
    config = ladder_config(folder)
    process = subprocess.Popen(
        [PY, "-m", "referee", "ladder", "run", str(config), "--db", str(folder / "league.db"), "--games", str(games),
         "--sandbox", "off", "--concurrency", "2", "--quiet", "--web"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if found := URL.search(line):
                url = found.group(1).rstrip("/")
                break
        else:
            raise AssertionError("ladder run --web printed no address")
        wait_for(lambda: version(url)["seq"] >= 2, "two matches rated")
        yield url
    finally:
        process.kill()
        process.wait()


def version(url: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{url}/api/version", timeout=10) as answer:
        found: dict[str, object] = json.load(answer)
        return found


def wait_for(condition: object, what: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {limit} s: {what}"
        time.sleep(0.2)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (page.url, width)  # type: ignore[index]


def open_a_table(page: Page, url: str) -> list[str]:
    """Click a table in play on the tables page; the names its watch page shows by seat."""
    for _ in range(20):  # a match may end between the list and the click: take the next
        page.goto(f"{url}/tables")
        links = page.locator("a.watch")
        if links.count():
            links.first.click()
            if page.locator("#seats").count():
                try:
                    page.wait_for_selector("#seats .seat .name", timeout=15_000)
                except PlaywrightTimeout:  # no seats within 15 s on a loaded machine: try the next table
                    continue
                seats = page.locator("#seats .seat")
                return [str(seats.nth(i).get_attribute("title")) for i in range(seats.count())]
        time.sleep(0.3)
    raise AssertionError("no table could be opened")


def test_an_organizer_follows_a_ladder_in_the_browser(tmp_path: Path) -> None:
    with running_ladder(tmp_path) as url, chromium_page(1280, 860) as page:
        page.goto(url)
        assert page.locator("table.board tbody tr").count() == len(NAMES)
        page.evaluate("window.notReloaded = true")
        stamp = page.locator("body").get_attribute("data-stamp")
        page.wait_for_selector(f"body:not([data-stamp={json.dumps(stamp)}])", state="attached", timeout=60_000)
        assert page.evaluate("window.notReloaded") is True  # updated in place
        assert "rated" in page.locator("#live").inner_text()

        page.click("table.board a.bot:text-is('crasher')")
        page.wait_for_selector("article.fault pre")
        assert "crasher: about to fail <b>not bold</b>" in page.locator("article.fault pre").first.inner_text()
        assert page.locator("article.fault b").count() == 0  # shown as text, never as markup
        assert "referee replay" in page.locator("article.fault code").first.inner_text()

        page.click("nav a:text-is('Matches')")
        page.wait_for_selector("table.matches tbody tr")
        page.locator("table.matches tbody tr a[href^='/match/']").first.click()
        page.wait_for_selector("#badge.verified", timeout=30_000)
        assert "Hearts" in page.title()

        names = open_a_table(page, url)
        assert len(names) == 4 and set(names) <= set(NAMES), names
        page.wait_for_selector("#badge:has-text('in play'), #result:not([hidden])", timeout=30_000)

        page.set_viewport_size({"width": PHONE, "height": 844})
        for path in ("/", "/bot/crasher", "/bot/lucky", "/matches", "/matches?bot=plucky", "/tables"):
            page.goto(url + path)
            no_sideways_scroll(page)
        page.goto(url + "/matches")
        page.locator("table.matches a[href^='/match/']").first.click()  # the replay viewer
        page.wait_for_selector("#badge.verified", timeout=30_000)
        no_sideways_scroll(page)
        open_a_table(page, url)  # a table's watch page
        no_sideways_scroll(page)


SHOTS = {"board": "/", "bot": "/bot/crasher", "matches": "/matches", "tables": "/tables"}


def screenshots(folder: Path) -> list[Path]:
    """The docs' screenshots: each page at a desktop's width and a phone's (the replay of a
    match and the watch page of a table too), from a ladder that plays while they are taken
    (PNG of few colours: small files)."""
    written = []
    with running_ladder(Path(tempfile_folder()), games=60) as url:
        wait_for(lambda: version(url)["seq"] >= 24, "24 matches rated", limit=180)
        for width, height, suffix in ((1280, 800, "desktop"), (PHONE, 844, "phone")):
            with chromium_page(width, height) as page:
                for name, path in SHOTS.items():
                    page.goto(url + path)
                    page.wait_for_timeout(400)
                    written.append(_shot(page, folder / f"ladder-web-{name}-{suffix}.png"))
                page.goto(url + "/matches")
                page.locator("table.matches a[href^='/match/']").first.click()
                page.wait_for_selector("#badge.verified", timeout=30_000)
                for _ in range(20):
                    page.keyboard.press("ArrowRight")  # into the first tricks
                written.append(_shot(page, folder / f"ladder-web-replay-{suffix}.png"))
                open_a_table(page, url)
                page.wait_for_timeout(1000)
                if page.locator("#result:not([hidden])").count():
                    page.click("#result-close")  # the match ended meanwhile: its table, not the box
                written.append(_shot(page, folder / f"ladder-web-table-{suffix}.png"))
    return written


def _shot(page: Page, out: Path) -> Path:
    from PIL import Image  # noqa: PLC0415 - the screenshots' script only (Pillow comes with matplotlib)

    phone = page.viewport_size is not None and page.viewport_size["width"] == PHONE
    image = Image.open(io.BytesIO(page.screenshot(full_page=phone)))
    if image.height > 1600:
        image = image.crop((0, 0, image.width, 1600))
    image.convert("RGB").quantize(colors=64).save(out, optimize=True)
    return out


def tempfile_folder() -> str:
    import tempfile  # noqa: PLC0415

    return tempfile.mkdtemp(prefix="ladder-web-")


if __name__ == "__main__":
    for path in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
