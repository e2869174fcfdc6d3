"""A test bot that throws points away on purpose: it plays the first legal card, except that
when the Q♠ is in the trick and it can follow suit both under and over the winning card,
it takes the trick (the planted blunder ``referee analyze`` must flag). ``blunder`` is the
rule on wire codes, so the analysis tests can plant it in-process too."""

import json
import sys

from first_legal_bot import answer, ends

RANKS = "23456789TJQKA"


def blunder(legal: list[str], trick: list[str]) -> str | None:
    """The card that takes the Q♠ when a lower one would duck, or ``None`` (no such chance)."""
    if "QS" not in trick:
        return None
    led = trick[0][1]
    follow = [c for c in legal if c[1] == led]
    top = max(RANKS.index(c[0]) for c in trick if c[1] == led)
    over = [c for c in follow if RANKS.index(c[0]) > top]
    under = [c for c in follow if RANKS.index(c[0]) < top]
    return over[0] if over and under else None


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message, "blunder")
        if reply is not None and message.get("type") == "play_request":
            card = blunder(message["legal"], message.get("trick", []))
            if card is not None:
                reply["card"] = card
        if reply is not None:
            print(json.dumps(reply), flush=True)
        elif ends(message):
            break


if __name__ == "__main__":
    main()
