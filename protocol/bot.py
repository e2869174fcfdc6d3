"""A small kit for writing a Hearts bot in Python.

Subclass ``Bot``, give it a ``name``, and implement two methods::

    from protocol.bot import Bot, card_rank, main

    class LowBot(Bot):
        name = "low"

        def choose_pass(self, state, request):
            return sorted(request.legal, key=card_rank)[-request.count:]   # pass the highest

        def choose_play(self, state, request):
            return min(request.legal, key=card_rank)                       # play the lowest

    if __name__ == "__main__":
        raise SystemExit(main(LowBot))

The kit speaks protocol v1 for you: it answers the referee's ``hello``, echoes every request
id, flushes every reply at once, ignores message types and fields it does not know, keeps a
``TableState`` up to date from the referee's events and stops on ``goodbye``, on a fatal
``error`` or when the input ends. Your methods get the state and the request; they return a
plain answer (a card code such as ``"QS"``, a list of codes, a bool). Cards are wire codes:
rank ``23456789TJQKA`` then suit ``CDSH``.

Your answers are checked before they are sent: an answer that is not legal, or a method that
raises, is logged to stderr and replaced by a legal default, so the referee never sees it
(set ``strict = True`` on your bot to let the exception end the bot instead).

Run a bot with ``main(MyBot)``: over stdin/stdout by default (the referee starts the bot), or
``--tcp HOST:PORT --token T`` (or ``--token-file F``, or ``$HEARTS_TOKEN``: a command line
is readable by every process of the machine) to connect to a referee (a referee that is busy,
refuses the connection or drops it before seating the bot is tried again with backoff, for up to
``--retry-for`` seconds, 60 by default). Log with ``self.log`` or print to
stderr; stdout belongs to the protocol (``main`` sends stray ``print`` output to stderr).
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, ClassVar, Final, Protocol

import msgspec

from protocol.cards import ALL_CODES, parse_card, rank_of
from protocol.codec import MAX_LINE, ProtocolError, decode_referee, encode
from protocol.messages import (
    VERSIONS,
    BotHello,
    BotMessage,
    CardPlayed,
    Declare,
    Declared,
    DeclareRequest,
    Error,
    Goodbye,
    Hello,
    MatchEnd,
    MatchStart,
    Moon,
    MoonRequest,
    Pass,
    PassRequest,
    PassResult,
    Play,
    Player,
    PlayRequest,
    RefereeMessage,
    RoundEnd,
    RoundStart,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import MoonChoice, RuleSet

__all__ = [
    "Backoff",
    "Bot",
    "Session",
    "TableState",
    "TrickRecord",
    "card_rank",
    "card_suit",
    "connect",
    "deck_codes",
    "main",
    "run",
    "trick_winner",
]

_log = logging.getLogger("protocol.bot")

# ---------------------------------------------------------------------------------------------
# Card helpers
# ---------------------------------------------------------------------------------------------
_RANKS = {code: rank_of(parse_card(code)) for code in ALL_CODES}


def card_suit(code: str) -> str:
    """The suit letter of a card code: ``"C"``, ``"D"``, ``"S"`` or ``"H"``."""
    return code[-1]


def card_rank(code: str) -> int:
    """The rank of a card code as a number, 2..14 (11 jack, 12 queen, 13 king, 14 ace)."""
    rank = _RANKS.get(code)
    return rank if rank is not None else rank_of(parse_card(code))


def trick_winner(cards: Sequence[str], identical_cards: str = "cancel") -> int | None:
    """The index in ``cards`` (played in order, the leader's first) of the card winning the
    trick so far: the highest card of the led suit. With two decks (``rules.copies == 2``)
    two identical cards cancel each other (``identical_cards="cancel"``, then ``None`` when
    every card of the led suit is cancelled) or the later one wins (``"later_wins"``). With
    one deck there are no identical cards and the option does not matter."""
    if not cards:
        return None
    led = card_suit(cards[0])
    ranks = [card_rank(c) if card_suit(c) == led else -1 for c in cards]
    if identical_cards == "cancel":
        live = [r for r in ranks if r >= 0 and ranks.count(r) == 1]
        return ranks.index(max(live)) if live else None
    best = max(ranks)
    return len(ranks) - 1 - ranks[::-1].index(best)


_TRIM_ORDER = [r + s for r in "23456789TJQKA" for s in "DS"]


@lru_cache(maxsize=32)
def _deck(rules_json: bytes) -> tuple[str, ...]:
    rules = msgspec.json.decode(rules_json, type=RuleSet)
    low = 2 if rules.deck == "standard" else 7
    faces = [code for code in ALL_CODES if card_rank(code) >= low]
    faces += [code for code in (_normal(c) for c in rules.add) if code not in faces]
    cards = faces * max(1, rules.copies)
    for code in rules.remove:
        if _normal(code) in cards:
            cards.remove(_normal(code))
    if rules.trim_to_deal_evenly:
        for code in _TRIM_ORDER:
            while code in cards and len(cards) % rules.players:
                cards.remove(code)
    return tuple(sorted(cards, key=lambda c: ("CDSH".index(card_suit(c)), card_rank(c))))


def _normal(code: str) -> str:
    """A card code in its wire form: ``"qs"`` -> ``"QS"``, ``"10H"`` -> ``"TH"``."""
    text = code.strip().upper()
    return "T" + text[2:] if text.startswith("10") else text


def deck_codes(rules: RuleSet) -> list[str]:
    """Every card in play under ``rules`` (twice each in a double deck), clubs first."""
    return list(_deck(msgspec.json.encode(rules)))


# ---------------------------------------------------------------------------------------------
# The table as the bot knows it
# ---------------------------------------------------------------------------------------------
class TrickRecord(msgspec.Struct, frozen=True):
    """A finished trick of the current round."""

    number: int
    """0-based trick number within the round."""
    leader: int
    cards: list[str]
    """In the order played, the leader's first."""
    winner: int | None
    """The seat that took it; ``None`` when every card of the led suit was cancelled (double
    deck) and the cards went on to the next trick's winner."""
    points: int

    def seat_of(self, index: int, players: int) -> int:
        """The seat that played ``cards[index]``."""
        return (self.leader + index) % players


class TableState:
    """Everything a seat knows about the match, kept current by the kit from the referee's
    messages. Read it; never change it (the kit owns it). Seats are numbered 0..n-1
    clockwise; per-seat lists are indexed by seat. Round fields are reset by ``round_start``,
    match fields by ``match_start``."""

    def __init__(self) -> None:
        self._clear_match()
        self._clear_round(0)

    def _clear_match(self) -> None:
        self.match_id = ""
        self.seat = -1
        """Your seat."""
        self.rules = RuleSet()
        """The match's rules (see docs/rules.md); ``value(card)`` reads ``rules.card_points``."""
        self.players: list[Player] = []
        """Every seat's ``Player`` (seat number and bot name)."""
        self._deck: tuple[RuleSet, list[str]] | None = None
        self.time: TimeControl | None = None
        """The match's clock (per decision, bank, start-up)."""
        self.scores: list[int] = []
        """Match scores by seat (updated at each ``round_start`` and ``round_end``)."""
        self.match_phase = 1
        """1, or 2 in the count-down phase of a two-phase match (points taken are subtracted)."""
        self.last_round: RoundEnd | None = None
        """The last ``round_end`` of this match (moon, declarations, score changes)."""
        self.match_result: MatchEnd | None = None
        """The ``match_end`` message once the match is over."""
        self.time_left: TimeLeft | None = None
        """The time the latest request allows."""

    def _clear_round(self, n: int) -> None:
        self.round = -1
        """0-based number of the deal in the match."""
        self.dealer = -1
        self.pass_direction = "hold"
        """``left``, ``right``, ``across``, ``left2``, ``right2`` or ``hold``."""
        self.pass_to: int | None = None
        """The seat your passed cards go to (``None`` in a round without passing)."""
        self.pass_count = 0
        self.hand: list[str] = []
        """Your cards now: updated after passing and after each of your plays."""
        self.passed: list[str] = []
        """The cards you gave this round (they are in ``pass_to``'s hand until played)."""
        self.received: list[str] = []
        """The cards passed to you this round (already in ``hand``)."""
        self.received_from: int | None = None
        self.declarations: list[bool | None] = [None] * n
        """Per seat: its declaration this round (``None`` while not made, or no declarations)."""
        self.trick: list[str] = []
        """Cards in the current trick, the leader's first."""
        self.trick_leader = -1
        """The seat that led (or leads) the current trick."""
        self.tricks: list[TrickRecord] = []
        """Finished tricks of this round, in order."""
        self.cards_seen: list[str] = []
        """Every card played this round, in order (current trick included)."""
        self.played_by: list[list[str]] = [[] for _ in range(n)]
        """Per seat: the cards it played this round."""
        self.taken: list[list[str]] = [[] for _ in range(n)]
        """Per seat: the cards in the tricks it took this round."""
        self.points_taken: list[int] = [0] * n
        """Per seat: card points taken this round (bonus cards count negative)."""
        self.voids: list[set[str]] = [set() for _ in range(n)]
        """Per seat: suits it has shown it no longer holds (it did not follow suit)."""
        self.hearts_broken = self.rules.hearts_lead == "any_time"
        """Whether hearts may be led (from the play requests, and from the cards played)."""
        self._carry: list[str] = []

    # -- derived facts -------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        """How many seats the table has."""
        return len(self.players) or self.rules.players

    @property
    def first_trick(self) -> bool:
        """Whether the current trick is the round's first."""
        return not self.tricks

    @property
    def led_suit(self) -> str | None:
        """The suit of the current trick's first card, or ``None`` before the lead."""
        return card_suit(self.trick[0]) if self.trick else None

    def value(self, code: str) -> int:
        """The card's points (``rules.card_points``): positive for penalty cards, negative for
        bonus cards, 0 for the rest. Remember that in phase 2 of a two-phase match the points
        you take are subtracted from your score."""
        return self.rules.card_points.get(code, 0)

    def is_penalty(self, code: str) -> bool:
        """Whether the card is a penalty card (worth more than 0)."""
        return self.value(code) > 0

    def deck(self) -> list[str]:
        """Every card in play this match (twice each in a double deck)."""
        if self._deck is None or self._deck[0] is not self.rules:
            self._deck = (self.rules, deck_codes(self.rules))
        return list(self._deck[1])

    def unseen(self) -> list[str]:
        """The cards still in the other seats' hands: the deck minus your hand and every card
        played this round (the cards you passed are among them)."""
        rest = Counter(self.deck())
        rest.subtract(self.hand)
        rest.subtract(self.cards_seen)
        return [code for code in rest.elements()]

    def trick_winner(self) -> int | None:
        """The seat winning the current trick so far (``None`` before the lead, or when every
        card of the led suit is cancelled in a double deck)."""
        index = trick_winner(self.trick, self.rules.identical_cards)
        return None if index is None else (self.trick_leader + index) % self.num_players

    def trick_points(self) -> int:
        """Points in the current trick so far."""
        return sum(self.value(c) for c in self.trick)

    def still_to_play(self) -> list[int]:
        """Seats yet to play to the current trick, in order (you included on your turn)."""
        n = self.num_players
        if not self.trick:
            return [(self.trick_leader + i) % n for i in range(n)] if self.trick_leader >= 0 else []
        return [(self.trick_leader + i) % n for i in range(len(self.trick), n)]

    # -- updating --------------------------------------------------------------------------
    def update(self, message: RefereeMessage) -> None:
        """Apply one referee message. The kit calls this for you before asking your bot."""
        if isinstance(message, MatchStart):
            self._start_match(message)
        elif isinstance(message, RoundStart):
            self._start_round(message)
        elif isinstance(message, PassResult):
            self.hand = list(message.hand)
            self.passed = list(message.given)
            self.received = list(message.received)
            self.received_from = message.from_seat
        elif isinstance(message, DeclareRequest):
            self.declarations = list(message.declarations)
            self.time_left = message.time
        elif isinstance(message, Declared):
            self._grow(message.seat)
            self.declarations[message.seat] = message.declared
        elif isinstance(message, PlayRequest):
            self.time_left = message.time
            self.hearts_broken = message.hearts_broken
            self.trick = list(message.trick)
            self.trick_leader = message.leader
        elif isinstance(message, CardPlayed):
            self._play(message.seat, message.card)
        elif isinstance(message, TrickEnd):
            self._end_trick(message)
        elif isinstance(message, RoundEnd):
            self.scores = list(message.scores)
            self.points_taken = list(message.points_taken)
            self.match_phase = message.next_match_phase
            self.last_round = message
        elif isinstance(message, MatchEnd):
            self.scores = list(message.scores)
            self.match_result = message
        elif isinstance(message, PassRequest | MoonRequest):
            self.time_left = message.time

    def _start_match(self, message: MatchStart) -> None:
        self._clear_match()
        self.match_id = message.match_id
        self.seat = message.seat
        self.players = list(message.players)
        self.rules = message.rules
        self.time = message.time
        self.scores = [0] * self.num_players
        self._clear_round(self.num_players)

    def _start_round(self, message: RoundStart) -> None:
        self._clear_round(self.num_players)
        self.round = message.round
        self.dealer = message.dealer
        self.hand = list(message.hand)
        self.pass_direction = message.pass_direction
        self.pass_to = message.pass_to
        self.pass_count = message.pass_count
        self.match_phase = message.match_phase
        self.scores = list(message.scores)

    def _grow(self, seat: int) -> None:
        """Make the per-seat lists long enough for ``seat`` (a message before any start)."""
        while len(self.declarations) <= seat:
            self.declarations.append(None)
        for lists in (self.played_by, self.taken):
            while len(lists) <= seat:
                lists.append([])
        while len(self.voids) <= seat:
            self.voids.append(set())
        while len(self.points_taken) <= seat:
            self.points_taken.append(0)

    def _play(self, seat: int, card: str) -> None:
        self._grow(seat)
        if not self.trick:
            self.trick_leader = seat
        elif card_suit(card) != card_suit(self.trick[0]):
            self.voids[seat].add(card_suit(self.trick[0]))
        self.trick.append(card)
        self.cards_seen.append(card)
        self.played_by[seat].append(card)
        if seat == self.seat and card in self.hand:
            self.hand.remove(card)
        if card_suit(card) == "H" or (card == "QS" and self.rules.queen_breaks_hearts):
            self.hearts_broken = True

    def _end_trick(self, message: TrickEnd) -> None:
        n = self.num_players
        if self.trick_leader < 0 and not self.trick:
            self.trick_leader = message.leader
        for index in range(len(self.trick), len(message.cards)):  # events we did not see
            self._play((message.leader + index) % n, message.cards[index])
        cards = list(message.cards)
        self.tricks.append(TrickRecord(message.trick_number, message.leader, cards, message.winner, message.points))
        if message.winner is None:
            self._carry += cards
            self.trick_leader = message.leader
        else:
            self._grow(message.winner)
            self.taken[message.winner] += self._carry + cards
            self.points_taken[message.winner] += message.points
            self._carry = []
            self.trick_leader = message.winner
        self.trick = []


# ---------------------------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------------------------
class Bot:
    """Base class of a bot: subclass it, set ``name`` (and ``version``, ``author``), and
    implement ``choose_pass`` and ``choose_play``. One instance plays every match of a
    connection; the ``state`` passed in is reset at each ``match_start``."""

    name: ClassVar[str] = "bot"
    version: ClassVar[str] = ""
    author: ClassVar[str] = ""
    strict: ClassVar[bool] = False
    """``True``: an exception in your code ends the bot instead of being logged and replaced."""

    @property
    def log(self) -> logging.Logger:
        """A logger writing to stderr."""
        return logging.getLogger(f"bot.{self.name}")

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        """Return ``request.count`` different cards of ``request.legal`` (your hand) to pass
        to ``request.to_seat``."""
        raise NotImplementedError

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        """Return one card of ``request.legal``. ``request.trick`` holds the cards already in
        the trick, the leader's first (empty when you lead)."""
        raise NotImplementedError

    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        """Achterhoeks *miezen*: return ``True`` to declare that you will take no penalty
        points this round (kept: minus ``request.points``; broken: plus). Default: no."""
        return False

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        """You shot the moon and may choose how it is scored: one of ``request.options``
        (``"add_to_others"`` or ``"subtract_from_shooter"``). Default: add to the others when
        offered, else the first option."""
        return "add_to_others" if "add_to_others" in request.options or not request.options else request.options[0]

    def on_message(self, state: TableState, message: RefereeMessage) -> None:
        """Called for every referee message after the state has taken it in (requests
        included, before the matching ``choose_*``). Default: nothing."""


# ---------------------------------------------------------------------------------------------
# One conversation, without I/O
# ---------------------------------------------------------------------------------------------
class Session:
    """The protocol conversation of one connection, without I/O: ``handle`` takes a referee
    message and returns the reply to send (or ``None``). ``run`` and ``connect`` drive it over
    a stream; tests can drive it directly."""

    def __init__(self, bot: Bot, token: str | None = None) -> None:
        self.bot = bot
        self.token = token
        self.state = TableState()
        self.finished = False
        """Set by ``goodbye`` or a fatal ``error``: the conversation is over."""
        self.exit_code = 0
        """0, or 1 after a fatal ``error``."""

    def handle(self, message: RefereeMessage) -> BotMessage | None:
        """Take in one message; return the reply it needs, if any."""
        state = self.state
        state.update(message)
        try:
            self.bot.on_message(state, message)
        except Exception:
            if self.bot.strict:
                raise
            _log.exception("on_message raised")
        if isinstance(message, Hello):
            common = set(message.versions) & set(VERSIONS)
            version = max(common) if common else max(VERSIONS)
            if not common:
                _log.error("the referee offers protocol versions %s; this kit speaks %s", message.versions, VERSIONS)
            bot = self.bot
            return BotHello(
                version=version, name=bot.name, bot_version=bot.version, author=bot.author, token=self.token
            )
        if isinstance(message, PassRequest):
            return Pass(id=message.id, cards=self._pass(message))
        if isinstance(message, PlayRequest):
            return Play(id=message.id, card=self._play(message))
        if isinstance(message, DeclareRequest):
            declare = self._ask(self.bot.choose_declare, message, False)
            if not isinstance(declare, bool):
                _log.warning("choose_declare returned %r, not a bool; not declaring", declare)
                declare = False
            return Declare(id=message.id, declare=declare)
        if isinstance(message, MoonRequest):
            return Moon(id=message.id, choice=self._moon(message))
        if isinstance(message, Error):
            level = logging.ERROR if message.fatal else logging.WARNING
            rule = f" ({message.rule})" if message.rule else ""
            _log.log(level, "referee error %s%s: %s", message.code, rule, message.message)
            if message.fatal:
                self.finished = True
                self.exit_code = 1
        elif isinstance(message, Goodbye):
            self.finished = True
        elif isinstance(message, MatchEnd):
            _log.info("match %s over: scores %s, winners %s", message.match_id, message.scores, message.winners)
        return None

    def _ask(self, method: Callable[[TableState, Any], object], request: object, default: object) -> object:
        try:
            return method(self.state, request)
        except Exception:
            if self.bot.strict:
                raise
            _log.exception("%s raised; answering with a legal default", method.__name__)
            return default

    def _play(self, request: PlayRequest) -> str:
        legal = list(request.legal)
        default = legal[0] if legal else ""
        card = self._ask(self.bot.choose_play, request, default)
        if isinstance(card, str) and _normal(card) in legal:
            return _normal(card)
        _log.warning("choose_play returned %r, not one of %s; playing %s", card, legal, default)
        return default

    def _pass(self, request: PassRequest) -> list[str]:
        legal = list(request.legal)
        default = legal[: request.count]
        cards = self._ask(self.bot.choose_pass, request, default)
        if isinstance(cards, list | tuple) and all(isinstance(c, str) for c in cards):
            chosen = [_normal(c) for c in cards]
            if len(chosen) == request.count and not Counter(chosen) - Counter(legal):
                return chosen
        _log.warning("choose_pass returned %r, not %d cards of %s; passing %s", cards, request.count, legal, default)
        return default

    def _moon(self, request: MoonRequest) -> MoonChoice:
        options = list(request.options)
        default: MoonChoice = "add_to_others" if "add_to_others" in options or not options else options[0]
        choice = self._ask(self.bot.choose_moon, request, default)
        for option in options:
            if choice == option:
                return option
        _log.warning("choose_moon returned %r, not one of %s; choosing %s", choice, options, default)
        return default


# ---------------------------------------------------------------------------------------------
# Transports
# ---------------------------------------------------------------------------------------------
class Reader(Protocol):
    """A binary input stream (``sys.stdin.buffer``, ``io.BytesIO``, a socket file)."""

    def readline(self, size: int = -1, /) -> bytes: ...


class Writer(Protocol):
    """A binary output stream."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


def _lines(reader: Reader, max_line: int) -> Iterable[bytes]:
    """Lines without their ending, at most ``max_line`` bytes each: a longer line is logged
    and skipped without ever holding more than ``max_line + 1`` bytes of it."""
    while True:
        line = reader.readline(max_line + 1)
        if not line:
            return
        if len(line) > max_line and not line.endswith(b"\n"):
            _log.warning("skipping a line longer than %d bytes", max_line)
            while line and not line.endswith(b"\n"):
                line = reader.readline(max_line + 1)
            continue
        yield line.rstrip(b"\r\n")


def run(
    bot: Bot,
    stdin: Reader | None = None,
    stdout: Writer | None = None,
    *,
    token: str | None = None,
    max_line: int = MAX_LINE,
) -> int:
    """Play over a pair of binary streams (default: this process's stdin and stdout) until
    ``goodbye``, a fatal ``error`` or the end of the input. Returns an exit status: 0, or 1
    after a fatal error."""
    reader: Reader = stdin if stdin is not None else sys.stdin.buffer
    writer: Writer = stdout if stdout is not None else sys.stdout.buffer
    return _converse(Session(bot, token), reader, writer, max_line)


def _converse(session: Session, reader: Reader, writer: Writer, max_line: int) -> int:
    for line in _lines(reader, max_line):
        if not line.strip():
            continue
        try:
            message = decode_referee(line)
        except ProtocolError as err:
            _log.warning("ignoring a line the kit cannot read (%s): %s", err.code, err.message)
            continue
        if message is None:
            continue  # a message type of a later protocol version
        reply = session.handle(message)
        if reply is not None:
            writer.write(encode(reply))
            writer.flush()
        if session.finished:
            break
    else:
        _log.info("the referee closed the connection")
    return session.exit_code


RETRY_FOR = 60.0
"""Seconds ``connect`` keeps trying a referee that is busy or not (yet) listening."""


class Backoff:
    """The pauses between connection attempts: ``first`` seconds, doubling up to ``cap``, each
    with jitter (a random half to all of it, so bots refused together do not come back
    together), for at most ``total`` seconds in all."""

    def __init__(
        self,
        total: float = RETRY_FOR,
        first: float = 0.1,
        cap: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.clock = clock
        self.jitter = jitter
        self.deadline = clock() + total
        self.delay = first
        self.cap = cap

    def next_pause(self) -> float | None:
        """How long to wait before the next attempt, or ``None`` when the time is up."""
        left = self.deadline - self.clock()
        if left <= 0:
            return None
        pause = min(self.delay * (0.5 + 0.5 * self.jitter()), left)
        self.delay = min(self.delay * 2, self.cap)
        return pause


class _TcpSession(Session):
    """A conversation over TCP that notes whether the referee got past the handshake, and
    takes a ``busy`` refusal before that as a reason to try again rather than an error."""

    def __init__(self, bot: Bot, token: str | None) -> None:
        super().__init__(bot, token)
        self.seated = False
        """A message other than ``hello`` or ``error`` came: the bot has its seat."""
        self.busy: str | None = None
        """The referee's ``busy`` message, if it refused the connection as busy."""

    def handle(self, message: RefereeMessage) -> BotMessage | None:
        if not self.seated and isinstance(message, Error) and message.code == "busy":
            self.busy = message.message
            self.finished = True
            self.exit_code = 1
            return None
        if not isinstance(message, Hello | Error):
            self.seated = True
        return super().handle(message)


def connect(
    bot: Bot,
    host: str,
    port: int,
    token: str | None = None,
    *,
    timeout: float | None = 30.0,
    retry_for: float = RETRY_FOR,
) -> int:
    """Connect to a referee over TCP and play as ``run`` does; ``token`` (the seat token the
    referee gave you) is sent in the hello. ``timeout`` bounds each connection attempt only.

    When the connection is refused, the referee answers ``busy``, or the connection is reset
    or closed before the bot has its seat, the kit tries again after a pause (``Backoff``:
    0.1 s doubling to 5 s, with jitter) for up to ``retry_for`` seconds, logging each retry to
    stderr. Other refusals (``bad_token``, ``seat_taken``, ...) are not retried. Returns the
    exit status: 0, or 1 after a fatal error or when the retries ran out."""
    backoff = Backoff(retry_for)
    while True:
        session = _TcpSession(bot, token)
        try:
            with socket.create_connection((host, port), timeout=timeout) as sock:
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                with sock.makefile("rb") as reader, sock.makefile("wb") as writer:
                    code = _converse(session, reader, writer, MAX_LINE)
        except (ConnectionError, TimeoutError) as err:
            if session.seated:
                _log.error("lost the connection to the referee: %s", err)
                return 1
            why = f"cannot connect to {host}:{port} ({err})"
        else:
            if session.seated or (session.finished and session.busy is None):
                return code
            why = f"the referee is busy ({session.busy})" if session.busy else "the referee closed the connection"
        pause = backoff.next_pause()
        if pause is None:
            _log.error("%s; giving up after %g s", why, retry_for)
            return 1
        _log.warning("%s; trying again in %.1f s", why, pause)
        time.sleep(pause)


def main(bot: Bot | type[Bot], argv: Sequence[str] | None = None) -> int:
    """The command line of a bot program: ``--tcp HOST:PORT --token T [--retry-for S]``
    connects to a referee, otherwise the bot plays over stdin/stdout; ``--log-level`` sets
    stderr logging. Other arguments are left for the bot. Returns the exit status::

        if __name__ == "__main__":
            raise SystemExit(main(MyBot))
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--tcp", metavar="HOST:PORT")
    parser.add_argument("--token")
    parser.add_argument("--token-file")
    parser.add_argument("--retry-for", type=float, default=RETRY_FOR)
    parser.add_argument("--log-level", default="WARNING")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    logging.basicConfig(stream=sys.stderr, level=str(args.log_level).upper(), format="%(name)s: %(message)s")
    player = bot() if isinstance(bot, type) else bot
    token = seat_token(args.token, args.token_file)
    if args.retry_for < 0:
        parser.error(f"--retry-for wants seconds, 0 or more, not {args.retry_for}")  # exits 2, as every kit does
    if args.tcp:
        host, _, port = str(args.tcp).rpartition(":")
        if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            parser.error(f"--tcp wants HOST:PORT with a port from 1 to 65535, not {args.tcp!r}")
        return connect(player, host.strip("[]") or "127.0.0.1", int(port), token, retry_for=args.retry_for)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray print() output must not corrupt the protocol
    return run(player, sys.stdin.buffer, out, token=token)


TOKEN_VARIABLE: Final = "HEARTS_TOKEN"
"""The environment variable a seat token may come in (``--token`` on a command line is visible
to every process of the machine in ``/proc/PID/cmdline``)."""


def seat_token(given: str | None, token_file: str | None) -> str | None:
    """The seat token: ``--token``, else the first line of ``--token-file``, else
    ``$HEARTS_TOKEN``, else none."""
    if given:
        return given
    if token_file:
        with open(token_file, encoding="utf-8") as file:
            return file.readline().strip() or None
    return os.environ.get(TOKEN_VARIABLE) or None
