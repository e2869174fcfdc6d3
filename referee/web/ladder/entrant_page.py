"""The entrant's page (``/entrant``, where its private link leads): its versions, each one click
from its own page (with its faults explained, to it) and its matches (each with its replay and
its log to download); its uploads with their states (``referee.ladder.uploads``); and what the
others see of them. The organizer's ``/entrant`` lists the
entrants instead; the public gets none. Every name goes through ``esc``
(``referee.web.ladder.markup``)."""

from __future__ import annotations

from datetime import datetime

from referee.ladder.season import closed_reason, taking_versions, utc_now
from referee.ladder.upload_archive import MiB
from referee.ladder.uploads import Upload, uploads
from referee.store.entrants import StoredEntrant, entrants
from referee.store.records import BotVersion
from referee.store.season import read_season
from referee.web.ladder.markup import bot_link, esc, matches_href, table
from referee.web.ladder.reading import Reading
from referee.web.ladder.upload_form import FIELDS
from referee.web.ladder.versions import of_entrant, versions
from referee.web.ladder.viewer import Viewer
from referee.web.public import Public, ladder_public

FOR_ENTRANTS = "an entrant's page: open it with the private link the organizer gave you\n"

WHO_SEES = (
    '<p class="hint">Your bots\' stderr, how their programs ended and what went wrong in each fault are shown to '
    "you (this browser keeps your key) and the organizer only. Everyone sees the standings, the matches, their "
    "replays and logs without any bot's stderr. Keep your link private: whoever opens it sees what you see.</p>"
)


def uploads_body(found: list[Upload], public: Public) -> str:
    """The entrant's uploads, latest first, each with its state as it moves (``received``,
    ``playing``, ``refused``) and what the ladder made of it: why a refused one was refused
    (the archive's reason, the build's output, the start-up check), to its entrant only, with
    the organizer's paths written from ``<ladder>``."""
    if not found:
        return ""
    rows = [
        [str(u.seq), esc(u.received), esc(u.state), esc(u.version or ""),
         f"<pre>{esc(public.text(u.detail))}</pre>" if u.detail else ""]
        for u in reversed(found)
    ]  # fmt: skip
    return "<h2>Your uploads</h2>" + table(
        ["#", "received", "state", "version", "what the ladder said"], rows, wide=frozenset({1}),
        text=frozenset({1, 2, 3, 4}), cls="uploads",
    )  # fmt: skip


def upload_form(csrf: str) -> str:
    """The form that uploads a new version (``referee.web.ladder.upload_form``): the archive,
    its command and build line unless its ``hearts-bot.toml`` names them, and ``csrf``, the
    value that proves the form was sent from this page."""
    limit = FIELDS["archive"] // MiB
    return (
        '<h2>Upload a new version</h2><form class="upload" method="post" action="/entrant/upload" '
        'enctype="multipart/form-data">'
        f"<label><span>Your bot's folder as <code>.zip</code> or <code>.tar.gz</code> (at most {limit} MiB)</span> "
        '<input type="file" name="archive" accept=".zip,.tar.gz,.tgz" required></label>'
        '<label>Command <input type="text" name="command" maxlength="1000" placeholder="python3 bot.py" '
        'autocomplete="off" spellcheck="false"></label>'
        '<label>Build line (optional) <input type="text" name="build" maxlength="1000" placeholder="make" '
        'autocomplete="off" spellcheck="false"></label>'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        '<button type="submit">Upload</button></form>'
        '<p class="hint">Leave the command empty when the archive\'s <code>hearts-bot.toml</code> names it. Each '
        "upload becomes your next version once it is built and passes the start-up check; its state shows in "
        "the list below as it moves.</p>"
    )


def entrant_body(name: str, versions: list[BotVersion], uploaded: str = "", form: str = "") -> str:
    """The page of the entrant ``name``, whose ``versions`` are first to last; ``uploaded``:
    its uploads (``uploads_body``); ``form``: the upload form (``upload_form``)."""
    if not versions:
        listing = f"<p>No version of {esc(name)} is in this ladder yet.</p>"
    else:
        rows = [
            [bot_link(v.name), str(v.version), "retired" if v.retired else "playing",
             f'<a href="{matches_href(v.name)}">its matches</a>']
            for v in versions
        ]  # fmt: skip
        listing = "<h2>Your versions</h2>" + table(
            ["version", "#", "state", "matches"], rows, text=frozenset({0, 2, 3}), cls="versions"
        )
        listing += '<p class="hint">Each match\'s log downloads from its matches\' list ("log").</p>'
    return f"<h1>{esc(name)}</h1>{form}{listing}{uploaded}{WHO_SEES}"


def entrants_body(found: list[StoredEntrant]) -> str:
    """The organizer's ``/entrant``: every entrant with a secret, and its versions."""
    if not found:
        return ("<h1>Entrants</h1><p>No entrant has a private link yet: <code>referee ladder entrant add NAME</code> "
                "makes one.</p>")  # fmt: skip
    rows = [[bot_link(e.name) if e.versions else esc(e.name), str(e.versions)] for e in found]
    return "<h1>Entrants</h1>" + table(["entrant", "versions"], rows, cls="entrants")


async def entrant_page(
    reading: Reading, viewer: Viewer, csrf: str = "", now: datetime | None = None
) -> tuple[str, str] | None:
    """The title and body of ``/entrant`` as ``viewer`` sees it: an entrant's own page (with
    the upload form when ``csrf`` is given and submissions are open at ``now``), the
    organizer's list of entrants; ``None`` for the public (``FOR_ENTRANTS``)."""
    name = viewer.entrant
    if viewer.kind == "organizer":
        return "Entrants", entrants_body(await reading.run(lambda r: entrants(r.db)))
    if name is None:
        return None
    uploaded = uploads_body(uploads(reading.path, name), ladder_public(reading.path))
    found, season = await reading.run(lambda r: (of_entrant(versions(r), name), read_season(r.db)))
    form = upload_form(csrf) if csrf else ""
    if form and season is not None and not taking_versions(season, now or utc_now()):
        form = f'<h2>Upload a new version</h2><p class="hint">No more uploads: {esc(closed_reason(season))}.</p>'
    return name, entrant_body(name, found, uploaded, form)
