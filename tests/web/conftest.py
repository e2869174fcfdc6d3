"""What the web tests share: the browser page (tests/browser.py), and a ladder whose bots wrote
hostile names and stderr (``hostile_ladder``) with its pages asked in-process (``View``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser import chromium_page
from tests.tiers import starts
from tests.web.ladder_helpers import View, hostile_ladder


@pytest.fixture
@starts("browser")
def page() -> Iterator[Page]:
    with chromium_page(1300, 820) as page:
        yield page


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return hostile_ladder(tmp_path)


@pytest.fixture
def view(db: Path) -> Iterator[View]:
    found = View(db)
    yield found
    found.close()
