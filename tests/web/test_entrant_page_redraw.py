"""An entrant's page redraws itself (``ladder.js``) but never under a form being filled
(Chromium): a redraw whose page arrives after the entrant chose a file keeps the form, file
and all, and the page is redrawn once the form is empty again; and the form is the same
element after a redraw, so what is set on it through a handle found before the redraw (as a
browser test's ``set_input_files`` does, in two steps) is in the page's form.

The race was real: the form was checked before the page was fetched, not after, and a file
chosen while the fetch was under way vanished; the browser then refused to send the emptied
form (its file is ``required``), and the class ladder's test waited two minutes for an answer
that never came (CI, 2026-12-05). Here the fetch is held by the test, so the race is taken
every time. The second race was a test's: Playwright finds the file input, then sets its
files, and a redraw between the two (the form empty then, so not kept) left the file on the old,
detached form (CI, 2026-12-05 again, in a loaded run)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import trio
from playwright.sync_api import Page, Route

from tests.web.test_upload_form import BOT, HOST, Ladder

STATIC = Path(__file__).resolve().parents[2] / "referee" / "web" / "static"
ADDRESS = "http://127.0.0.1:8000"
ARCHIVE = "form.upload input[name=archive]"


def entrant_page(folder: Path) -> bytes:
    """carol's page, as the ladder's pages make it."""
    ladder = Ladder(folder)

    async def ask() -> bytes:
        status, _, html = await ladder.view.ask("/entrant", headers=[HOST, await ladder.cookie("carol")])
        assert status == 200
        return html

    try:
        return trio.run(ask)
    finally:
        ladder.view.close()


def held_redraw(page: Page, made: bytes, later: bytes) -> Route:
    """Open carol's page as ``made`` with the ladder moved on since (``/api/version``), and
    hold the first redraw's fetch of the page: returned, for the test to answer with ``later``
    when it chooses; every later redraw gets ``later`` at once."""
    held: list[Route] = []

    def serve(route: Route) -> None:
        path = urlparse(route.request.url).path
        if path == "/entrant" and route.request.is_navigation_request():
            route.fulfill(body=made, content_type="text/html; charset=utf-8")
        elif path == "/entrant" and not held:  # the redraw's fetch: the first is held
            held.append(route)
        elif path == "/entrant":
            route.fulfill(body=later, content_type="text/html; charset=utf-8")
        elif path == "/api/version":  # the ladder moved on since the page was made
            route.fulfill(body=json.dumps({"stamp": "later", "seq": 7, "tables": "", "uploads": ""}),
                          content_type="application/json")  # fmt: skip
        elif path in ("/ladder.js", "/ladder.css"):
            route.fulfill(body=(STATIC / path.lstrip("/")).read_bytes(),
                          content_type="text/javascript" if path.endswith(".js") else "text/css")  # fmt: skip
        else:
            route.abort()

    page.route("**/*", serve)
    page.goto(f"{ADDRESS}/entrant")
    for _ in range(200):  # the first redraw asks at once
        if held:
            return held[0]
        page.wait_for_timeout(25)
    raise AssertionError("the page never asked to be redrawn")


def later_page(made: bytes) -> bytes:
    """The page as the ladder makes it later (its ``main`` marked)."""
    later = made.replace(b"<main", b'<main data-later="yes"', 1)
    assert later != made and b'data-stamp="' in made
    return later


def test_a_form_being_filled_is_not_redrawn_under_the_entrant(page: Page, tmp_path: Path) -> None:
    made = entrant_page(tmp_path)
    later = later_page(made)
    held = held_redraw(page, made, later)
    page.set_input_files(ARCHIVE, files=[{"name": "bot.zip", "mimeType": "application/zip", "buffer": BOT}])
    page.fill("form.upload input[name=command]", "python3 bot.py")
    page.locator("h1").first.click()  # the focus leaves the form: only what it holds keeps it
    held.fulfill(body=later, content_type="text/html; charset=utf-8")
    page.wait_for_function("document.getElementById('live').textContent.includes('7 rated')")
    assert page.locator("main[data-later]").count() == 0
    assert page.evaluate(f"document.querySelector({ARCHIVE!r}).files.length") == 1
    assert page.input_value("form.upload input[name=command]") == "python3 bot.py"
    page.evaluate("document.querySelector('form.upload').reset()")  # emptied: the next redraw takes place
    page.wait_for_selector("main[data-later]", timeout=15_000)


def test_the_form_is_the_same_element_after_a_redraw(page: Page, tmp_path: Path) -> None:
    made = entrant_page(tmp_path)
    later = later_page(made)
    held = held_redraw(page, made, later)
    archive = page.locator(ARCHIVE).element_handle()  # found before the redraw, used after it
    command = page.locator("form.upload input[name=command]").element_handle()
    held.fulfill(body=later, content_type="text/html; charset=utf-8")  # the form empty: redrawn
    page.wait_for_selector("main[data-later]", timeout=15_000)
    archive.set_input_files(files=[{"name": "bot.zip", "mimeType": "application/zip", "buffer": BOT}])
    command.fill("python3 bot.py")
    assert page.evaluate(f"document.querySelector('main[data-later] ' + {ARCHIVE!r}).files.length") == 1
    assert page.input_value("main[data-later] form.upload input[name=command]") == "python3 bot.py"
