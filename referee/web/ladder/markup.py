"""The pages' templates and the few helpers every page uses. Every page of the ladder is a Jinja2
template (``referee/web/templates/``, package data) rendered with autoescaping on: every value a
template prints (bot names and commands, faults, stderr: written by whoever entered a bot;
entrant names, the file names in an uploaded archive: by an entrant) is escaped unless it is
``Markup``, and ``Markup`` is only what another of our templates rendered (``render``). No page
is built by formatting strings, so no forgotten call of an escaping function can turn what a
bot says into markup, an attribute or a path of ours; every bot name in a link goes through
``bot_href`` (``tests/web/test_escaping.py`` keeps both true). The pages carry no inline script
or style (the Content-Security-Policy allows none): ``/ladder.css`` and ``/ladder.js``."""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup


def bot_href(name: str) -> str:
    """The address of a bot's page (any name: ``/``, ``..``, ``?``, quotes and markup end up
    percent-encoded; the template escapes it for its attribute)."""
    return f"/bot/{quote(name, safe='')}"


def matches_href(bot: str | None = None, page: int = 1) -> str:
    """The address of a page of the match list, of every match or of ``bot``'s (its name
    query-encoded; the template escapes the ``&`` for its attribute)."""
    query = {k: v for k, v in (("bot", bot), ("page", str(page) if page > 1 else None)) if v is not None}
    return "/matches" + (f"?{urlencode(query)}" if query else "")


def number(value: float, digits: int = 1, sign: bool = False) -> str:
    """A figure, or ``-`` for an infinite or missing one."""
    if not math.isfinite(value):
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def interval(low: float, high: float, digits: int = 2) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "-"
    return f"[{low:+.{digits}f}, {high:+.{digits}f}]"


def percent(share: float) -> str:
    """A share as a whole percentage (``0.25``: ``25%``)."""
    return f"{share:.0%}"


def column_class(column: int, wide: Collection[int], text: Collection[int]) -> str:
    """The classes of a table's column: ``wide`` (left out at a phone's width, ``ladder.css``)
    and ``text`` (to the left; figures are right-aligned)."""
    return " ".join(name for name, where in (("wide", wide), ("text", text)) if column in where)


class OneLine(Extension):
    """Templates are written an element a line, indented; the pages are one line, as they were
    when made by hand: each line break is dropped with the indentation after it, before the
    template is read. Running text therefore stays on one line of its template (two lines of
    text would be joined without a space)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source)


ENV = Environment(
    loader=PackageLoader("referee.web", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    extensions=[OneLine],
    auto_reload=False,
)
"""Every page's environment: autoescaping on for every template (never ``|safe`` in one:
``tests/web/test_escaping.py``), an undefined name an error rather than an empty string."""
ENV.globals.update(
    bot_href=bot_href,
    matches_href=matches_href,
    number=number,
    interval=interval,
    percent=percent,
    column_class=column_class,
)


def render(template: str, /, **values: object) -> Markup:
    """The HTML of ``template`` with ``values``: ``Markup``, which another template prints as it
    is (the one place a rendered page becomes ``Markup``: every value in it was escaped)."""
    return Markup(ENV.get_template(template).render(**values))


def page(
    title: str,
    ladder: str,
    body: Markup,
    *,
    stamp: str,
    tables: str,
    section: str,
    copy: str | None = None,
    uploads: str = "",
) -> Markup:
    """A whole page: the header with the ladder's name and the menu, ``body`` (a rendered
    template) as its main part. ``stamp`` and ``tables`` are what the page was made at:
    ``ladder.js`` fetches the page again when ``/api/version`` says either has changed.
    ``copy``: the page is part of a static copy (``referee ladder export``) made at that time,
    with no server behind it: no script asks for updates, no tables in play are offered, and
    the header says when it was made. ``uploads``: on an entrant's page, its uploads as they
    are (``referee.ladder.uploads.moved``), which move without the database."""
    return render(
        "page.html",
        title=title,
        ladder=ladder,
        body=body,
        stamp=stamp,
        tables=tables,
        section=section,
        copy=copy,
        uploads=uploads,
    )
