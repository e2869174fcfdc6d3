"""The ladder's pages behind a reverse proxy (``--trusted-proxy``), asked in-process through
``Forwarded`` in front of the pages' application: ``X-Forwarded-*`` is believed from a trusted
proxy's address only, the client it names is the one whose requests are limited, an address a
client wrote itself is never taken, and the public name the proxy passes is accepted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.web.ladder.budget import MAX_OPEN_PER_CLIENT
from referee.web.ladder.forwarded import Forwarded, trusted_proxy
from referee.web.ladder.published import public_url
from tests.web.ladder_helpers import View, answer_of, hostile_ladder

PROXIES = [trusted_proxy("127.0.0.1"), trusted_proxy("10.0.0.0/8")]
TOKEN = "kept-0123456789abcdef"


@pytest.fixture
def view(tmp_path: Path) -> Iterator[View]:
    found = View(hostile_ladder(tmp_path))
    yield found
    found.close()


def scope(peer: str, *headers: tuple[str, str], kind: str = "http") -> dict[str, Any]:
    """A request's scope from ``peer``, with ``Host: 127.0.0.1:8000`` and ``headers``."""
    return {"type": kind, "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"", "scheme": "http",
            "client": (peer, 40000), "headers": [(b"host", b"127.0.0.1:8000"),
                                                 *((k.encode(), v.encode()) for k, v in headers)]}  # fmt: skip


async def ask(app: Any, request: dict[str, Any]) -> tuple[int, dict[bytes, bytes]]:
    status, headers, _ = await answer_of(app, request)
    return status, headers


def test_the_proxy_is_believed_only_from_its_own_address() -> None:
    forwarded = Forwarded(None, PROXIES)
    said = (
        ("X-Forwarded-For", "198.51.100.7"),
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "ladder.example.org"),
    )
    seen = forwarded.seen(scope("127.0.0.1", *said))
    assert seen["client"] == ("198.51.100.7", 0) and seen["scheme"] == "https"
    assert seen["headers"] == [(b"host", b"ladder.example.org")]  # its Host replaced, the X- headers gone
    assert forwarded.seen(scope("::ffff:10.1.2.3", *said))["client"] == ("198.51.100.7", 0)  # IPv4 in IPv6
    assert forwarded.seen(scope("127.0.0.1", *said, kind="websocket"))["scheme"] == "wss"
    for stranger in ("198.51.100.9", "127.0.0.2", "11.0.0.1", "::1"):
        seen = forwarded.seen(scope(stranger, *said))  # a client that speaks as a proxy
        assert seen["client"] == (stranger, 40000) and seen["scheme"] == "http", stranger
        assert seen["headers"] == [(b"host", b"127.0.0.1:8000")], stranger  # nothing after this reads them


def test_the_client_is_the_last_address_no_trusted_proxy_wrote() -> None:
    forwarded = Forwarded(None, PROXIES)
    chains = {
        "198.51.100.7": "198.51.100.7",
        "203.0.113.50, 198.51.100.7": "198.51.100.7",  # the first was written by the client itself
        "198.51.100.7, 10.1.2.3": "198.51.100.7",  # through two trusted proxies
        "198.51.100.7:5123": "198.51.100.7",
        "[2001:db8::7]:443": "2001:db8::7",
        "10.1.2.3, 10.4.5.6": "10.1.2.3",  # every one a proxy: the first
    }
    for chain, client in chains.items():
        assert forwarded.seen(scope("127.0.0.1", ("X-Forwarded-For", chain)))["client"] == (client, 0), chain
    two_headers = scope("127.0.0.1", ("X-Forwarded-For", "203.0.113.50"), ("X-Forwarded-For", "198.51.100.7"))
    assert forwarded.seen(two_headers)["client"] == ("198.51.100.7", 0)
    for garbage in ("unknown", "", "198.51.100.7, _hidden", "1.2.3"):
        seen = forwarded.seen(scope("127.0.0.1", ("X-Forwarded-For", garbage)))
        assert seen["client"] == ("127.0.0.1", 40000), garbage  # not an address: the proxy's own is counted
    assert forwarded.seen(scope("127.0.0.1", ("X-Forwarded-Proto", "gopher")))["scheme"] == "http"


def test_a_trusted_proxy_is_an_address_or_a_network() -> None:
    assert str(trusted_proxy("::1")) == "::1/128" and str(trusted_proxy("10.1.2.3/8")) == "10.0.0.0/8"
    for bad in ("proxy.lan", "10.0.0.0/33", ""):
        with pytest.raises(ValueError, match="is not an IP address or network"):
            trusted_proxy(bad)


async def test_behind_a_proxy_the_limit_counts_each_client(view: View) -> None:
    """Every request comes from the proxy: without ``--trusted-proxy`` one visitor's flood
    would take the slots of all; with it, each client is counted, and a client that sends
    ``X-Forwarded-For`` itself is counted as what it is."""
    app = Forwarded(view.app, PROXIES)
    view.app.kept.put = lambda key, answer: None  # nothing kept: every answer is made, in a slot
    for _ in range(MAX_OPEN_PER_CLIENT):
        assert view.app.slots.take("203.0.113.9")
    assert (await ask(app, scope("127.0.0.1", ("X-Forwarded-For", "203.0.113.9"))))[0] == 503
    assert (await ask(app, scope("127.0.0.1", ("X-Forwarded-For", "198.51.100.7"))))[0] == 200
    assert (await ask(app, scope("127.0.0.1", ("X-Forwarded-For", "198.51.100.7, 203.0.113.9"))))[0] == 503
    assert (await ask(app, scope("203.0.113.9", ("X-Forwarded-For", "198.51.100.7"))))[0] == 503  # not a proxy
    assert view.app.slots.by_client == {"203.0.113.9": MAX_OPEN_PER_CLIENT}  # each answered one gave its slot back


async def test_behind_a_proxy_the_public_name_is_ours_and_https_makes_the_cookie_secure(view: View) -> None:
    view.app.public = public_url("https://ladder.example.org/")
    view.app.token = TOKEN
    app = Forwarded(view.app, PROXIES)
    query = {"query_string": f"token={TOKEN}".encode()}
    status, headers = await ask(app, {**scope("127.0.0.1", ("X-Forwarded-Host", "ladder.example.org"),
                                              ("X-Forwarded-Proto", "https")), **query})  # fmt: skip
    assert status == 303 and headers[b"set-cookie"].endswith(b"; Secure")
    status, headers = await ask(app, {**scope("127.0.0.1"), **query})  # asked in plain HTTP: no Secure
    assert status == 303 and b"Secure" not in headers[b"set-cookie"]
    rebinding = scope("198.51.100.7", ("X-Forwarded-Host", "ladder.example.org"))
    rebinding["headers"][0] = (b"host", b"evil.example")
    assert (await ask(app, {**rebinding, **query}))[0] == 421  # not believed from a stranger
