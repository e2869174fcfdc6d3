"""A ladder test bot that tries to cheat, and says on stderr what it found (one JSON line).

Arguments: ``memory=PATH`` a file it looks for when it starts (written by an earlier copy of
itself) and then writes; ``peek=PATH`` (repeatable) paths of the ladder's own files it tries to
read, list and write. It plays the first legal card otherwise, and exits on goodbye.
"""

import json
import os
import sys

from first_legal_bot import play


def params() -> tuple[str | None, list[str]]:
    memory = None
    peek: list[str] = []
    for arg in sys.argv[1:]:
        key, _, value = arg.partition("=")
        if key == "memory":
            memory = value
        elif key == "peek":
            peek.append(value)
    return memory, peek


def try_peek(path: str) -> dict[str, object]:
    """What the bot could do with one of the referee's paths."""
    seen: dict[str, object] = {"path": path, "exists": os.path.exists(path)}
    if os.path.isdir(path):
        try:
            seen["listing"] = sorted(os.listdir(path))
        except OSError as err:
            seen["listing"] = f"error: {err.strerror}"
        target = os.path.join(path, "00000-9.jsonl")
    else:
        try:
            with open(path, "rb") as file:
                seen["read_bytes"] = len(file.read())
        except OSError as err:
            seen["read_bytes"] = f"error: {err.strerror}"
        target = path
    try:
        with open(target, "ab") as file:
            file.write(b"forged by a bot\n")
        seen["wrote"] = True
    except OSError as err:
        seen["wrote"] = f"error: {err.strerror}"
    return seen


def main() -> None:
    memory, peek = params()
    report: dict[str, object] = {"memory_found": None, "peek": [try_peek(p) for p in peek]}
    if memory is not None:
        report["memory_found"] = os.path.exists(memory)
        try:
            with open(memory, "a") as file:
                file.write("the deals of the last rotation\n")
        except OSError as err:
            report["memory_written"] = f"error: {err.strerror}"
    print("spy " + json.dumps(report), file=sys.stderr, flush=True)
    play("spy")


main()
