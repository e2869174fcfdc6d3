"""The pages behind a reverse proxy (``--trusted-proxy ADDRESS``): what the proxy says of a
request is believed when, and only when, the request comes from the proxy.

Behind a proxy, every request comes from the proxy's address: one visitor's flood would take
the slots of all (``budget.AnswerSlots`` counts 8 per address), and the ``Host`` is whatever the
proxy sends. A proxy says who asked, how and by which name in ``X-Forwarded-For``,
``X-Forwarded-Proto`` and ``X-Forwarded-Host``; but any client can send those headers too, so
they are believed only from a peer among the configured proxies' addresses, and are removed
from every other request (nothing after this reads them).

Not Hypercorn's ``ProxyFixMiddleware``: it believes the headers from whichever peer connects
(a client reaching the port directly would name any address it liked, and escape its limit),
trusting a number of hops rather than addresses.

``X-Forwarded-For`` is read from its end: each proxy appends the address it was asked from, so
the last address that is not one of the trusted proxies is the client's (an address the client
wrote itself comes before it, and is never used). The proxy's own is kept when that entry is
not an address. The scheme and host are the last values: the nearest proxy's."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Any

from referee.web.link import AsgiReceive, AsgiSend

Network = IPv4Network | IPv6Network
FORWARDED = (b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host")
SCHEMES = {"http": {"http": "http", "https": "https"}, "websocket": {"http": "ws", "https": "wss"}}
"""The scope's scheme for each kind of request, by the scheme the proxy was asked with."""


def trusted_proxy(text: str) -> Network:
    """``--trusted-proxy``'s value: an address (``127.0.0.1``) or a network (``10.0.0.0/8``);
    ``ValueError`` saying what is wrong."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address or network (such as 127.0.0.1 or 10.0.0.0/8)") from None


class Forwarded:
    """An ASGI application in front of ``app`` that takes a request from one of ``proxies`` as
    the proxy says it was made (the module's docstring)."""

    def __init__(self, app: Any, proxies: Sequence[Network]) -> None:
        self.app = app
        self.proxies = tuple(proxies)

    async def __call__(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        if scope.get("type") in SCHEMES:
            scope = self.seen(scope)
        await self.app(scope, receive, send)

    def seen(self, scope: dict[str, Any]) -> dict[str, Any]:
        """The scope as the application sees it: the proxy's word taken from a trusted peer,
        the ``X-Forwarded-*`` headers removed either way."""
        headers = list(scope.get("headers", []))
        said: dict[bytes, list[str]] = {name: [] for name in FORWARDED}
        for name, value in headers:
            if name.lower() in said:
                said[name.lower()] += [part.strip() for part in value.decode("latin-1").split(",")]
        seen = {**scope, "headers": [(name, value) for name, value in headers if name.lower() not in said]}
        peer = (scope.get("client") or ("", 0))[0]
        if not self.trusted(_address(str(peer))):
            return seen
        client = self._client(said[b"x-forwarded-for"])
        if client is not None:
            seen["client"] = (client, 0)
        proto = said[b"x-forwarded-proto"][-1:]
        scheme = SCHEMES[scope["type"]].get(proto[0].lower()) if proto else None
        if scheme is not None:
            seen["scheme"] = scheme
        host = said[b"x-forwarded-host"][-1:]
        if host and host[0]:
            others = [(name, value) for name, value in seen["headers"] if name.lower() != b"host"]
            seen["headers"] = [*others, (b"host", host[0].encode("latin-1"))]
        return seen

    def trusted(self, address: IPv4Address | IPv6Address | None) -> bool:
        return address is not None and any(address in network for network in self.proxies)

    def _client(self, chain: list[str]) -> str | None:
        """The client's address in an ``X-Forwarded-For`` chain: the last one not a trusted
        proxy's (the first when all are); ``None`` when there is none or it is no address."""
        for place in range(len(chain) - 1, -1, -1):
            address = _address(chain[place])
            if address is None:
                return None
            if place == 0 or not self.trusted(address):
                return str(address)
        return None


def _address(text: str) -> IPv4Address | IPv6Address | None:
    """The IP address in ``text`` (``1.2.3.4``, ``1.2.3.4:5678``, ``[2001:db8::1]:80``, an
    IPv4 address mapped into IPv6 as the IPv4 one); ``None`` when it holds none."""
    host = text.strip()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
