"""A replayed match for the terminal, trick by trick, and one seat's side of a match.

``match_lines`` shows the referee's view: every hand as dealt, the passes, each trick as a row
with one column per seat (the winning card in brackets, the referee's own moves marked
``*``), faults where they happened, each round's result and the match's. ``seat_lines``
shows one seat's transcript, the lines exactly as they went over the wire (``>>`` to the bot,
``<<`` from it), which hold nothing of the other hands. Both return ``rich`` ``Text`` lines:
hearts and diamonds are red where the terminal shows colour.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.highlighter import JSONHighlighter
from rich.text import Text

from protocol.cards import DIAMONDS, HEARTS, SUIT_CHARS, SUIT_SYMBOLS, card_symbol, parse_card, rank_of, suit_of
from referee.match_log import Deal, Received, Sent
from referee.names import printable
from referee.replay.reader import LogMatch
from referee.replay.record import FaultRecord, MatchRecord, RoundRecord, TrickRecord

RED = "red"
_SUIT_ORDER = range(len(SUIT_CHARS))
_RED_SUITS = (DIAMONDS, HEARTS)


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
                yield _fault(fault, names)
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
            yield _fault(fault, names)
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
            yield _fault(fault, names)
    if round_.tricks:
        column = _column(names)
        heads = "".join(f"{_short(s, names):>{column}}" for s in range(n))
        yield Text(f"  trick lead{heads}   won by", style="bold")
        for trick in round_.tricks:
            yield _trick(trick, names, column)
            for fault in faults:
                if fault.phase == "play" and fault.trick == trick.number:
                    yield _fault(fault, names)
    if any(p.fallback for t in round_.tricks for p in t.plays) or any(p.fallback for p in round_.passes):
        yield Text("  * the referee's move for the seat (fallback)", style="dim")
    if round_.moon is not None:
        moon = round_.moon
        by = " (the referee's choice)" if moon.fallback else ""
        yield Text(f"  moon: seat {moon.seat} {names[moon.seat]} chose {moon.choice}{by}")
    for fault in faults:
        if fault.phase == "moon":
            yield _fault(fault, names)
    yield from _round_result(round_, names)


def _trick(trick: TrickRecord, names: list[str], column: int) -> Text:
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
        line = f"  seat {seat.seat} {printable(seat.name)}: {printable(seat.status)}{extra}"
        yield Text(line, style="" if seat.status == "ok" else "red")


def _fault(fault: FaultRecord, names: list[str]) -> Text:
    where = "handshake" if fault.round is None else fault.phase
    if fault.trick is not None:
        where = f"trick {fault.trick}"
    rule = f" [{fault.rule}]" if fault.rule else ""
    answer = {
        "forfeit": "forfeit: the referee plays the seat from here",
        "penalty": "revoke penalty and a redeal",
        "substitute": "the referee's move is played for it",
    }.get(fault.action, fault.action)
    said = printable(f"{fault.reason}{rule}: {fault.message}")  # all from the log, which bots wrote into
    text = Text(f"  ! {where}: seat {fault.seat} {names[fault.seat]}: {said} → {answer}")
    text.stylize("red")
    if fault.reply is not None:
        text.append(f"\n      it sent: {printable(fault.reply, 100)}", style="dim")
    return text


def _seat(seat: int, names: list[str]) -> str:
    return f"{seat} {names[seat][:16]}"


def _short(seat: int, names: list[str]) -> str:
    """A seat's column heading."""
    return f"{seat} {names[seat][:8]}"


def _column(names: list[str]) -> int:
    """The width of a seat's column: its heading or a card like ``[10♥]*``, and a gap."""
    return max(6, *(len(_short(s, names)) for s in range(len(names)))) + 2


def seat_lines(log: LogMatch, seat: int, only_round: int | None = None) -> Iterator[Text]:
    """What ``seat`` saw of the match: the referee's lines to it and its own, as on the wire."""
    header = log.header
    yield Text.assemble(
        ("Match ", "bold"),
        (printable(header.match_id), "bold"),
        f"  {printable(header.rules.name)}  as seen by seat {seat}",
    )
    yield Text("  seats: " + " · ".join(f"{s.seat} {printable(s.name)}" for s in header.seats))
    yield Text("  >> the referee to the bot, << the bot to the referee; t in seconds since the start", style="dim")
    highlight = JSONHighlighter()
    round_no: int | None = None
    for line in log.entries:
        entry = line.entry
        if isinstance(entry, Deal):
            round_no = entry.round
            if only_round is None or round_no == only_round:
                yield Text(f"-- round {round_no} --", style="bold")
            continue
        if only_round is not None and round_no != only_round:
            continue
        if isinstance(entry, Sent) and entry.seat == seat:
            raw = bytes(entry.msg).decode("utf-8", errors="replace")
            yield Text.assemble((f"{entry.t:>10.6f} ", "dim"), (">> ", "cyan"), highlight(Text(printable(raw))))
        elif isinstance(entry, Received) and entry.seat == seat:
            shown = printable(entry.line)  # what the bot sent, escapes and all, shown not obeyed
            yield Text.assemble((f"{entry.t:>10.6f} ", "dim"), ("<< ", "yellow"), highlight(Text(shown)))
