"""A bot that misbehaves in one named way (argv[1]) at its first play request, and plays the
first legal card until then. Any further arguments are ignored (tests pass a marker so they
can find stray processes)."""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def misbehave(message: dict) -> None:
    if MODE == "crash":
        sys.exit(3)
    if MODE == "close_stdout":
        os.close(1)
        time.sleep(60)
    if MODE == "garbage":
        sys.stdout.buffer.write(b"\x00\xff garbage \xfe\n")
        sys.stdout.flush()
    if MODE == "sleep":
        time.sleep(60)
    if MODE == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdin.close()
        time.sleep(60)
    if MODE == "fork_child":
        if os.fork() == 0:
            time.sleep(60)  # the child keeps stdout open
            os._exit(0)
        os._exit(0)
    if MODE == "no_newline":
        sys.stdout.write('{"type": "play", "id": ' + str(message["id"]))
        sys.stdout.flush()
        time.sleep(60)


if MODE == "stderr_spam":
    sys.stderr.write("x" * 300_000)
    sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "version": 1, "name": f"hostile-{MODE}"})
    elif kind == "pass_request":
        send({"type": "pass", "id": message["id"], "cards": message["legal"][: message["count"]]})
    elif kind == "play_request":
        misbehave(message)
        send({"type": "play", "id": message["id"], "card": message["legal"][0]})
    elif kind == "declare_request":
        send({"type": "declare", "id": message["id"], "declare": False})
    elif kind == "moon_request":
        send({"type": "moon", "id": message["id"], "choice": "add_to_others"})
    elif kind == "goodbye" or (kind == "error" and message.get("fatal")):
        break
