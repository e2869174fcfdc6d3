"""Who asks the ladder's pages, from the secrets a request brings: the organizer's token, an
entrant's key (each in the query once, then in a cookie), or none (``viewer.without_secret``).
What each viewer then sees is ``referee.web.ladder.viewer``'s.

A secret in the query is never a page's: the page is asked again without it, the secret kept
in a cookie (``answers.remembered``), so it leaves the address bar, the history and any link
copied from it. A key is hashed and compared with every entrant's digest
(``referee.ladder.entrants.owner``); a wrong one is refused with nothing of any page, and
counted against its address (``keys.WrongKeys``); a cookie that holds a key no longer good is
dropped. A wrong token in the query is refused too: never taken for no secret at all."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from referee.ladder.entrants import owner
from referee.web.ladder.answers import (
    COOKIE,
    KEY_COOKIE,
    Answer,
    client_of,
    forgotten,
    key_of,
    remembered,
    same_token,
    token_of,
)  # fmt: skip
from referee.web.ladder.keys import WrongKeys
from referee.web.ladder.viewer import ORGANIZER, Viewer, entrant_viewer, without_secret

Digests = Callable[[], Awaitable[tuple[tuple[str, str], ...]]]
"""The entrants' names and the SHA-256 of their secrets, as fresh as the pages' stamp."""


class Who:
    """Who asks, for one ladder's pages: ``token``, the organizer's (``None``: none asked);
    ``public_view``, whether whoever brings no secret sees the public view (``--public``)."""

    def __init__(self, token: str | None, public_view: bool, digests: Digests) -> None:
        self.token = token
        self.public_view = public_view
        self.digests = digests
        self.wrong_keys = WrongKeys()

    async def asking(self, scope: dict[str, Any]) -> Viewer | Answer:
        """Who asks an HTTP request, or the answer instead of a page: a secret in the query
        becomes a cookie (303 to the page without it); else the cookies say (``by_cookies``)."""
        _, token = token_of(scope)
        if self.token is not None and same_token(self.token, token):
            return remembered(scope, COOKIE, self.token)
        _, key = key_of(scope)
        if key is not None:
            found = await self.entrant_by_key(scope, key)
            return found if isinstance(found, Answer) else remembered(scope, KEY_COOKIE, key)
        if token is not None and self.token is not None:
            return Answer.text(403, "this token opens nothing: open the address as `referee ladder web` printed it\n")
        return await self.by_cookies(scope)

    async def by_cookies(self, scope: dict[str, Any]) -> Viewer | Answer:
        """Who asks, by the cookies alone (a WebSocket's too): the organizer's token, an
        entrant's key (one no longer good refused, its cookie dropped), else no secret."""
        token, _ = token_of(scope)
        if self.token is not None and same_token(self.token, token):
            return ORGANIZER
        key, _ = key_of(scope)
        if key is not None:
            found = await self.entrant_by_key(scope, key)
            return forgotten(found, KEY_COOKIE) if isinstance(found, Answer) else entrant_viewer(found)
        has_entrants = False
        if not self.public_view and self.token is None:
            try:
                has_entrants = bool(await self.digests())
            except Exception:  # not known: taken as some (the public view), never as none
                has_entrants = True
        viewer = without_secret(public_view=self.public_view, token_asked=self.token is not None,
                                has_entrants=has_entrants)  # fmt: skip
        if viewer is None:
            return Answer.text(403, "open the address with its token, as `referee ladder web` printed it\n")
        return viewer

    async def entrant_by_key(self, scope: dict[str, Any], key: str) -> str | Answer:
        """The entrant whose key ``key`` is, or why not: too many wrong keys from this
        address (429), the database unread (503), or a wrong key (403, counted)."""
        client = client_of(scope)
        if self.wrong_keys.refused(client):
            answer = Answer.text(429, "too many wrong keys from here: wait a minute, then try your link again\n")
            answer.headers.append((b"retry-after", b"60"))
            return answer
        try:
            digests = await self.digests()
        except Exception:
            return Answer.text(503, "the ladder cannot be read just now: try again\n")
        name = owner(key, digests)
        if name is None:
            self.wrong_keys.count(client)
            return Answer.text(403, "this key opens nothing here (a new one may have been made): ask the organizer\n")
        return name
