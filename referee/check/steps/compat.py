"""Steps about reading the referee's lines robustly, and about request ids.

Within protocol version 1 the referee may add fields and message types, write fields in any
order, and pass on any name another bot chose. Each step plays a one-round match of the
variant under check with every line rewritten one way.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from protocol.codec import MAX_LINE
from referee.check.positions import one_round
from referee.check.probe import Probe
from referee.check.steps.base import step
from referee.check.table import ScriptedTable

REQUESTS = ("pass_request", "play_request", "declare_request", "moon_request")
WEATHER = b'{"type":"weather","x":1}'


def _load(line: bytes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(line)
    return data


def _dump(data: object, **options: Any) -> bytes:
    options.setdefault("separators", (",", ":"))
    options.setdefault("ensure_ascii", False)
    return json.dumps(data, **options).encode()


async def _play(
    probe: Probe, rewrite: Callable[[bytes], list[bytes]] | None, *, seat: int = 1, names: Sequence[str] = ()
) -> None:
    """A one-round match of the variant under check, every line passed through ``rewrite``."""
    probe.rewrite = rewrite
    rules = one_round(probe.rules)
    table = ScriptedTable(probe, rules, seat=seat % rules.players, dealer=0, seed=13, names=names or None)
    await table.play_match()
    await probe.flush()


def add_unknown_fields(line: bytes) -> list[bytes]:
    """Unknown fields everywhere: right after ``type`` (with misleading contents), at the end,
    inside ``rules``, ``time`` and ``players``, and in ``round_start``."""
    data = _load(line)
    kind = data.pop("type")
    if kind == "match_start":
        data["rules"]["x_new_rule"] = [1, 2.5, True, None, {"deck": "tarot"}]
        data["time"]["x_increment_ms"] = 100
        for player in data["players"]:
            player["x_rating"] = 1500.5
    if kind == "round_start":
        data["x_weather"] = "sunny"
        data["x_deal"] = {"seed": None, "hands": [["XX", "YY"]], "pass_to": "nobody"}
    if kind in REQUESTS:
        data["x_hint"] = {"legal": ["XX"], "id": 0, "count": 99, "options": ["resign"]}
    decoy = {"type": "goodbye", "id": 1, "legal": ["XX"], "fatal": True, "nested": [[{}], ']}"', None, 2.5e-3]}
    return [_dump({"type": kind, "x_future": decoy, **data, "x_last": "ignore me"})]


def insert_unknown_events(line: bytes) -> list[bytes]:
    """``{"type":"weather","x":1}`` between the events of every trick after the first, and
    in front of every play request and round_end."""
    data = _load(line)
    kind = data["type"]
    if kind in ("play_request", "round_end") or (kind == "card_played" and data["trick_number"] > 0):
        return [WEATHER, line]
    return [line]


def unknown_requests() -> Callable[[bytes], list[bytes]]:
    """In front of every play request, a message of an unknown type that looks like a request
    (with an id no real request uses). It must get no answer."""
    ids = itertools.count(900_001)

    def rewrite(line: bytes) -> list[bytes]:
        data = _load(line)
        if data["type"] != "play_request":
            return [line]
        bid = {"type": "bid_request", "id": next(ids), "legal": data["legal"], "count": 1, "time": data["time"]}
        return [_dump(bid), line]

    return rewrite


def _reversed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reversed(value[key]) for key in reversed(value)}
    if isinstance(value, list):
        return [_reversed(item) for item in value]
    return value


def reorder_fields(line: bytes) -> list[bytes]:
    """Every object's fields in reverse order (``type`` last), with spaces around separators."""
    return [_dump(_reversed(_load(line)), separators=(" , ", " : "))]


ODD_NAMES = ('Zoë "quoted" \\ back\\slash', "tab\there\nnewline ♥ 🂡 ボット", '}]{"type":"goodbye","x":"')


def escape_match_start(line: bytes) -> list[bytes]:
    """``match_start`` with every non-ASCII character as a \\u escape (surrogate pairs for
    emoji); the other lines in raw UTF-8, as the referee writes them."""
    data = _load(line)
    if data["type"] != "match_start":
        return [line]
    return [_dump(data, ensure_ascii=True)]


def pad_match_start(line: bytes) -> list[bytes]:
    """``match_start`` made exactly as long as a line may be: 65536 bytes before the newline."""
    data = _load(line)
    if data["type"] != "match_start":
        return [line]
    data["x_padding"] = ""
    room = MAX_LINE - len(_dump(data))
    data["x_padding"] = "." * room
    padded = _dump(data)
    assert len(padded) == MAX_LINE
    return [padded]


@step(
    "compat.unknown_fields",
    "Every message of a round carries fields the bot does not know, some right after `type` with "
    "misleading contents ('id', 'legal', 'type': 'goodbye'), some inside rules, time, players and "
    "round_start: the bot ignores them all.",
)
async def unknown_fields(probe: Probe) -> None:
    await _play(probe, add_unknown_fields)
    probe.note(f"a round with unknown fields in every line, {len(probe.decisions)} decisions")


@step(
    "compat.unknown_event",
    'A message type the bot does not know, {"type":"weather","x":1}, comes between the cards of '
    "every trick and right before requests: the bot ignores it and plays on.",
)
async def unknown_event(probe: Probe) -> None:
    await _play(probe, insert_unknown_events)
    count = sum(1 for line in probe.transcript if line.line == WEATHER.decode())
    probe.note(f"{count} weather messages ignored")


@step(
    "compat.unknown_request",
    "An unknown message type that looks like a request (bid_request with an id and a legal "
    "list) comes before every play request: the bot must not answer it.",
)
async def unknown_request(probe: Probe) -> None:
    await _play(probe, unknown_requests())
    probe.note("no bid_request answered")


@step(
    "compat.field_order",
    "Every object's fields come in reverse order (`type` last) with spaces around ',' and ':' "
    "(valid JSON; the referee promises neither order nor compactness).",
)
async def field_order(probe: Probe) -> None:
    await _play(probe, reorder_fields)
    probe.note(f"a round in reversed field order, {len(probe.decisions)} decisions")


@step(
    "compat.odd_names",
    "Other players' names (chosen by other bots) hold quotes, backslashes, escaped tab and "
    "newline, non-ASCII text and emoji, and JSON-looking text; match_start comes "
    "with \\u escapes: the bot plays on.",
)
async def odd_names(probe: Probe) -> None:
    await _play(probe, escape_match_start, names=ODD_NAMES, seat=2)
    probe.note("odd names read")


@step(
    "compat.long_line",
    "A match_start of exactly 65536 bytes before its newline (the protocol's longest line, "
    "padded with an unknown field): the bot reads it whole and plays on.",
)
async def long_line(probe: Probe) -> None:
    await _play(probe, pad_match_start)
    probe.note(f"a {MAX_LINE}-byte line read")


def large_ids() -> Iterator[int]:
    """Past 31 and 32 bits, up to 2**53 - 1 (the largest integer every JSON reader keeps
    exact), and down from there."""
    yield 2**31
    yield 2**32 + 1
    yield 2**53 - 1
    for k in itertools.count(1):
        yield 2**53 - 1 - 7919 * k


def scattered_ids() -> Iterator[int]:
    """Small ids that jump up and down and never repeat (7919 * k modulo the prime 100003)."""
    for k in itertools.count(1):
        yield 7919 * k % 100_003 + 1


@step(
    "ids.large",
    "Request ids beyond 32 bits, up to 2**53 - 1: the bot echoes each one exactly.",
)
async def ids_large(probe: Probe) -> None:
    probe.ids = large_ids()
    await _play(probe, None)
    probe.note(f"{len(probe.decisions)} ids echoed, up to {max(d.id for d in probe.decisions)}")


@step(
    "ids.non_sequential",
    "Request ids that jump up and down (7920, 15839, 23758, ...) instead of counting 1, 2, 3: "
    "the bot echoes each request's own id.",
)
async def ids_non_sequential(probe: Probe) -> None:
    probe.ids = scattered_ids()
    await _play(probe, None)
    probe.note(f"{len(probe.decisions)} ids echoed: {', '.join(str(d.id) for d in probe.decisions[:4])}, ...")


STEPS = (
    unknown_fields,
    unknown_event,
    unknown_request,
    field_order,
    odd_names,
    long_line,
    ids_large,
    ids_non_sequential,
)
