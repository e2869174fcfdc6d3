"""A bot that reports its working directory and an environment variable in its name, and
on its first play request does what argv[1] says: `cpu` (spin), `memory` (allocate 1 GiB),
`files` (open 200 files), `files_1000` (open 1,000) or `nothing`."""

import json
import os
import sys

MODE = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        name = f"{os.path.basename(os.getcwd())}|{os.environ.get('HEARTS_TEST_VAR', '-')}"
        print(json.dumps({"type": "hello", "version": 1, "name": name}), flush=True)
    elif t == "pass_request":
        print(json.dumps({"type": "pass", "id": m["id"], "cards": m["legal"][: m["count"]]}), flush=True)
    elif t == "play_request":
        if MODE == "cpu":
            while True:
                pass
        if MODE == "memory":
            hog = None  # the last request's GiB is freed first
            hog = bytearray(1 << 30)
        if MODE in ("files", "files_1000"):
            handles = None  # the last request's files are closed first: at most this many open at once
            handles = [open(os.devnull) for _ in range(200 if MODE == "files" else 1000)]  # noqa: SIM115
        print(json.dumps({"type": "play", "id": m["id"], "card": m["legal"][0]}), flush=True)
    elif t == "goodbye" or (t == "error" and m.get("fatal")):
        break
