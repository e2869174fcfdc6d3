"""A test bot (four players) that plays a trick's card only once the file ``GATE-N`` exists
(argv[1] is GATE, N the trick's number) when seat 1 played before it in that trick: the test
makes the file when the page saw seat 1's card. Otherwise it answers as first_legal_bot."""

import json
import os
import sys
import time

from first_legal_bot import answer, ends

GATE = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "play_request":
        played = [(m["leader"] + k) % 4 for k in range(len(m["trick"]))]
        if 1 in played:  # seat 1 played before this seat in this trick: wait until the page saw it
            while not os.path.exists(f"{GATE}-{m['trick_number']}"):
                time.sleep(0.005)
    reply = answer(m, "gate")
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(m):
        break
