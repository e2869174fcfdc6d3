"""A bot that spins to make its neighbours slow (for ``referee bench fairness``): at its hello
it starts ``N`` busy loops, as threads, as processes, or as processes each in a session of its
own (``setsid``: a scheduler group of its own, which hurt neighbours most before bots had control
groups), then plays the first legal card of every request.

    python3 spinner_bot.py threads|processes|setsid N
"""

from __future__ import annotations

import json
import os
import sys
import threading


def spin() -> None:
    while True:
        pass


def start(how: str, count: int) -> None:
    for _ in range(count):
        if how == "threads":
            threading.Thread(target=spin, daemon=True).start()
            continue
        try:
            pid = os.fork()
        except OSError:
            return  # its process bound: spin with what it has
        if pid == 0:
            if how == "setsid":
                os.setsid()
            try:
                spin()
            finally:
                os._exit(0)


def main() -> None:
    how, count = sys.argv[1], int(sys.argv[2])
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            start(how, count)
            print(json.dumps({"type": "hello", "version": 1, "name": f"spinner-{how}-{count}"}), flush=True)
        elif kind == "pass_request":
            cards = message["legal"][: message["count"]]
            print(json.dumps({"type": "pass", "id": message["id"], "cards": cards}), flush=True)
        elif kind == "play_request":
            print(json.dumps({"type": "play", "id": message["id"], "card": message["legal"][0]}), flush=True)
        elif kind == "goodbye" or (kind == "error" and message.get("fatal")):
            break


if __name__ == "__main__":
    main()
