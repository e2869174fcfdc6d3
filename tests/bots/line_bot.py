"""A bot that sends one given raw line (read from the file argv[2]) in place of a reply, at the
moment argv[1] names, and otherwise plays the first legal card:

- ``hello``: the line is its hello;
- ``play``: the line answers its first play request (``{id}`` in it becomes the request id);
- ``every``: the line answers every play request (with ``{id}`` and ``{card}`` filled in), for
  replies padded with fields the referee ignores.

Any further arguments are ignored (tests pass a marker to find stray processes)."""

import json
import sys

from first_legal_bot import answer, ends

WHEN = sys.argv[1]
with open(sys.argv[2], "rb") as file:
    LINE = file.read()
sent = False


def send(data: bytes) -> None:
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def reply(obj: dict) -> None:
    send(json.dumps(obj).encode())


for raw in sys.stdin.buffer:
    m = json.loads(raw)
    t = m.get("type")
    if t == "hello" and WHEN == "hello":
        send(LINE)
    elif t == "play_request" and (WHEN == "every" or (WHEN == "play" and not sent)):
        sent = True
        send(LINE.replace(b"{id}", str(m["id"]).encode()).replace(b"{card}", m["legal"][0].encode()))
    elif (first := answer(m, "line-bot")) is not None:
        reply(first)
    elif ends(m):
        break
