"""Where each page of a static copy of the ladder lives (``referee ladder export``), and its
links made relative to the page that holds them.

The live pages link from the root of their server (``/bot/NAME``, ``/matches?bot=NAME&page=2``,
``/match/KEY``). A copy is opened from plain files (``file://``) or from any static host under
any path prefix, where neither a root nor a query string means anything: every link becomes a
path relative to its page, to a file of the copy. The live renderers are used as they are and
their links rewritten here, so the live pages never change for the copy's sake.

Bot names are hostile (``..``, ``/``, any Unicode, markup): a bot's files are named by a slug of
its name's ASCII letters and digits (for a reader) and a hash of the whole name (for
uniqueness), so a file name is only ever ``[A-Za-z0-9-]`` and never a path segment of the
name's choosing. A link to a step of a replay (``/match/KEY#round=2&step=7``) keeps its step.
A link to a page the copy does not hold (a match whose replay was not written, a bot with no
page) is left as its text; a form (the match list's filter) is dropped,
since no server answers it; a link of any other kind is an error, never a broken link."""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from markupsafe import escape

from referee.errors import LadderError
from referee.web.ladder.queries import KEY

INDEX = "index.html"
STYLE = "ladder.css"
SLUG_CHARS = 32
"""The readable part of a bot's file name, at most (the hash makes it unique)."""
HASH_CHARS = 12
"""Hex digits of the SHA-256 of the name: 48 bits, and a collision is refused, not overwritten."""
_ANCHOR = re.compile(r"<a\b([^>]*)>(.*?)</a>", re.S)
_FORM = re.compile(r"<form\b.*?</form>", re.S)
_OTHER_TAG = re.compile(r"<(?!a\b)[A-Za-z][^>]*>")
"""A tag other than an anchor (``link``, ``script``, ``img``): its links must be in the copy."""
_LINK = re.compile(r'\b(href|src|action)="([^"]*)"')
_HREF = re.compile(r'\bhref="([^"]*)"')
_STEP = re.compile(r"(round=[0-9]{1,5}&)?step=[0-9]{1,7}")
"""The one fragment a live page links with: a step of a replay (``losses``)."""
_INERT = ("data:", "#")
"""Link values that name no file: kept as they are."""


def stem(name: str) -> str:
    """A bot's part of its files' names: ``[A-Za-z0-9-]`` only, whatever the name."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-")[:SLUG_CHARS].strip("-") or "bot"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    return f"{slug}-{digest}"


def bot_file(name: str) -> str:
    return f"bot/{stem(name)}.html"


def matches_file(bot: str | None, page: int) -> str:
    """A page of the match list: of every match (``bot`` ``None``) or of one bot's."""
    return f"matches/{page}.html" if bot is None else f"matches/{stem(bot)}/{page}.html"


def replay_file(key: str) -> str:
    if KEY.fullmatch(key) is None:
        raise LadderError(f"not a match key: {key[:40]!r}")
    return f"match/{key}.html"


@dataclass
class Site:
    """What the copy holds: the bots with a page, the match lists and their page counts (by bot,
    ``None`` for every match), the matches with a replay. Knows where each live link goes."""

    bots: set[str] = field(default_factory=set)
    lists: dict[str | None, int] = field(default_factory=dict)
    replays: set[str] = field(default_factory=set)
    _stems: dict[str, str] = field(default_factory=dict)
    _targets: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for bot in self.lists:
            if bot is not None:
                self._claim(bot)

    def add_bot(self, name: str) -> None:
        """A bot whose page is in the copy."""
        self._claim(name)
        self.bots.add(name)
        self._targets.clear()

    def add_replay(self, key: str) -> None:
        """A match whose replay page is in the copy."""
        replay_file(key)  # a key, never a path
        self.replays.add(key)
        self._targets.clear()

    def _claim(self, name: str) -> None:
        """Two names with one stem are refused (a 48-bit hash: never seen, but one bot's page
        must never overwrite another's)."""
        found = self._stems.setdefault(stem(name), name)
        if found != name:
            raise LadderError(f"bots {found!r} and {name!r} would share the files {stem(name)}: rename one")

    def target(self, link: str) -> str | None:
        """The copy's file (relative to its root) for a live link, or ``None`` when the copy
        does not hold that page. A link the copy does not know is an error."""
        parts = urlsplit(link)
        path, query = parts.path, parse_qs(parts.query, keep_blank_values=True)
        if parts.scheme or parts.netloc:
            raise LadderError(f"a page links {link[:80]!r}, which the static copy cannot hold")
        if parts.fragment:  # a step of a replay (``#round=2&step=7``): kept with the replay's file
            if not (path.startswith("/match/") and not query and _STEP.fullmatch(parts.fragment)):
                raise LadderError(f"a page links {link[:80]!r}, which the static copy cannot hold")
            found = self.target(path)
            return None if found is None else f"{found}#{parts.fragment}"
        if path == "/" and not query:
            return INDEX
        if path == "/" + STYLE and not query:
            return STYLE
        if path.startswith("/bot/") and not query:
            name = unquote(path.removeprefix("/bot/"))
            return bot_file(name) if name in self.bots else None
        if path.startswith("/match/") and not query:
            key = path.removeprefix("/match/")
            return replay_file(key) if key in self.replays else None
        if path == "/matches" and set(query) <= {"bot", "page"}:
            bot = query.get("bot", [""])[0] or None
            page = query.get("page", ["1"])[0]
            number = int(page) if re.fullmatch("[0-9]{1,7}", page) else 0  # ASCII digits: int() reads any script's
            return matches_file(bot, number) if 1 <= number <= self.lists.get(bot, 0) else None
        raise LadderError(f"a page links {link[:80]!r}, which the static copy does not know")

    def relink(self, page: str, at: str) -> str:
        """``page`` (HTML the live renderers made) as the file ``at`` of the copy holds it:
        every link relative to ``at`` (up to the copy's root, then down to the file), a link to
        a page not in the copy left as its text, forms dropped. Only the value of a link is
        replaced (escaped for its attribute); the rest of each tag is the template's, as it was."""
        up = "../" * at.count("/")

        def relative(link: str) -> str | None:
            if link not in self._targets:  # a page links the same bots again and again
                self._targets[link] = self.target(html.unescape(link))
            found = self._targets[link]
            return None if found is None else str(escape(up + found))

        def anchor(found: re.Match[str]) -> str:
            href = _HREF.search(found.group(1))
            if href is None or href.group(1).startswith(_INERT):
                return found.group(0)
            link = relative(href.group(1))
            if link is None:
                return found.group(2)
            return _spliced(found, found.start(1) + href.start(1), found.start(1) + href.end(1), link)

        def attribute(found: re.Match[str]) -> str:
            if found.group(2).startswith(_INERT):
                return found.group(0)
            link = relative(found.group(2))
            if link is None:
                raise LadderError(f"{at}: a {found.group(1)} names {found.group(2)[:80]!r}, not in the copy")
            return _spliced(found, found.start(2), found.end(2), link)

        page = _ANCHOR.sub(anchor, _FORM.sub("", page))
        return _OTHER_TAG.sub(lambda tag: _LINK.sub(attribute, tag.group(0)), page)


def _spliced(found: re.Match[str], start: int, end: int, value: str) -> str:
    """What ``found`` matched, with its part from ``start`` to ``end`` (positions in the
    string searched) replaced by ``value``."""
    whole, base = found.group(0), found.start(0)
    return whole[: start - base] + value + whole[end - base :]
