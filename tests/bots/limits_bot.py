"""A bot that reports its working directory and an environment variable in its name, and
on its first play request does what argv[1] says: `cpu` (spin), `memory` (allocate 1 GiB),
`files` (open 200 files), `files_1000` (open 1,000) or `nothing`."""

import json
import os
import sys

from first_legal_bot import answer, ends

MODE = sys.argv[1]
NAME = f"{os.path.basename(os.getcwd())}|{os.environ.get('HEARTS_TEST_VAR', '-')}"
hog = None
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "play_request":
        if MODE == "cpu":
            while True:
                pass
        if MODE == "memory" and hog is None:  # once, then held: 13 GiB zeroed a round cost 10 s of CPU
            hog = bytearray(1 << 30)
        if MODE in ("files", "files_1000"):
            handles = None  # the last request's files are closed first: at most this many open at once
            handles = [open(os.devnull) for _ in range(200 if MODE == "files" else 1000)]  # noqa: SIM115
    reply = answer(m, NAME)
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(m):
        break
