"""The match list (newest first, a page at a time, of one bot or of all) and the tables in
play, each one click from its replay or its live view."""

from __future__ import annotations

from urllib.parse import quote

from referee.web.ladder.markup import bot_link, esc, matches_href, table
from referee.web.ladder.queries import MatchList
from referee.web.ladder.tables import LIVE_SECONDS, LiveMatch


def matches_body(found: MatchList, bots: list[str], *, logs: bool = False) -> str:
    """One page of the match list; ``logs``: each match with a link to download its log (the
    server's pages: ``/match/KEY/log``, without the stderr its viewer may not see)."""
    options = "".join(
        f'<option value="{esc(b)}"{" selected" if b == found.bot else ""}>{esc(b)}</option>' for b in bots
    )
    picker = (
        '<form class="filter" method="get" action="/matches"><label>bot <select name="bot">'
        f'<option value="">all</option>{options}</select></label> <button type="submit">Show</button></form>'
    )
    rows = []
    for m in found.rows:
        seats = "".join(
            f'<li class="{"first" if s.rank == 0 else ""}">{bot_link(s.bot)} {s.score}'
            + (f' <span class="tag bad">{esc(s.status)}</span>' if s.status != "ok" else "")
            + "</li>"
            for s in m.seats
        )
        finished = esc(m.finished.replace("T", " ").removesuffix("+00:00"))
        link = f'<a href="/match/{esc(m.key)}">{esc(m.key)}</a>'
        link += f' <a class="log" href="/match/{esc(m.key)}/log" download>log</a>' if logs else ""
        rows.append([link, str(m.seq), f'<ol class="seats" start="0">{seats}</ol>', str(m.rounds), finished])
    whose = f" with {bot_link(found.bot)}" if found.bot else ""
    title = f"<h1>Matches{whose}</h1><p>{found.total} finished, newest first; page {found.page} of {found.pages}.</p>"
    listing = table(
        ["match", "#", "seats: points", "rounds", "finished"],
        rows,
        wide=frozenset({1, 3, 4}),
        text=frozenset({0, 2}),
        cls="matches",
    )
    return title + picker + listing + _pager(found)


def _pager(found: MatchList) -> str:
    links = []
    if found.page > 1:
        links.append(f'<a rel="prev" href="{matches_href(found.bot, found.page - 1)}">newer</a>')
    if found.page < found.pages:
        links.append(f'<a rel="next" href="{matches_href(found.bot, found.page + 1)}">older</a>')
    return f'<nav class="pager">{" ".join(links)}</nav>'


def tables_body(live: list[LiveMatch]) -> str:
    """The tables in play: the pending matches whose logs are growing."""
    if not live:
        return (
            "<h1>Tables</h1><p>No match is being played right now (no pending match's log has grown in the "
            f"last {LIVE_SECONDS:.0f} seconds).</p>"
        )
    rows = [
        [f'<a href="/table/{quote(m.key)}/">{esc(m.key)}</a>',
         f'<ol class="seats" start="0">{"".join(f"<li>{bot_link(name)}</li>" for name in m.seats)}</ol>',
         f'<a class="watch" href="/table/{quote(m.key)}/">watch</a>']
        for m in live
    ]  # fmt: skip
    return f"<h1>Tables</h1><p>{len(live)} in play.</p>" + table(
        ["match", "seats", ""], rows, text=frozenset({0, 1}), cls="tables"
    )
