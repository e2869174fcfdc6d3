"""A test bot that thinks argv[1] seconds (0.4 by default) before each card it plays: long
enough for a page to show whose turn it is. Otherwise it answers as first_legal_bot."""

import json
import sys
import time

from first_legal_bot import answer, ends

DELAY = float(sys.argv[1]) if len(sys.argv) > 1 else 0.4
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "play_request":
        time.sleep(DELAY)
    reply = answer(m, "slow")
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(m):
        break
