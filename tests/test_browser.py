"""The shared Chromium of the browser tests (tests/browser.py): one browser a worker, a fresh
context a page, and nothing of Playwright's asyncio loop left for the worker's next test."""

from __future__ import annotations

import asyncio

import pytest

from tests.browser import chromium_page

pytestmark = pytest.mark.browser


def test_pages_share_one_browser_but_nothing_else() -> None:
    with chromium_page(320, 240) as first:
        first.set_content("<p>one</p>")
        browser = first.context.browser
        first.context.add_cookies([{"name": "seat", "value": "1", "url": "http://127.0.0.1/"}])
    with chromium_page(400, 300) as second:
        assert second.context.browser is browser  # the same Chromium
        assert second.context.cookies() == []  # a context of its own
        assert second.viewport_size == {"width": 400, "height": 300}
        second.set_content("<p>two</p>")
        assert second.inner_text("p") == "two"


def test_asyncio_is_free_between_pages() -> None:
    """Playwright's sync API leaves its loop marked running between its calls: a later test of
    the same worker could not call ``asyncio.run`` (the failure a shared browser first had)."""
    with chromium_page(320, 240) as page:
        page.set_content("<p>x</p>")
    assert asyncio.run(asyncio.sleep(0, "free")) == "free"
    with chromium_page(320, 240) as page:  # and the browser still answers after it
        page.set_content("<p>y</p>")
        assert page.inner_text("p") == "y"
