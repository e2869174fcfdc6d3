"""A bot that makes one of the mistakes bot authors really make (argv[1]), for the tests of
what `referee check` tells them; otherwise it plays the first legal card. Further arguments:
``slow`` takes the seconds to think per decision (argv[2]); the rest are ignored (tests pass
a marker so they can find stray processes).

- ``debug_print``: a debug print on stdout before every reply (flushed, so it arrives).
- ``no_flush``: writes every line to a buffered stdout and never flushes it; the buffer goes
  out only when the bot ends (as a C or Java runtime flushes at exit).
- ``no_flush_play``: flushes its hello and passes, not its plays.
- ``slow``: thinks argv[2] seconds before every reply.
- ``crash``: an exception (with its traceback on stderr) at the first play request.
- ``segfault``: killed by SIGSEGV at the first play request.
- ``wrong_version``: answers hello with version 2."""

import json
import os
import signal
import sys
import time

from first_legal_bot import answer, ends

MODE = sys.argv[1]
THINK = float(sys.argv[2]) if MODE == "slow" else 0.0
# Buffered whatever PYTHONUNBUFFERED says: the mistake is the missing flush, not the setting.
out = open(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False)  # noqa: SIM115


def send(obj: dict, flush: bool = True) -> None:
    out.write(json.dumps(obj) + "\n")
    if flush and MODE != "no_flush":
        out.flush()


def choose(legal: list[str]) -> str:
    if MODE == "crash":
        print("choosing a card for the first trick", file=sys.stderr, flush=True)
        raise RuntimeError("no strategy for this trick")
    if MODE == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "debug_print":
        out.write(f"thinking about {legal}\n")  # goes out with the reply
    return legal[0]


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind.endswith("_request") and THINK:
        time.sleep(THINK)
    if kind == "hello":
        send({"type": "hello", "version": 2 if MODE == "wrong_version" else 1, "name": f"author-{MODE}"})
    elif kind == "play_request":
        card = choose(message["legal"])
        send({"type": "play", "id": message["id"], "card": card}, flush=MODE != "no_flush_play")
    elif (reply := answer(message, "")) is not None:
        send(reply)
    elif ends(message):
        break
out.flush()  # what a runtime does at exit: the buffered lines go out only now
