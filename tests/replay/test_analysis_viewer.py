"""``referee replay --html --analysis`` (and ``referee analyze --html``): the analysis in the
replay viewer, in Chromium (issue 44, part 4). At a decision of an analysed seat the viewer
shows the choices valued (expected points, 95% interval), the loss of the choice made and its
grade; the seats' summary links the worst decisions; an inline SVG chart draws loss and luck
over the match; at 390 px nothing scrolls sideways; the page asks for nothing outside itself.

The docs' screenshots are taken here, written to docs/images/ only when asked:
``HEARTS_DOC_SHOTS=1 python -m pytest tests/replay/test_analysis_viewer.py``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from playwright.sync_api import Page

from referee.analysis.report import Analysis
from referee.cli import main
from tests.browser import chromium_page
from tests.replay.helpers import MatchLogs, replay
from tests.replay.test_html import PHONE_FIT, Viewer
from tests.tiers import starts

ROOT = Path(__file__).resolve().parents[2]
SHOTS = os.environ.get("HEARTS_DOC_SHOTS") == "1"
IMAGES = ROOT / "docs" / "images"


@pytest.fixture(scope="module")
@starts("browser")
def browser_page() -> Iterator[Page]:
    with chromium_page(1400, 900) as page:
        yield page


def shot(page: Page, name: str) -> None:
    """The page as the docs show it (only with HEARTS_DOC_SHOTS=1): at most 1,800 px high, in
    64 colours."""
    if not SHOTS:
        return
    from PIL import Image  # noqa: PLC0415 - the screenshots only (Pillow comes with matplotlib)

    image = Image.open(io.BytesIO(page.screenshot(full_page=True)))
    image = image.crop((0, 0, image.width, min(image.height, 1800)))
    IMAGES.mkdir(exist_ok=True)
    image.convert("RGB").quantize(colors=64).save(IMAGES / f"{name}.png", optimize=True)


def _analyse(log: Path, out: Path, *args: str) -> Analysis:
    """``referee analyze LOG ARGS --json`` in-process (one worker: no process pool)."""
    result = CliRunner().invoke(main, ["analyze", str(log), "--json", "--workers", "1", *args])
    assert result.exit_code == 0, result.output
    out.write_text(result.stdout)
    return msgspec.json.decode(result.stdout, type=Analysis)


def test_the_viewer_shows_the_analysis(browser_page: Page, match_log: MatchLogs, tmp_path: Path) -> None:
    log = match_log("american")
    analysis = _analyse(log, tmp_path / "analysis.json", "--seat", "1", "--seat", "2", "--budget", "8")
    html = tmp_path / "analysed.html"
    result = replay("--html", html, "--analysis", tmp_path / "analysis.json", log)
    assert result.exit_code == 0, result.output
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?https?:|@import""", html.read_text())
    viewer = Viewer(browser_page, html)
    page = viewer.page
    assert page.locator("#analysis-panel").is_visible() and page.locator("#chart-panel").is_visible()
    summary = page.inner_text("#analysis-summary")
    for seat in analysis.seats:
        assert f"mean loss {seat.mean_loss:.2f} pts per decision ({seat.analysed} analysed)" in summary
    # the chart: for each analysed seat a loss line and a luck line, inline SVG
    assert page.locator("#chart svg polyline.loss").count() == 2
    assert page.locator("#chart svg polyline.luck").count() == 2
    # the worst decision, from the summary's link: its choices, each with points and interval
    worst = [analysis.decisions[i] for i in analysis.worst]
    assert worst, "the random seat makes errors"
    page.click("#worst li >> nth=0")
    d = worst[0]
    assert d.loss is not None and d.best is not None
    shown = page.locator(f'#analysis .decision[data-index="{d.index}"]')
    assert shown.count() == 1
    text = shown.inner_text()
    found = re.search(r"loss (\S+) ± (\S+) pts against ([^\s,]+)", text)
    assert d.verdict in text and found and found.group(3) == d.best, text
    assert abs(float(found.group(1)) - d.loss.mean) <= 0.0051
    assert abs(float(found.group(2)) - (d.loss.high - d.loss.low) / 2) <= 0.0051
    rows = shown.locator("table.choices tbody tr")
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.choice)") == [c.choice for c in d.choices]
    assert shown.locator("tr.chosen").get_attribute("data-choice") == d.chosen
    first = d.choices[0]
    cells = rows.nth(0).locator("td").all_inner_texts()
    low, _to, high = cells[2].split()
    for value, expected in ((cells[1], first.points.mean), (low, first.points.low), (high, first.points.high)):
        assert abs(float(value) - expected) <= 0.0051, (cells, first)  # 2 decimals, JavaScript's rounding
    # the step is the decision's: its card is the last in the trick, by the analysed seat
    if d.kind == "play":
        assert viewer.trick()[-1] == (d.seat, d.chosen)
    shot(page, "analysis-viewer")
    # a step without an analysed seat's decision says so; the chart's marker follows the step
    before = page.get_attribute("#chart-now", "x1")
    page.keyboard.press("Home")
    assert "No decision of an analysed seat" in page.inner_text("#analysis")
    assert page.get_attribute("#chart-now", "x1") != before
    # at a phone's width: nothing wider than the screen, at the decision and around it
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#worst li >> nth=0")
    for _ in range(3):
        fit = page.evaluate(PHONE_FIT)
        assert fit["scroll"] <= fit["width"], fit
        page.keyboard.press("ArrowRight")
    page.click("#worst li >> nth=0")
    page.locator("#analysis-panel").scroll_into_view_if_needed()
    shot(page, "analysis-viewer-phone")
    page.set_viewport_size({"width": 1400, "height": 900})
    assert viewer.errors == []
    assert all(url.startswith("file://") for url in viewer.requests), viewer.requests


def test_without_an_analysis_nothing_changes_and_a_wrong_one_is_refused(
    browser_page: Page, match_log: MatchLogs, tmp_path: Path
) -> None:
    plain = tmp_path / "plain.html"
    assert replay("--html", plain, match_log("american")).exit_code == 0
    viewer = Viewer(browser_page, plain)
    for panel in ("#analysis-panel", "#chart-panel", "#analysis-summary-panel"):
        assert not viewer.page.locator(panel).is_visible()
    assert viewer.errors == []
    # an analysis of another match, and one with --html missing, are refused
    other = tmp_path / "other.json"
    _analyse(match_log("dutch"), other, "--seat", "0", "--budget", "8")
    refused = replay("--html", tmp_path / "x.html", "--analysis", other, match_log("american"))
    assert refused.exit_code == 2 and "the analysis is of match" in refused.output
    assert replay("--analysis", other, match_log("american")).exit_code == 2
    # referee analyze --html writes the same viewer at once
    out = tmp_path / "direct.html"
    result = CliRunner().invoke(
        main,
        ["analyze", str(match_log("american")), "--seat", "0", "--budget", "8", "--workers", "1", "--html", str(out)],
    )
    assert result.exit_code == 0, result.output
    viewer = Viewer(browser_page, out)
    assert viewer.page.locator("#analysis-panel").is_visible() and viewer.errors == []
