"""A headless Chromium page for the browser tests (Playwright driving Debian's Chromium): the
replay viewer, the person's seat and the watch page, and the scripts that remake the docs'
screenshots, all open their page here, with the same flags (no sandbox inside the test
machine's container, no background network).

One Chromium serves every test of a process (a pytest worker), started on first use: starting
it costs about 2 s of CPU in its several processes, and the browser tests are over sixty. Each
page is in a browser context of its own (its own cookies, storage and cache: what a fresh
browser gives, as pytest-playwright does), closed after its test. A browser that died is
started again for the next page; ``close_shared`` ends it (the session's end, tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError

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


class _Shared:
    """The process's one Playwright driver and Chromium, while they run, and the asyncio loop
    Playwright's sync API runs them on."""

    playwright: Playwright | None = None
    browser: Browser | None = None
    loop: asyncio.AbstractEventLoop | None = None


def _shared_browser(executable: Path) -> Browser:
    if _Shared.browser is not None and _Shared.browser.is_connected():
        return _Shared.browser
    close_shared()
    _Shared.playwright = sync_playwright().start()
    _Shared.loop = asyncio.get_running_loop()  # its loop, marked running between its calls
    _Shared.browser = _Shared.playwright.chromium.launch(executable_path=str(executable), args=ARGS)
    return _Shared.browser


@contextmanager
def _in_use() -> Iterator[None]:
    """Playwright's loop marked as this thread's running loop only while a page is in use.

    Between its calls Playwright's sync API leaves its asyncio loop marked running in the thread
    (its dispatcher is suspended inside it), so a later test of the worker could not call
    ``asyncio.run``. Between pages no Playwright call runs, so the mark is taken off after a
    page and put back before the next (``asyncio._set_running_loop``, as Playwright does)."""
    if _Shared.loop is not None:
        asyncio._set_running_loop(_Shared.loop)
    try:
        yield
    finally:
        asyncio._set_running_loop(None)


def close_shared() -> None:
    """End the shared Chromium and its driver, if started (safe to call twice)."""
    browser, playwright = _Shared.browser, _Shared.playwright
    _Shared.browser = _Shared.playwright = None
    with _in_use():
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()
    _Shared.loop = None


@contextmanager
def chromium_page(width: int, height: int) -> Iterator[Page]:
    """A fresh page (in a context of its own) of the shared headless Chromium; in a test, a
    skip where Chromium is missing."""
    executable = chromium()
    if executable is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with _in_use():
        context = _shared_browser(executable).new_context(viewport={"width": width, "height": height})
        try:
            yield context.new_page()
        finally:
            with contextlib.suppress(PlaywrightError):  # the browser died under the test: said there
                context.close()


def page_address(process: subprocess.Popen[str]) -> str:
    """The page address a `referee play` or `referee watch` subprocess prints first."""
    assert process.stderr is not None
    line = process.stderr.readline()
    found = URL.search(line)
    assert found, line
    return found.group(1)
