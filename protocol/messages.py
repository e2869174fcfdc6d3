"""Protocol v1: every message between the referee and a bot, as msgspec Structs.

Framing: one UTF-8 JSON object per line, ending in ``\\n``; the ``type`` field names the
message. Two tagged unions, one per direction: ``RefereeMessage`` (referee -> bot) and
``BotMessage`` (bot -> referee). Seats are numbered 0..players-1 clockwise; cards are wire
codes such as ``"QS"`` (see ``protocol.cards``); times are whole milliseconds.

Compatibility: within a major version, messages and fields may be added. A bot must ignore
message types and fields it does not know; the referee ignores unknown fields in a bot's
messages but refuses unknown message types (``unknown_message``).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import msgspec

from protocol.ruleset import MoonChoice, RuleSet

PROTOCOL: Final = "hearts-bot"
"""The protocol's name, sent in the referee's hello."""
VERSIONS: Final = (1,)
"""Major protocol versions this package speaks."""

ErrorCode: TypeAlias = Literal[
    "timeout",
    "bad_json",
    "line_too_long",
    "unknown_message",
    "wrong_id",
    "illegal_move",
    "protocol_violation",
    "no_common_version",
    "bad_token",
    "seat_taken",
    "busy",
    "output_flood",
]
"""Machine-readable reasons in an ``error`` message."""


class _Message(msgspec.Struct, tag_field="type", kw_only=True):
    """Base of every message: the ``type`` field is the tag."""


# ---------------------------------------------------------------------------------------------
# Shared parts
# ---------------------------------------------------------------------------------------------
class Player(msgspec.Struct, kw_only=True):
    """A seat at the table and the name its bot gave in its hello."""

    seat: int
    """The seat, 0 to players - 1."""
    name: str
    """The name the seat's bot gave in its hello (cut and cleaned), or the seat's configured name."""


class TimeControl(msgspec.Struct, kw_only=True):
    """The match's clock: every decision may take ``per_decision_ms``; time beyond that is
    drawn from a bank of ``bank_ms`` for the whole match; a decision that overruns an empty
    bank is a ``timeout``. ``startup_ms`` covers the handshake."""

    per_decision_ms: int
    """Milliseconds each decision may take before the bank is drawn on."""
    bank_ms: int
    """Milliseconds of extra time for the whole match."""
    startup_ms: int
    """Milliseconds for the handshake."""


class TimeLeft(msgspec.Struct, kw_only=True):
    """Time for the decision asked for: ``decision_ms`` before the bank is touched, and what
    is left in the bank. The referee's clock runs from writing the request to reading the
    complete reply line."""

    decision_ms: int
    """Milliseconds this decision may take before the bank is drawn on."""
    bank_ms: int
    """Milliseconds left in the bank."""


# ---------------------------------------------------------------------------------------------
# Referee -> bot
# ---------------------------------------------------------------------------------------------
class Hello(_Message, tag="hello"):
    """The referee's first line. Answer with ``hello`` naming one of ``versions``."""

    protocol: str = PROTOCOL
    """The protocol's name: ``"hearts-bot"``."""
    versions: list[int] = msgspec.field(default_factory=lambda: list(VERSIONS))
    """The major protocol versions the referee speaks."""
    referee: str = ""
    """The referee's name and version, for information."""


class MatchStart(_Message, tag="match_start"):
    """A match begins. One connection may play several matches in a row."""

    match_id: str
    """A label for the match (opaque: do not parse it)."""
    seat: int
    """Your seat."""
    players: list[Player]
    """Every seat and its name, by seat."""
    rules: RuleSet
    """The complete rules; see docs/rules.md."""
    time: TimeControl
    """The match's clock."""


class RoundStart(_Message, tag="round_start"):
    """A new deal: your hand, the dealer and where passed cards go this round."""

    round: int
    """0-based number of the deal in the match (a redeal after a revoke counts)."""
    dealer: int
    """The dealer's seat."""
    hand: list[str]
    """Your cards (clubs, diamonds, spades, hearts, low to high)."""
    pass_direction: str
    """``left``, ``right``, ``across``, ``left2``, ``right2`` or ``hold``."""
    pass_count: int
    """Cards to pass (0 in a hold round)."""
    pass_to: int | None
    """The seat your passed cards go to; ``null`` in a hold round."""
    match_phase: int
    """1, or 2 in the count-down phase of a two-phase match (points taken are subtracted)."""
    scores: list[int]
    """Match scores before this round, by seat."""


class PassRequest(_Message, tag="pass_request"):
    """Choose ``count`` distinct cards from ``legal`` (your hand) to pass. Reply ``pass``."""

    id: int
    """The request id: echo it."""
    count: int
    """How many cards to pass."""
    legal: list[str]
    """The cards you may pass: your whole hand."""
    to_seat: int
    """The seat they go to."""
    time: TimeLeft
    """Time for this decision."""


class Passed(_Message, tag="passed"):
    """Passing is over (every seat has passed): what you gave and what you got."""

    given: list[str]
    """The cards you passed (in hand order: clubs, diamonds, spades, hearts, low to high)."""
    to_seat: int
    """The seat that got them."""
    received: list[str]
    """The cards passed to you (in hand order)."""
    from_seat: int
    """The seat that passed them."""
    hand: list[str]
    """Your hand after the exchange."""


PassResult = Passed
"""The former name of ``Passed`` (kept so that bots written against it still import it)."""


class DeclareRequest(_Message, tag="declare_request"):
    """Declare whether you will take no penalty points this round (Achterhoeks *miezen*:
    kept -points, broken +points). Reply ``declare``. ``declarations`` holds the earlier
    seats' decisions (``null`` for seats yet to decide)."""

    id: int
    """The request id: echo it."""
    declarations: list[bool | None]
    """By seat: the decisions made so far, ``null`` for seats yet to decide (you among them)."""
    points: int
    """What a declaration is worth: kept -points, broken +points (``rules.declaration_points``)."""
    time: TimeLeft
    """Time for this decision."""


class Declared(_Message, tag="declared"):
    """A seat made its declaration (``true``: it will take no penalty points)."""

    seat: int
    """Who declared."""
    declared: bool
    """``true``: that seat will take no penalty points this round."""


class PlayRequest(_Message, tag="play_request"):
    """Your turn: play one card from ``legal``. Reply ``play``."""

    id: int
    """The request id: echo it."""
    legal: list[str]
    """The cards you may play (never empty): every rule already applied."""
    trick: list[str]
    """Cards already in the current trick, the leader's first."""
    leader: int
    """The seat that led (or leads) this trick."""
    trick_number: int
    """The trick, from 0."""
    hearts_broken: bool
    """Whether hearts may be led (broken this round, or ``hearts_lead`` is ``any_time``)."""
    time: TimeLeft
    """Time for this decision."""


class CardPlayed(_Message, tag="card_played"):
    """A seat (any seat, yours too) played a card."""

    seat: int
    """Who played it."""
    card: str
    """The card."""
    trick_number: int
    """The trick it went to, from 0."""


class TrickEnd(_Message, tag="trick_end"):
    """A trick is complete."""

    trick_number: int
    """The trick, from 0."""
    leader: int
    """Who led it."""
    cards: list[str]
    """In the order played, the leader's first."""
    winner: int | None
    """Who took it; ``null`` when every card of the led suit was cancelled (double deck) and
    the cards go on to the next trick's winner."""
    points: int
    """Points the winner took with it (cards carried from a cancelled trick included)."""


class MoonRequest(_Message, tag="moon_request"):
    """You took every penalty card: choose how the moon is scored. Reply ``moon``."""

    id: int
    """The request id: echo it."""
    options: list[MoonChoice]
    """``["add_to_others", "subtract_from_shooter"]``."""
    points: int
    """The moon's worth."""
    time: TimeLeft
    """Time for this decision."""


class RoundEnd(_Message, tag="round_end"):
    """The round is scored. Per-seat lists are indexed by seat."""

    round: int
    """The round, as in ``round_start``."""
    points_taken: list[int]
    """Card points in the tricks each seat took, before the moon."""
    score_changes: list[int]
    """What this round added to each score (negative lowers it)."""
    scores: list[int]
    """Match scores after this round."""
    moon: int | None
    """The seat that shot the moon, if any."""
    moon_scoring: str | None
    """How that moon was scored: ``add_to_others``, ``subtract_from_shooter`` or ``none``; ``null`` without a moon."""
    declared: list[bool]
    """Which seats declared (all ``false`` without declarations)."""
    declaration_success: list[bool | None]
    """By seat: declaration kept (``true``) or broken (``false``); ``null`` for no declaration."""
    revoke: int | None
    """The seat given the revoke penalty (the hand is dealt again), if any."""
    match_phase: int
    """The phase this round was played in."""
    next_match_phase: int
    """The phase of the next round (2 once a two-phase match has reached its threshold)."""


class SeatOutcome(msgspec.Struct, kw_only=True):
    """How a seat finished: ``ok``, or the reason it was dropped (``timeout``, ``crash``,
    ``disconnect``, ``bad_json``, ``line_too_long``, ``illegal_move``, ``protocol_violation``,
    ...). A dropped seat was played by the referee's fallback and cannot win."""

    seat: int
    """The seat."""
    name: str
    """The seat's name, as in ``match_start``."""
    status: str
    """``ok``, or the termination reason the seat was dropped for."""
    substitutions: int = 0
    """Illegal moves the referee answered by playing its fallback move for the seat (policy ``substitute``)."""
    penalties: int = 0
    """Revoke penalties the seat was given for illegal moves (policy ``penalty``)."""


class MatchEnd(_Message, tag="match_end"):
    """The match is over. Several ``winners`` is a tie."""

    match_id: str
    """As in ``match_start``."""
    scores: list[int]
    """Final scores by seat."""
    winners: list[int]
    """The winning seats (several: a tie; empty when every bot was dropped)."""
    reason: str
    """``target_reached``, ``rounds_played``, ``reached_zero``, ``nobody_can_reach_zero``,
    ``round_limit``, ``all_bots_dropped`` or ``interrupted``."""
    rounds: int
    """Rounds played (deals, redeals included)."""
    seats: list[SeatOutcome]
    """How each seat finished, by seat."""


class Error(_Message, tag="error"):
    """Something you sent was refused. ``fatal``: you are dropped from the match and the
    connection will close; otherwise the referee applied the match's policy and goes on."""

    code: ErrorCode
    """The machine-readable reason."""
    message: str
    """A sentence for the bot's author."""
    fatal: bool
    """Whether you are dropped from the match."""
    request_id: int | None = None
    """The id of the request the error concerns; ``null`` when none is (the handshake)."""
    rule: str | None = None
    """For ``illegal_move``: the rule broken (``must_follow_suit``, ``hearts_not_broken``, ...)."""


class Goodbye(_Message, tag="goodbye"):
    """No more matches on this connection: exit (or close the connection)."""

    reason: str = "done"
    """Why the connection ends (``done``)."""


RefereeMessage: TypeAlias = (
    Hello
    | MatchStart
    | RoundStart
    | PassRequest
    | Passed
    | DeclareRequest
    | Declared
    | PlayRequest
    | CardPlayed
    | TrickEnd
    | MoonRequest
    | RoundEnd
    | MatchEnd
    | Error
    | Goodbye
)


# ---------------------------------------------------------------------------------------------
# Bot -> referee
# ---------------------------------------------------------------------------------------------
class BotHello(_Message, tag="hello"):
    """The bot's answer to the referee's hello: the chosen version and who it is."""

    version: int
    name: str
    bot_version: str = ""
    author: str = ""
    token: str | None = None
    """The seat token, for bots that connect over TCP."""


class Pass(_Message, tag="pass"):
    """Answer to ``pass_request``."""

    id: int
    """The request's id."""
    cards: list[str]
    """The cards to pass: ``count`` distinct cards of ``legal``."""


class Play(_Message, tag="play"):
    """Answer to ``play_request``."""

    id: int
    """The request's id."""
    card: str
    """The card to play, one of ``legal``."""


class Declare(_Message, tag="declare"):
    """Answer to ``declare_request``."""

    id: int
    """The request's id."""
    declare: bool
    """``true``: you will take no penalty points this round."""


class Moon(_Message, tag="moon"):
    """Answer to ``moon_request``."""

    id: int
    """The request's id."""
    choice: MoonChoice
    """One of the request's ``options``."""


BotMessage: TypeAlias = BotHello | Pass | Play | Declare | Moon


def _tags(*classes: type[_Message]) -> frozenset[str]:
    return frozenset(str(cls.__struct_config__.tag) for cls in classes)


REFEREE_TYPES: Final = _tags(
    Hello,
    MatchStart,
    RoundStart,
    PassRequest,
    Passed,
    DeclareRequest,
    Declared,
    PlayRequest,
    CardPlayed,
    TrickEnd,
    MoonRequest,
    RoundEnd,
    MatchEnd,
    Error,
    Goodbye,
)
"""Every ``type`` the referee sends in this version."""
BOT_TYPES: Final = _tags(BotHello, Pass, Play, Declare, Moon)
"""Every ``type`` a bot may send in this version."""
