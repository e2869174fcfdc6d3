"""A bot that sends one given raw line (read from the file argv[2]) in place of a reply, at the
moment argv[1] names, and otherwise plays the first legal card:

- ``hello``: the line is its hello;
- ``play``: the line answers its first play request (``{id}`` in it becomes the request id);
- ``every``: the line answers every play request (with ``{id}`` and ``{card}`` filled in), for
  replies padded with fields the referee ignores.

Any further arguments are ignored (tests pass a marker to find stray processes)."""

import json
import sys

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
    if t == "hello":
        if WHEN == "hello":
            send(LINE)
        else:
            reply({"type": "hello", "version": 1, "name": "line-bot"})
    elif t == "pass_request":
        reply({"type": "pass", "id": m["id"], "cards": m["legal"][: m["count"]]})
    elif t == "play_request":
        if WHEN == "every" or (WHEN == "play" and not sent):
            sent = True
            send(LINE.replace(b"{id}", str(m["id"]).encode()).replace(b"{card}", m["legal"][0].encode()))
        else:
            reply({"type": "play", "id": m["id"], "card": m["legal"][0]})
    elif t == "declare_request":
        reply({"type": "declare", "id": m["id"], "declare": False})
    elif t == "moon_request":
        reply({"type": "moon", "id": m["id"], "choice": "add_to_others"})
    elif t == "goodbye" or (t == "error" and m.get("fatal")):
        break
