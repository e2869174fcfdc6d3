"""The ladder's pages published safely (issue 42, part 4), asked in-process: the token kept in
a file (made private, refused by name when it is no secret), the public address checked and
used for every printed address, no address of every interface ever printed, the ``Host`` a
loopback server accepts (``localhost`` and its addresses, with or without the port; no other
name), and the ``Origin`` of a WebSocket from the public address."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.web.ladder.answers import origin_ok
from referee.web.ladder.published import PublicUrl, printed_addresses, public_url
from referee.web.ladder.token_file import MAX_TOKEN_BYTES, TokenFileError, token_from_file
from tests.ladder.helpers import bot_list
from tests.web.ladder_helpers import View

TOKEN = "kept-0123456789abcdef"


def test_a_missing_token_file_is_made_private_and_read_again(tmp_path: Path) -> None:
    path = tmp_path / "pages.token"
    token = token_from_file(path)
    assert len(token) >= 16 and path.read_text() == f"{token}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token_from_file(path) == token  # the next start reads the same one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pages.token"]  # no draft left beside it
    path.write_text(f"  {TOKEN}\n\n")
    assert token_from_file(path) == TOKEN  # the organizer's own, spaces around it dropped


def _file(path: Path, data: bytes, mode: int = 0o600) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


def test_a_token_file_that_is_no_secret_is_refused_by_name(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)  # opened without blocking, or this test would hang
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "sock"))
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    cases = {
        tmp_path: "is a directory",
        fifo: "is a FIFO",
        tmp_path / "sock": "is a socket",
        tmp_path / "zero": "is a character device",
        _file(tmp_path / "group", TOKEN.encode(), 0o640): "its group or others may read or write it (mode 0640)",
        _file(tmp_path / "world", TOKEN.encode(), 0o604): "chmod 600",
        _file(tmp_path / "empty", b""): "is empty",
        _file(tmp_path / "blank", b" \n\n"): "is empty",
        _file(tmp_path / "big", b"a" * (MAX_TOKEN_BYTES + 1)): f"is {MAX_TOKEN_BYTES + 1} bytes",
        _file(tmp_path / "short", b"abc123\n"): "a token of 6 characters; at least 16",
        _file(tmp_path / "two", f"{TOKEN} {TOKEN}".encode()): "is not one token",
        _file(tmp_path / "bytes", TOKEN.encode() + b"\xff"): "is not one token",
        _file(tmp_path / "cookie", f"{TOKEN};x=1".encode()): "is not one token",
        tmp_path / "nowhere" / "pages.token": "none can be made there",
        tmp_path / "dangling": "a symbolic link to nothing",
    }
    try:
        for path, reason in cases.items():
            with pytest.raises(TokenFileError) as refused:
                token_from_file(path)
            assert str(refused.value).startswith(f"{path}: ") and reason in str(refused.value), (path, refused.value)
    finally:
        listening.close()
    assert (tmp_path / "group").read_bytes() == TOKEN.encode()  # only ever read


def test_a_public_url_is_checked() -> None:
    good = {
        "https://Ladder.Example.org/": ("https", "ladder.example.org", 443, "https://ladder.example.org"),
        "http://192.168.1.5:8080": ("http", "192.168.1.5", 8080, "http://192.168.1.5:8080"),
        "https://ladder.example.org:443/": ("https", "ladder.example.org", 443, "https://ladder.example.org"),
        "http://[2001:db8::5]:8000/": ("http", "2001:db8::5", 8000, "http://[2001:db8::5]:8000"),
    }
    for text, (scheme, host, port, origin) in good.items():
        found = public_url(text)
        assert (found.scheme, found.host, found.port, found.origin) == (scheme, host, port, origin), text
    bad = {
        "ladder.example.org": "starts with http:// or https://",
        "ftp://ladder.example.org/": "starts with http:// or https://",
        "https:///": "names no host",
        "https://ladder.example.org:99999/": "is not an address",
        "https://bad_name!.org/": "names no host",
        "https://user:pw@ladder.example.org/": "a user or password",
        "https://ladder.example.org/?token=x": "no query or fragment",
        "https://ladder.example.org/#top": "no query or fragment",
        "https://ladder.example.org/?": "no query or fragment",
        "https://example.org/ladder/": "a path prefix (/ladder/) is not supported",
    }
    for text, reason in bad.items():
        with pytest.raises(ValueError) as refused:
            public_url(text)
        assert reason in str(refused.value), (text, refused.value)


async def _status(view: View, *hosts: str) -> int:
    return (await view.ask("/", headers=[(b"host", host.encode()) for host in hosts]))[0]


async def test_on_loopback_localhost_and_its_addresses_are_accepted_with_or_without_the_port(view: View) -> None:
    for host in ("127.0.0.1:8000", "127.0.0.1", "localhost", "localhost:8000", "LocalHost", "[::1]", "[::1]:8000"):
        assert await _status(view, host) == 200, host
    for host in ("rebound.example:8000", "rebound.example", "localhost:8001", "127.0.0.1:80", "localhost.",
                 "127.0.0.2:8000", "127.0.0.1:8000/x", "user@127.0.0.1:8000", "127.0.0.1:", "[::1", "",
                 "ladder.example.org"):  # fmt: skip
        assert await _status(view, host) == 421, host
    assert await _status(view) == 421  # no Host
    assert await _status(view, "localhost", "localhost") == 421  # two


async def test_the_public_address_is_accepted_in_host_and_no_other_name(db: Path) -> None:
    """Behind a proxy that passes its own ``Host``: the public name is this server's, on
    loopback as bound to every interface; any other name is still refused."""
    for bound in ("http://127.0.0.1:8000", "http://0.0.0.0:8000"):
        view = View(db, token=TOKEN)
        view.app.url = bound
        view.app.public = public_url("https://ladder.example.org/")
        cookie = (b"cookie", f"ladder_token={TOKEN}".encode())
        try:
            for host in ("ladder.example.org", "ladder.example.org:443", "LADDER.example.org", "localhost:8000"):
                assert (await view.ask("/", headers=[(b"host", host.encode()), cookie]))[0] == 200, (bound, host)
            for host in ("ladder.example.org:8443", "www.ladder.example.org", "192.168.1.5:8000", "evil.example"):
                assert (await view.ask("/", headers=[(b"host", host.encode()), cookie]))[0] == 421, (bound, host)
        finally:
            view.close()


async def test_bound_to_every_interface_without_a_public_address_the_token_guards(db: Path) -> None:
    view = View(db, token=TOKEN)
    view.app.url = "http://0.0.0.0:8000"
    try:
        for host in ("192.168.1.5:8000", "ladder.lan:8000"):  # whatever name reaches this machine, as before
            headers = [(b"host", host.encode()), (b"cookie", f"ladder_token={TOKEN}".encode())]
            assert (await view.ask("/", headers=headers))[0] == 200
            assert (await view.ask("/", headers=headers[:1]))[0] == 403
    finally:
        view.close()


def test_a_websocket_may_come_from_the_public_address() -> None:
    public = public_url("https://ladder.example.org/")

    def scope(origin: str) -> dict[str, object]:
        return {"headers": [(b"origin", origin.encode())]}

    assert origin_ok(scope("https://ladder.example.org"), "http://127.0.0.1:8000", public)
    assert origin_ok(scope("http://localhost:8000"), "http://127.0.0.1:8000", public)  # its own, as before
    for other in ("http://ladder.example.org", "https://ladder.example.org:8443", "https://evil.example"):
        assert not origin_ok(scope(other), "http://127.0.0.1:8000", public), other
    assert not origin_ok(scope("https://ladder.example.org"), "http://127.0.0.1:8000", None)


def test_an_address_of_every_interface_is_never_printed() -> None:
    def found(family: socket.AddressFamily) -> list[str]:
        return {socket.AF_INET: ["192.168.1.5"], socket.AF_INET6: ["2001:db8::5"]}[family]

    assert printed_addresses("http://0.0.0.0:8000", "tok", None, found) == [
        "http://192.168.1.5:8000/?token=tok",
        "http://127.0.0.1:8000/?token=tok",
    ]
    assert printed_addresses("https://[::]:8000", "tok", None, found) == [
        "https://[2001:db8::5]:8000/?token=tok",
        "https://192.168.1.5:8000/?token=tok",
        "https://[::1]:8000/?token=tok",
    ]
    assert printed_addresses("http://0.0.0.0:8000", "tok", None, lambda family: []) == [
        "http://<this machine's address>:8000/?token=tok",
        "http://127.0.0.1:8000/?token=tok",
    ]
    public = PublicUrl("https", "ladder.example.org", 443)
    assert printed_addresses("http://0.0.0.0:8000", "tok", public, found) == ["https://ladder.example.org/?token=tok"]
    assert printed_addresses("http://127.0.0.1:8000", None, public) == ["https://ladder.example.org/"]
    assert printed_addresses("http://127.0.0.1:8000", None, None) == ["http://127.0.0.1:8000/"]  # as before
    assert printed_addresses("http://192.168.1.5:8000", "tok", None) == ["http://192.168.1.5:8000/?token=tok"]


def test_the_command_line_names_what_is_wrong_before_anything_is_served(db: Path, tmp_path: Path) -> None:
    open_file = _file(tmp_path / "open.token", TOKEN.encode(), 0o644)
    web = ["ladder", "web", "--db", str(db)]
    cases = {
        ("--token-file", str(open_file)): "its group or others may read or write it",
        ("--public-url", "https://example.org/ladder/"): "a path prefix (/ladder/) is not supported",
        ("--trusted-proxy", "proxy.lan"): "is not an IP address or network",
        ("--certfile", str(open_file)): "--certfile and --keyfile go together",
        ("--certfile", str(open_file), "--keyfile", str(open_file)): "not a certificate and its private key",
    }
    for options, reason in cases.items():
        result = CliRunner().invoke(main, [*web, *options])
        assert result.exit_code == 2 and reason in result.output, (options, result.output)
    config = bot_list(tmp_path, ["first", "random"])
    alone = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(tmp_path / "l.db"),
                                      "--web-public-url", "https://ladder.example.org/"])  # fmt: skip
    assert alone.exit_code == 2 and "add --web" in alone.output
    assert not (tmp_path / "l.db").exists()  # refused before the ladder was made
