"""A test bot that throws points away on purpose: it plays the first legal card, except that
when the Q♠ is in the trick and it can follow suit both under and over the winning card,
it takes the trick (``blunder``), and when spades are led below the Q♠ and it could duck
under the winning spade, it drops the Q♠ on the trick, on itself (``dump_queen``): the planted
blunders ``referee analyze`` must flag. The rules are on wire codes, so the analysis tests
can plant them in-process too. The first-legal pass keeps the Q♠ (it passes its lowest
cards), so the second blunder comes up in natural play, a few times a match."""

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


def dump_queen(legal: list[str], trick: list[str]) -> str | None:
    """The Q♠ dropped on a spade trick it then wins, when a lower spade would duck and another
    would still guard her, or ``None``. (With one small spade beside her, ducking leaves her
    bare, to be caught later: dropping her then costs a couple of points, no blunder.)"""
    if not trick or trick[0][1] != "S" or "QS" not in legal:
        return None
    top = max(RANKS.index(c[0]) for c in trick if c[1] == "S")
    under = [c for c in legal if c[1] == "S" and RANKS.index(c[0]) < top]
    guards = [c for c in legal if c[1] == "S" and RANKS.index(c[0]) < RANKS.index("Q")]
    return "QS" if top < RANKS.index("Q") and under and len(guards) >= 2 else None


def blunders(legal: list[str], trick: list[str]) -> str | None:
    """The bot's blunder at this play, or ``None``."""
    return blunder(legal, trick) or dump_queen(legal, trick)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message, "blunder")
        if reply is not None and message.get("type") == "play_request":
            card = blunders(message["legal"], message.get("trick", []))
            if card is not None:
                reply["card"] = card
        if reply is not None:
            print(json.dumps(reply), flush=True)
        elif ends(message):
            break


if __name__ == "__main__":
    main()
