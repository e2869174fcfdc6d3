"""A bot that reads its input in blocks, as ``mawk`` does: ``sys.stdin.buffer.read(4096)`` waits
for 4096 bytes or the end of its input before it returns, so the bot sees a request only once its
input ends. It flushes every line it writes, and says on stderr what it reads (``read: TYPE``),
as a bot author's log does. With ``lines`` (argv[1]) it reads line by line instead, and plays."""

import json
import sys

from first_legal_bot import answer, ends

BY_LINE = sys.argv[1:2] == ["lines"]


def lines():
    """The lines of stdin, a block at a time (or one at a time with ``lines``)."""
    if BY_LINE:
        yield from sys.stdin.buffer
        return
    pending = b""
    while block := sys.stdin.buffer.read(4096):
        pending += block
        *complete, pending = pending.split(b"\n")
        yield from complete


for line in lines():
    message = json.loads(line)
    print(f"read: {message['type']}", file=sys.stderr, flush=True)
    reply = answer(message, "block-reader")
    if reply is not None:
        print(json.dumps(reply), flush=True)
    elif ends(message):
        break
