"""Bot-chosen text made safe to show: seat names and anything else a bot wrote.

A bot picks its own name in its ``hello``, and the referee repeats it to every other bot
(``match_start``), prints it on the operator's terminal and stores it in logs and ladders. So
a name is cut to ``MAX_NAME`` characters and loses every control and format character (a
``\\r\\n`` could forge result lines, an escape sequence could rewrite the terminal, a bidi
override could reverse what is shown). A seat whose bot gave no usable name is called by its
configured name or ``seat N``, never by its command line, which may hold a secret.
"""

from __future__ import annotations

from typing import Final

from protocol.codec import clip

MAX_NAME: Final = 64
"""Longest seat name in characters."""


def safe_name(name: str | None, fallback: str) -> str:
    """A bot's hello name as the table shows it: printable characters only (any run of other
    characters and whitespace becomes one space), trimmed, at most ``MAX_NAME`` characters;
    ``fallback`` when nothing is left."""
    if not name:
        return fallback
    kept = "".join(c if c.isprintable() else " " for c in name[: MAX_NAME * 4])
    cleaned = " ".join(kept.split())[:MAX_NAME].strip()
    return cleaned or fallback


def seat_label(seat: int) -> str:
    """What a seat is called when neither its bot nor its configuration named it."""
    return f"seat {seat}"


def printable(text: str, limit: int | None = None) -> str:
    """Any text from a bot (or from a log, which holds what bots sent) made safe for a
    terminal: every non-printable character is shown as an escape (``\\x1b``, ``\\r``,
    ``\\u202e``), so nothing a bot wrote can move the cursor, clear lines or reorder text;
    at most ``limit`` characters when given."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if limit is None else clip(text, limit)
