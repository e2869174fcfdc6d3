"""``referee check tcp:NAME[:TOKEN]``: the check waits for the bot to connect, once per step.

The ``CheckListener`` listens on one address for the whole check and hands each step one
connection: a step waits (up to the connect timeout) for the next bot to connect. At most one
connection may wait for a step to take it (a bot that reconnected while the previous step was
still ending); any other connection is refused at once with a fatal ``busy`` error and closed.
Every write of a refusal and every wait is bounded, so neither a silent client nor a missing
bot can hold the check.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from referee.check.links import CheckSocketLink
from referee.network import DEFAULT_HOST, new_token, read_token_file, show_address, shown_token
from referee.players.acceptor import Acceptor, turn_away
from referee.players.channel import SocketLink
from referee.players.tcp import Refusal

TCP_PREFIX = "tcp:"
CONNECT_TIMEOUT = 60.0
"""Seconds a step waits for the bot to connect (``--connect-timeout``)."""


@dataclass(frozen=True)
class TcpTarget:
    """A bot that connects to the check instead of being started by it."""

    name: str
    token: str
    host: str = DEFAULT_HOST
    port: int = 0
    connect_timeout: float = CONNECT_TIMEOUT
    given: bool = False
    """The user supplied the token (``tcp:NAME:TOKEN``, ``tcp:NAME:@FILE``): never printed."""
    token_file: str | None = None

    @property
    def shown_token(self) -> str:
        """The token as printed lines name it: ``token 3q2S...`` when the check made it up, else
        where it came from, never its value (``referee.network.shown_token``)."""
        return shown_token(self.token, given=self.given, token_file=self.token_file)

    @property
    def spec(self) -> str:
        """How reports name the bot (without the token, which is a secret of the check)."""
        return f"{TCP_PREFIX}{self.name}"


def tcp_target(
    spec: str, *, host: str = DEFAULT_HOST, port: int = 0, connect_timeout: float = CONNECT_TIMEOUT
) -> TcpTarget | None:
    """The target a bot spec names (``tcp:NAME``, ``tcp:NAME:TOKEN`` or ``tcp:NAME:@FILE``;
    without a token the check makes one up), or ``None`` for a command line. Raises
    ``ValueError`` for a token file that cannot be read."""
    if not spec.startswith(TCP_PREFIX):
        return None
    name, _, token = spec[len(TCP_PREFIX) :].partition(":")
    token_file = token[1:] if token.startswith("@") else None
    return TcpTarget(
        name=name or "bot",
        token=(read_token_file(token_file) if token_file is not None else token) or new_token(),
        host=host,
        port=port,
        connect_timeout=connect_timeout,
        given=bool(token),
        token_file=token_file,
    )


class CheckListener:
    """Hands out one connection per step on one listening address."""

    def __init__(self, target: TcpTarget) -> None:
        self.target = target
        self.refusals: list[Refusal] = []
        self.missed = False
        """A step waited the whole connect timeout and no bot came."""
        # one connection may wait for a step; a step that waits gets the next one directly
        self._send, self._receive = trio.open_memory_channel[tuple[trio.SocketStream, float]](1)
        self._acceptor = Acceptor()

    @property
    def address(self) -> tuple[str, int]:
        """The address listened on (after ``listen``), with the port chosen for port 0."""
        return self._acceptor.address

    async def listen(self) -> tuple[str, int]:
        """Open the listening socket(s); raises ``OSError`` (address in use, ...)."""
        return await self._acceptor.listen(self.target.host, self.target.port)

    async def serve(self) -> None:
        """Accept connections (after ``listen``) until cancelled; then stop listening and
        refuse the connection still waiting for a step."""
        try:
            await self._acceptor.serve(self._take)
        finally:
            with trio.CancelScope(shield=True):
                self._send.close()
                while True:
                    try:
                        stream, _ = self._receive.receive_nowait()
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                    await self._refuse(stream, "the check is over: no more steps")

    def _take(self, stream: trio.SocketStream, nursery: trio.Nursery) -> None:
        """Keep a new connection for the next step, or refuse it when one is already waiting."""
        try:
            self._send.send_nowait((stream, trio.current_time()))
        except trio.WouldBlock:
            message = "one bot per step, and another is already connected or waiting; try again"
            nursery.start_soon(self._refuse, stream, message)

    async def _refuse(self, stream: trio.SocketStream, message: str) -> None:
        link = SocketLink(stream)
        self.refusals.append(Refusal(link.peer, "busy", message))
        await turn_away(link, "busy", message)

    async def next_link(self) -> CheckSocketLink | None:
        """The next bot's connection, or ``None`` after the connect timeout."""
        with trio.move_on_after(self.target.connect_timeout):
            stream, accepted = await self._receive.receive()
            return CheckSocketLink(stream, accepted)
        self.missed = True
        return None

    def instructions(self) -> str:
        """What the bot's author has to do, printed when the check is listening."""
        where = show_address(*self.address)
        target = self.target
        if target.token_file is not None:
            option = f"--token-file {target.token_file}"
        else:
            option = "--token YOUR_TOKEN" if target.given else f"--token {target.token}"
        return (
            f"check: connect to {where} with {target.shown_token} (once per step; run your bot in a loop, "
            f"e.g. while true; do python3 mybot.py --tcp {where} {option}; done)"
        )
