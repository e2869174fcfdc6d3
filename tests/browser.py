"""A headless Chromium page for the browser tests (Playwright driving Debian's Chromium): the
replay viewer, the person's seat and the watch page, and the scripts that remake the docs'
screenshots, all open their page here, with the same flags (no sandbox inside the test
machine's container, no background network)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
URL = re.compile(r"open (http://\S+)")
"""How `referee play` and `referee watch` print their page's address (first line of stderr)."""


def chromium() -> Path | None:
    if CHROMIUM.exists():
        return CHROMIUM
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return Path(found) if found else None


@contextmanager
def chromium_page(width: int, height: int) -> Iterator[Page]:
    """A fresh page of a headless Chromium; in a test, a skip where Chromium is missing."""
    executable = chromium()
    if executable is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(executable), args=ARGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


def page_address(process: subprocess.Popen[str]) -> str:
    """The page address a `referee play` or `referee watch` subprocess prints first."""
    assert process.stderr is not None
    line = process.stderr.readline()
    found = URL.search(line)
    assert found, line
    return found.group(1)
