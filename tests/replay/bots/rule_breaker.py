"""A test bot that plays legally except where argv[1] tells it to break a rule.

argv[1] is a comma-separated list of habits:
  illegal=K      every K-th play request, play a card outside `legal` (one of its own
                 cards if it can, else a card it does not hold)
  notacard       the first play request is answered with "ZZ"
  shortpass      the first pass request is answered with one card too few
  declare        always declare (Achterhoeks miezen)
  subtract       choose subtract_from_shooter when it shoots the moon
Otherwise: pass the first legal cards, play the first legal card, never declare.
"""

import json
import sys

HABITS = dict(h.partition("=")[::2] for h in sys.argv[1].split(",") if h) if len(sys.argv) > 1 else {}
SUITS = "CDSH"
RANKS = "23456789TJQKA"
ALL = [r + s for s in SUITS for r in RANKS]


def send(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


seat = -1
hand: list[str] = []
plays = 0
passes = 0
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello":
        send({"type": "hello", "version": 1, "name": "rule-breaker"})
    elif t == "match_start":
        seat = m["seat"]
    elif t in ("round_start", "passed"):
        hand = list(m["hand"])
    elif t == "card_played" and m["seat"] == seat and m["card"] in hand:
        hand.remove(m["card"])
    elif t == "pass_request":
        passes += 1
        count = m["count"] - 1 if "shortpass" in HABITS and passes == 1 else m["count"]
        send({"type": "pass", "id": m["id"], "cards": m["legal"][:count]})
    elif t == "play_request":
        plays += 1
        card = m["legal"][0]
        every = int(HABITS.get("illegal") or 0)
        if "notacard" in HABITS and plays == 1:
            card = "ZZ"
        elif every and plays % every == 0:
            own = [c for c in hand if c not in m["legal"]]
            card = own[0] if own else next(c for c in ALL if c not in hand)
        send({"type": "play", "id": m["id"], "card": card})
    elif t == "declare_request":
        send({"type": "declare", "id": m["id"], "declare": "declare" in HABITS})
    elif t == "moon_request":
        choice = "subtract_from_shooter" if "subtract" in HABITS else "add_to_others"
        send({"type": "moon", "id": m["id"], "choice": choice})
    elif t == "goodbye" or (t == "error" and m.get("fatal")):
        break
