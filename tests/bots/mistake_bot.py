"""A bot that makes one common author's mistake (argv[1]), for the tests of what the replay views
tell its author; otherwise it passes and plays the first legal cards.

  debug_print    prints a debug line on stdout at its first play request
  no_flush       writes its first play without flushing it (so it never arrives: a time-out)
  crash          logs a dozen lines on stderr, then raises at its first play request (a
                 traceback on stderr, exit code 1)
  wrong_version  answers hello with protocol version 2
  segfault       is killed by SIGSEGV at its first play request
  crash_at_goodbye  plays the whole match, then raises when goodbye arrives (exit code 1)
"""

import json
import os
import signal
import sys

from first_legal_bot import answer, ends

MODE = sys.argv[1]
# block-buffered whatever the environment says (PYTHONUNBUFFERED, python -u), as a pipe is by default
out = os.fdopen(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False)


def send(obj: dict, flush: bool = True) -> None:
    out.write(json.dumps(obj) + "\n")
    if flush:
        out.flush()


def choose(legal: list) -> str:
    if MODE == "crash":
        raise RuntimeError("no strategy for this trick")
    if MODE == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    return legal[0]


if MODE == "crash":
    for i in range(12):
        print(f"warming up {i}", file=sys.stderr, flush=True)

for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        send({"type": "hello", "version": 2 if MODE == "wrong_version" else 1, "name": f"mistake-{MODE}"})
    elif t == "play_request":
        if MODE == "debug_print":
            out.write(f"my hand is {m['legal']}\n")
            out.flush()
        else:
            send({"type": "play", "id": m["id"], "card": choose(m["legal"])}, flush=MODE != "no_flush")
    elif (reply := answer(m, "")) is not None:
        send(reply)
    elif ends(m):
        if MODE == "crash_at_goodbye" and t == "goodbye":
            raise RuntimeError("no statistics to save")
        break
