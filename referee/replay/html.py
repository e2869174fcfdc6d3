"""A replayed match as one self-contained HTML page: the table, every hand, card by card.

The page is ``viewer.html`` (inline CSS and JavaScript, no network access) with the match's
``MatchRecord`` embedded as JSON; the script builds every step from it (the deal, the passes,
the declarations, each card played, each round's result), so the file is all a viewer needs.

With an ``Analysis`` (``referee analyze``, ``referee.analysis``) the page also shows, at each
decision of the analysed seats, the choices valued with their expected points and intervals,
the loss of the choice made and its grade, and a chart of loss and luck over the match (drawn
by the script as inline SVG). The analysis's figures come from each seat's own information;
the viewer shows every hand anyway, so the page shows nothing it did not.
"""

from __future__ import annotations

import html
import re
from importlib.resources import files

import msgspec

from referee.replay.record import MatchRecord

_TEMPLATE = "viewer.html"


def _embedded(value: object) -> str:
    # "<" only occurs inside JSON strings, where \u003c means the same: no "</script>" can
    # end the data block early.
    return msgspec.json.encode(value).decode().replace("<", "\\u003c")


def match_page(record: MatchRecord, analysis: object = None) -> str:
    """The HTML page of one match (with ``analysis``, a ``referee.analysis.Analysis``, which the
    replay layer below the analysis takes as any encodable value: its figures at each decision)."""
    template = files("referee.replay").joinpath(_TEMPLATE).read_text(encoding="utf-8")
    title = html.escape(f"Hearts replay: {record.rules.name}, match {record.match_id}")
    fill = {"TITLE": title, "MATCH_DATA": _embedded(record), "ANALYSIS_DATA": _embedded(analysis)}
    # one pass: a bot's name that spells a placeholder is not filled in again
    return re.sub(r"\{\{(TITLE|MATCH_DATA|ANALYSIS_DATA)\}\}", lambda m: fill[m.group(1)], template)
