"""A replayed match as one self-contained HTML page: the table, every hand, card by card.

The page is ``viewer.html`` (inline CSS and JavaScript, no network access) with the match's
``MatchRecord`` embedded as JSON; the script builds every step from it (the deal, the passes,
the declarations, each card played, each round's result), so the file is all a viewer needs.
"""

from __future__ import annotations

import html
from importlib.resources import files

import msgspec

from referee.replay.record import MatchRecord

_TEMPLATE = "viewer.html"


def match_page(record: MatchRecord) -> str:
    """The HTML page of one match."""
    template = files("referee.replay").joinpath(_TEMPLATE).read_text(encoding="utf-8")
    # "<" only occurs inside JSON strings, where \u003c means the same: no "</script>" can
    # end the data block early.
    data = msgspec.json.encode(record).decode().replace("<", "\\u003c")
    title = html.escape(f"Hearts replay: {record.rules.name}, match {record.match_id}")
    return template.replace("{{TITLE}}", title).replace("{{MATCH_DATA}}", data)
