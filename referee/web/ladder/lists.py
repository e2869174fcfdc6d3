"""The match list (newest first, a page at a time, of one bot or of all) and the tables in
play, each one click from its replay or its live view: ``matches.html`` and ``tables.html``."""

from __future__ import annotations

from markupsafe import Markup

from referee.web.ladder.markup import render
from referee.web.ladder.queries import MatchList
from referee.web.ladder.tables import LIVE_SECONDS, LiveMatch


def matches_body(found: MatchList, bots: list[str], *, logs: bool = False) -> Markup:
    """One page of the match list; ``logs``: each match with a link to download its log (the
    server's pages: ``/match/KEY/log``, without the stderr its viewer may not see)."""
    return render("matches.html", found=found, bots=bots, logs=logs)


def tables_body(live: list[LiveMatch]) -> Markup:
    """The tables in play: the pending matches whose logs are growing."""
    return render("tables.html", live=live, seconds=f"{LIVE_SECONDS:.0f}")
