"""The match runner: where the rules meet the bots.

For every decision the runner builds the request from the seat's view, sends it, times the
reply on trio's clock (from the written request to the complete reply line), checks it with
the rules engine and broadcasts what every player at the table sees. Events for a seat are
queued and written together with its next request, so a decision costs one write and one
read per bot. A bot that breaks a rule meets the match's policy; a bot that fails in any
other way (timeout, crash, garbage) is dropped and the referee's fallback plays its seat.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypeVar, get_args

import msgspec
import trio

from protocol.cards import Card, card_code
from protocol.codec import MAX_LINE, MAX_MESSAGE, ProtocolError, clip, decode_bot, encode
from protocol.messages import (
    VERSIONS,
    BotMessage,
    CardPlayed,
    Declare,
    Declared,
    DeclareRequest,
    Error,
    ErrorCode,
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
    RoundStart,
    SeatOutcome,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import RuleSet
from referee import __version__
from referee.connection import BotConnection, Failure, classify_closed
from referee.events import round_end
from referee.fallback import fallback_declare, fallback_moon, fallback_pass, fallback_play
from referee.hints import exit_text, hint
from referee.link import LinkClosed
from referee.match_log import (
    CUT_PREFIX,
    Deal,
    Fallback,
    Fault,
    Header,
    MatchLog,
    Received,
    Result,
    RoundScored,
    SeatInfo,
    Sent,
    Stderr,
)
from referee.names import printable
from referee.rules.errors import IllegalMove
from referee.rules.match import Match
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round
from referee.rules.wire import bot_card, bot_cards, codes_of

ReplyT = TypeVar("ReplyT", Pass, Play, Declare, Moon)
Policy: TypeAlias = Literal["forfeit", "penalty", "substitute"]
POLICIES: tuple[Policy, ...] = ("forfeit", "penalty", "substitute")


class MatchConfig(msgspec.Struct, frozen=True, kw_only=True):
    """How a match is refereed (times in seconds)."""

    per_decision: float = 1.0
    bank: float = 10.0
    startup: float = 10.0
    policy: Policy = "forfeit"
    """What an illegal move costs: ``forfeit`` (dropped), ``penalty`` (revoke penalty and
    redeal) or ``substitute`` (the fallback move is played for it); under ``penalty`` and
    ``substitute`` the illegal move after ``illegal_move_cap`` of them is a forfeit. Other
    faults always drop the bot."""
    illegal_move_cap: int = 3
    grace: float = 1.0
    """Seconds a bot gets to exit before it is signalled."""
    reconnect: bool = False
    """Whether a TCP bot that disconnects may connect again (with its token) within its time
    for the decision; it is then told the match and round again (see docs/protocol.md)."""
    stderr_flood: int = 1 << 20
    """Bytes of stderr between two decisions beyond which a bot is dropped for
    ``output_flood``."""
    queued_lines_flood: int = 32
    """Unanswered lines waiting behind a reply beyond which a bot is dropped for
    ``output_flood``."""
    log_budget: int = 256 * 1024
    """Bytes of a seat's replies kept verbatim in the log per match. Beyond it a reply is
    logged as the referee read it (fields it ignores left out) with ``cut`` saying how much
    was dropped, so a bot that pads its replies cannot multiply the log's size. An honest bot
    uses about 40 bytes a decision."""

    def time_control(self) -> TimeControl:
        return TimeControl(
            per_decision_ms=round(self.per_decision * 1000),
            bank_ms=round(self.bank * 1000),
            startup_ms=round(self.startup * 1000),
        )


STDERR_TAIL = 10
"""Lines of a faulty bot's stderr kept in its ``FaultReport`` (the log keeps up to 64 KiB)."""


class FaultReport(msgspec.Struct, kw_only=True):
    """One fault of one seat, explained for the bot's author: what the referee saw, the line
    that caused it, the bot's last words on stderr, and what to try (``referee.hints``)."""

    seat: int
    name: str
    reason: str
    message: str
    action: str
    """``forfeit`` (dropped), ``penalty``, ``substitute`` or ``reconnect``."""
    rule: str | None = None
    line: str | None = None
    """The bot's offending line, cut to 200 characters (``None``: there was none)."""
    hint: str | None = None
    exit: str | None = None
    """How its program ended (``exited with code 1``, ``killed by signal 9 (SIGKILL)``)."""
    stderr: list[str] = msgspec.field(default_factory=list)
    """The last lines of its stderr in this match."""
    stderr_lines: int = 0
    """How many lines it wrote to stderr in all."""


class MatchOutcome(msgspec.Struct, kw_only=True):
    """What ``referee match --json`` prints."""

    match_id: str
    seed: int
    variant: str
    scores: list[int]
    winners: list[int]
    reason: str
    rounds: int
    seats: list[SeatOutcome]
    round_scores: list[list[int]]
    """Score changes of every round, by seat."""
    decisions: int
    log: str | None
    interrupted_by: int | None = None
    """The signal number that interrupted the match, if one did."""
    faults: list[FaultReport] = msgspec.field(default_factory=list)
    """Every fault, in order (at most ``MAX_REPORTS`` per seat), explained."""


Reconnect: TypeAlias = Callable[[int, float], Awaitable[BotConnection | None]]
"""Waits up to the given seconds for a seat's bot to connect again."""


class SeatFault(Exception):
    """A seat's failure during one decision."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@dataclass
class SeatState:
    """One seat for one match."""

    index: int
    connection: BotConnection
    bank: float
    status: str = "ok"
    substitutions: int = 0
    penalties: int = 0
    outbox: list[bytes] = field(default_factory=list)
    logged: int = 0
    """Bytes of this seat's replies kept verbatim in this match's log."""
    last_line: bytes | None = None
    """The bot's latest line (the offending one when a reply is refused)."""

    @property
    def active(self) -> bool:
        return self.status == "ok"


class MatchRunner:
    """Runs one match over already-connected bots."""

    def __init__(
        self,
        connections: Sequence[BotConnection],
        rules: RuleSet,
        *,
        seed: int,
        config: MatchConfig,
        log: MatchLog,
        nursery: trio.Nursery,
        match_id: str | None = None,
        reconnect: Reconnect | None = None,
    ) -> None:
        if len(connections) != rules.players:
            raise ValueError(f"{len(connections)} bots for {rules.players} seats")
        self.rules = rules
        self.seed = seed
        self.config = config
        self.log = log
        self.nursery = nursery
        self.match = Match(rules, seed)
        # never derived from the seed: the seed and the rules give away every hand
        self.match_id = match_id or secrets.token_hex(6)
        self.seats = [SeatState(i, c, config.bank) for i, c in enumerate(connections)]
        self.decisions = 0
        self.delays: list[float] | None = None
        """When a list: the referee's delay from each reply's arrival to its next request
        in this match (what the match benchmark reports)."""
        self._last_reply: float | None = None
        self.reconnect = reconnect
        self._round: Round | None = None
        self._start = 0.0
        self._round_number = 0
        self.faults: list[FaultReport] = []

    # -- the match ---------------------------------------------------------------------------
    async def run(self) -> MatchOutcome:
        self._start = trio.current_time()
        self._write_header()
        for seat in self.seats:
            if not seat.connection.alive:
                failure = seat.connection.failure
                assert failure is not None
                said = [line for _, way, line in seat.connection.transcript if way == "recv"]
                seat.last_line = said[-1] if said else None
                seat.status = failure.reason
                self._log_fault(seat, failure, "forfeit")
        for seat in self.seats:
            self._post(seat, self._match_start(seat))
        reason_override: str | None = None
        while not self.match.over:
            if not any(s.active for s in self.seats):
                reason_override = "all_bots_dropped"
                break
            await self._play_round(self.match.next_round())
        return await self._finish(reason_override)

    async def _play_round(self, round_: Round) -> None:
        self._round = round_
        number = self._round_number
        self._round_number += 1
        n = self.rules.players
        self.log.write(
            Deal(
                t=self._t(),
                round=number,
                dealer=round_.dealer,
                pass_direction=round_.pass_direction,
                match_phase=round_.match_phase,
                hands=[[card_code(c) for c in round_.hand(s)] for s in range(n)],
            )
        )
        offset = round_.table.pass_offset(round_.pass_direction)
        for seat in self.seats:
            self._post(seat, self._round_start(round_, seat, number))
        if round_.phase == PASS:
            await self._passing(round_, offset)
        while round_.phase == DECLARE:
            await self._declaring(round_)
        while round_.phase == PLAY:
            await self._playing(round_)
        if round_.phase == MOON:
            await self._moon(round_)
        result = self.match.record(round_)
        self.log.write(RoundScored(t=self._t(), round=number, result=result, scores=list(self.match.scores)))
        end = round_end(number, result, self.match.scores, self.match.phase)
        self._broadcast(end)
        self.log.flush()

    def _match_start(self, seat: SeatState) -> MatchStart:
        return MatchStart(
            match_id=self.match_id,
            seat=seat.index,
            players=[Player(seat=s.index, name=s.connection.name(s.index)) for s in self.seats],
            rules=self.rules,
            time=self.config.time_control(),
        )

    def _round_start(self, round_: Round, seat: SeatState, number: int) -> RoundStart:
        """The round as the seat holds it now (its current hand, after a reconnection)."""
        n = self.rules.players
        offset = round_.table.pass_offset(round_.pass_direction)
        return RoundStart(
            round=number,
            dealer=round_.dealer,
            hand=[card_code(c) for c in round_.hand(seat.index)],
            pass_direction=round_.pass_direction,
            pass_count=0 if offset == 0 else self.rules.pass_count,
            pass_to=None if offset == 0 else (seat.index + offset) % n,
            match_phase=round_.match_phase,
            scores=list(self.match.scores),
        )

    # -- phases ------------------------------------------------------------------------------
    async def _passing(self, round_: Round, offset: int) -> None:
        n = self.rules.players
        count = self.rules.pass_count
        replies: dict[int, Pass | None] = {}

        async def ask(seat: SeatState) -> None:
            hand = [card_code(c) for c in round_.legal_passes(seat.index)]
            to_seat = (seat.index + offset) % n
            replies[seat.index] = await self._ask(
                seat, lambda rid, t: PassRequest(id=rid, count=count, legal=hand, to_seat=to_seat, time=t), Pass
            )

        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                if seat.active:
                    nursery.start_soon(ask, seat)
        for seat in self.seats:
            if round_.phase != PASS:
                return  # a revoke penalty ended the round
            reply = replies.get(seat.index)
            cards: list[Card] | None = None
            if reply is not None:
                try:
                    round_.pass_cards(seat.index, bot_cards(reply.cards))
                    continue
                except IllegalMove as err:
                    if not await self._illegal(seat, round_, err, reply.id):
                        return
            cards = fallback_pass(round_, seat.index)
            self._log_fallback(seat, "pass", [card_code(c) for c in cards])
            round_.pass_cards(seat.index, cards)
        for seat in self.seats:
            given = round_.passes[seat.index] or 0
            received = round_.received[seat.index] or 0
            self._post(
                seat,
                PassResult(
                    given=codes_of(given),
                    to_seat=(seat.index + offset) % n,
                    received=codes_of(received),
                    from_seat=(seat.index - offset) % n,
                    hand=[card_code(c) for c in round_.hand(seat.index)],
                ),
            )

    async def _declaring(self, round_: Round) -> None:
        seat = self.seats[round_.turn]
        made = round_.declarations_made()
        points = self.rules.declaration_points
        reply = await self._ask(
            seat, lambda rid, t: DeclareRequest(id=rid, declarations=made, points=points, time=t), Declare
        )
        if reply is None:
            declare = fallback_declare()
            self._log_fallback(seat, "declare", declare)
        else:
            declare = reply.declare
        round_.declare(seat.index, declare)
        self._broadcast(Declared(seat=seat.index, declared=declare))

    async def _playing(self, round_: Round) -> None:
        seat = self.seats[round_.turn]
        trick_number = round_.trick_number
        legal = [card_code(c) for c in round_.legal_plays()]
        trick = [card_code(c) for c in round_.trick]
        leader = round_.leader
        broken = round_.broken
        reply = await self._ask(
            seat,
            lambda rid, t: PlayRequest(
                id=rid, legal=legal, trick=trick, leader=leader, trick_number=trick_number, hearts_broken=broken, time=t
            ),
            Play,
        )
        card: Card | None = None
        if reply is not None:
            try:
                card = bot_card(reply.card)
                round_.play(seat.index, card)
            except IllegalMove as err:
                card = None
                if not await self._illegal(seat, round_, err, reply.id):
                    return
        if card is None:
            card = fallback_play(round_)
            self._log_fallback(seat, "play", card_code(card))
            round_.play(seat.index, card)
        self._broadcast(CardPlayed(seat=seat.index, card=card_code(card), trick_number=trick_number))
        if round_.trick_number != trick_number:
            done = round_.tricks[-1]
            end = TrickEnd(
                trick_number=trick_number,
                leader=done.leader,
                cards=[card_code(c) for c in done.cards],
                winner=done.winner,
                points=done.points,
            )
            self._broadcast(end)
            self.log.flush()

    async def _moon(self, round_: Round) -> None:
        seat = self.seats[round_.turn]
        points = round_.table.moon_points
        reply = await self._ask(
            seat,
            lambda rid, t: MoonRequest(
                id=rid, options=["add_to_others", "subtract_from_shooter"], points=points, time=t
            ),
            Moon,
        )
        choice = fallback_moon() if reply is None else reply.choice
        if reply is None:
            self._log_fallback(seat, "moon", choice)
        round_.choose_moon(seat.index, choice)

    # -- asking and answering ----------------------------------------------------------------
    async def _ask(
        self,
        seat: SeatState,
        make: Callable[[int, TimeLeft], RefereeMessage],
        expect: type[ReplyT],
    ) -> ReplyT | None:
        """Send a request and wait for its reply; ``None`` when the seat is (or becomes)
        dropped, in which case the caller plays the fallback."""
        if not seat.active:
            return None
        per = self.config.per_decision
        self.decisions += 1
        while True:
            rid = next(seat.connection.ids)
            request = make(rid, TimeLeft(decision_ms=round(per * 1000), bank_ms=round(seat.bank * 1000)))
            self._post(seat, request)
            link = seat.connection.link
            try:
                reply, elapsed = await self._exchange(seat, rid, expect)
            except trio.TooSlowError:
                limit = per + seat.bank
                seat.bank = 0.0
                failure = Failure("timeout", f"no reply within {limit:.3f} s (decision limit plus bank)")
                await self._drop(seat, failure, rid)
                return None
            except ProtocolError as err:
                await self._drop(seat, Failure(err.code, err.message), rid)
                return None
            except LinkClosed as err:
                failure = await classify_closed(link, err)
                if failure.reason == "disconnect" and await self._reconnected(seat, failure):
                    continue  # ask the new connection again
                await self._drop(seat, failure, rid)
                return None
            except SeatFault as fault:
                await self._drop(seat, fault.failure, rid)
                return None
            except Exception as err:  # whatever a bot's bytes cause is that bot's fault
                failure = Failure("protocol_violation", f"the reply could not be read: {type(err).__name__}: {err}")
                await self._drop(seat, failure, rid)
                return None
            seat.bank = max(0.0, seat.bank - max(0.0, elapsed - per))
            return reply

    async def _exchange(self, seat: SeatState, rid: int, expect: type[ReplyT]) -> tuple[ReplyT, float]:
        """Write the seat's queued lines and read the reply to request ``rid``, timed from the
        written request to the complete reply line."""
        link = seat.connection.link
        with trio.CancelScope(deadline=trio.current_time() + self.config.per_decision + seat.bank) as scope:
            await self._flush(seat)  # a bot that does not read its input times out here
            start = trio.current_time()
            if self.delays is not None and self._last_reply is not None:
                self.delays.append(start - self._last_reply)
            seat.last_line = None
            line = await link.receive_line()
            seat.last_line = line
        if scope.cancelled_caught:
            raise trio.TooSlowError
        self._last_reply = trio.current_time()
        elapsed = self._last_reply - start
        problem: ProtocolError | None = None
        try:
            reply = decode_bot(line)
        except ProtocolError as err:
            self._log_received(seat, line, None)
            problem = err
        else:
            self._log_received(seat, line, reply)
        flood = link.flood(self.config.stderr_flood, self.config.queued_lines_flood)
        if flood:
            raise SeatFault(Failure("output_flood", flood))
        if problem is not None:
            raise problem
        if not isinstance(reply, expect):
            want = expect.__struct_config__.tag
            got = type(reply).__struct_config__.tag
            raise SeatFault(Failure("protocol_violation", f"expected a {want!r} reply to request {rid}, got {got!r}"))
        if reply.id != rid:
            raise SeatFault(Failure("wrong_id", f"reply id {reply.id} does not answer request {rid}"))
        return reply, elapsed

    async def _reconnected(self, seat: SeatState, failure: Failure) -> bool:
        """Wait for a disconnected TCP bot to come back (if the match allows it) and tell it
        the match and the round again. The wait is the decision limit plus its bank."""
        if self.reconnect is None or not self.config.reconnect:
            return False
        self._log_fault(seat, failure, "reconnect")
        seat.connection.failure = failure  # frees the seat for a new connection
        connection = await self.reconnect(seat.index, self.config.per_decision + seat.bank)
        if connection is None or connection is seat.connection or not connection.alive:
            return False
        connection.label = connection.label or seat.connection.label
        seat.connection = connection
        seat.outbox.clear()
        self._post(seat, self._match_start(seat))
        round_ = self._round
        if round_ is not None:
            self._post(seat, self._round_start(round_, seat, self._round_number - 1))
        return True

    async def _illegal(self, seat: SeatState, round_: Round, err: IllegalMove, request_id: int | None) -> bool:
        """Apply the policy to an illegal move. True: the caller plays the fallback move for
        the seat; False: the round is over (revoke penalty)."""
        policy = self.config.policy
        failure = Failure("illegal_move", err.message, err.rule)
        forgiven = seat.penalties + seat.substitutions
        if policy == "penalty" and forgiven < self.config.illegal_move_cap:
            seat.penalties += 1
            self._log_fault(seat, failure, "penalty")
            await self._tell(seat, "illegal_move", err.message, rule=err.rule, fatal=False, request_id=request_id)
            round_.apply_revoke(seat.index)
            return False
        if policy == "substitute" and forgiven < self.config.illegal_move_cap:
            seat.substitutions += 1
            self._log_fault(seat, failure, "substitute")
            await self._tell(seat, "illegal_move", err.message, rule=err.rule, fatal=False, request_id=request_id)
            return True
        await self._drop(seat, failure, request_id)
        return True

    async def _drop(self, seat: SeatState, failure: Failure, request_id: int | None = None) -> None:
        """Drop a seat: tell the bot why (unless it is gone), log it, end its program in the
        background; the fallback plays the seat from now on."""
        seat.status = failure.reason
        seat.connection.failure = failure
        self._log_fault(seat, failure, "forfeit")
        if failure.reason not in ("crash", "disconnect", "timeout"):
            code: ErrorCode = failure.reason if failure.reason in _ERROR_CODES else "protocol_violation"  # type: ignore[assignment]
            await self._tell(
                seat, code, failure.message, rule=failure.rule, fatal=True, force=True, request_id=request_id
            )
        elif failure.reason == "timeout":
            await self._tell(seat, "timeout", failure.message, fatal=True, force=True, request_id=request_id)
        self.nursery.start_soon(seat.connection.link.close, self.config.grace)

    async def _tell(
        self,
        seat: SeatState,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        fatal: bool,
        force: bool = False,
        request_id: int | None = None,
    ) -> None:
        """Send an error message now (queued events first), without waiting on a stuck bot.
        The message is clipped: it may quote what the bot sent."""
        error = Error(code=code, message=clip(message, MAX_MESSAGE), fatal=fatal, rule=rule, request_id=request_id)
        self._post(seat, error, force=force)
        with trio.move_on_after(1.0):
            with contextlib.suppress(LinkClosed):
                await self._flush(seat)

    # -- sending -----------------------------------------------------------------------------
    def _post(self, seat: SeatState, message: RefereeMessage, force: bool = False) -> None:
        """Queue a message for a seat (and log it); it is written with the seat's next flush."""
        if seat.active or force:
            self._queue(seat, bounded(message))

    def _broadcast(self, message: RefereeMessage) -> None:
        """Queue a message that every seat at the table sees, encoded once."""
        line = bounded(message)
        for seat in self.seats:
            if seat.active:
                self._queue(seat, line)

    def _queue(self, seat: SeatState, line: bytes) -> None:
        seat.outbox.append(line)
        if self.log.enabled:
            self.log.write(Sent(t=self._t(), seat=seat.index, msg=msgspec.Raw(line[:-1])))

    async def _flush(self, seat: SeatState) -> None:
        """Write a seat's queued lines in one write, within the decision limit plus bank."""
        if not seat.outbox:
            return
        data = b"".join(seat.outbox)
        seat.outbox.clear()
        await seat.connection.link.send(data)

    # -- the end -----------------------------------------------------------------------------
    async def _finish(self, reason_override: str | None) -> MatchOutcome:
        match = self.match
        scores = list(match.scores)
        if reason_override is None and match.result is not None:
            reason: str = match.result.reason
            winners = [w for w in match.result.winners if self.seats[w].active]
            if not winners:
                live = [s.index for s in self.seats if s.active]
                best = min((scores[i] for i in live), default=0)
                winners = [i for i in live if scores[i] == best]
        else:
            reason = reason_override or "interrupted"
            winners = []
        outcomes = [
            SeatOutcome(
                seat=s.index,
                name=s.connection.name(s.index),
                status=s.status,
                substitutions=s.substitutions,
                penalties=s.penalties,
            )
            for s in self.seats
        ]
        end = MatchEnd(
            match_id=self.match_id,
            scores=scores,
            winners=winners,
            reason=reason,
            rounds=len(match.results),
            seats=outcomes,
        )
        self._broadcast(end)
        for seat in self.seats:
            if seat.active:
                with trio.move_on_after(self.config.grace):
                    with contextlib.suppress(LinkClosed):
                        await self._flush(seat)
        self.log.write(
            Result(
                t=self._t(),
                scores=scores,
                winners=winners,
                reason=reason,
                rounds=len(match.results),
                seats=[msgspec.to_builtins(o) for o in outcomes],
            ),
            flush=True,
        )
        return MatchOutcome(
            match_id=self.match_id,
            seed=self.seed,
            variant=self.rules.name,
            scores=scores,
            winners=winners,
            reason=reason,
            rounds=len(match.results),
            seats=outcomes,
            round_scores=[r.score_changes for r in match.results],
            decisions=self.decisions,
            log=str(self.log.path) if self.log.path else None,
            faults=self.faults,
        )

    async def interrupted(self) -> MatchOutcome:
        """End the match now (SIGINT or SIGTERM): the bots and the log are told the reason
        ``interrupted``; the round in play is not scored."""
        return await self._finish("interrupted")

    def write_stderr(self) -> None:
        """Log each bot's stderr of this match (after the programs have ended), and add its
        last lines and exit status to the seat's fault reports."""
        for seat in self.seats:
            text, dropped = seat.connection.link.take_stderr()
            code = seat.connection.link.exit_code()
            self.log.write(Stderr(seat=seat.index, text=text, dropped_bytes=dropped, exit_code=code))
            lines = text.splitlines()
            for report in self.faults:
                if report.seat == seat.index:
                    report.stderr = [printable(line, 300) for line in lines[-STDERR_TAIL:]]
                    report.stderr_lines = len(lines)
                    report.exit = exit_text(code) if code is not None else None
                    report.hint = hint(report.reason, report.message, report.line, code)
        self.log.flush()

    # -- log helpers -------------------------------------------------------------------------
    def _t(self) -> float:
        return round(trio.current_time() - self._start, 6)

    def _write_header(self) -> None:
        self.log.write(
            Header(
                protocol=VERSIONS[-1],
                referee=__version__,
                match_id=self.match_id,
                started=MatchLog.now_iso(),
                seed=self.seed,
                first_dealer=self.match.first_dealer,
                rules=self.rules,
                seats=[
                    SeatInfo(seat=s.index, name=s.connection.name(s.index), command=s.connection.command)
                    for s in self.seats
                ],
                time_control=msgspec.to_builtins(self.config.time_control()),
                policy=self.config.policy,
                illegal_move_cap=self.config.illegal_move_cap,
            ),
            flush=True,
        )
        for seat in self.seats:  # the handshake came before the match: logged at t=0
            for _, direction, line in seat.connection.transcript:
                text = line.decode("utf-8", errors="replace")
                if direction == "recv":
                    self.log.write(Received(t=0.0, seat=seat.index, line=text))
                else:
                    self.log.write(Sent(t=0.0, seat=seat.index, msg=msgspec.Raw(line)))
            seat.connection.transcript.clear()

    def _log_received(self, seat: SeatState, line: bytes, reply: BotMessage | None) -> None:
        """Log a reply verbatim while the seat's budget lasts; then as it was read (or, when it
        could not be read, its first bytes), noting how many bytes were left out."""
        if not self.log.enabled:
            return
        cut: int | None = None
        if seat.logged + len(line) <= self.config.log_budget:
            seat.logged += len(line)
            kept = line
        elif reply is not None:
            kept = encode(reply)[:-1]
            cut = max(0, len(line) - len(kept))
        else:
            kept = line[:CUT_PREFIX]
            cut = len(line) - len(kept)
        text = kept.decode("utf-8", errors="replace")
        self.log.write(Received(t=self._t(), seat=seat.index, line=text, cut=cut))

    def _report(self, seat: SeatState, failure: Failure, action: str) -> None:
        """Keep the fault, explained, for the match's outcome (a few per seat: a bot under
        the penalty policy may fault often, and the first ones say it all)."""
        if sum(r.seat == seat.index for r in self.faults) >= MAX_REPORTS:
            return
        line = None
        if seat.last_line is not None and failure.reason in _LINE_FAULTS:
            line = clip(seat.last_line.decode("utf-8", errors="replace"), 200)
        self.faults.append(
            FaultReport(
                seat=seat.index,
                name=seat.connection.name(seat.index),
                reason=failure.reason,
                message=failure.message,
                action=action,
                rule=failure.rule,
                line=line,
                hint=hint(failure.reason, failure.message, line),
            )
        )

    def _log_fault(self, seat: SeatState, failure: Failure, action: str) -> None:
        self._report(seat, failure, action)
        self.log.write(
            Fault(
                t=self._t(),
                seat=seat.index,
                reason=failure.reason,
                message=failure.message,
                action=action,
                rule=failure.rule,
            ),
            flush=True,
        )

    def _log_fallback(self, seat: SeatState, decision: str, value: object) -> None:
        self.log.write(Fallback(t=self._t(), seat=seat.index, decision=decision, value=value))


_ERROR_CODES = frozenset(get_args(ErrorCode))
_LINE_FAULTS = frozenset({"bad_json", "unknown_message", "protocol_violation", "wrong_id", "illegal_move"})
"""Faults caused by one line, which the report quotes."""
MAX_REPORTS = 3
"""Fault reports kept per seat and match."""


class OverlongLine(Exception):
    """A referee message over the protocol's line limit: a bug in the referee, never a bot's
    doing (names are cut, quoted text is clipped), so it is raised rather than sent."""


def bounded(message: RefereeMessage) -> bytes:
    """A referee message as a line, checked against the protocol's ``MAX_LINE`` promise: every
    line a bot receives is at most that long, whatever the bots at the table said."""
    line = encode(message)
    if len(line) > MAX_LINE + 1:
        tag = type(message).__struct_config__.tag
        raise OverlongLine(f"a {tag!r} message of {len(line) - 1} bytes is over the line limit of {MAX_LINE}")
    return line


