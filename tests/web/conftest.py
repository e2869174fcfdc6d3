"""The browser page of the web tests (tests/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tests.browser import chromium_page
from tests.tiers import starts


@pytest.fixture
@starts("browser")
def page() -> Iterator[Page]:
    with chromium_page(1300, 820) as page:
        yield page
