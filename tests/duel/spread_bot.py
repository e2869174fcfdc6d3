"""A bot spread over folders, as a bot author's repository lays one out: ``bin/hearts-bot``
(the command) loads its code from ``src/`` and a library from ``vendor/``, and reads its name
from ``config.json`` by a relative path, from the folder it runs in. It starts only where
that folder is shown to it whole: what ``referee duel``'s ``dir=`` is for."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

FILES = {
    "bin/hearts-bot": '''#!/usr/bin/env python3
"""The bot's command: its code is in src/, its library in vendor/."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "src"), os.path.join(ROOT, "vendor")]

from hearts_bot.main import main  # noqa: E402

main()
''',
    "src/hearts_bot/__init__.py": "",
    "src/hearts_bot/main.py": """import json
import sys

from cards import first  # vendor/cards.py


def answer(message, name):
    kind = message.get("type")
    if kind == "hello":
        return {"type": "hello", "version": 1, "name": name}
    if kind == "pass_request":
        return {"type": "pass", "id": message["id"], "cards": first(message["legal"], message["count"])}
    if kind == "play_request":
        return {"type": "play", "id": message["id"], "card": first(message["legal"], 1)[0]}
    if kind == "declare_request":
        return {"type": "declare", "id": message["id"], "declare": False}
    if kind == "moon_request":
        return {"type": "moon", "id": message["id"], "choice": "add_to_others"}
    return None


def main():
    with open("config.json") as file:  # from the folder it runs in
        name = json.load(file)["name"]
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message, name)
        if reply is not None:
            print(json.dumps(reply), flush=True)
        elif message.get("type") == "goodbye" or (message.get("type") == "error" and message.get("fatal")):
            break
""",
    "vendor/cards.py": '''def first(cards, count):
    """The first ``count`` cards."""
    return list(cards[:count])
''',
    "config.json": '{"name": "spread"}\n',
}


def spread_bot(folder: Path) -> Path:
    """The bot written in ``folder`` (made, readable by the sandbox's own uids); ``folder``."""
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (folder / "bin" / "hearts-bot").chmod(0o755)
    for root, dirs, _files in os.walk(folder):
        for name in dirs:
            Path(root, name).chmod(0o755)
    folder.chmod(0o755)
    return folder


def copied(folder: Path, to: Path) -> Path:
    """A copy of the bot in ``folder`` at ``to``."""
    shutil.copytree(folder, to)
    return to
