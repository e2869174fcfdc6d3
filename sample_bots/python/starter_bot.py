"""My first Hearts bot: pass the highest cards, play under the trick when it can.

Built on the Python kit (``protocol.bot``, installed with the referee): the kit speaks the
protocol and keeps the table state; the two methods below are the bot. ``referee new python
DIR`` starts a bot folder from this file.
"""

from protocol.bot import Bot, TableState, card_rank, main
from protocol.messages import PassRequest, PlayRequest


class MyBot(Bot):
    name = "my-bot"
    version = "0.1"
    author = "me"

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        # request.legal is the whole hand; pass the request.count highest cards
        return sorted(request.legal, key=card_rank)[-request.count :]

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        by_rank = sorted(request.legal, key=card_rank)
        if request.trick:  # following: the highest card that still loses the trick
            led = request.trick[0][-1]
            high = max(card_rank(c) for c in request.trick if c[-1] == led)
            under = [c for c in by_rank if c[-1] == led and card_rank(c) < high]
            if under:
                return under[-1]
        return by_rank[0]  # leading, or no card can duck: the lowest card


if __name__ == "__main__":
    raise SystemExit(main(MyBot))
