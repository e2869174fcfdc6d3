"""A bot that misbehaves in one named way (argv[1]) at its first play request, and plays the
first legal card until then. Any further arguments are ignored (tests pass a marker so they
can find stray processes).

The modes of ``misbehave_more`` were added for tests/match/test_adversarial*.py; some act at
every play request (``slow``, ``slow_bank``) or around the whole run (``linger``)."""

import json
import os
import signal
import sys
import time

from first_legal_bot import answer, ends

MODE = sys.argv[1]
TRACE = os.environ.get("HOSTILE_TRACE")
"""Modes added for tests/match/test_adversarial.py append what they did to the file
``$HOSTILE_TRACE.<pid>`` (when set): the bytes they wrote, the tricks they were told of."""
ONCE_MODES = {
    "invalid_utf8",
    "wrong_shape",
    "unknown_type",
    "wrong_id",
    "double_reply",
    "huge_line",
    "stdout_flood",
    "stderr_flood",
}
"""Modes that misbehave at the first play request only."""
misbehaved: set[str] = set()


def trace(text: str) -> None:
    if TRACE:
        with open(f"{TRACE}.{os.getpid()}", "a") as file:
            file.write(text + "\n")


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def misbehave_more(message: dict) -> None:
    """The modes added for the adversarial suite: those in ONCE_MODES at the first play
    request only, the others at every play request (``exit_mid_trick``: the first one with
    cards on the table)."""
    if MODE in ONCE_MODES:
        if misbehaved:
            return
        misbehaved.add(MODE)
    rid = message["id"]
    card = message["legal"][0]
    if MODE == "invalid_utf8":  # JSON-shaped, but the card's bytes are not UTF-8
        sys.stdout.buffer.write(b'{"type": "play", "id": %d, "card": "\xff\xfe"}\n' % rid)
        sys.stdout.flush()
    if MODE == "wrong_shape":  # valid JSON, a play whose card is an object
        send({"type": "play", "id": rid, "card": {"rank": card[0], "suit": card[1]}})
    if MODE == "unknown_type":
        send({"type": "fold", "id": rid})
    if MODE == "wrong_id":
        send({"type": "play", "id": rid + 1, "card": card})
    if MODE == "double_reply":  # this reply, and the normal one after it: the second is stale
        send({"type": "play", "id": rid, "card": card})
    if MODE == "huge_line":  # 10 MB before the newline, written in 64 KiB pieces
        total = 10 * 1024 * 1024
        piece = b"x" * 65536
        written = 0
        sys.stdout.buffer.write(b'{"type": "play", "pad": "')
        while written < total:
            sys.stdout.buffer.write(piece)
            sys.stdout.flush()
            written += len(piece)
            trace(f"wrote {written}")
        sys.stdout.buffer.write(b'"}\n')
        sys.stdout.flush()
    if MODE == "stdout_flood":  # the right reply, then again and again, unasked, forever
        line = (json.dumps({"type": "play", "id": rid, "card": card}) + "\n").encode()
        chunk = line * 1000
        written = 0
        while True:
            sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
            written += len(chunk)
            trace(f"wrote {written}")
    if MODE == "stderr_flood":  # 2 MiB of stderr between two decisions, then the reply
        sys.stderr.write("e" * (2 * 1024 * 1024))
        sys.stderr.flush()
    if MODE == "slow_bank":  # a little over the 0.5 s decision limit, every move
        time.sleep(0.7)
    if MODE == "slow":  # well within the limit, every move
        time.sleep(0.05)
    if MODE == "exit_mid_trick" and message["trick"]:
        sys.exit(5)


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
    if MODE == "setsid_child":  # a child in its own session keeps stdout open; the bot crashes
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
        os._exit(3)
    if MODE == "no_newline":
        sys.stdout.write('{"type": "play", "id": ' + str(message["id"]))
        sys.stdout.flush()
        time.sleep(60)


if MODE == "linger":  # plays well, but ignores SIGTERM and does not exit after goodbye
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if MODE == "stderr_spam":
    sys.stderr.write("x" * 300_000)
    sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if MODE == "slow" and kind in ("match_start", "trick_end"):
        trace(f"{kind} seat {message['seat']}" if kind == "match_start" else kind)
    if kind == "play_request":
        misbehave(message)
        misbehave_more(message)
    reply = answer(message, f"hostile-{MODE}")
    if reply is not None:
        send(reply)
    elif ends(message):
        break
if MODE == "linger":
    time.sleep(60)
