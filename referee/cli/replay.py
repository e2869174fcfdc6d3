"""``referee replay``: show, verify or export a logged match (thin: the work is in referee.replay)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import click
import msgspec
from rich.console import Console

from referee.analysis.report import SCHEMA, Analysis
from referee.cli.options import check_output_file
from referee.log_format import Deal
from referee.names import printable
from referee.replay.html import match_page
from referee.replay.reader import LogError, LogMatch, NoSuchMatch, read_log
from referee.replay.record import MatchRecord
from referee.replay.text import match_lines, seat_lines
from referee.replay.timing import decision_cpu, decision_times, summarize, time_lines
from referee.replay.verify import verify

EXIT_MISMATCH: Final = 1
"""``--verify``: an entry differs from what the rules produce."""
EXIT_UNREADABLE: Final = 3
"""The file is not a replay log this referee can read (or is of an unsupported format)."""


class UnreadableLog(click.ClickException):
    exit_code = EXIT_UNREADABLE


@click.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--verify", "check", is_flag=True, help="Re-run the match through the rules and check every entry.")
@click.option("--json", "as_json", is_flag=True, help="Print the match (with --verify: the verdict) as JSON.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a self-contained HTML viewer of the match here.",
)
@click.option(
    "--analysis",
    "analysis_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --html: show this analysis of the match (referee analyze LOG --json > FILE) in the viewer.",
)
@click.option("--round", "round_number", type=int, default=None, help="Show only this round (numbered from 0).")
@click.option("--seat", type=int, default=None, help="Show only what this seat was sent and replied, as on the wire.")
@click.option("--match", "which", default=None, help="A log holding several matches: the match id or its index from 0.")
@click.option("--times", is_flag=True, help="How long each seat took to answer its requests (from the log's times).")
def replay(
    *,
    log: Path,
    check: bool,
    as_json: bool,
    html_path: Path | None,
    analysis_path: Path | None,
    round_number: int | None,
    seat: int | None,
    which: str | None,
    times: bool,
) -> None:
    """Show the match in LOG trick by trick, verify it against the rules (--verify), print it
    as JSON (--json), write an HTML viewer (--html OUT; --analysis FILE: referee analyze's
    JSON at each decision) or show each seat's time per decision (--times).

    Exit status: 0 shown or verified (a log cut short by a killed referee verifies up to where
    it ends), 1 a mismatch (--verify), 2 a usage error, 3 a file that is not a readable log.
    """
    if (round_number is not None or seat is not None) and (check or as_json or html_path):
        raise click.UsageError(
            "--round and --seat choose what the text view shows; use them without --verify, --json and --html"
        )
    if times and (check or html_path or round_number is not None or seat is not None):
        raise click.UsageError("--times shows the decision times alone (with --json as JSON)")
    analysis = _analysis(analysis_path, html_path) if analysis_path is not None else None
    if html_path is not None:
        check_output_file(html_path, "--html", make_folders=False)
    _check_text(log)
    try:
        replay_log = read_log(log)
    except LogError as err:
        raise UnreadableLog(str(err)) from None
    try:
        matches = replay_log.select(which)
    except NoSuchMatch as err:
        raise click.BadParameter(str(err), param_hint="--match") from None
    if not matches:
        message = f"log ends inside its first line: nothing to {'verify' if check else 'show'}"
        click.echo(msgspec.json.encode({"status": "truncated", "message": message}).decode() if as_json else message)
        return
    if seat is not None:
        _show_seat(matches, seat, round_number)
        return
    if times:
        _show_times(matches, as_json)
        return
    if html_path is not None and len(matches) != 1:
        ids = ", ".join(m.header.match_id for m in matches)
        raise click.UsageError(f"the log holds {len(matches)} matches ({ids}): choose one with --match")
    records = [verify(match) for match in matches]
    if html_path is not None:
        _write_html(html_path, records[0], analysis)
    if check:
        _report(records, as_json)
    elif as_json:
        for record in records:
            click.echo(msgspec.json.encode(record).decode())
    elif html_path is None:
        _show(records, round_number)


def _write_html(path: Path, record: MatchRecord, analysis: Analysis | None) -> None:
    if analysis is not None and analysis.match_id != record.match_id:
        raise click.BadParameter(
            f"the analysis is of match {printable(analysis.match_id, 40)!r}, the log's match is "
            f"{printable(record.match_id, 40)!r}",
            param_hint="--analysis",
        )
    path.write_text(match_page(record, analysis), encoding="utf-8")
    click.echo(f"wrote {path}", err=True)


def _analysis(path: Path, html_path: Path | None) -> Analysis:
    """An analysis written by ``referee analyze --json`` (schema ``SCHEMA``), for the viewer."""
    if html_path is None:
        raise click.UsageError("--analysis is shown in the HTML viewer: use it with --html OUT")
    try:
        found = msgspec.json.decode(path.read_bytes(), type=Analysis)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as err:
        raise click.BadParameter(
            f"{path}: not an analysis of referee analyze --json ({err})", param_hint="--analysis"
        ) from None
    if found.schema != SCHEMA:
        raise click.BadParameter(
            f"{path}: analysis schema {found.schema}, this referee reads {SCHEMA}", param_hint="--analysis"
        )
    return found


def _check_text(log: Path) -> None:
    """A replay log is JSON Lines: a file whose first bytes are not ``{`` or that holds a NUL
    is refused here (even when it has no line end yet, which the reader takes for a log cut
    inside its first line). A pipe or a device is refused before it is opened: reading one could
    block or never end."""
    if not log.is_file():
        raise UnreadableLog(f"{log}: not a regular file (a log is a file)")
    try:
        with log.open("rb") as file:
            start = file.read(4096)
    except OSError as err:
        raise UnreadableLog(f"{log}: cannot read: {err.strerror or err}") from None
    if start.strip() and (not start.lstrip().startswith(b"{") or b"\0" in start):
        raise UnreadableLog(f"{log}: not a replay log (a log is JSON Lines, one object per line)")


def _show(records: list[MatchRecord], round_number: int | None) -> None:
    console = Console(highlight=False, soft_wrap=True)
    for index, record in enumerate(records):
        if round_number is not None and all(r.round != round_number for r in record.rounds):
            last = len(record.rounds) - 1
            raise click.BadParameter(f"match {record.match_id} has rounds 0 to {last}", param_hint="--round")
        if index:
            console.print()
        for line in match_lines(record, round_number):
            console.print(line)


def _show_times(matches: list[LogMatch], as_json: bool) -> None:
    for index, match in enumerate(matches):
        names = [f"{info.seat} {printable(info.name, 40)}" for info in match.header.seats]
        pairs = zip(decision_times(match), decision_cpu(match), strict=True)
        summaries = [summarize(wall, cpu) for wall, cpu in pairs]
        if as_json:
            rows = [
                {"seat": info.seat, "name": info.name, "times": summary}
                for info, summary in zip(match.header.seats, summaries, strict=True)
            ]
            click.echo(msgspec.json.encode({"match_id": match.header.match_id, "seats": rows}).decode())
            continue
        if index:
            click.echo()
        match_id = printable(match.header.match_id, 40)
        click.echo(f"match {match_id}: time from each request to the reply (cpu: the bot's own CPU time)")
        for line in time_lines(list(zip(names, summaries, strict=True))):
            click.echo(line)


def _show_seat(matches: list[LogMatch], seat: int, round_number: int | None) -> None:
    console = Console(highlight=False, soft_wrap=True)
    for index, match in enumerate(matches):
        players = match.header.rules.players
        if not 0 <= seat < players:
            raise click.BadParameter(f"the match has seats 0 to {players - 1}", param_hint="--seat")
        dealt = [line.entry.round for line in match.entries if isinstance(line.entry, Deal)]
        if round_number is not None and round_number not in dealt:
            raise click.BadParameter(
                f"match {match.header.match_id} has rounds 0 to {len(dealt) - 1}", param_hint="--round"
            )
        if index:
            console.print()
        for line in seat_lines(match, seat, round_number):
            console.print(line)


def _report(records: list[MatchRecord], as_json: bool) -> None:
    mismatch = False
    for record in records:
        verification = record.verification
        assert verification is not None
        mismatch = mismatch or verification.status == "mismatch"
        if as_json:
            report = {
                "match_id": record.match_id,
                **msgspec.to_builtins(verification),
                "message": verification.describe(),
            }
            click.echo(msgspec.json.encode(report).decode())
        else:
            prefix = f"match {record.match_id}: " if len(records) > 1 else ""
            click.echo(prefix + verification.describe())
    if mismatch:
        raise click.exceptions.Exit(EXIT_MISMATCH)
