"""The entrant's page (``/entrant``, where its private link leads): its versions, each one click
from its own page (with its faults explained, to it) and its matches (each with its replay and
its log to download); its uploads with their states (``referee.ladder.uploads``); and what the
others see of them. The organizer's ``/entrant`` lists the
entrants instead; the public gets none. Rendered from ``entrant.html``, ``entrants.html``,
``uploads.html`` and ``upload_form.html``, which escape every name
(``referee.web.ladder.markup``)."""

from __future__ import annotations

from datetime import datetime

from markupsafe import Markup

from referee.ladder.season import closed_reason, taking_versions, utc_now
from referee.ladder.upload_archive import MiB
from referee.ladder.upload_gate import NO_SANDBOX, read_gate
from referee.ladder.uploads import Upload, uploads
from referee.store.entrants import StoredEntrant, entrants
from referee.store.records import BotVersion
from referee.store.season import read_season
from referee.web.ladder.markup import render
from referee.web.ladder.reading import Reading
from referee.web.ladder.upload_form import FIELDS
from referee.web.ladder.versions import of_entrant, versions
from referee.web.ladder.viewer import Viewer
from referee.web.public import Public, ladder_public

FOR_ENTRANTS = "an entrant's page: open it with the private link the organizer gave you\n"


def uploads_body(found: list[Upload], public: Public) -> Markup:
    """The entrant's uploads, latest first, each with its state as it moves (``received``,
    ``playing``, ``refused``) and what the ladder made of it: why a refused one was refused
    (the archive's reason, the build's output, the start-up check), to its entrant only, with
    the organizer's paths written from ``<ladder>``."""
    return render("uploads.html", found=found, public=public)


def upload_form(csrf: str) -> Markup:
    """The form that uploads a new version (``referee.web.ladder.upload_form``): the archive,
    its command and build line unless its ``hearts-bot.toml`` names them, and ``csrf``, the
    value that proves the form was sent from this page."""
    return render("upload_form.html", closed=None, limit=FIELDS["archive"] // MiB, csrf=csrf)


def entrant_body(
    name: str, versions: list[BotVersion], uploaded: Markup | None = None, form: Markup | None = None
) -> Markup:
    """The page of the entrant ``name``, whose ``versions`` are first to last; ``uploaded``:
    its uploads (``uploads_body``); ``form``: the upload form (``upload_form``)."""
    return render("entrant.html", name=name, versions=versions, uploaded=uploaded, form=form)


def entrants_body(found: list[StoredEntrant]) -> Markup:
    """The organizer's ``/entrant``: every entrant with a secret, and its versions."""
    return render("entrants.html", entrants=found)


async def entrant_page(
    reading: Reading, viewer: Viewer, csrf: str = "", now: datetime | None = None
) -> tuple[str, Markup] | None:
    """The title and body of ``/entrant`` as ``viewer`` sees it: an entrant's own page (with
    the upload form when ``csrf`` is given, submissions are open at ``now`` and the ladder's
    bots run sandboxed: ``referee.ladder.upload_gate``; else why not), the organizer's list
    of entrants; ``None`` for the public (``FOR_ENTRANTS``)."""
    name = viewer.entrant
    if viewer.kind == "organizer":
        return "Entrants", entrants_body(await reading.run(lambda r: entrants(r.db)))
    if name is None:
        return None
    uploaded = uploads_body(uploads(reading.path, name), ladder_public(reading.path))
    found, season = await reading.run(lambda r: (of_entrant(versions(r), name), read_season(r.db)))
    form = upload_form(csrf) if csrf else None
    if form is not None and season is not None and not taking_versions(season, now or utc_now()):
        form = render("upload_form.html", closed=f"No more uploads: {closed_reason(season)}.")
    elif form is not None and (gate := read_gate(reading.path)).refusal() is not None:
        closed = (f"Uploads are closed ({NO_SANDBOX}) because this ladder runs its bots without a sandbox "
                  f"({gate.how}): an uploaded bot is built and run only in one. Ask the organizer.")  # fmt: skip
        form = render("upload_form.html", closed=closed)
    return name, entrant_body(name, found, uploaded, form)
