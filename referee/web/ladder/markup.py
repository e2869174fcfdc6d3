"""The pages' shell and the few helpers every page uses. Every text that comes from the
database (bot names and commands, faults, stderr: all written by whoever entered a bot) goes
through ``esc``, and every bot name in a link through ``bot_href``: nothing a bot says becomes
markup, an attribute or a path of ours. The pages carry no inline script or style (the
Content-Security-Policy allows none): ``/ladder.css`` and ``/ladder.js``."""

from __future__ import annotations

import html
import math
from urllib.parse import quote, urlencode

CURRENT = ' aria-current="page"'


def esc(text: object) -> str:
    """Text as HTML, quotes included (safe in an element and in an attribute)."""
    return html.escape(str(text), quote=True)


def bot_href(name: str) -> str:
    """The address of a bot's page, escaped for an attribute (any name: ``/``, ``..``, ``?``,
    quotes and markup end up percent-encoded)."""
    return esc(f"/bot/{quote(name, safe='')}")


def bot_link(name: str, *, titled: bool = False) -> str:
    """A link to a bot's page; ``titled``: its whole name in a title too (where ``ladder.css``
    may shorten it)."""
    title = f' title="{esc(name)}"' if titled else ""
    return f'<a class="bot"{title} href="{bot_href(name)}">{esc(name)}</a>'


def matches_href(bot: str | None = None, page: int = 1) -> str:
    query = {k: v for k, v in (("bot", bot), ("page", str(page) if page > 1 else None)) if v is not None}
    return esc("/matches" + (f"?{urlencode(query)}" if query else ""))


def number(value: float, digits: int = 1, sign: bool = False) -> str:
    """A figure, or ``-`` for an infinite or missing one."""
    if not math.isfinite(value):
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def interval(low: float, high: float, digits: int = 2) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "-"
    return f"[{low:+.{digits}f}, {high:+.{digits}f}]"


def table(
    head: list[str],
    rows: list[list[str]],
    *,
    wide: frozenset[int] = frozenset(),
    text: frozenset[int] = frozenset({0}),
    cls: str = "",
) -> str:
    """A table of cells already made HTML: figures right-aligned, the columns in ``text`` to
    the left; the columns in ``wide`` are left out at a phone's width (``ladder.css``)."""

    def cells(tag: str, row: list[str]) -> str:
        return "".join(f"<{tag}{_classes(i, wide, text)}>{cell}</{tag}>" for i, cell in enumerate(row))

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f'<table class="{esc(cls)}"><thead><tr>{cells("th", head)}</tr></thead><tbody>{body}</tbody></table>'


def _classes(column: int, wide: frozenset[int], text: frozenset[int]) -> str:
    names = [name for name, where in (("wide", wide), ("text", text)) if column in where]
    return f' class="{" ".join(names)}"' if names else ""


def page(
    title: str,
    ladder: str,
    body: str,
    *,
    stamp: str,
    tables: str,
    section: str,
    copy: str | None = None,
    uploads: str = "",
) -> str:
    """A whole page: the header with the ladder's name and the menu, ``body`` as its main part.
    ``stamp`` and ``tables`` are what the page was made at: ``ladder.js`` fetches the page again
    when ``/api/version`` says either has changed. ``copy``: the page is part of a static copy
    (``referee ladder export``) made at that time, with no server behind it: no script asks for
    updates, no tables in play are offered, and the header says when it was made. ``uploads``:
    on an entrant's page, its uploads as they are (``referee.ladder.uploads.moved``), which
    move without the database."""
    sections = (("board", "/", "Leaderboard"), ("matches", "/matches", "Matches"), ("tables", "/tables", "Tables"))
    menu = "".join(
        f'<a href="{href}"{CURRENT if key == section else ""}>{label}</a>'
        for key, href, label in sections
        if copy is None or key != "tables"
    )
    live = "" if copy is None else f"a copy made {esc(copy)}"
    script = '<script src="/ladder.js"></script>' if copy is None else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · {esc(ladder)}</title>"
        '<link rel="stylesheet" href="/ladder.css"><link rel="icon" href="data:,"></head>'
        f'<body data-stamp="{esc(stamp)}" data-tables="{esc(tables)}" data-uploads="{esc(uploads)}">'
        f'<header><a class="ladder" href="/">{esc(ladder)}</a><nav>{menu}</nav>'
        f'<span id="live" class="meta" aria-live="polite">{live}</span></header>'
        f"<main>{body}</main>"
        f"{script}</body></html>"
    )
