"""The options that publish the ladder's pages (docs/ladder.md, "Published safely"), shared by
``referee ladder web`` and ``referee ladder run --web``: each value checked while click parses
it, and a bad token file, address or certificate named before anything is served. ``ladder
run`` gets its ``--web`` options as one value (``pages_beside``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from referee.cli.options import PORT
from referee.web.ladder.forwarded import trusted_proxy
from referee.web.ladder.published import PublicUrl, Publishing, check_certificate, public_url
from referee.web.ladder.token_file import TokenFileError, token_from_file

F = TypeVar("F", bound=Callable[..., Any])

TOKEN_FILE_HELP = ("Keep the pages' token in PATH (made there, mode 0600, when missing), so the printed address "
                   "still opens the pages after a restart; the token is then asked on loopback too.")  # fmt: skip
PUBLIC_URL_HELP = ("The address visitors open (https://ladder.example.org/, http://192.168.1.5:8080/): every "
                   "printed address is made from it, and a request naming it in its Host is answered.")  # fmt: skip
TRUSTED_PROXY_HELP = ("A reverse proxy's address or network (repeatable): from it alone, X-Forwarded-For, "
                      "-Proto and -Host are believed (the client's address then counts for its limit).")  # fmt: skip
PUBLIC_HELP = ("Serve the public view to whoever brings no secret: standings, matches, replays, no bot's stderr "
               "and faults by reason only. The printed token address still shows everything; an entrant's link, "
               "its own bots' output too.")  # fmt: skip


def parse_public_url(ctx: click.Context, param: click.Parameter, value: str | None) -> PublicUrl | None:
    """``--public-url``'s value checked as click parses it (``published.public_url``)."""
    if value is None:
        return None
    try:
        return public_url(value)
    except ValueError as err:
        raise click.BadParameter(str(err), ctx, param) from None


Networks = tuple[IPv4Network | IPv6Network, ...]


def _proxies(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> Networks:
    try:
        return tuple(trusted_proxy(value) for value in values)
    except ValueError as err:
        raise click.BadParameter(str(err), ctx, param) from None


def publishing_options(prefix: str) -> Callable[[F], F]:
    """The token file, public address, trusted proxies and the public view, as ``--token-file``
    ... or, with ``prefix`` ``web-``, ``--web-token-file`` ... (``ladder run --web``'s)."""

    def decorate(command: F) -> F:
        for option in reversed((
            click.option(f"--{prefix}token-file", "token_file", default=None, metavar="PATH", help=TOKEN_FILE_HELP),
            click.option(f"--{prefix}public-url", "public", default=None, metavar="URL", callback=parse_public_url,
                         help=PUBLIC_URL_HELP),
            click.option(f"--{prefix}trusted-proxy", "proxies", multiple=True, metavar="ADDRESS", callback=_proxies,
                         help=TRUSTED_PROXY_HELP),
            click.option(f"--{prefix}public", "public_view", is_flag=True, help=PUBLIC_HELP),
        )):  # fmt: skip
            command = option(command)
        return command

    return decorate


CERTFILE_OPTION = click.option(
    "--certfile",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Serve over TLS (https://) with this certificate (PEM, its chain after it); needs --keyfile.",
)
KEYFILE_OPTION = click.option(
    "--keyfile",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The private key of --certfile (PEM).",
)


def read_token(token_file: str | None, option: str) -> str | None:
    """The token kept in ``token_file`` (made there when missing); ``None`` without one. A
    file that is not used is a ``click.BadParameter`` naming ``option`` and why."""
    if token_file is None:
        return None
    try:
        return token_from_file(token_file)
    except TokenFileError as err:
        raise click.BadParameter(str(err), param_hint=option) from None


def publishing(
    token_file: str | None,
    public: PublicUrl | None,
    proxies: Networks,
    certfile: Path | None = None,
    keyfile: Path | None = None,
    public_view: bool = False,
) -> Publishing:
    """``ladder web``'s publishing, its token read and its certificate loaded once here: a
    problem with either is said before anything is served."""
    if (certfile is None) != (keyfile is None):
        raise click.UsageError("--certfile and --keyfile go together: TLS needs the certificate and its key")
    if certfile is not None and keyfile is not None:
        try:
            check_certificate(certfile, keyfile)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--certfile/--keyfile") from None
    token = read_token(token_file, "--token-file")
    return Publishing(token=token, public=public, certfile=certfile, keyfile=keyfile, proxies=proxies,
                      public_view=public_view)  # fmt: skip


WEB_OPTION = click.option(
    "--web", is_flag=True, help="Serve the ladder's pages while it plays (as `referee ladder web`, with its tables)."
)
WEB_PORT_OPTION = click.option(
    "--web-port", default=0, show_default=True, type=PORT, help="Port of --web's pages (0: any free)."
)


@dataclass(frozen=True)
class PagesBeside:
    """``ladder run --web``: the port of its pages and the options of their process (``ladder
    web``'s, from ``--web-token-file`` and the like)."""

    port: int
    options: tuple[str, ...] = ()


def pages_beside(command: F) -> F:
    """``ladder run``'s ``--web``, ``--web-port`` and ``--web-*`` publishing options, given to
    ``command`` as one value, ``web``: a ``PagesBeside``, or ``None`` without ``--web`` (the
    others are then refused). The token file is read (and made) here, before the run plays: a
    bad one stops it at once, instead of the pages alone."""

    @functools.wraps(command)
    def bundled(*args: Any, web: bool, web_port: int, token_file: str | None, public: PublicUrl | None,
                proxies: Networks, public_view: bool, **kwargs: Any) -> Any:  # fmt: skip
        if not web:
            if token_file is not None or public is not None or proxies or public_view:
                raise click.UsageError(
                    "--web-token-file, --web-public-url, --web-trusted-proxy and --web-public are --web's: add --web"
                )
            return command(*args, web=None, **kwargs)
        read_token(token_file, "--web-token-file")
        options = ["--token-file", str(Path(token_file).absolute())] if token_file is not None else []
        options += ["--public-url", f"{public.origin}/"] if public is not None else []
        for proxy in proxies:
            options += ["--trusted-proxy", str(proxy)]
        options += ["--public"] if public_view else []
        return command(*args, web=PagesBeside(web_port, tuple(options)), **kwargs)

    return cast(F, WEB_OPTION(WEB_PORT_OPTION(publishing_options("web-")(bundled))))
