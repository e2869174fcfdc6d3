"""The ladder's pages published, on a real server (Hypercorn, in this trio run) and real
sockets: the address printed with a token file opens the pages again after a restart, on
loopback too; bound to every interface, no printed address is ``0.0.0.0``; and over TLS
(a certificate made by ``openssl req`` for the test) a real TLS client gets the pages with
their security headers, HTTP/2 is never chosen by ALPN, and the token's cookie is ``Secure``.
And ``ladder run --web`` passes its ``--web-*`` options to the pages' process."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio
from click.testing import CliRunner

from referee.cli import main
from referee.web.ladder.answers import SECURITY_HEADERS
from referee.web.ladder.published import Publishing
from referee.web.ladder.server import serve_ladder_web
from referee.web.ladder.token_file import token_from_file
from tests.ladder.helpers import bot_list
from tests.tiers import starts
from tests.web.test_hostile_clients import ask, headers_of


@asynccontextmanager
async def serving(
    db: Path, host: str = "127.0.0.1", port: int = 0, publishing: Publishing | None = None
) -> AsyncIterator[tuple[list[str], int]]:
    """The pages served until the block ends: the addresses printed, and the port."""
    printed: list[str] = []
    async with trio.open_nursery() as nursery:
        address = await nursery.start(lambda task_status: serve_ladder_web(
            db, host, port, publishing=publishing, on_listening=printed.extend, task_status=task_status))  # fmt: skip
        yield printed, int(urlsplit(address).port or 0)
        nursery.cancel_scope.cancel()


def request(port: int, target: str, cookie: str = "") -> bytes:
    extra = f"Cookie: {cookie}\r\n" if cookie else ""
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}Connection: close\r\n\r\n".encode()


async def opened(address: str, port: int) -> str:
    """Open a printed address as a browser does (its token turned into a cookie, then the
    page again); the cookie, once the leaderboard is there."""
    parts = urlsplit(address)
    first = await ask(port, request(port, f"{parts.path}?{parts.query}"))
    assert first.startswith(b"HTTP/1.1 303"), first[:200]
    cookie = headers_of(first)[b"set-cookie"].split(b";")[0].decode()
    page = await ask(port, request(port, headers_of(first)[b"location"].decode(), cookie))
    assert page.startswith(b"HTTP/1.1 200") and b"Leaderboard" in page, page[:200]
    return cookie


async def test_the_address_printed_with_a_token_file_works_after_a_restart(db: Path, tmp_path: Path) -> None:
    kept = tmp_path / "pages.token"
    async with serving(db, publishing=Publishing(token=token_from_file(kept))) as (printed, port):
        assert printed == [f"http://127.0.0.1:{port}/?token={kept.read_text().strip()}"]
        cookie = await opened(printed[0], port)
        refused = await ask(port, request(port, "/"))
        assert refused.startswith(b"HTTP/1.1 403")  # a token file: asked on loopback too
    async with serving(db, port=port, publishing=Publishing(token=token_from_file(kept))) as (again, _):
        assert again == printed  # the link shared before the restart ...
        await opened(again[0], port)  # ... opens the pages
        page = await ask(port, request(port, "/", cookie))
        assert page.startswith(b"HTTP/1.1 200")  # and a browser that had them open keeps them
    async with serving(db) as (plain, port):  # without one: loopback as before, no token
        assert plain == [f"http://127.0.0.1:{port}/"]
        assert (await ask(port, request(port, "/"))).startswith(b"HTTP/1.1 200")


async def test_bound_to_every_interface_no_printed_address_is_0_0_0_0(db: Path) -> None:
    async with serving(db, host="0.0.0.0") as (printed, port):
        assert printed and not any("0.0.0.0" in address for address in printed), printed
        assert printed[-1].startswith(f"http://127.0.0.1:{port}/?token=")
        await opened(printed[-1], port)


@pytest.fixture(scope="module")
@starts("process")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (``openssl req``)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)  # fmt: skip
    return cert, key


async def tls_ask(port: int, cert: Path, data: bytes, alpn: list[str]) -> tuple[str | None, bytes]:
    """``data`` sent over TLS (the certificate verified), offering ``alpn``: the protocol the
    server chose, and its whole answer."""
    context = ssl.create_default_context(cafile=str(cert))
    context.set_alpn_protocols(alpn)
    tcp = await trio.open_tcp_stream("127.0.0.1", port)
    stream = trio.SSLStream(tcp, context, server_hostname="127.0.0.1", https_compatible=True)
    async with stream:
        await stream.do_handshake()
        chosen = stream.selected_alpn_protocol()
        await stream.send_all(data)
        answer = b""
        with trio.fail_after(30):  # a hang guard, not a measure
            while chunk := await stream.receive_some(65536):
                answer += chunk
    return chosen, answer


async def test_over_tls_a_client_gets_the_pages_in_http1(db: Path, certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    token = "kept-0123456789abcdef"
    published = Publishing(token=token, certfile=cert, keyfile=key)
    async with serving(db, publishing=published) as (printed, port):
        assert printed == [f"https://127.0.0.1:{port}/?token={token}"]
        chosen, answer = await tls_ask(port, cert, request(port, f"/?token={token}"), ["h2", "http/1.1"])
        assert chosen == "http/1.1"  # a browser offering h2 first still gets HTTP/1.1
        assert answer.startswith(b"HTTP/1.1 303")
        assert headers_of(answer)[b"set-cookie"].endswith(b"; Secure")  # only ever sent back over TLS
        cookie = f"ladder_token={token}"
        _, page = await tls_ask(port, cert, request(port, "/", cookie), ["http/1.1"])
        found = headers_of(page)
        assert page.startswith(b"HTTP/1.1 200") and b"Leaderboard" in page
        for name, value in SECURITY_HEADERS[1:]:
            assert found[name] == value, name
        assert found[b"content-security-policy"].startswith(b"default-src 'none'; script-src 'self'")
        chosen, answer = await tls_ask(port, cert, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", ["h2"])  # h2 alone
        assert chosen is None and answer.startswith(b"HTTP/1.1 505")  # no h2: its preface refused


@pytest.mark.process
def test_ladder_run_passes_its_publishing_to_the_pages(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    kept = tmp_path / "pages.token"
    run = ["ladder", "run", str(config), "--db", str(tmp_path / "l.db"), "--sandbox", "off", "--games", "3",
           "--quiet", "--web", "--web-token-file", str(kept), "--web-public-url", "https://ladder.example.org",
           "--web-trusted-proxy", "127.0.0.1"]  # fmt: skip
    result = CliRunner().invoke(main, run)
    assert result.exit_code == 0, result.output
    assert f"ladder pages: open https://ladder.example.org/?token={kept.read_text().strip()}\n" in result.output
