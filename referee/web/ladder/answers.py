"""What the web view answers, and how it reads a request it does not trust: the response
(with the security headers every page gets), the query checked against the names a page takes
(a bad value named in a 400), the ``Host`` a loopback page must be asked by (or the public
address), the ``Origin`` a WebSocket must come from, and the secrets a request may bring: the
organizer's token, an entrant's key (in the query once, then in a cookie)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from referee.players.pending import address_key
from referee.web.asgi import LOOPBACK_NAMES, same_origin
from referee.web.ladder.published import PublicUrl, host_and_port
from referee.web.link import AsgiSend

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of the ladder's own pages: their script and style files only."""
REPLAY_POLICY = (
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The replay viewer is one self-contained page with inline script and style: it runs
sandboxed (an origin of its own, no cookie, no storage of ours) and may fetch nothing."""
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", b"default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)
"""The headers of every answer of the ladder's server: a page's own (its policy in place of
this one's, which allows nothing), and, through Hypercorn's configuration, each of them that an
answer lacks: Hypercorn's own 400, 431 and 505 get them too (``hypercorn_bounds``)."""
MAX_PATH = 512
MAX_QUERY = 1024
COOKIE = "ladder_token"
"""The organizer's token, once its address was opened."""
KEY_COOKIE = "ladder_key"
"""An entrant's key, once its private link was opened (``referee.ladder.entrants``)."""
SECRETS = ("token", "key")
"""The query's secrets: every page takes them (the first request turns each into a cookie)."""


class BadRequest(Exception):
    """A request refused with ``status`` and a line saying why."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


@dataclass
class Answer:
    status: int
    body: bytes
    kind: str = "text/html; charset=utf-8"
    policy: str = PAGE_POLICY
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    referrer: str = "no-referrer"
    """Its ``Referrer-Policy``: ``same-origin`` for a page with a form that posts (the
    entrant's), since under ``no-referrer`` a browser sends ``Origin: null`` with the form,
    and the upload then cannot be told from another site's."""

    @classmethod
    def text(cls, status: int, text: str) -> Answer:
        return cls(status, text.encode(), "text/plain; charset=utf-8")

    async def send(self, send: AsgiSend, head: bool) -> None:
        headers = [
            (b"content-type", self.kind.encode()),
            (b"content-length", str(len(self.body)).encode()),
            (b"content-security-policy", self.policy.encode()),
            *(item for item in SECURITY_HEADERS[1:] if item[0] != b"referrer-policy"),
            (b"referrer-policy", self.referrer.encode()),
            *self.headers,
        ]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else self.body})


def query(scope: dict[str, Any], takes: tuple[str, ...]) -> dict[str, str]:
    """The request's query, each name at most once and among those the page ``takes``
    (``token`` and ``key`` are always allowed, and left out); else ``BadRequest`` naming what
    is wrong."""
    raw = scope.get("query_string", b"")
    if not isinstance(raw, bytes) or len(raw) > MAX_QUERY:
        raise BadRequest(414, f"the query is longer than {MAX_QUERY} bytes\n")
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=8, strict_parsing=bool(raw))
    except (UnicodeDecodeError, ValueError):
        raise BadRequest(400, "the query is not name=value pairs of UTF-8 text\n") from None
    found: dict[str, str] = {}
    for name, value in pairs:
        if name not in (*takes, *SECRETS):
            allowed = ", ".join(takes) or "nothing"
            raise BadRequest(400, f"unknown query parameter {name[:40]!r} (this page takes: {allowed})\n")
        if name in found:
            raise BadRequest(400, f"query parameter {name!r} given twice\n")
        found[name] = value
    for secret in SECRETS:
        found.pop(secret, None)
    return found


def whole_number(params: dict[str, str], name: str, default: int, top: int = 1_000_000) -> int:
    """A query value that must be a whole number from 1 to ``top``."""
    value = params.get(name, "")
    if not value:
        return default
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= top:
        raise BadRequest(400, f"{name}: {value[:40]!r} is not a whole number from 1 to {top}\n")
    return int(value)


def header(scope: dict[str, Any], name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == name]


def host_ok(scope: dict[str, Any], url: str, public: PublicUrl | None = None) -> bool:
    """Whether a request names this server in its ``Host``. On a loopback address it must
    name that address or ``localhost``, with the port it listens on or none (as a proxy on
    this machine may), or the public address (``--public-url``): a page of another site whose
    name was rebound to 127.0.0.1 (DNS rebinding) carries its own name there, and gets
    nothing. Bound elsewhere, the token guards, and with a public address the ``Host`` must
    name it (or loopback) too."""
    own = urlsplit(url)
    if (own.hostname or "") not in LOOPBACK_NAMES and public is None:
        return True
    hosts = header(scope, b"host")
    if len(hosts) != 1:
        return False
    asked = host_and_port(hosts[0])
    if asked is None:
        return False
    name, port = asked
    if name in LOOPBACK_NAMES and port in (None, own.port):
        return True
    return public is not None and public.named_by(name, port)


def origin_ok(scope: dict[str, Any], url: str, public: PublicUrl | None) -> bool:
    """Whether a WebSocket request comes from one of our own pages (``same_origin``), the
    public address's included."""
    if same_origin(scope, url):
        return True
    origins = header(scope, b"origin")
    return public is not None and len(origins) == 1 and origins[0].rstrip("/").lower() == public.origin


def token_of(scope: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the token of the cookie, the token of the query), each ``None`` when absent."""
    return secret_of(scope, COOKIE, "token")


def key_of(scope: dict[str, Any]) -> tuple[str | None, str | None]:
    """(an entrant's key of the cookie, of the query), each ``None`` when absent."""
    return secret_of(scope, KEY_COOKIE, "key")


def secret_of(scope: dict[str, Any], cookie_name: str, name: str) -> tuple[str | None, str | None]:
    """(the value of the cookie ``cookie_name``, of the query's ``name``), each ``None`` when
    absent (or, in the query, given more than once)."""
    cookie: str | None = None
    for text in header(scope, b"cookie")[:4]:
        try:
            jar = SimpleCookie(text[:4096])
        except CookieError:
            continue
        if cookie_name in jar:
            cookie = jar[cookie_name].value
    raw = scope.get("query_string", b"")
    asked: list[str] = []
    if isinstance(raw, bytes) and len(raw) <= MAX_QUERY:
        try:
            asked = [v for k, v in parse_qsl(raw.decode("latin-1"), max_num_fields=8) if k == name]
        except ValueError:
            asked = []
    return cookie, asked[0] if len(asked) == 1 else None


def remembered(scope: dict[str, Any], cookie_name: str, value: str) -> Answer:
    """The page asked again without its query (a secret leaves the address bar, the history and
    any shared link), the secret kept in a cookie that no script reads and no other site sends
    (``HttpOnly; SameSite=Strict``); ``Secure`` over TLS, here or at a trusted proxy."""
    # one leading slash: "//evil.example/" would send the browser to another site
    where = "/" + str(scope.get("path", "/")).lstrip("/")
    again = Answer(303, b"", headers=[(b"location", quote(where).encode())])
    secure = "; Secure" if scope.get("scheme") == "https" else ""
    again.headers.append((b"set-cookie", f"{cookie_name}={value}; HttpOnly; SameSite=Strict; Path=/{secure}".encode()))
    return again


def forgotten(answer: Answer, cookie_name: str) -> Answer:
    """``answer``, telling the browser to drop the cookie ``cookie_name`` (a key no longer
    good: its next requests come without it)."""
    answer.headers.append((b"set-cookie", f"{cookie_name}=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/".encode()))
    return answer


def client_of(scope: dict[str, Any]) -> str:
    """The address a request is counted under (its slots, its wrong keys): an IPv4 address,
    an IPv6 /64 (``referee.players.pending.address_key``)."""
    return address_key(str((scope.get("client") or ("?", 0))[0]))


def same_token(expected: str, given: str | None) -> bool:
    return given is not None and secrets.compare_digest(expected.encode(), given.encode("utf-8", "surrogatepass"))
