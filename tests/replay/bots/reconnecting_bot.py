"""A TCP test bot that drops its connection once, at its third play request, and connects
again with its token: argv is HOST PORT TOKEN. Otherwise it plays the first legal card."""

import json
import socket
import sys

HOST, PORT, TOKEN = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def play(dropped: bool) -> bool:
    """One connection; True when it hung up on purpose (and should connect again)."""
    plays = 0
    with socket.create_connection((HOST, PORT)) as conn, conn.makefile("rw", encoding="utf-8") as wire:
        for line in wire:
            m = json.loads(line)
            t = m.get("type")
            reply = None
            if t == "hello":
                reply = {"type": "hello", "version": 1, "name": "reconnecting", "token": TOKEN}
            elif t == "pass_request":
                reply = {"type": "pass", "id": m["id"], "cards": m["legal"][: m["count"]]}
            elif t == "play_request":
                plays += 1
                if plays == 3 and not dropped:
                    return True
                reply = {"type": "play", "id": m["id"], "card": m["legal"][0]}
            elif t == "declare_request":
                reply = {"type": "declare", "id": m["id"], "declare": False}
            elif t == "moon_request":
                reply = {"type": "moon", "id": m["id"], "choice": "add_to_others"}
            elif t == "goodbye" or (t == "error" and m.get("fatal")):
                return False
            if reply is not None:
                wire.write(json.dumps(reply) + "\n")
                wire.flush()
    return False


if play(dropped=False):
    play(dropped=True)
