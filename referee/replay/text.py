"""A replayed match for the terminal, trick by trick, and one seat's side of a match.

``match_lines`` shows the referee's view: every hand as dealt, the passes, each trick as a row
with one column per seat (the winning card in brackets, the referee's own moves marked
``*``), faults where they happened with a hint for the bot's author (and, under a dropped
seat's fault, the last lines of its stderr and how its program ended), each round's result and
the match's. ``seat_lines`` shows one seat's transcript, the lines exactly as they went over
the wire (``>>`` to the bot, ``<<`` from it), which hold nothing of the other hands, with the
seat's faults where they happened, then its stderr and exit status. Both return ``rich``
``Text`` lines: hearts and diamonds are red where the terminal shows colour. Everything a bot
wrote is shown through ``printable``: escapes are shown, never obeyed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, TypeAlias

from rich.highlighter import JSONHighlighter
from rich.text import Text

from protocol.cards import DIAMONDS, HEARTS, SUIT_CHARS, SUIT_SYMBOLS, card_symbol, parse_card, rank_of, suit_of
from referee.hints import exit_text, hint
from referee.log_format import Deal, Fault, Received, Sent
from referee.names import printable
from referee.replay.cursor import message_of
from referee.replay.reader import LogMatch
from referee.replay.record import FaultRecord, MatchRecord, ReplayedTrick, RoundRecord, SeatRecord
from referee.replay.stderr import SeatOutput, seat_outputs

RED = "red"
_SUIT_ORDER = range(len(SUIT_CHARS))
_RED_SUITS = (DIAMONDS, HEARTS)
FAULT_STDERR: Final = 10
"""Lines of a dropped seat's stderr shown under its fault in the match view."""
SEAT_STDERR: Final = 50
"""Lines of stderr at the end of a seat's view."""
_LINE_WIDTH: Final = 300
"""Characters shown of one line of stderr."""
_ANSWERS: Final = {
    "forfeit": "forfeit: the referee plays the seat from here",
    "penalty": "revoke penalty and a redeal",
    "substitute": "the referee's move is played for it",
    "reconnect": "the referee waits for it to reconnect",
}


def card_text(code: str) -> Text:
    """``Q♠``, ``10♥`` (red for hearts and diamonds)."""
    try:
        card = parse_card(code)
    except ValueError:
        return Text(code)
    return Text(card_symbol(card), style=RED if suit_of(card) in _RED_SUITS else "")


def hand_text(codes: list[str]) -> Text:
    """A hand by suit, clubs to hearts, high to low: ``♣ A 7  ♦ K  ♠ Q  ♥ 10 4``."""
    by_suit: dict[int, list[int]] = {s: [] for s in _SUIT_ORDER}
    for code in codes:
        card = parse_card(code)
        by_suit[suit_of(card)].append(card)
    text = Text()
    for suit in _SUIT_ORDER:
        cards = sorted(by_suit[suit], key=rank_of, reverse=True)
        if not cards:
            continue
        if text:
            text.append("  ")
        ranks = " ".join(card_symbol(c)[:-1] for c in cards)
        text.append(f"{SUIT_SYMBOLS[suit]} {ranks}", style=RED if suit in _RED_SUITS else "")
    return text


def match_lines(record: MatchRecord, only_round: int | None = None) -> Iterator[Text]:
    """The whole match (or one round of it) as lines of text."""
    yield from _header(record)
    names = [printable(s.name) for s in record.seats]  # a log holds what bots chose to be called
    rounds = [r for r in record.rounds if only_round is None or r.round == only_round]
    if only_round is None:
        for fault in record.faults:
            if fault.round is None:
                yield from _fault(fault, names, record.seats)
    for round_ in rounds:
        yield Text()
        yield from _round(record, round_, names)
    if only_round is None:
        yield Text()
        yield from _result(record, names)
    verification = record.verification
    if verification is not None:
        yield Text()
        if verification.status == "verified":
            yield Text("✓ " + verification.describe(), style="green")
        elif verification.status == "truncated":
            yield Text(verification.describe(), style="yellow")
        else:
            yield Text(
                f"the log departs from the rules (shown up to there): {verification.describe()}", style="bold red"
            )


def _header(record: MatchRecord) -> Iterator[Text]:
    rules = record.rules
    yield Text.assemble(
        ("Match ", "bold"),
        (printable(record.match_id), "bold"),
        f"  {printable(rules.name)}  seed {record.seed}  first dealer {record.first_dealer}",
    )
    if rules.description:
        yield Text(f"  {printable(rules.description)}", style="dim")
    clock = record.time_control
    yield Text(
        f"  referee {record.referee}, log format {record.log_format}, started {record.started}; "
        f"policy {record.policy}; {clock.get('per_decision_ms')} ms a decision + {clock.get('bank_ms')} ms bank"
    )
    yield Text("  seats: " + " · ".join(f"{s.seat} {printable(s.name)}" for s in record.seats))


def _round(record: MatchRecord, round_: RoundRecord, names: list[str]) -> Iterator[Text]:
    n = len(names)
    width = max(len(_seat(s, names)) for s in range(n))
    yield Text.assemble(
        (f"Round {round_.round}", "bold underline"),
        f"  dealer {round_.dealer} {names[round_.dealer]} · pass {round_.pass_direction} · phase {round_.match_phase}",
    )
    yield Text("  dealt", style="bold")
    for seat, hand in enumerate(round_.hands):
        yield Text.assemble(f"    {_seat(seat, names):<{width}}  ", hand_text(hand))
    faults = [f for f in record.faults if f.round == round_.round]
    for fault in faults:
        if fault.phase in ("deal", "pass"):
            yield from _fault(fault, names, record.seats)
    if round_.passes:
        yield Text(f"  passed {round_.pass_direction}", style="bold")
        for made in round_.passes:
            cards = Text(" ").join(card_text(c) for c in made.cards)
            mark = "  *" if made.fallback else ""
            yield Text.assemble(f"    {_seat(made.seat, names):<{width}} → {made.to_seat}  ", cards, mark)
    if round_.declarations:
        said = " · ".join(
            f"{d.seat} {'declares' if d.declared else 'no'}{'*' if d.fallback else ''}" for d in round_.declarations
        )
        yield Text.assemble(("  declarations  ", "bold"), said)
    for fault in faults:
        if fault.phase == "declare":
            yield from _fault(fault, names, record.seats)
    if round_.tricks:
        column = _column(names)
        heads = "".join(f"{_short(s, names):>{column}}" for s in range(n))
        yield Text(f"  trick lead{heads}   won by", style="bold")
        for trick in round_.tricks:
            yield _trick(trick, names, column)
            for fault in faults:
                if fault.phase == "play" and fault.trick == trick.number:
                    yield from _fault(fault, names, record.seats)
    if any(p.fallback for t in round_.tricks for p in t.plays) or any(p.fallback for p in round_.passes):
        yield Text("  * the referee's move for the seat (fallback)", style="dim")
    if round_.moon is not None:
        moon = round_.moon
        by = " (the referee's choice)" if moon.fallback else ""
        yield Text(f"  moon: seat {moon.seat} {names[moon.seat]} chose {moon.choice}{by}")
    for fault in faults:
        if fault.phase == "moon":
            yield from _fault(fault, names, record.seats)
    yield from _round_result(round_, names)


def _trick(trick: ReplayedTrick, names: list[str], column: int) -> Text:
    cells = [Text(" " * column) for _ in names]
    for play in trick.plays:
        won = trick.complete and play.seat == trick.winner
        label = Text.assemble(
            "[" if won else " ", card_text(play.card), "]" if won else " ", "*" if play.fallback else " "
        )
        if won:
            label.stylize("bold")
        cells[play.seat] = Text(" " * max(0, column - len(label.plain))) + label
    row = Text(f"  {trick.number:>5} {trick.leader:>4}")
    for cell in cells:
        row.append_text(cell)
    if not trick.complete:
        row.append("  (unfinished)", style="dim")
    elif trick.winner is None:
        row.append("  nobody: cancelled, carried on")
    else:
        row.append(f"  {_seat(trick.winner, names)}")
        if trick.points:
            row.append(f"  {trick.points:+d}", style="bold")
    return row


def _round_result(round_: RoundRecord, names: list[str]) -> Iterator[Text]:
    result = round_.result
    if result is None:
        return
    column = _column(names)
    heads = "".join(f"{_short(s, names):>{column}}" for s in range(len(names)))
    yield Text(f"  {'result':<14}{heads}", style="bold")
    yield Text(f"  {'points taken':<14}" + "".join(f"{v:>{column}}" for v in result.points_taken))
    yield Text(f"  {'score change':<14}" + "".join(f"{v:>+{column}d}" for v in result.score_changes))
    if round_.scores is not None:
        yield Text(f"  {'score':<14}" + "".join(f"{v:>{column}}" for v in round_.scores), style="bold")
    if result.moon is not None:
        yield Text(f"  moon: seat {result.moon} {names[result.moon]} took every penalty card ({result.moon_scoring})")
    for seat, success in enumerate(result.declaration_success):
        if success is not None:
            yield Text(f"  declaration: seat {seat} {names[seat]} {'kept' if success else 'broke'} it")
    if result.revoke is not None:
        yield Text(
            f"  revoke: seat {result.revoke} {names[result.revoke]} takes the penalty; the hand is dealt again",
            style="bold red",
        )


def _result(record: MatchRecord, names: list[str]) -> Iterator[Text]:
    result = record.result
    if result is None:
        yield Text("The log ends before the match did.", style="yellow")
        return
    winners = ", ".join(f"{names[w]} (seat {w})" for w in result.winners) or "nobody"
    tie = " (a tie)" if len(result.winners) > 1 else ""
    yield Text.assemble(
        ("Result: ", "bold"),
        (f"{winners} won{tie}", "bold"),
        f"; {printable(result.reason)} after {result.rounds} round{'' if result.rounds == 1 else 's'}",
    )
    yield Text("  scores: " + " · ".join(f"{s} {names[s]} {v}" for s, v in enumerate(result.scores)))
    for seat in record.seats:
        extra = "".join(
            f", {label} {count}"
            for label, count in (("substitutions", seat.substitutions), ("penalties", seat.penalties))
            if count
        )
        ended = f" ({exit_text(seat.exit_code)})" if seat.status != "ok" and seat.stderr is not None else ""
        line = f"  seat {seat.seat} {printable(seat.name)}: {printable(seat.status)}{extra}{ended}"
        yield Text(line, style="" if seat.status == "ok" else "red")


def _fault(fault: FaultRecord, names: list[str], seats: list[SeatRecord]) -> Iterator[Text]:
    """A fault where it happened: what the referee saw and did, the line the bot sent, the
    hint; for a dropped seat, the end of its stderr and how its program ended."""
    where = "handshake" if fault.round is None else fault.phase
    if fault.trick is not None:
        where = f"trick {fault.trick}"
    yield _fault_line(
        f"  ! {where}: seat {fault.seat} {names[fault.seat]}: ", fault.reason, fault.message, fault.rule, fault.action
    )
    if fault.reply is not None:
        yield Text(f"      it sent: {printable(fault.reply, 100)}", style="dim")
    if fault.hint is not None:
        yield _hint(fault.hint, "      ")
    if fault.action == "forfeit":
        seat = seats[fault.seat]
        output = None if seat.stderr is None else SeatOutput(seat.stderr, seat.stderr_dropped, seat.exit_code)
        yield from stderr_lines(output, FAULT_STDERR, "      ")


def _fault_line(start: str, reason: str, message: str, rule: str | None, action: str) -> Text:
    said = printable(f"{reason}{f' [{rule}]' if rule else ''}: {message}")  # from the log, which bots wrote into
    return Text(f"{start}{said} → {_ANSWERS.get(action, printable(action))}", style="red")


def _hint(text: str, indent: str) -> Text:
    return Text.assemble((f"{indent}hint: ", "bold"), text)


def stderr_lines(output: SeatOutput | None, count: int, indent: str) -> Iterator[Text]:
    """The last ``count`` lines of a seat's stderr (``| `` before each, escapes shown), and how
    its program ended."""
    if output is None:
        yield Text(f"{indent}stderr: not in the log (it ends before the bots' programs did)", style="dim")
        return
    shown, total = output.tail(count)
    lost = f", and {output.dropped_bytes} bytes after them that the log did not keep" if output.dropped_bytes else ""
    if not total:
        yield Text(f"{indent}stderr: empty{lost}", style="dim")
    else:
        which = f"all {total} line{'' if total == 1 else 's'}" if total <= count else f"last {count} of {total} lines"
        yield Text(f"{indent}stderr, {which}{lost}:", style="bold")
        for line in shown:
            yield Text.assemble((f"{indent}| ", "dim"), printable(line, _LINE_WIDTH))
    yield Text(f"{indent}program: {exit_text(output.exit_code)}")


def _seat(seat: int, names: list[str]) -> str:
    return f"{seat} {names[seat][:16]}"


def _short(seat: int, names: list[str]) -> str:
    """A seat's column heading."""
    return f"{seat} {names[seat][:8]}"


def _column(names: list[str]) -> int:
    """The width of a seat's column: its heading or a card like ``[10♥]*``, and a gap."""
    return max(6, *(len(_short(s, names)) for s in range(len(names)))) + 2


_SeatFault: TypeAlias = tuple[str, Fault, str | None]
"""A seat's fault, where in the match it happened and the reply it is about (if any)."""


def seat_lines(log: LogMatch, seat: int, only_round: int | None = None) -> Iterator[Text]:
    """What ``seat`` saw of the match: the referee's lines to it and its own, as on the wire,
    with the seat's faults where they happened; then its stderr and how its program ended, and
    last (when it had one) the fault that dropped it, or its last fault."""
    header = log.header
    yield Text.assemble(
        ("Match ", "bold"),
        (printable(header.match_id), "bold"),
        f"  {printable(header.rules.name)}  as seen by seat {seat}",
    )
    yield Text("  seats: " + " · ".join(f"{s.seat} {printable(s.name)}" for s in header.seats))
    yield Text("  >> the referee to the bot, << the bot to the referee; t in seconds since the start", style="dim")
    output = seat_outputs(log).get(seat)
    code = output.exit_code if output is not None else None
    faults: list[_SeatFault] = []
    yield from _transcript(log, seat, only_round, code, faults)
    yield Text(f"-- seat {seat}'s program --", style="bold")
    yield from stderr_lines(output, SEAT_STDERR, "")
    if faults:
        yield from _last_fault(seat, faults, code)


def _transcript(
    log: LogMatch, seat: int, only_round: int | None, code: int | None, faults: list[_SeatFault]
) -> Iterator[Text]:
    """The seat's lines as on the wire, round by round (only ``only_round`` when given), with
    its faults where they happened; each fault is also added to ``faults`` as it is met."""
    highlight = JSONHighlighter()
    round_no: int | None = None
    where = "handshake"
    said: str | None = None
    """The seat's last line, while nothing else of the seat has followed it: the reply a
    fault right after it is about."""
    for line in log.entries:
        entry = line.entry
        if isinstance(entry, Deal):
            round_no = entry.round
            where = f"round {round_no} deal"
            if round_no == only_round or (only_round is None and not _dropped(faults)):
                yield Text(f"-- round {round_no} --", style="bold")
                if _dropped(faults):
                    yield Text(f"  (seat {seat} was dropped before this round: nothing more was sent to it)")
            continue
        if not isinstance(entry, Sent | Received | Fault) or entry.seat != seat:
            continue
        shown = only_round is None or round_no == only_round
        if isinstance(entry, Sent):
            message = message_of(entry)
            if message.get("type") != "error":  # a refused hello is answered before its fault is logged
                said = None
            where = _place(message, round_no, where)
            if shown:
                raw = bytes(entry.msg).decode("utf-8", errors="replace")
                yield Text.assemble((f"{entry.t:>10.6f} ", "dim"), (">> ", "cyan"), highlight(Text(printable(raw))))
        elif isinstance(entry, Received):
            said = entry.line
            if shown:
                text = printable(entry.line)  # what the bot sent, escapes and all, shown not obeyed
                yield Text.assemble((f"{entry.t:>10.6f} ", "dim"), ("<< ", "yellow"), highlight(Text(text)))
        else:
            faults.append((where, entry, said))
            if shown:
                yield from _seat_fault(where, entry, said, code, "")
            said = None


def _last_fault(seat: int, faults: list[_SeatFault], code: int | None) -> Iterator[Text]:
    """The fault that dropped the seat, or (when none did) its last fault, with its hint."""
    where, fault, reply = next((f for f in faults if f[1].action == "forfeit"), faults[-1])
    at = "in the handshake" if where == "handshake" else f"at {where}"
    if fault.action == "forfeit":
        yield Text(f"seat {seat} was dropped {at}:", style="bold red")
    else:
        count = f"{len(faults)} faults; the last" if len(faults) > 1 else "1 fault"
        yield Text(f"seat {seat} had {count} {at}:", style="bold red")
    yield from _seat_fault(where, fault, reply, code, "  ", recap=True)


def _dropped(faults: list[_SeatFault]) -> bool:
    return any(fault.action == "forfeit" for _, fault, _ in faults)


def _place(message: dict[str, object], round_no: int | None, where: str) -> str:
    """Where the match is for the seat, after a message it was sent."""
    kind = message.get("type")
    if kind == "play_request":
        return f"round {round_no} trick {message.get('trick_number')}"
    named = {"pass_request": "passing", "declare_request": "declarations", "moon_request": "moon choice"}
    if isinstance(kind, str) and kind in named:
        return f"round {round_no} {named[kind]}"
    if kind == "match_end":
        return "the end of the match"
    return where


def _seat_fault(
    where: str, fault: Fault, reply: str | None, code: int | None, indent: str, *, recap: bool = False
) -> Iterator[Text]:
    start = f"{indent}! " if recap else f"{indent}! {where}: "
    yield _fault_line(start, fault.reason, fault.message, fault.rule, fault.action)
    if reply is not None and recap:
        yield Text(f"{indent}    it sent: {printable(reply, 100)}", style="dim")
    found = hint(fault.reason, fault.message, reply, code)
    if found is not None:
        yield _hint(found, f"{indent}    ")
