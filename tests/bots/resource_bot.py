"""A bot that attacks the machine's resources (issue 22), then plays the first legal card.

argv[1] is the attack, argv[2] a marker (in its process titles, for finding strays):
- ``memfd``: at its first play request, write 4 GiB into a ``memfd`` (1 MiB at a time);
- ``tmpfs``: at its first play request, write into ``$TMPDIR`` (a tmpfs in the sandbox) until
  the writes fail; then play on;
- ``spin N``: at its hello, start N children, each in a session of its own (``setsid``: a
  scheduler group of its own), that spin for ever; then play normally;
- ``forkbomb``: at its first play request, fork sleeping children until the kernel refuses, then
  exit 1;
- ``files N``: at its hello, start N children that each open ``/dev/null`` until refused and
  sleep; report ``FILES total`` on stderr, then play normally.
"""

import json
import os
import sys
import time

from first_legal_bot import answer, ends

MODE = sys.argv[1]
MARKER = sys.argv[2] if len(sys.argv) > 2 else "-"
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 0


def child(work) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            work()
        finally:
            os._exit(0)
    return pid


def spin() -> None:
    while True:
        pass


def hold_files() -> None:
    held = []
    try:
        while True:
            held.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    os.write(2, f"HELD {len(held)}\n".encode())
    time.sleep(600)


def attack_at_play() -> None:
    if MODE == "memfd":
        fd = os.memfd_create(f"hog-{MARKER}")
        block = b"x" * (1 << 20)
        for _ in range(4096):
            os.write(fd, block)
    elif MODE == "tmpfs":
        block = b"x" * (1 << 20)
        try:
            with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), f"hog-{MARKER}"), "wb") as f:
                for _ in range(4096):
                    f.write(block)
                    f.flush()
        except OSError as err:
            print(f"TMPFS {err}", file=sys.stderr, flush=True)
    elif MODE == "forkbomb":
        try:
            while True:
                child(lambda: time.sleep(600))
        except OSError as err:
            print(f"FORK {err}", file=sys.stderr, flush=True)
            sys.exit(1)


played = False
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        if MODE == "spin":
            for _ in range(COUNT):
                child(spin)
        if MODE == "files":
            try:
                for _ in range(COUNT):
                    child(hold_files)
            except OSError as err:  # its process bound: hold what it has
                print(f"FORK {err}", file=sys.stderr, flush=True)
    elif t == "play_request" and not played:
        played = True
        attack_at_play()
    reply = answer(m, MODE)
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(m):
        break
