"""``same_origin``: the WebSocket's ``Origin`` check, on the scopes Hypercorn hands over."""

from __future__ import annotations

from typing import Any

from referee.web.asgi import same_origin


def scope(origin: str | None, host: str = "127.0.0.1:8000") -> dict[str, Any]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"headers": headers}


def test_on_loopback_only_the_servers_own_origin_passes() -> None:
    url = "http://127.0.0.1:8000"
    assert same_origin(scope("http://127.0.0.1:8000"), url)
    assert same_origin(scope("http://localhost:8000"), url)
    assert same_origin(scope(None), url)  # not a browser
    for other in ("http://evil.example:8000", "http://127.0.0.1:8001", "null", "https://127.0.0.1:8000"):
        assert not same_origin(scope(other), url), other
    # a name rebound to 127.0.0.1 by DNS: the Host header says evil, and still nothing passes
    assert not same_origin(scope("http://evil.example:8000", host="evil.example:8000"), url)
    twice = {"headers": [(b"origin", b"http://127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")]}
    assert not same_origin(twice, url)


def test_bound_to_the_network_the_name_the_page_was_opened_by_passes() -> None:
    url = "http://0.0.0.0:8000"
    assert same_origin(scope("http://192.168.1.20:8000", host="192.168.1.20:8000"), url)
    assert same_origin(scope("http://table.local:8000", host="table.local:8000"), url)
    assert not same_origin(scope("http://evil.example", host="table.local:8000"), url)
