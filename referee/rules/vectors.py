"""The rules as test vectors: whole rounds played through the round's machine (``turns.py``) by a
seeded, deterministic policy, written down line by line for other engines and bot kits.

Every line is what a referee sends or hears, or what a seat could know: each seat's messages
(built by ``telling.py``, in the order the machine gives them), each request with its legal moves
and its reply, and at each request the asked seat's table state (its hand, the trick so far,
the points taken, hearts broken, the scores), so an engine can check its judgements and a kit its
state, step by step. The format is documented in docs/vectors.md; its JSON Schema is
:func:`schema`. Pure: this module builds lines and bytes, the ``referee vectors`` command writes
them. The same ``FORMAT`` and rules give the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Final, TypeAlias

import msgspec

from protocol.messages import (
    Declare,
    DeclareRequest,
    MatchEnd,
    Moon,
    MoonRequest,
    Pass,
    PassRequest,
    Play,
    PlayRequest,
    RefereeMessage,
    TimeControl,
    TimeLeft,
)
from protocol.ruleset import RuleSet
from referee.rules.match import Match
from referee.rules.presets import ruleset
from referee.rules.round import Round
from referee.rules.scripted import play_scripted
from referee.rules.turns import Ask, IllegalPolicy, Reply
from referee.rules.view import seat_view

FORMAT: Final = 3
"""The version of the vectors' format (the ``format`` of each file's first line); a change of
the lines' fields or of the policy is a new number. 2: the ``match`` line may say where a match
starts (its scores, phase, place in the pass schedule) and that its last round is cut short
(``max_tricks``); a format-1 file reads as a format-2 file whose matches have none of these.
3: the ``match`` line may say that a seat revokes (``revoke``), answered by the revoke penalty
(an ``error`` told to the seat, the round ended, the hand dealt again); a format-2 file reads as
a format-3 file whose matches have no revoke."""
CLOCK: Final = TimeControl(per_decision_ms=1000, bank_ms=10000, startup_ms=5000)
TIME: Final = TimeLeft(decision_ms=1000, bank_ms=10000)
"""What every request says is left on the clock: the vectors have no time in them."""
RANKS: Final = "23456789TJQKA"

Request: TypeAlias = PassRequest | DeclareRequest | PlayRequest | MoonRequest


class PlannedRevoke(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A revoke on purpose: in the match's first round, from trick ``trick`` on, at the first
    play request where seat ``seat`` follows, holds the led suit and holds a card of another
    suit, it plays its highest-ranked card of another suit (of equal ranks, the first in hand
    order) instead of following suit."""

    seat: int
    """The seat that revokes."""
    trick: int
    """The first trick (from 0) of the first round where it revokes, if it can."""


class Game(msgspec.Struct, frozen=True):
    """One match of a preset's vectors: its seed, how many rounds are played at most (a match
    cut short ends as ``interrupted``, as a referee's would), and where it starts when not at
    the start of a match. A few rounds from a match's start never reach what happens at its end
    or late in its pass schedule: a match set in its count-down phase with scores near zero
    shows how Dutch ends in one round, a round far into the schedule shows that direction, and
    a last round cut short after a trick shows a pass direction for a tenth of a round's bytes.
    Every field is written on the ``match`` line (``MatchBegins``), so an outsider's engine can
    start where this one did."""

    seed: int
    rounds: int
    tricks: int | None = None
    """In the last round, the match is cut short at the play request of this trick (so this
    many tricks are played); ``None``: every round is played whole."""
    scores: tuple[int, ...] | None = None
    """The scores the match starts from (``None``: every seat 0)."""
    phase: int = 1
    """The match phase of its first round (2: a two-phase match's count-down)."""
    schedule: int = 0
    """The place in ``rules.pass_schedule`` of its first round."""
    revoke: PlannedRevoke | None = None
    """Where a seat revokes on purpose (``MatchBegins.revoke``); ``None``: every reply is legal."""


def _revoking(players: int, schedule: int = 0) -> Game:
    """Every preset's last match: its last seat revokes in the first round (from trick 0 on),
    and the redeal is stopped at its first play request (docs/vectors.md, "A revoke")."""
    return Game(7, 2, tricks=0, schedule=schedule, revoke=PlannedRevoke(players - 1, 0))


GAMES: Final[dict[str, tuple[Game, ...]]] = {
    "american": (Game(37, 4), _revoking(4)),
    "american-moon-choice": (Game(37, 4), _revoking(4)),
    "american-no-hold": (Game(37, 3), _revoking(4)),
    "american-3": (Game(23, 3), Game(44, 1), _revoking(3)),
    "american-5": (Game(10, 4), _revoking(5, schedule=4)),  # hold: the revoke's round
    "double-deck": (  # a round is 80 KB: one whole, then the first tricks of right, across, hold
        Game(925, 2, tricks=1),
        Game(84, 1, tricks=2, schedule=2),
        Game(51, 1, tricks=1, schedule=3),
        _revoking(6),
    ),
    "omnibus": (Game(37, 4), _revoking(4)),
    "argentine": (Game(390, 4), _revoking(4)),
    "black-maria": (Game(361, 1), Game(205, 1, tricks=1), _revoking(3)),
    "dutch": (Game(36, 6), Game(87, 1, scores=(0, 9, 12, 20), phase=2), _revoking(4)),
    "dutch-modern": (Game(14, 1), Game(23, 2), Game(38, 1, scores=(0, 9, 20, 12), phase=2), _revoking(4)),
    "dutch-classic": (Game(14, 2), _revoking(4)),
    "dutch-35": (Game(21, 2), Game(51, 1, scores=(0, 20, 9, 12), phase=2), _revoking(4)),
    "achterhoeks": (Game(14, 3), Game(86, 1, scores=(3, 23, 9, 7), phase=2), _revoking(4)),
}
"""The matches of each preset's vectors: every pass direction of its schedule played, and
chosen (``vector_coverage.search_games``) so that an engine lacking any one option of the
preset disagrees with a line (``tests/rules/test_vector_coverage.py``, with the gaps it allows
and why); besides, between them they shoot the moon (and a shooter chooses how it scores), make
declarations, cancel identical cards, switch Dutch's phases and end a Dutch match
(``tests/rules/test_vectors.py``). Most are a new match's first rounds, from seeds 1 to 60.
Where those show too little: seeds found further (the double deck's and Argentine's moons,
Black Maria's seat void on the first trick, the double deck's first trick that nobody wins),
the double deck's across and hold rounds as the first tricks of a match started there, and
each two-phase preset's end as a match started in phase 2 with scores chosen from its round:
the shooter (or, in Achterhoeks, the two seats that lose most) ends below zero, and a seat at
0 that takes nothing stays there, so the finish rule and the tie break each decide the
winners. Each preset's last match shows a revoke and its penalty (``_revoking``)."""


# -- the lines ---------------------------------------------------------------------------------
class SeatState(msgspec.Struct, frozen=True, kw_only=True):
    """What the asked seat can know at a request, from the messages it was told before it (never
    from the request itself): a kit that keeps its table state from the events should hold
    exactly this. Per-seat lists are indexed by seat; cards are listed in hand order (clubs,
    diamonds, spades, hearts, each low to high; in the double deck every first copy in that
    order, then the second copies)."""

    seat: int
    """The asked seat (the line's ``seat``)."""
    hand: list[str]
    """The cards the seat holds, in hand order: as dealt at a ``pass_request``, after the
    exchange from then on, empty at a ``moon_request``."""
    trick: list[str]
    """The cards played to the current trick, from its leader on; empty when the seat leads
    and at ``pass_request``, ``declare_request`` and ``moon_request``."""
    trick_leader: int
    """The seat that leads (or led) the current trick: ``-1`` at ``pass_request`` and
    ``declare_request`` (play has not begun); from the round's first ``play_request`` on, the
    trick's leader (in the first trick the opening leader of ``rules.opening_lead``, such as the
    holder of the 2C); at a ``moon_request`` the leader of the round's last trick."""
    trick_number: int
    """The current trick, from 0: the number of tricks completed (at a ``moon_request``, every
    trick of the round: the hand size)."""
    hearts_broken: bool
    """Whether hearts may be led: ``true`` once a heart (or, with ``queen_breaks_hearts``, the
    QS) has been played this round, and from the start where ``hearts_lead`` is ``any_time``."""
    points_taken: list[int]
    """Card points each seat has taken in this round's completed tricks (bonus cards negative;
    the cards of a trick whose led suit cancelled out count for the next trick's winner); at a
    ``moon_request``, before the moon is scored (as ``round_end.points_taken``)."""
    scores: list[int]
    """The match's scores before this round (as ``round_start`` told them)."""
    declared: list[bool | None]
    """Each seat's declaration, ``null`` where none was made (yet); all ``null`` where the rules
    have no declarations."""
    passed: list[str] | None
    """The cards the seat gave, in hand order (not the order of its ``pass`` reply), once every
    seat has passed (so never at a ``pass_request``); ``null`` before, and in a round without
    passing."""
    received: list[str] | None
    """The cards the seat got, in hand order; ``null`` exactly when ``passed`` is."""
    match_phase: int
    """1, or 2 in the count-down phase of a two-phase match."""


class _Line(msgspec.Struct, tag_field="type", kw_only=True):
    """One line of a vectors file."""


class Header(_Line, tag="vectors"):
    """The first line: the format's version, the preset and its rules, how the moves were chosen."""

    format: int
    """The version of the format: 2 (docs/vectors.md)."""
    preset: str
    """The preset's name (``referee variants``); the file is ``NAME.jsonl``."""
    rules: RuleSet
    """The preset's complete rule set, every option of docs/rules.md (as in ``match_start``)."""
    policy: str
    """How the moves were chosen (a sentence; see docs/vectors.md)."""
    matches: int
    """How many matches follow (each from a ``match`` line to an ``end`` line)."""


class MatchBegins(_Line, tag="match", omit_defaults=True):
    """A match begins: its id, the seed of its deals (``referee.rules.dealing``), at most how many
    rounds are played, and, for a match that does not start as a new match does, where it starts
    (the fields left out when they are their default: a match from scratch has none of them)."""

    match_id: str
    """The match's id (``PRESET-N``, N from 1), as in its ``match_start`` and ``match_end``."""
    seed: int
    """The seed of the referee's shuffle (``referee.rules.dealing``) and of the policy."""
    max_rounds: int
    """At most how many rounds are played before the match is cut short (``interrupted``)."""
    max_tricks: int | None = None
    """Absent: every round is played whole. Else, in the match's last round (its round
    ``max_rounds - 1``) only this many tricks are played: the match is cut short
    (``interrupted``, the round unscored) where the play request of the next trick would be."""
    scores: list[int] | None = None
    """The scores by seat the match starts from, as its first ``round_start`` tells them;
    absent: every seat 0."""
    match_phase: int = 1
    """The match phase of the first round: 1, or 2 for a two-phase match that starts in its
    count-down phase (the threshold crossed before: it is not checked again); absent: 1."""
    schedule_index: int = 0
    """Where in ``rules.pass_schedule`` the first round is: round *i* passes
    ``pass_schedule[(schedule_index + i) mod len(pass_schedule)]`` (rounds still count from 0);
    absent: 0."""
    revoke: PlannedRevoke | None = None
    """Absent: every reply in the match is legal. Else where a seat revokes on purpose: its
    ``play`` is not in its request's ``legal``. The referee answers that illegal move with the
    revoke penalty (policy ``penalty``, docs/rules.md ``revoke_points``): it tells the seat alone
    an ``error`` (code ``illegal_move``, not fatal, the rule broken, the request's id), the round
    ends at once with a ``round_end`` whose ``revoke`` is the seat (+``revoke_points`` to it, 0
    to every other seat, no moon or declaration scored), and the hand is dealt again by the same
    dealer with the same pass direction (the next ``round_start``'s ``round`` counts the
    redeal); ``match_end`` counts the seat's ``penalties``."""


class Told(_Line, tag="tell"):
    """``seat`` is told ``message`` (``seat`` is ``null``: every seat is told the same)."""

    seat: int | None
    """The seat told, or ``null``: every seat is told the same message."""
    message: RefereeMessage
    """A protocol v1 message from the referee, exactly as sent (docs/protocol.md)."""


class Asked(_Line, tag="ask"):
    """``seat`` is sent ``request`` and answers ``reply``; ``state`` is its table state then."""

    seat: int
    """The seat asked."""
    request: Request
    """A protocol v1 request, exactly as sent: ``pass_request``, ``declare_request``,
    ``play_request`` or ``moon_request``."""
    state: SeatState
    """The seat's table state when the request is sent."""
    reply: Reply
    """The seat's answer (the policy's), a protocol v1 message with the request's ``id``."""


class MatchOver(_Line, tag="end"):
    """A match is over (or cut short): the final scores, the winners, the rounds played."""

    scores: list[int]
    """Final scores by seat, as in ``match_end``."""
    winners: list[int]
    """The winning seats (several: a tie), as in ``match_end``."""
    rounds: int
    """Rounds played, as in ``match_end``."""
    reason: str
    """Why the match ended, as in ``match_end`` (``interrupted`` when cut short after
    ``max_rounds``)."""


Line: TypeAlias = Header | MatchBegins | Told | Asked | MatchOver


# -- the policy --------------------------------------------------------------------------------
POLICY: Final = (
    "random.Random(seed); the bold seat (seed % players) passes its lowest-ranked cards and plays "
    "its highest-ranked legal card; the others pass and play a random legal card; every seat "
    "declares with probability 0.3 and picks a random moon option"
)


class VectorPlayer:
    """The seeded, deterministic player of every seat (``POLICY``); one seat plays boldly so
    that moons are shot now and then."""

    def __init__(self, seed: int, players: int) -> None:
        self._rng = random.Random(seed)
        self.bold = seed % players

    def reply(self, seat: int, request: Request) -> Reply:
        rng = self._rng
        if isinstance(request, PassRequest):
            if seat == self.bold:
                cards = sorted(request.legal, key=_rank)[: request.count]
            else:
                cards = rng.sample(request.legal, request.count)
            return Pass(id=request.id, cards=cards)
        if isinstance(request, DeclareRequest):
            return Declare(id=request.id, declare=rng.random() < 0.3)
        if isinstance(request, PlayRequest):
            card = max(request.legal, key=_rank) if seat == self.bold else rng.choice(request.legal)
            return Play(id=request.id, card=card)
        return Moon(id=request.id, choice=rng.choice(request.options))


def _rank(code: str) -> int:
    return RANKS.index(code[0])


# -- a match -----------------------------------------------------------------------------------
def seat_state(round_: Round, seat: int, scores: list[int]) -> SeatState:
    """``seat``'s state in ``round_`` now (``scores``: the match's before the round)."""
    view = seat_view(round_, seat)
    return SeatState(
        seat=seat,
        hand=view.hand,
        trick=view.trick,
        trick_leader=view.trick_leader,
        trick_number=round_.trick_number,
        hearts_broken=view.hearts_broken,
        points_taken=view.points_taken,
        scores=scores,
        declared=view.declared,
        passed=view.passed if view.received is not None else None,
        received=view.received,
        match_phase=view.match_phase,
    )


def match_lines(rules: RuleSet, game: Game, match_id: str) -> Iterator[Line]:
    """Every line of one match of ``rules`` played by the policy (``scripted.play_scripted``),
    from where ``game`` starts it."""
    match = start_match(rules, game)
    player = VectorPlayer(game.seed, rules.players)
    lines: list[Line] = [begins(game, match_id)]
    revoked = False

    def answer(ask: Ask, rid: int, round_: Round) -> Reply:
        nonlocal revoked
        request = ask.request(rid, TIME)
        assert isinstance(request, (PassRequest, DeclareRequest, PlayRequest, MoonRequest))
        state = seat_state(round_, ask.seat, list(match.scores))
        reply = None if revoked else revoke_of(game, len(match.results), ask.seat, request, state.hand)
        revoked = revoked or reply is not None
        asked = Asked(seat=ask.seat, request=request, state=state, reply=reply or player.reply(ask.seat, request))
        lines.append(asked)
        return asked.reply

    def tell(seat: int | None, message: RefereeMessage) -> None:
        lines.append(Told(seat=seat, message=message))

    names = [f"seat-{s}" for s in range(rules.players)]
    policy = IllegalPolicy("penalty", 1) if game.revoke is not None else None
    play_scripted(match, names, match_id, answer, tell, clock=CLOCK, max_rounds=game.rounds, max_tricks=game.tricks,
                  policy=policy)  # fmt: skip
    if game.revoke is not None and not revoked:
        raise ValueError(f"{match_id}: seat {game.revoke.seat} never could revoke in the first round")
    yield from lines
    end = match_end_of(lines)
    yield MatchOver(scores=end.scores, winners=end.winners, rounds=end.rounds, reason=end.reason)


def start_match(rules: RuleSet, game: Game) -> Match:
    """A new match of ``rules`` from ``game``'s seed, set where ``game`` starts it: its scores,
    its phase, its place in the pass schedule (what a match that got there would hold)."""
    return Match.resumed(rules, game.seed, scores=game.scores, phase=game.phase, schedule_index=game.schedule)


def begins(game: Game, match_id: str) -> MatchBegins:
    """The ``match`` line of ``game``: where it starts, its defaults left out."""
    return MatchBegins(
        match_id=match_id,
        seed=game.seed,
        max_rounds=game.rounds,
        max_tricks=game.tricks,
        scores=list(game.scores) if game.scores is not None else None,
        match_phase=game.phase,
        schedule_index=game.schedule,
        revoke=game.revoke,
    )


def revoke_of(game: Game, round_number: int, seat: int, request: Request, hand: Sequence[str]) -> Play | None:
    """The revoke ``game`` asks of ``seat``, which holds ``hand`` (``PlannedRevoke``), or ``None``."""
    revoke = game.revoke
    if revoke is None or seat != revoke.seat or round_number != 0 or not isinstance(request, PlayRequest):
        return None
    led = request.trick[0][-1] if request.trick else None
    others = [card for card in hand if card[-1] != led]
    if led is None or request.trick_number < revoke.trick or not others or any(c[-1] != led for c in request.legal):
        return None
    return Play(id=request.id, card=max(others, key=_rank))


def match_end_of(lines: Sequence[Line]) -> MatchEnd:
    """The ``match_end`` message told last."""
    last = lines[-1]
    assert isinstance(last, Told) and isinstance(last.message, MatchEnd)
    return last.message


def preset_lines(preset: str) -> Iterator[Line]:
    """Every line of ``preset``'s vectors: the header, then each of its ``GAMES``."""
    rules = ruleset(preset)
    games = GAMES[preset]
    yield Header(format=FORMAT, preset=preset, rules=rules, policy=POLICY, matches=len(games))
    for number, game in enumerate(games, 1):
        yield from match_lines(rules, game, f"{preset}-{number}")


_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(Line)


def preset_bytes(preset: str) -> bytes:
    """``preset``'s vectors file: one JSON object per line (JSON Lines), UTF-8."""
    return b"".join(_encoder.encode(line) + b"\n" for line in preset_lines(preset))


def read_line(data: bytes | str) -> Line:
    """One line of a vectors file, decoded and checked against its type."""
    return _decoder.decode(data)


# -- the schema --------------------------------------------------------------------------------
