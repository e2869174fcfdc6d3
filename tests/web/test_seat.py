"""A person's seat over the real web server (Hypercorn on a loopback port, a wsproto client):
a whole round of ``american`` with passing against the random sample bot, the log verified;
tokens; hostile messages named as for any bot; a reload mid-trick; the seat's own cards only."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.match.config import MatchConfig
from referee.web.server import WebSeat
from tests.shared import verified
from tests.web.client import Closed, Refused, WsClient
from tests.web.helpers import ROOT, Person, answer, play_web

pytestmark = pytest.mark.process


async def test_a_person_plays_a_whole_round_and_the_log_verifies(tmp_path: Path) -> None:
    person = Person()
    outcome, log, _ = await play_web(tmp_path, person)
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert outcome.rounds == 1
    assert person.passes == 1 and person.plays == 13
    kinds = [m["type"] for m in person.seen]
    assert kinds[0] == "match_start" and "passed" in kinds and kinds[-1] == "goodbye"
    assert person.leaks == []
    assert verified(log) == "verified"


async def test_the_page_is_served_and_a_wrong_token_is_refused(tmp_path: Path) -> None:
    refused: list[int] = []
    page: list[bytes] = []

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        for token in ("wrong", seat.token[:-1], ""):
            with pytest.raises(Refused) as caught:
                await WsClient.connect(url, token)
            refused.append(caught.value.status)
        host, _, port = url.removeprefix("http://").rpartition(":")
        stream = await trio.open_tcp_stream(host, int(port))
        await stream.send_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        page.append(await read_response(stream))
        await stream.aclose()
        client = await person.join()
        await person.play(client)

    person = Person()
    outcome, log, server = await play_web(tmp_path, person, players=players)
    assert refused == [403, 403, 403]
    assert [r.reason for r in server.refusals] == ["bad_token"] * 3
    assert b"".join(page).startswith(b"HTTP/1.1 200") and b"<!doctype html>" in b"".join(page).lower()
    assert outcome.seats[0].status == "ok"
    assert verified(log) == "verified"


async def test_another_site_cannot_take_a_seat_and_unknown_paths_are_404(tmp_path: Path) -> None:
    """A page of another origin (or a name rebound to this address) is refused before the
    handshake even with the right token; the page's own origin, as 127.0.0.1 or localhost, is
    let in. Paths the server does not have answer 404 and a method it does not serve 405, never
    500, and the match goes on."""
    refused: list[int] = []
    answers: list[bytes] = []

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        port = url.rpartition(":")[2]
        for origin in ("http://evil.example", f"http://evil.example:{port}", f"{url}.evil", "null"):
            with pytest.raises(Refused) as caught:
                await WsClient.connect(url, seat.token, origin=origin)
            refused.append(caught.value.status)
        host = url.removeprefix("http://").rpartition(":")[0]
        for request in (b"GET /nope", b"GET /../../etc/passwd", b"GET /ws", b"POST /", b"GET /%00"):
            stream = await trio.open_tcp_stream(host, int(port))
            await stream.send_all(request + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            answers.append((await read_response(stream)).split(b"\r\n", 1)[0])
            await stream.aclose()
        client = await person.join()  # no Origin: a program, not a browser
        await person.play(client)

    person = Person()
    outcome, log, server = await play_web(tmp_path, person, players=players)
    assert refused == [403] * 4
    assert [r.reason for r in server.refusals] == ["bad_origin"] * 4
    assert [a[:12] for a in answers] == [b"HTTP/1.1 404"] * 3 + [b"HTTP/1.1 405", b"HTTP/1.1 404"]
    assert outcome.seats[0].status == "ok"
    assert verified(log) == "verified"


async def test_the_page_s_own_origin_takes_the_seat(tmp_path: Path) -> None:
    async def players(url: str, seat: WebSeat, person: Person) -> None:
        port = url.rpartition(":")[2]
        client = await WsClient.connect(url, seat.token, origin=f"http://localhost:{port}")
        await client.hello()
        await person.play(client)

    person = Person()
    outcome, log, server = await play_web(tmp_path, person, players=players)
    assert list(server.refusals) == []
    assert outcome.seats[0].status == "ok"
    assert verified(log) == "verified"


async def read_response(stream: trio.SocketStream) -> bytes:
    """One HTTP response (headers and a body of its content-length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive_some(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(line.split(b":")[1] for line in head.lower().split(b"\r\n") if line.startswith(b"content-length"))
    )
    while len(body) < length:
        body += await stream.receive_some(65536)
    return head + b"\r\n\r\n" + body


def misbehave_once(send: Any) -> Any:
    """A ``Person.on_request`` that sends something wrong at its third play request."""

    async def on_request(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        if message["type"] == "play_request" and person.plays == 2:
            person.plays += 1
            await send(client, message)
            return True
        return False

    return on_request


def hang_up_once(dropped: list[dict[str, Any]]) -> Any:
    """A ``Person.on_request`` that closes the page's connection when asked its sixth play
    (once: the request it dropped goes in ``dropped``)."""

    async def on_request(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        if message["type"] == "play_request" and person.plays == 5 and not dropped:
            dropped.append(message)
            await client.aclose()
            raise Closed("hung up")
        return False

    return on_request


@pytest.mark.parametrize(
    ("reason", "send"),
    [
        ("bad_json", lambda c, m: c.send_text("{not json")),
        ("line_too_long", lambda c, m: c.send_text('{"type": "play", "card": "' + "x" * 70_000 + '"}')),
        ("protocol_violation", lambda c, m: c.send_bytes(b'{"type": "play"}')),
        ("unknown_message", lambda c, m: c.send({"type": "cheat", "id": m["id"]})),
        ("wrong_id", lambda c, m: c.send({"type": "play", "id": m["id"] + 5, "card": m["legal"][0]})),
    ],
)
async def test_a_misbehaving_page_gets_the_named_fault_and_the_match_goes_on(
    tmp_path: Path, reason: str, send: Any
) -> None:
    person = Person(on_request=misbehave_once(send))
    outcome, log, _ = await play_web(tmp_path, person)
    assert outcome.seats[0].status == reason
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    errors = [m for m in person.seen if m["type"] == "error"]
    assert errors and errors[-1]["code"] == reason and errors[-1]["fatal"]
    assert outcome.rounds == 1  # the fallback played the seat to the end
    assert verified(log) == "verified"


async def test_an_illegal_card_is_refused_with_the_rule(tmp_path: Path) -> None:
    async def illegal(client: WsClient, message: dict[str, Any]) -> None:
        wrong = next(c for c in ["2C", "3C", "AS", "QS", "AH", "2H", "KD"] if c not in message["legal"])
        await client.send({"type": "play", "id": message["id"], "card": wrong})

    person = Person(on_request=misbehave_once(illegal))
    config = MatchConfig(per_decision=20.0, bank=20.0, startup=5.0, grace=0.3, policy="substitute")
    outcome, log, _ = await play_web(tmp_path, person, config=config)
    errors = [m for m in person.seen if m["type"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "illegal_move" and not errors[0]["fatal"]
    assert errors[0]["rule"]  # the rule's name, for the page to show
    assert outcome.seats[0].status == "ok" and outcome.seats[0].substitutions == 1
    assert verified(log) == "verified"


async def test_a_reload_mid_trick_resumes_the_seat(tmp_path: Path) -> None:
    """The page drops its connection in the middle of the round (its turn pending) and a new
    one with the same token takes the seat: told the match and the round again, asked again."""
    rounds: list[dict[str, Any]] = []

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        first = await person.join()
        await person.play(first)
        second = await person.join()  # the reload
        await person.play(second)

    person = Person(on_request=hang_up_once(rounds))
    outcome, log, _ = await play_web(tmp_path, person, players=players)
    assert outcome.seats[0].status == "ok"
    assert person.plays == 13
    kinds = [m["type"] for m in person.seen]
    # told; then on the reload shown again from the seat's transcript, and told again by the match
    assert kinds.count("match_start") == 3 and kinds.count("round_start") == 3
    again = [m for m in person.seen if m["type"] == "play_request"][6]
    assert again["trick"] == rounds[0]["trick"] and again["id"] != rounds[0]["id"]
    assert [f.action for f in outcome.faults] == ["reconnect"]
    assert person.leaks == []
    assert verified(log) == "verified"


async def test_a_reload_while_the_bots_play_takes_the_seat_at_the_next_request(tmp_path: Path) -> None:
    async def hang_up(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        return False

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        first = await person.join()
        message = await first.receive()  # match_start
        person.check(message)
        await first.aclose()  # gone before anything was asked
        while not seat.free:
            await trio.sleep(0.01)
        second = await person.join()
        await person.play(second)

    person = Person(on_request=hang_up)
    outcome, log, _ = await play_web(tmp_path, person, players=players)
    assert outcome.seats[0].status == "ok" and person.plays == 13
    assert verified(log) == "verified"


async def test_a_second_page_for_a_seat_in_play_is_told_seat_taken(tmp_path: Path) -> None:
    codes: list[str] = []

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        client = await person.join()
        while seat.connection is None:
            await trio.sleep(0.01)
        other = await WsClient.connect(url, seat.token)
        codes.append((await other.receive())["code"])
        await person.play(client)

    person = Person()
    outcome, _, _ = await play_web(tmp_path, person, players=players)
    assert codes == ["seat_taken"]
    assert outcome.seats[0].status == "ok"


async def test_the_after_match_answers_want_the_seat_s_token_in_a_header(tmp_path: Path) -> None:
    """``/after``, ``/replay`` and ``/rematch``: refused (403) without the seat's token in
    ``X-Seat-Token``, with a wrong one, with the token only in the address or from another
    origin; with it: what is on offer, no replay while the match is in play (404) and no rematch
    when none is offered (409)."""
    answers: dict[str, bytes] = {}

    async def ask(url: str, name: str, request: bytes) -> None:
        host, _, port = url.removeprefix("http://").rpartition(":")
        stream = await trio.open_tcp_stream(host, int(port))
        await stream.send_all(request + b"Host: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        answers[name] = await read_response(stream)
        await stream.aclose()

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        token = seat.token.encode()
        port = url.rpartition(":")[2].encode()
        await ask(url, "none", b"GET /after HTTP/1.1\r\n")
        await ask(url, "wrong", b"GET /after HTTP/1.1\r\nX-Seat-Token: " + token[:-1] + b"x\r\n")
        await ask(url, "address", b"GET /replay?token=" + token + b" HTTP/1.1\r\n")
        evil = b"Origin: http://evil.example:" + port + b"\r\n"
        await ask(url, "origin", b"POST /rematch HTTP/1.1\r\n" + evil + b"X-Seat-Token: " + token + b"\r\n")
        await ask(url, "after", b"GET /after HTTP/1.1\r\nX-Seat-Token: " + token + b"\r\n")
        await ask(url, "replay", b"GET /replay HTTP/1.1\r\nX-Seat-Token: " + token + b"\r\n")
        await ask(url, "rematch", b"POST /rematch HTTP/1.1\r\nX-Seat-Token: " + token + b"\r\n")
        client = await person.join()
        await person.play(client)

    person = Person()
    outcome, _, _ = await play_web(tmp_path, person, players=players)
    status = {name: answer.split(b"\r\n", 1)[0][9:12] for name, answer in answers.items()}
    assert status == {
        "none": b"403", "wrong": b"403", "address": b"403", "origin": b"403",
        "after": b"200", "replay": b"404", "rematch": b"409",
    }  # fmt: skip
    assert answers["after"].endswith(b'{"replay": false, "rematch": false}')
    assert outcome.seats[0].status == "ok"


async def test_a_page_that_takes_the_seat_over_is_shown_the_table_and_nothing_more(tmp_path: Path) -> None:
    """A second page asks to take the seat over (``takeover=1``) in the middle of the round:
    the first page is told the seat is now played elsewhere; the second is sent the seat's
    transcript (the match, the round, the pass, every card played so far, in order, and no
    request), in which no card the seat may not know appears, then plays the round to its end."""
    told: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        first = await person.join()
        while True:  # the first page plays until the sixth card has been played
            message = await first.receive()
            person.check(message)
            if message["type"].endswith("_request"):
                await answer(first, message, person)
            if sum(1 for line in seat.transcript.lines() if b'"card_played"' in line) >= 6:
                break
        second = await WsClient.connect(url, seat.token, path="/ws", query="&takeover=1")
        await second.hello()
        while not told or told[-1]["type"] != "error":  # events written before it went, then why
            told.append(await first.receive())
        taker = Person()
        while len(shown) < len(seat.transcript.lines()):
            shown.append(await second.receive())
            taker.check(shown[-1])
        person.leaks += taker.leaks
        await taker.play(second)

    person = Person()
    outcome, log, _ = await play_web(tmp_path, person, players=players)
    assert told[-1]["code"] == "seat_taken" and "now played" in told[-1]["message"], told
    kinds = [m["type"] for m in shown]
    assert kinds[:2] == ["match_start", "round_start"] and "passed" in kinds, kinds
    assert kinds.count("card_played") >= 6 and not [k for k in kinds if k.endswith("_request") or k == "error"]
    assert person.leaks == []
    assert outcome.seats[0].status == "ok"
    assert verified(log) == "verified"


async def test_nobody_comes_the_seat_is_played_by_the_fallback(tmp_path: Path) -> None:
    async def players(url: str, seat: WebSeat, person: Person) -> None:
        return

    outcome, log, _ = await play_web(
        tmp_path, Person(), players=players, config=MatchConfig(startup=0.5, grace=0.3), connect_timeout=0.5
    )
    assert outcome.seats[0].status == "timeout"
    assert verified(log) == "verified"


@pytest.mark.parametrize("policy", ["forfeit", "substitute"])
async def test_the_clock_running_out_plays_by_the_match_policy(tmp_path: Path, policy: str) -> None:
    """A person who does not answer is timed out like any bot (a timeout always drops the
    seat; the fallback plays on), whatever the policy for illegal moves; reconnection does not
    stretch the clock, since the page is still connected. (On trio's real clock: under
    ``MockClock`` the Hypercorn server never let the run go idle; a second for the decision and
    one for the bank keep it short, and nothing is asserted about time.)"""

    async def dawdle(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        if message["type"] == "play_request" and person.plays == 3:
            person.plays += 1
            return True  # no answer: the decision's time and then the bank run out
        return False

    config = MatchConfig(per_decision=1.0, bank=1.0, startup=5.0, grace=0.3, policy=policy)  # type: ignore[arg-type]
    person = Person(on_request=dawdle)
    outcome, log, _ = await play_web(tmp_path, person, config=config)
    assert outcome.seats[0].status == "timeout"
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    errors = [m for m in person.seen if m["type"] == "error"]
    assert [e["code"] for e in errors] == ["timeout"] and errors[0]["fatal"]
    assert outcome.rounds == 1
    assert verified(log) == "verified"


async def test_a_megabyte_message_is_a_disconnect_and_a_reload_is_let_in(tmp_path: Path) -> None:
    """A message over the cap (128 KiB) ends that connection at once: the seat is a
    ``disconnect`` (it held the seat for its whole clock as a ``timeout`` before, and a reload
    3 s later was refused ``seat_taken``), and the reload plays on."""
    sent: list[bool] = []

    async def megabyte(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        if message["type"] == "play_request" and person.plays == 3 and not sent:
            sent.append(True)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await client.send_text("z" * 1_000_000)  # and the page stays, without a word
            raise Closed("sent a megabyte")
        return False

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        first = await person.join()
        await person.play(first)
        await trio.sleep(3)  # the reload, 3 s later
        second = await person.join()
        await person.play(second)
        await first.aclose()

    person = Person(on_request=megabyte)
    outcome, log, server = await play_web(tmp_path, person, players=players)
    assert [(f.reason, f.action) for f in outcome.faults] == [("disconnect", "reconnect")]
    assert outcome.seats[0].status == "ok" and person.plays == 13
    assert not [r for r in server.refusals if r.reason == "seat_taken"]
    assert verified(log) == "verified"


async def test_a_person_sees_each_card_as_it_is_played(tmp_path: Path) -> None:
    """Seat 2 plays only once the person's page has seen seat 1's card of the trick (when seat 1
    played before it). Were the
    events of the table written only with the person's next request, seat 2 would wait for
    ever (until its clock ran out); written as they happen, the round plays with no fault."""
    gate = tmp_path / "gate"

    async def watching(person: Person, client: WsClient, message: dict[str, Any]) -> bool:
        return False

    class Watching(Person):
        def check(self, message: dict[str, Any]) -> None:
            super().check(message)
            if message["type"] == "card_played" and message["seat"] == 1:
                Path(f"{gate}-{message['trick_number']}").touch()

    person = Watching(on_request=watching)
    bots = {2: f"{sys.executable} {ROOT}/tests/bots/gate_bot.py {gate}"}
    outcome, log, _ = await play_web(tmp_path, person, bots=bots)
    assert outcome.faults == [] and [s.status for s in outcome.seats] == ["ok"] * 4
    assert person.plays == 13
    assert verified(log) == "verified"


async def test_a_reload_under_another_name_keeps_the_seat_s_name(tmp_path: Path) -> None:
    """A page that comes back with another name in its hello plays on as the seat it took
    over: the log's header and its end name the same seat, and it verifies."""

    async def players(url: str, seat: WebSeat, person: Person) -> None:
        first = await person.join()
        await person.play(first)
        second = await WsClient.connect(person.url, person.token)
        await second.hello(name="somebody-else")
        await person.play(second)

    person = Person(on_request=hang_up_once([]))
    outcome, log, _ = await play_web(tmp_path, person, players=players)
    assert outcome.seats[0].name == "person" and outcome.seats[0].status == "ok"
    assert verified(log) == "verified"
