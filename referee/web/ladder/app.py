"""The ladder's pages as an ASGI application. Every request is hostile: only ``GET`` and
``HEAD``, a bounded path and query, unknown paths 404, bad query values named in a 400, more
than ``budget.MAX_OPEN`` requests being made at once (``MAX_OPEN_PER_CLIENT`` from one
address) shed with a 503, and pages made again only when the database changed, at most
``budget.RENDERS_PER_SECOND`` a second (503 beyond), a ``Host`` that is not ours refused on
loopback (DNS rebinding) or when a public address is set, the token required when bound
elsewhere or kept in a file (unless the public view is served), and a page that fails answers
500 alone: nothing a request does reaches the ladder that serves it. A match's log is found by
its key through the database, never by a path from the request.

Each request is seen by one viewer (``viewer``: the public, an entrant by its key, the
organizer by the token), found before any page is looked for, and each answer is kept under
its viewer too: a bot's stderr and its faults' details, a match's stderr and the log's
``stderr`` entries reach only the viewers who may see them (docs/ladder.md, "Who sees
what")."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from markupsafe import Markup

from referee.ladder.season import utc_now
from referee.ladder.setup import logs_folder
from referee.ladder.uploads import moved
from referee.store.analysis import analysed_count
from referee.store.entrants import secret_digests
from referee.store.reader import LadderReader
from referee.store.season import read_season
from referee.web.asgi import route
from referee.web.ladder import queries
from referee.web.ladder.answers import (
    MAX_PATH,
    Answer,
    BadRequest,
    client_of,
    header,
    host_ok,
    origin_ok,
    query,
    whole_number,
)  # fmt: skip
from referee.web.ladder.board import board_body
from referee.web.ladder.bot import bot_body
from referee.web.ladder.budget import AnswerSlots, Bucket, Kept, State
from referee.web.ladder.entrant_page import FOR_ENTRANTS, entrant_page
from referee.web.ladder.finished import download, replay
from referee.web.ladder.lists import matches_body, tables_body
from referee.web.ladder.logs import Logs
from referee.web.ladder.markup import page
from referee.web.ladder.published import PublicUrl
from referee.web.ladder.reading import Reading
from referee.web.ladder.table_watch import TABLE, TableWatch
from referee.web.ladder.tables import in_play
from referee.web.ladder.upload_desk import UploadDesk
from referee.web.ladder.upload_form import UPLOAD_PATH, csrf_value
from referee.web.ladder.viewer import ORGANIZER, Viewer, bot_view_for
from referee.web.ladder.who import Who
from referee.web.link import AsgiReceive, AsgiSend
from referee.web.server import STATIC

FILES = {"/ladder.css": "text/css", "/ladder.js": "text/javascript"}
TABLE_FILES = {"style.css": "text/css", "cards.js": "text/javascript", "watch.js": "text/javascript"}
LOG = re.compile(r"/match/([^/]*)/log")


def _watch_page() -> tuple[bytes, str]:
    """The watch page and its policy: its one inline style allowed by its hash."""
    body = (STATIC / "watch.html").read_bytes()
    style = re.search(rb"<style>(.*?)</style>", body, re.S)
    digest = base64.b64encode(hashlib.sha256(style.group(1) if style else b"").digest()).decode()
    policy = (f"default-src 'none'; script-src 'self'; style-src 'self' 'sha256-{digest}'; connect-src 'self'; "
              "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")  # fmt: skip
    return body, policy


class LadderWeb:
    """The pages of the ladder in ``db``; ``token``: the organizer's, which shows everything,
    asked of every request without another secret (bound to a non-loopback address, or kept in
    a token file) unless ``public_view`` (``--public``): then whoever brings no secret gets
    the public view (``who``, ``viewer``); ``public``: the address visitors open
    (``--public-url``), a ``Host`` and ``Origin`` of its own."""

    def __init__(
        self, db: Path, *, token: str | None = None, public: PublicUrl | None = None, public_view: bool = False
    ) -> None:
        self.reading = Reading(db)
        self.name = db.stem
        self.logs = Logs(logs_folder(db))
        self.who = Who(token, public_view, self._digests)
        self.public = public
        self.url = ""
        """Where it is served (``server`` sets it): the ``Host`` and ``Origin`` it answers."""
        self.slots = AnswerSlots()
        self.shed = 0
        self.watching = TableWatch(self.who, self.reading)
        self._files = {path: (STATIC / path.lstrip("/")).read_bytes() for path in FILES}
        self._watch = _watch_page()
        self._kept: tuple[str, queries.Board] | None = None
        self.kept = Kept(lambda: self.reading.run(self._look))
        self.renders = Bucket()
        self.desk = UploadDesk(db, self.who, digests=self._digests, ours=self._ours, page=self._plain_page,
                               season=lambda: self.reading.run(lambda r: read_season(r.db)))  # fmt: skip

    @property
    def token(self) -> str | None:
        """The organizer's token (``who``'s; ``None``: none asked)."""
        return self.who.token

    @token.setter
    def token(self, token: str | None) -> None:
        self.who.token = token

    async def __call__(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        await route(scope, receive, send, websocket=self._websocket, http=self._http)

    async def _http(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        """Checks first, with no slot taken (a request without the token or with a foreign
        ``Host`` costs no slot); then a slot while the answer is made; then the answer sent
        with the slot given back: a client that does not read holds no slot, and its
        connection is closed after ``send_seconds`` (``referee.web.hypercorn_bounds``)."""
        answer = self._check(scope)
        viewer = ORGANIZER
        if answer is None and scope.get("method") == "POST":
            await (await self.desk.answer(scope, receive)).send(send, head=False)
            return
        if answer is None:
            who = await self.who.asking(scope)
            answer, viewer = (who, viewer) if isinstance(who, Answer) else (None, who)
        if answer is None:
            answer = await self._kept_answer(scope, viewer)
        if answer is None:
            client = client_of(scope)
            if self.slots.take(client):
                try:
                    answer = await self._made(scope, viewer)
                finally:
                    self.slots.give(client)
            else:
                self.shed += 1
                answer = Answer.text(503, "busy: too many requests at once, try again\n")
                answer.headers.append((b"retry-after", b"1"))
        await answer.send(send, head=scope.get("method") == "HEAD")

    async def _kept_answer(self, scope: dict[str, Any], viewer: Viewer) -> Answer | None:
        """A page already made for the database as it is (or one of the pages' files): it costs
        nothing to give, so it takes no slot. On loopback every client shares one address, and a
        local flood of requests for kept pages held its slots for a viewer's (503 under load)."""
        path = str(scope.get("path", ""))
        if path in FILES and not scope.get("query_string"):
            return Answer(200, self._files[path], f"{FILES[path]}; charset=utf-8")
        try:
            found = self.kept.get(self._key(scope, await self.kept.state(), viewer))
        except Exception:  # the slotted way answers it, or says why
            return None
        return found if isinstance(found, Answer) else None

    def _key(self, scope: dict[str, Any], state: State, viewer: Viewer) -> tuple[str, ...]:
        """What an answer is kept under: its address, the database it was made from, and whom
        it was made for (an entrant's page is never given to the public)."""
        raw = scope.get("query_string", b"")
        return (str(scope.get("path", "")), raw.decode("latin-1") if isinstance(raw, bytes) else "", state.stamp,
                state.keys, viewer.key)  # fmt: skip

    async def _made(self, scope: dict[str, Any], viewer: Viewer) -> Answer:
        try:
            return await self._answer(scope, viewer)
        except BadRequest as refused:
            return Answer.text(refused.status, refused.text)
        except Exception:  # a page that fails answers alone; the ladder and the server go on
            return Answer.text(500, "this page failed (the ladder goes on)\n")

    def _check(self, scope: dict[str, Any]) -> Answer | None:
        """The checks before any page, costing nothing: method, sizes, ``Host``."""
        method = scope.get("method")
        if method not in ("GET", "HEAD") and (method != "POST" or scope.get("path") != UPLOAD_PATH):
            return Answer.text(405, f"GET and HEAD only (and POST to {UPLOAD_PATH}, an entrant's upload)\n")
        raw_path = scope.get("raw_path") or str(scope.get("path", "")).encode()
        if len(raw_path) > MAX_PATH:
            return Answer.text(414, f"the path is longer than {MAX_PATH} bytes\n")
        if not host_ok(scope, self.url, self.public):
            return Answer.text(421, "this server answers to its own address only\n")
        return None

    async def _answer(self, scope: dict[str, Any], viewer: Viewer) -> Answer:
        path = str(scope.get("path", ""))
        if path in FILES:
            query(scope, ())
            return Answer(200, self._files[path], f"{FILES[path]}; charset=utf-8")
        log = LOG.fullmatch(path)
        if log is not None:
            query(scope, ())
            if not self.renders.take():  # made anew each time (never kept): it counts as a page made
                return self._busy()
            return await download(self.reading, self.logs, log.group(1), viewer)
        state = await self.kept.state()
        table = TABLE.fullmatch(path)
        if table is not None and table.group(2) != "ws":
            return self._table_file(state, table.group(1), table.group(2))
        if path == "/api/version":
            query(scope, ())
            version = {"stamp": state.stamp, "seq": state.seq, "tables": state.keys}
            if viewer.entrant is not None:
                version["uploads"] = moved(self.reading.path, viewer.entrant)
            return Answer(200, json.dumps(version).encode(), "application/json")
        key = self._key(scope, state, viewer)
        found = await self.kept.answer(key, lambda: self._made_anew(key, path, scope, state, viewer))
        assert isinstance(found, Answer)
        return found

    async def _made_anew(
        self, key: tuple[str, ...], path: str, scope: dict[str, Any], state: State, viewer: Viewer
    ) -> Answer:
        """A page made from the database, within the render budget, and kept when it is one."""
        if not self.renders.take():
            return self._busy()
        answer = await self._render(path, scope, state, viewer)
        if answer.status == 200 and path != "/entrant":  # its uploads move without the database
            self.kept.put(key, answer)
        return answer

    def _busy(self) -> Answer:
        self.shed += 1
        busy = Answer.text(503, "busy: too many pages asked at once, try again\n")
        busy.headers.append((b"retry-after", b"1"))
        return busy

    async def _render(self, path: str, scope: dict[str, Any], state: State, viewer: Viewer) -> Answer:
        """The page at ``path`` as ``viewer`` sees it, made from the database."""
        if path == "/":
            query(scope, ())
            board = await self.reading.run(self._board)
            return self._page("Leaderboard", board_body(board), state, "board")
        if path == "/matches":
            return await self._matches(query(scope, ("bot", "page")), state)
        if path.startswith("/bot/"):
            query(scope, ())
            return await self._bot(path.removeprefix("/bot/"), state, viewer)
        if path.startswith("/match/"):
            query(scope, ())
            return await replay(self.reading, self.logs, path.removeprefix("/match/"), viewer)
        if path == "/tables":
            query(scope, ())
            return self._page("Tables", tables_body(state.tables), state, "tables")
        if path == "/entrant":
            query(scope, ())
            digest = dict(state.entrants).get(viewer.entrant or "")
            shown = await entrant_page(self.reading, viewer, csrf_value(digest) if digest else "", utc_now())
            if shown is None:
                return Answer.text(403, FOR_ENTRANTS)
            uploads = moved(self.reading.path, viewer.entrant) if viewer.entrant is not None else ""
            own = self._page(*shown, state, "entrant", uploads=uploads)
            own.referrer = "same-origin"  # its form's POST carries our Origin (not "null")
            return own
        return Answer.text(404, "not found\n")

    def _ours(self, scope: dict[str, Any]) -> bool:
        """Whether a request comes from one of our own pages (its one ``Origin``)."""
        return len(header(scope, b"origin")) == 1 and origin_ok(scope, self.url, self.public)

    async def _plain_page(self, title: str, body: Markup) -> Answer:
        return self._page(title, body, await self.kept.state(), "entrant")

    async def _digests(self) -> tuple[tuple[str, str], ...]:
        return (await self.kept.state()).entrants

    def _look(self, reader: LadderReader) -> State:
        stamp = f"{queries.stamp(reader)}.a{analysed_count(reader.db)}"  # a match analysed changes its bots' pages
        return State(stamp, queries.latest(reader), in_play(reader, self.logs.folder), secret_digests(reader.db))

    def _page(self, title: str, body: Markup, state: State, section: str, uploads: str = "") -> Answer:
        made = page(title, self.name, body, stamp=state.stamp, tables=state.keys, section=section, uploads=uploads)
        return Answer(200, made.encode())

    def _board(self, reader: LadderReader) -> queries.Board:
        """The leaderboard, made again only when the database has changed (a bot's page and
        the leaderboard between two results read the same one)."""
        now = queries.stamp(reader)
        if self._kept is None or self._kept[0] != now:
            self._kept = (now, queries.board(reader))
        return self._kept[1]

    async def _matches(self, params: dict[str, str], state: State) -> Answer:
        number = whole_number(params, "page", 1)
        bot = params.get("bot") or None

        def read(reader: LadderReader) -> tuple[queries.MatchList, list[str]]:
            names = queries.bot_names(reader)
            if bot is not None and bot not in names:
                raise BadRequest(400, f"bot: no bot named {bot[:80]!r} in this ladder\n")
            return queries.match_list(reader, bot, number), names

        found, names = await self.reading.run(read)
        if number > found.pages:
            raise BadRequest(400, f"page: {number} is past the last page ({found.pages})\n")
        return self._page("Matches", matches_body(found, names, logs=True), state, "matches")

    async def _bot(self, name: str, state: State, viewer: Viewer) -> Answer:
        found = await self.reading.run(lambda r: queries.bot_view(r, name))
        if found is None:
            return Answer.text(404, f"no bot named {name[:80]!r} in this ladder\n")
        view, details = bot_view_for(found, viewer)
        times, done = await self.reading.run(lambda r: (self.logs.times(view.recent), queries.bot_analyses(r, name)))
        return self._page(name, bot_body(view, times, details=details, analyses=done), state, "bot")

    def _table_file(self, state: State, key: str, name: str | None) -> Answer:
        if key not in {m.key for m in state.tables}:
            return Answer.text(404, f"match {key} is not being played here (its replay: /match/{key})\n")
        if name is None:
            body, policy = self._watch
            return Answer(200, body, policy=policy)
        return Answer(200, (STATIC / name).read_bytes(), f"{TABLE_FILES[name]}; charset=utf-8")

    async def _websocket(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        ours = host_ok(scope, self.url, self.public) and origin_ok(scope, self.url, self.public)
        await self.watching.serve(scope, receive, send, (await self.kept.state()).tables, ours=ours)

    def forget(self) -> None:
        """Forget every page and figure kept, as when the database has changed: the next
        request of each page makes it again (``referee bench ladder-web`` times that)."""
        self._kept = None
        self.kept = Kept(self.kept.look, self.kept.every)
        self.logs = Logs(self.logs.folder)

    def close(self) -> None:
        self.reading.close()
