"""Where the ladder's pages are opened from: the address printed for people to open, and the
names a request may give in its ``Host``.

An organizer publishes the pages on a network address (``--host 0.0.0.0``), with a
certificate of their own (``--certfile``, ``--keyfile``), or behind a reverse proxy; in each
case the address a visitor opens is not the one the server is bound to. ``--public-url``
says it: every printed address is made from it, and a request naming it in its ``Host`` is
this server's own. Without it, an address bound to every interface (``0.0.0.0``, ``::``) is
never printed as such (no visitor can open it): this machine's addresses are, as found
cheaply, and its loopback one."""

from __future__ import annotations

import contextlib
import re
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path
from urllib.parse import urlsplit

from referee.network import show_address

DEFAULT_PORTS = {"http": 80, "https": 443}
EVERY_INTERFACE = {"0.0.0.0": socket.AF_INET, "::": socket.AF_INET6}
"""The addresses that bind every interface of their family, and so name no machine."""
UNKNOWN_ADDRESS = "<this machine's address>"
"""Printed in place of an address when none of this machine's could be found."""
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")
"""A ``Host`` header's value: a name or an address (an IPv6 one in brackets), perhaps a port;
nothing else (no path, no user, no space)."""
_PROBES = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}
"""Documentation addresses (RFC 5737, RFC 3849): a UDP socket "connected" to one learns which
of this machine's addresses would reach it, with no packet sent and no name looked up."""


@dataclass(frozen=True)
class PublicUrl:
    """The address visitors open (``--public-url``): ``scheme://host[:port]/``."""

    scheme: str
    host: str
    """Its host, in lower case, an IPv6 address without brackets."""
    port: int
    """Its port, the scheme's own when the address names none."""

    @property
    def origin(self) -> str:
        """As a browser writes it in ``Origin``: the port only when it is not the scheme's."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{host}{port}"

    def named_by(self, host: str, port: int | None) -> bool:
        """Whether a ``Host`` of ``host`` (lower case) and ``port`` (``None``: the scheme's)
        names this address."""
        return host == self.host and (DEFAULT_PORTS[self.scheme] if port is None else port) == self.port


def public_url(text: str) -> PublicUrl:
    """``--public-url``'s value, checked; ``ValueError`` saying what is wrong."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as err:
        raise ValueError(f"{text!r} is not an address ({err})") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{text!r}: an address of the pages starts with http:// or https://")
    if "@" in parts.netloc:
        raise ValueError(f"{text!r}: a user or password has no place in the pages' address")
    if not parts.hostname or not _HOST.fullmatch(parts.netloc):
        raise ValueError(f"{text!r} names no host")
    if parts.query or parts.fragment or text.strip().endswith(("?", "#")):
        raise ValueError(f"{text!r}: the pages' address has no query or fragment (the token is added to it)")
    if parts.path not in ("", "/"):
        raise ValueError(
            f"{text!r}: a path prefix ({parts.path}) is not supported: the pages link from the root of their "
            "host, so publish them at a host's root (a name of their own, such as ladder.example.org)"
        )
    return PublicUrl(scheme, parts.hostname.lower(), DEFAULT_PORTS[scheme] if port is None else port)


def host_and_port(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (lower case, an IPv6 address without brackets) and port
    (``None``: none given); ``None`` when it is not ``host[:port]``."""
    found = _HOST.fullmatch(value)
    if found is None:
        return None
    port = int(found.group(2)) if found.group(2) else None
    if port is not None and not 0 < port < 65536:
        return None
    return found.group(1).strip("[]").lower(), port


@dataclass(frozen=True, kw_only=True)
class Publishing:
    """How the pages are published, beyond the address they are bound to (docs/ladder.md,
    "Published safely")."""

    token: str | None = None
    """A token kept in a file (``--token-file``): asked of every request, on loopback too."""
    public: PublicUrl | None = None
    certfile: Path | None = None
    keyfile: Path | None = None
    proxies: tuple[IPv4Network | IPv6Network, ...] = ()
    """The reverse proxies whose ``X-Forwarded-*`` headers are believed
    (``referee.web.ladder.forwarded``)."""
    public_view: bool = False
    """``--public``: whoever brings no secret sees the public view (no token asked of them);
    the token's address still shows everything (``referee.web.ladder.viewer``)."""


def printed_addresses(
    url: str,
    token: str | None,
    public: PublicUrl | None,
    found: Callable[[socket.AddressFamily], list[str]] | None = None,
) -> list[str]:
    """The addresses to print for the server listening at ``url`` (``scheme://host:port``),
    each with the token in its query when there is one: the public one alone when there is
    one; for an address of every interface, this machine's (``found``: by family; default
    ``machine_addresses``) and then its loopback one; else ``url`` itself."""
    query = f"?token={token}" if token else ""
    if public is not None:
        return [f"{public.origin}/{query}"]
    own = urlsplit(url)
    family = EVERY_INTERFACE.get(own.hostname or "")
    if family is None:
        return [f"{url}/{query}"]
    look = found or machine_addresses
    families = [socket.AF_INET6, socket.AF_INET] if family == socket.AF_INET6 else [socket.AF_INET]
    hosts = [host for each in families for host in look(each)] or [UNKNOWN_ADDRESS]
    hosts.append("::1" if family == socket.AF_INET6 else "127.0.0.1")
    return [f"{own.scheme}://{show_address(host, own.port or 0)}/{query}" for host in hosts]


def machine_addresses(family: socket.AddressFamily) -> list[str]:
    """This machine's address of ``family`` that reaches other machines (the one of its
    default route), found without a packet sent or a name looked up (``_PROBES``); none when
    it has no route of that family. Other interfaces are not listed: ``--public-url`` names
    the one to give out."""
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
        probe.connect((_PROBES[family], 9))
        address = str(probe.getsockname()[0]).split("%")[0]
        if not address.startswith(("127.", "::1", "fe80:")) and address not in ("0.0.0.0", "::"):
            return [address]
    return []


def check_certificate(certfile: Path, keyfile: Path) -> None:
    """``ValueError`` saying why the certificate and its key cannot serve TLS, loaded as
    Hypercorn will load them; nothing when they can."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certfile=certfile, keyfile=keyfile)
    except ssl.SSLError as err:
        reason = err.reason or err
        raise ValueError(f"{certfile} with {keyfile}: not a certificate and its private key ({reason})") from None
    except OSError as err:
        raise ValueError(f"{certfile} with {keyfile}: cannot be read ({err.strerror or err})") from None
