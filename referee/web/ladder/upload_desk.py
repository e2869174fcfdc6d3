"""Where the ladder's pages take an entrant's upload (``POST /entrant/upload``): who sends it,
whether the ladder takes uploads at all (its season; its bots sandboxed:
``referee.ladder.upload_gate``), how often, the form read within its limits (``upload_form``)
and proven to come from the entrant's own page, then kept (``referee.ladder.uploads``). A
browser is sent back to its page, where the upload's state moves; a script (a bearer key) gets
the state as JSON."""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from markupsafe import Markup

from referee.ladder.season import closed_reason, taking_versions, utc_now
from referee.ladder.upload_gate import uploads_closed
from referee.store.records import Season
from referee.web.ladder.answers import Answer, client_of
from referee.web.ladder.markup import render
from referee.web.ladder.upload_form import Form, FormRefused, UploadDoor, bearer_key, csrf_value, read_form
from referee.web.ladder.who import Digests, Who
from referee.web.link import AsgiReceive


class UploadDesk:
    """The uploads of the ladder in ``db``: ``who`` finds the entrant, ``digests`` its key's
    SHA-256 (the ``csrf`` value's key), ``ours`` says whether a request came from one of our
    pages (its ``Origin``), ``page`` makes a page of the ladder's look for a browser,
    ``season`` reads the season (after its submissions close, no upload is taken)."""

    def __init__(
        self,
        db: Path,
        who: Who,
        *,
        digests: Digests,
        ours: Callable[[dict[str, Any]], bool],
        page: Callable[[str, Markup], Awaitable[Answer]],
        season: Callable[[], Awaitable[Season | None]],
    ) -> None:
        self.db = db
        self.who = who
        self.digests = digests
        self.ours = ours
        self.page = page
        self.season = season
        self.door = UploadDoor()

    async def answer(self, scope: dict[str, Any], receive: AsgiReceive) -> Answer:
        """The answer to one upload, after every check (``FormRefused`` says which failed)."""
        script = bearer_key(scope) is not None
        try:
            if scope.get("query_string"):
                raise FormRefused(400, "an upload takes no query: the key goes in a cookie or a bearer header\n")
            entrant = await self._uploader(scope)
            season = await self.season()
            if not taking_versions(season, utc_now()):
                assert season is not None
                raise FormRefused(403, f"{closed_reason(season)}\n")
            closed = uploads_closed(self.db)  # the run's word on its sandbox (referee.ladder.upload_gate)
            if closed is not None:
                raise FormRefused(403, f"{closed}: ask the organizer\n")
            client = client_of(scope)
            self.door.let_in(entrant, client)
            with self.door.reading_from(client):
                form = await read_form(scope, receive)
            if not script:
                await self._same_page(entrant, form)
            upload = await self.door.receive(self.db, entrant, form)
        except FormRefused as refused:
            return await self._refused(refused, script)
        if script:
            body = json.dumps({"entrant": upload.entrant, "upload": upload.seq, "state": upload.state,
                               "detail": upload.detail, "received": upload.received})  # fmt: skip
            return Answer(201 if upload.state == "received" else 422, body.encode() + b"\n", "application/json")
        return Answer(303, b"", headers=[(b"location", b"/entrant")])

    async def _uploader(self, scope: dict[str, Any]) -> str:
        """The entrant an upload is from: its bearer key's, or (from a page of ours only) its
        cookie's; ``FormRefused`` for anyone else."""
        key = bearer_key(scope)
        if key is not None:
            found = await self.who.entrant_by_key(scope, key)
            if isinstance(found, Answer):
                raise FormRefused(found.status, found.body.decode())
            return found
        if not self.ours(scope):
            raise FormRefused(403, "an upload's form must be sent from the entrant's page of this ladder\n")
        viewer = await self.who.by_cookies(scope)
        if isinstance(viewer, Answer):
            raise FormRefused(viewer.status, viewer.body.decode())
        if viewer.entrant is None:
            raise FormRefused(403, "uploads are an entrant's: open your private link first\n")
        return viewer.entrant

    async def _same_page(self, entrant: str, form: Form) -> None:
        """That a browser's form came from ``entrant``'s own page: its ``csrf`` field."""
        digest = dict(await self.digests()).get(entrant)
        sent = form.text("csrf") or ""
        if digest is None or not hmac.compare_digest(csrf_value(digest), sent):
            raise FormRefused(403, "this form is not from your page (or your link has changed): open your page again\n")

    async def _refused(self, refused: FormRefused, script: bool) -> Answer:
        """Why an upload was not taken: JSON to a script, a page to a browser
        (``upload_refused.html``: the reason may repeat a field's name the form sent); the
        connection closed after it (a body left unread cannot be skipped)."""
        if script:
            answer = Answer(refused.status, json.dumps({"error": refused.text.strip()}).encode() + b"\n",
                            "application/json")  # fmt: skip
        else:
            body = render("upload_refused.html", reason=refused.text.strip())
            answer = await self.page("Upload not taken", body)
            answer.status = refused.status
        answer.headers.append((b"connection", b"close"))
        if refused.retry is not None:
            answer.headers.append((b"retry-after", str(refused.retry).encode()))
        return answer
