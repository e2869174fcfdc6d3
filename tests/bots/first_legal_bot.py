"""A deterministic test bot: hello, pass the first `count` legal cards, play the first legal
card, never declare, moon add_to_others; exit on goodbye or a fatal error.

The other test bots answer as it does where they do not misbehave: they import ``answer`` and
``ends`` from here (a script's own folder is on its import path)."""

import json
import sys


def answer(message: dict, name: str) -> dict | None:
    """The first-legal reply to a referee message, as the bot ``name``; ``None``: no reply."""
    kind = message.get("type")
    if kind == "hello":
        return {"type": "hello", "version": 1, "name": name}
    if kind == "pass_request":
        return {"type": "pass", "id": message["id"], "cards": message["legal"][: message["count"]]}
    if kind == "play_request":
        return {"type": "play", "id": message["id"], "card": message["legal"][0]}
    if kind == "declare_request":
        return {"type": "declare", "id": message["id"], "declare": False}
    if kind == "moon_request":
        return {"type": "moon", "id": message["id"], "choice": "add_to_others"}
    return None


def ends(message: dict) -> bool:
    """Whether the message ends the bot: goodbye, or a fatal error."""
    kind = message.get("type")
    return kind == "goodbye" or (kind == "error" and bool(message.get("fatal")))


def play(name: str) -> None:
    """Answer every line on stdin until the end."""
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message, name)
        if reply is not None:
            print(json.dumps(reply), flush=True)
        elif ends(message):
            break


if __name__ == "__main__":
    play("first-legal")
