"""A replayed match as one self-contained HTML page: the table, every hand, card by card.

The page is the Jinja2 template ``viewer.html`` (inline CSS and JavaScript, no network access)
with the match's ``MatchRecord`` embedded as JSON; the script builds every step from it (the
deal, the passes, the declarations, each card played, each round's result), so the file is all a
viewer needs. The template is rendered with autoescaping on, as every page of ours is: the title
(the rules' name, the match id) is escaped, and the JSON goes through ``json_script``, never
``|safe``: a bot's name, stderr or fault message cannot end the data block or become markup.

With an ``Analysis`` (``referee analyze``, ``referee.analysis``) the page also shows, at each
decision of the analysed seats, the choices valued with their expected points and intervals,
the loss of the choice made and its grade, and a chart of loss and luck over the match (drawn
by the script as inline SVG). The analysis's figures come from each seat's own information;
the viewer shows every hand anyway, so the page shows nothing it did not.
"""

from __future__ import annotations

import msgspec
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from referee.replay.record import MatchRecord

_TEMPLATE = "viewer.html"


def json_script(value: object) -> Markup:
    """``value`` as JSON to sit in a ``<script type="application/json">``: ``Markup`` of our
    encoder's text in which no ``<`` is left, so no ``</script>`` (nor ``<!--``) can end the
    data block early. A ``<`` only occurs inside JSON strings, where ``\\u003c`` means the same;
    the rest is the encoder's own, byte for byte (Jinja's ``tojson`` would re-encode through
    ``json`` and spell ``>``, ``&`` and ``'`` as escapes too: the pages and their tests read the
    record as msgspec writes it)."""
    return Markup(msgspec.json.encode(value).decode().replace("<", "\\u003c"))


_ENV = Environment(
    loader=PackageLoader("referee.replay", "."),
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    auto_reload=False,
)
"""The viewer's environment: autoescaping on, as the ladder's pages' (``referee.web.ladder.markup``)."""
_ENV.filters["json_script"] = json_script


def match_page(record: MatchRecord, analysis: object = None) -> str:
    """The HTML page of one match (with ``analysis``, a ``referee.analysis.Analysis``, which the
    replay layer below the analysis takes as any encodable value: its figures at each decision)."""
    return _ENV.get_template(_TEMPLATE).render(record=record, analysis=analysis)
