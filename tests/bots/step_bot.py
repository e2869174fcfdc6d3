"""A test bot that plays its K-th play request only once the file ``GATE-K`` exists, for each
K of argv[2] (comma separated; argv[1] is GATE): a test holds a match in play at chosen points
and lets it go on. Otherwise it answers as first_legal_bot."""

import json
import os
import sys
import time

from first_legal_bot import answer, ends

GATE = sys.argv[1]
HOLDS = {int(k) for k in sys.argv[2].split(",")}
plays = 0
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "play_request":
        plays += 1
        while plays in HOLDS and not os.path.exists(f"{GATE}-{plays}"):
            time.sleep(0.01)
    reply = answer(m, "step")
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(m):
        break
