"""A deterministic test bot: hello, pass the first `count` legal cards, play the first legal
card, never declare, moon add_to_others; exit on goodbye or a fatal error."""

import json
import sys

for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello":
        print(json.dumps({"type": "hello", "version": 1, "name": "first-legal"}), flush=True)
    elif t == "pass_request":
        print(json.dumps({"type": "pass", "id": m["id"], "cards": m["legal"][: m["count"]]}), flush=True)
    elif t == "play_request":
        print(json.dumps({"type": "play", "id": m["id"], "card": m["legal"][0]}), flush=True)
    elif t == "declare_request":
        print(json.dumps({"type": "declare", "id": m["id"], "declare": False}), flush=True)
    elif t == "moon_request":
        print(json.dumps({"type": "moon", "id": m["id"], "choice": "add_to_others"}), flush=True)
    elif t == "goodbye" or (t == "error" and m.get("fatal")):
        break
