"""The Python bot kit (protocol/bot.py) and the Python sample bots, without the referee's runner:
scripted conversations over in-memory streams, a socket and pipes to real bot processes, and
whole matches on the pure rules engine (tests/protocol/table_driver.py)."""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from hearts_bots.heuristic_bot import HeuristicBot
from hearts_bots.random_bot import RandomBot
from protocol.bot import Bot, Session, TableState, card_rank, card_suit, connect, deck_codes, main, run, trick_winner
from protocol.cards import card_code
from protocol.codec import decode_bot, encode
from protocol.messages import (
    BotHello,
    BotMessage,
    CardPlayed,
    Declare,
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
    SeatOutcome,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import RuleSet, standard_points
from referee.rules import Round, deck_for
from referee.rules.presets import PRESETS, ruleset
from tests.bot_process import BotProcess
from tests.protocol.table_driver import play_match
from tests.sample_bots.kits.spec import BAD_COMMAND_LINES
from tests.tiers import starts

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "python"
TIME = TimeLeft(decision_ms=1000, bank_ms=5000)
CLOCK = TimeControl(per_decision_ms=1000, bank_ms=5000, startup_ms=5000)
PLAYERS = [Player(seat=s, name=f"p{s}") for s in range(4)]
PIKET = RuleSet(
    name="test-piket",
    deck="piket",
    pass_count=1,
    pass_schedule=("left",),
    opening_lead="left_of_dealer",
    first_trick_no_points=False,
    hearts_lead="any_time",
    card_points={**standard_points(queen=5), "JC": 2},
)


class StrictHeuristic(HeuristicBot):
    strict = True


class StrictRandom(RandomBot):
    strict = True


class ScriptBot(Bot):
    """Plays the cards it is told to, in order (else the first legal one), and records what
    it was asked and what the state held at each request."""

    name = "script"
    version = "0.1"
    author = "tests"

    def __init__(self, plays: list[str] | None = None) -> None:
        self.plays = list(plays or [])
        self.asked: list[tuple[str, list[str]]] = []
        self.events: list[str] = []

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        self.asked.append(("pass", list(state.hand)))
        return request.legal[-request.count :]

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        self.asked.append(("play", list(state.hand)))
        return self.plays.pop(0) if self.plays else request.legal[0]

    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        self.asked.append(("declare", list(state.hand)))
        return True

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        return "subtract_from_shooter"

    def on_message(self, state: TableState, message: RefereeMessage) -> None:
        self.events.append(type(message).__name__)


def feed(*messages: RefereeMessage | bytes) -> io.BytesIO:
    """An input stream of protocol lines (raw ``bytes`` are sent as they are)."""
    return io.BytesIO(b"".join(m if isinstance(m, bytes) else encode(m) for m in messages))


def replies(out: io.BytesIO) -> list[BotMessage]:
    lines = out.getvalue().splitlines()
    assert out.getvalue().endswith(b"\n") or not lines
    return [decode_bot(line) for line in lines]


def with_extra_fields(message: RefereeMessage, **extra: Any) -> bytes:
    data = json.loads(encode(message))
    data.update(extra)
    return json.dumps(data).encode() + b"\n"


def scripted_round() -> list[RefereeMessage]:
    """Seat 0's view of the start of a piket round: a pass, two tricks, the round's end."""
    return [
        MatchStart(match_id="m1", seat=0, players=PLAYERS, rules=PIKET, time=CLOCK),
        RoundStart(
            round=0,
            dealer=3,
            hand=["7C", "AC", "8D", "QS", "7S", "9H", "KH", "AH"],
            pass_direction="left",
            pass_count=1,
            pass_to=1,
            match_phase=1,
            scores=[0, 0, 0, 0],
        ),
        PassRequest(id=10, count=1, legal=["7C", "AC", "8D", "QS", "7S", "9H", "KH", "AH"], to_seat=1, time=TIME),
        PassResult(
            given=["AH"], to_seat=1, received=["TD"], from_seat=3, hand=["7C", "AC", "8D", "TD", "QS", "7S", "9H", "KH"]
        ),
        PlayRequest(
            id=11,
            legal=["7C", "AC", "8D", "TD", "QS", "7S", "9H", "KH"],
            trick=[],
            leader=0,
            trick_number=0,
            hearts_broken=True,
            time=TIME,
        ),
        CardPlayed(seat=0, card="7C", trick_number=0),
        CardPlayed(seat=1, card="KC", trick_number=0),
        CardPlayed(seat=2, card="8C", trick_number=0),
        CardPlayed(seat=3, card="9S", trick_number=0),
        TrickEnd(trick_number=0, leader=0, cards=["7C", "KC", "8C", "9S"], winner=1, points=0),
        CardPlayed(seat=1, card="JH", trick_number=1),
        CardPlayed(seat=2, card="8H", trick_number=1),
        CardPlayed(seat=3, card="QH", trick_number=1),
        PlayRequest(
            id=12, legal=["9H", "KH"], trick=["JH", "8H", "QH"], leader=1, trick_number=1, hearts_broken=True, time=TIME
        ),
        CardPlayed(seat=0, card="9H", trick_number=1),
        TrickEnd(trick_number=1, leader=1, cards=["JH", "8H", "QH", "9H"], winner=3, points=4),
    ]


ROUND_END = RoundEnd(
    round=0,
    points_taken=[0, 2, 4, 9],
    score_changes=[0, 2, 4, 9],
    scores=[0, 2, 4, 9],
    moon=None,
    moon_scoring=None,
    declared=[False] * 4,
    declaration_success=[None] * 4,
    revoke=None,
    match_phase=1,
    next_match_phase=1,
)
MATCH_END = MatchEnd(
    match_id="m1",
    scores=[0, 2, 4, 9],
    winners=[0],
    reason="rounds_played",
    rounds=1,
    seats=[SeatOutcome(seat=s, name=f"p{s}", status="ok") for s in range(4)],
)


# ---------------------------------------------------------------------------------------------
# The conversation
# ---------------------------------------------------------------------------------------------
def test_handshake_reply() -> None:
    out = io.BytesIO()
    code = run(ScriptBot(), feed(Hello(referee="test 1.0"), Goodbye()), out)
    assert code == 0
    [hello] = replies(out)
    assert hello == BotHello(version=1, name="script", bot_version="0.1", author="tests", token=None)


def test_hello_carries_the_token_and_picks_a_common_version() -> None:
    out = io.BytesIO()
    run(ScriptBot(), feed(Hello(versions=[3, 1, 2]), Goodbye()), out, token="seat-secret")
    [hello] = replies(out)
    assert isinstance(hello, BotHello)
    assert hello.version == 1
    assert hello.token == "seat-secret"


def test_state_follows_a_scripted_round() -> None:
    bot = ScriptBot(plays=["7C", "9H"])
    session = Session(bot)
    answers = [session.handle(m) for m in scripted_round()]
    state = session.state
    assert answers[2] == Pass(id=10, cards=["AH"])
    assert answers[4] == Play(id=11, card="7C")
    assert answers[13] == Play(id=12, card="9H")
    assert [a for i, a in enumerate(answers) if i not in (2, 4, 13)] == [None] * 13
    # what the bot saw when asked: the dealt hand, then the hand after the exchange
    assert bot.asked[0] == ("pass", ["7C", "AC", "8D", "QS", "7S", "9H", "KH", "AH"])
    assert bot.asked[1] == ("play", ["7C", "AC", "8D", "TD", "QS", "7S", "9H", "KH"])
    assert bot.asked[2] == ("play", ["AC", "8D", "TD", "QS", "7S", "9H", "KH"])
    assert bot.events[:3] == ["MatchStart", "RoundStart", "PassRequest"]
    assert state.seat == 0 and state.match_id == "m1" and state.rules == PIKET
    assert state.num_players == 4 and state.round == 0 and state.dealer == 3
    assert state.hand == ["AC", "8D", "TD", "QS", "7S", "KH"]
    assert (state.passed, state.received, state.received_from, state.pass_to) == (["AH"], ["TD"], 3, 1)
    assert state.trick == [] and state.trick_leader == 3
    assert [(t.number, t.leader, t.winner, t.points) for t in state.tricks] == [(0, 0, 1, 0), (1, 1, 3, 4)]
    assert state.tricks[1].seat_of(3, 4) == 0
    assert state.cards_seen == ["7C", "KC", "8C", "9S", "JH", "8H", "QH", "9H"]
    assert state.played_by == [["7C", "9H"], ["KC", "JH"], ["8C", "8H"], ["9S", "QH"]]
    assert state.taken == [[], ["7C", "KC", "8C", "9S"], [], ["JH", "8H", "QH", "9H"]]
    assert state.points_taken == [0, 0, 0, 4]
    assert state.voids == [set(), set(), set(), {"C"}]
    assert state.hearts_broken
    assert not state.first_trick
    assert state.value("QS") == 5 and state.value("JC") == 2 and state.value("TD") == 0
    assert len(state.deck()) == 32
    unseen = state.unseen()
    assert len(unseen) == 32 - 6 - 8 and "AH" in unseen and "QS" not in unseen and "JC" in unseen
    assert state.time_left == TIME
    # the end of the round and of the match
    assert session.handle(ROUND_END) is None
    assert state.scores == [0, 2, 4, 9] and state.last_round == ROUND_END and state.match_phase == 1
    assert session.handle(MATCH_END) is None
    assert state.match_result == MATCH_END
    # a new round forgets the last one
    session.handle(RoundStart(round=1, dealer=0, hand=["7D"], pass_direction="hold", pass_count=0,
                              pass_to=None, match_phase=2, scores=[0, 2, 4, 9]))  # fmt: skip
    assert state.tricks == [] and state.cards_seen == [] and state.points_taken == [0] * 4
    assert state.hand == ["7D"] and state.match_phase == 2 and state.voids == [set()] * 4
    assert not session.finished


def test_current_trick_helpers() -> None:
    session = Session(ScriptBot())
    for message in scripted_round()[:12]:
        session.handle(message)
    state = session.state
    assert state.trick == ["JH", "8H"] and state.trick_leader == 1 and state.led_suit == "H"
    assert state.trick_winner() == 1
    assert state.trick_points() == 2
    assert state.still_to_play() == [3, 0]


def test_a_whole_scripted_conversation_over_streams() -> None:
    lines = [Hello(), *scripted_round(), ROUND_END, MATCH_END, Goodbye()]
    out = io.BytesIO()
    assert run(ScriptBot(plays=["7C", "9H"]), feed(*lines), out) == 0
    assert replies(out) == [
        BotHello(version=1, name="script", bot_version="0.1", author="tests"),
        Pass(id=10, cards=["AH"]),
        Play(id=11, card="7C"),
        Play(id=12, card="9H"),
    ]


def test_every_request_id_is_echoed() -> None:
    lines = [
        Hello(),
        MatchStart(match_id="m", seat=2, players=PLAYERS, rules=RuleSet(declarations=True), time=CLOCK),
        DeclareRequest(id=7, declarations=[None, True, None, None], points=10, time=TIME),
        PlayRequest(id=123456, legal=["2C"], trick=[], leader=2, trick_number=0, hearts_broken=False, time=TIME),
        MoonRequest(id=99, options=["add_to_others", "subtract_from_shooter"], points=26, time=TIME),
        PassRequest(id=3, count=2, legal=["AS", "KS", "2C"], to_seat=1, time=TIME),
        Goodbye(),
    ]
    out = io.BytesIO()
    run(ScriptBot(), feed(*lines), out)
    assert replies(out)[1:] == [
        Declare(id=7, declare=True),
        Play(id=123456, card="2C"),
        Moon(id=99, choice="subtract_from_shooter"),
        Pass(id=3, cards=["KS", "2C"]),
    ]


def test_unknown_types_fields_and_bad_lines_are_ignored() -> None:
    request = PlayRequest(
        id=5, legal=["3D", "4D"], trick=["2D"], leader=1, trick_number=4, hearts_broken=False, time=TIME
    )
    lines = [
        with_extra_fields(Hello(), features=["x"], motd="hi"),
        b'{"type": "weather", "id": 4, "sunny": true}\n',
        b"this is not json\n",
        b'{"type": "play_request", "id": "not a number"}\n',
        b"[1, 2, 3]\n",
        b"\n",
        with_extra_fields(request, hint="4D", time={"decision_ms": 5, "bank_ms": 6, "extra": 1}),
        b'{"type": "goodbye", "reason": "done", "later": {"nested": [1]}}\r\n',
    ]
    out = io.BytesIO()
    assert run(ScriptBot(), feed(*lines), out) == 0
    assert replies(out) == [
        BotHello(version=1, name="script", bot_version="0.1", author="tests"),
        Play(id=5, card="3D"),
    ]


def test_an_overlong_line_is_skipped() -> None:
    long_line = b'{"type": "weather", "pad": "' + b"x" * 5000 + b'"}\n'
    request = PlayRequest(id=8, legal=["2C"], trick=[], leader=0, trick_number=0, hearts_broken=False, time=TIME)
    out = io.BytesIO()
    run(ScriptBot(), feed(Hello(), long_line, request, Goodbye()), out, max_line=1000)
    assert [type(r) for r in replies(out)] == [BotHello, Play]


def test_goodbye_ends_the_loop() -> None:
    after = PlayRequest(id=9, legal=["2C"], trick=[], leader=0, trick_number=0, hearts_broken=False, time=TIME)
    source = feed(Hello(), Goodbye(reason="done"), after)
    out = io.BytesIO()
    assert run(ScriptBot(), source, out) == 0
    assert [type(r) for r in replies(out)] == [BotHello]
    assert source.read() == encode(after)  # never read


def test_a_fatal_error_ends_the_loop_and_a_warning_does_not() -> None:
    request = PlayRequest(id=9, legal=["2C"], trick=[], leader=0, trick_number=0, hearts_broken=False, time=TIME)
    warning = Error(code="illegal_move", message="must follow suit", fatal=False, request_id=8, rule="must_follow_suit")
    fatal = Error(code="timeout", message="too slow", fatal=True, request_id=9)
    out = io.BytesIO()
    assert run(ScriptBot(), feed(Hello(), warning, request, fatal, request, Goodbye()), out) == 1
    assert replies(out) == [
        BotHello(version=1, name="script", bot_version="0.1", author="tests"),
        Play(id=9, card="2C"),
    ]


def test_the_end_of_input_ends_the_loop() -> None:
    out = io.BytesIO()
    assert run(ScriptBot(), feed(Hello()), out) == 0
    assert len(replies(out)) == 1


class Broken(Bot):
    name = "broken"

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        return ["AS", "AS", "AS"]

    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        raise RuntimeError("oops")

    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        return "yes"  # type: ignore[return-value]

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        return "keep_it"


def test_wrong_answers_are_replaced_by_legal_ones(caplog: pytest.LogCaptureFixture) -> None:
    session = Session(Broken())
    play = PlayRequest(id=1, legal=["5H", "6H"], trick=["2H"], leader=3, trick_number=2, hearts_broken=True, time=TIME)
    assert session.handle(play) == Play(id=1, card="5H")
    passing = PassRequest(id=2, count=3, legal=["AS", "KS", "2C", "3C"], to_seat=1, time=TIME)
    assert session.handle(passing) == Pass(id=2, cards=["AS", "KS", "2C"])
    declaring = DeclareRequest(id=3, declarations=[None] * 4, points=10, time=TIME)
    assert session.handle(declaring) == Declare(id=3, declare=False)
    moon = MoonRequest(id=4, options=["subtract_from_shooter"], points=26, time=TIME)
    assert session.handle(moon) == Moon(id=4, choice="subtract_from_shooter")
    assert "oops" in caplog.text and "choose_pass returned" in caplog.text


def test_strict_bots_raise() -> None:
    class StrictBroken(Broken):
        strict = True

    play = PlayRequest(id=1, legal=["5H"], trick=[], leader=0, trick_number=2, hearts_broken=True, time=TIME)
    with pytest.raises(RuntimeError, match="oops"):
        Session(StrictBroken()).handle(play)


def test_answers_are_normalised_to_wire_codes() -> None:
    class Sloppy(ScriptBot):
        def choose_play(self, state: TableState, request: PlayRequest) -> str:
            return "10h"

    play = PlayRequest(id=1, legal=["TH", "2H"], trick=[], leader=0, trick_number=2, hearts_broken=True, time=TIME)
    assert Session(Sloppy()).handle(play) == Play(id=1, card="TH")


def test_card_helpers() -> None:
    assert card_suit("QS") == "S" and card_rank("QS") == 12 and card_rank("AH") == 14 and card_rank("TD") == 10
    assert trick_winner(["5D", "KD", "AS", "9D"]) == 1
    assert trick_winner(["5D", "5D"], "cancel") is None
    assert trick_winner(["KD", "5D", "KD", "7D"], "cancel") == 3
    assert trick_winner(["KD", "5D", "KD", "7D"], "later_wins") == 2
    assert trick_winner([]) is None
    assert len(deck_codes(RuleSet())) == 52
    assert len(deck_codes(ruleset("double-deck"))) % ruleset("double-deck").players == 0
    for name in PRESETS:
        rules = ruleset(name)
        engine = Counter(card_code(c) for c in deck_for(rules).cards)
        assert Counter(deck_codes(rules)) == engine, name


# ---------------------------------------------------------------------------------------------
# Transports: a socket, and main()'s command line
# ---------------------------------------------------------------------------------------------
class TinyServer:
    """A one-connection TCP 'referee': sends hello, reads the bot's hello, says goodbye."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received: list[BotMessage] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection, connection.makefile("rwb") as stream:
            stream.write(encode(Hello()))
            stream.flush()
            self.received.append(decode_bot(stream.readline()))
            stream.write(encode(PlayRequest(id=1, legal=["2C"], trick=[], leader=0, trick_number=0,
                                            hearts_broken=False, time=TIME)))  # fmt: skip
            stream.flush()
            self.received.append(decode_bot(stream.readline()))
            stream.write(encode(Goodbye()))
            stream.flush()
        self.listener.close()


def test_connect_over_tcp_sends_the_token() -> None:
    server = TinyServer()
    assert connect(ScriptBot(), "127.0.0.1", server.port, "tok-1") == 0
    server.thread.join(5)
    assert server.received == [
        BotHello(version=1, name="script", bot_version="0.1", author="tests", token="tok-1"),
        Play(id=1, card="2C"),
    ]


def test_main_parses_tcp_and_token() -> None:
    server = TinyServer()
    assert main(ScriptBot, ["--tcp", f"127.0.0.1:{server.port}", "--token", "tok-2", "--seed", "5"]) == 0
    server.thread.join(5)
    first = server.received[0]
    assert isinstance(first, BotHello) and first.token == "tok-2"


# ---------------------------------------------------------------------------------------------
# The sample bots as real processes
# ---------------------------------------------------------------------------------------------
@pytest.fixture(params=["random_bot", "heuristic_bot"])
@starts("process")
def bot_process(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BotProcess]:
    """A sample bot program on pipes: a seat for ``play_match`` that waits for a reply to requests."""
    args = ["--seed", "7"] if request.param == "random_bot" else []
    command = [sys.executable, str(SAMPLES / f"{request.param}.py"), *args]
    process = BotProcess(command, tmp_path / "stderr.txt", timeout=20)
    yield process
    process.close()


def finish(bot: BotProcess) -> int:
    """Say goodbye; the exit status. Any line the bot sent unasked fails the test."""
    bot.send(Goodbye())
    code = bot.wait_exit()
    bot.expect_end_of_output()
    return code


def test_sample_bot_processes_answer_legally(bot_process: BotProcess, tmp_path: Path) -> None:
    hello = bot_process(Hello(referee="tests"))
    assert isinstance(hello, BotHello) and hello.version == 1 and hello.name in ("random", "heuristic")
    bot_process.send_raw(b'{"type": "news", "id": 1}\n')  # unknown: ignored, not answered
    others = [Session(StrictRandom(seed=s)).handle for s in range(3)]
    outcome = play_match(ruleset("american"), 11, [bot_process, *others], max_rounds=4)
    assert outcome.rounds == 4 and sum(outcome.decisions) > 4 * 52
    achterhoeks = play_match(ruleset("achterhoeks"), 12, [*others, bot_process], max_rounds=2)
    assert achterhoeks.rounds == 2
    assert finish(bot_process) == 0
    assert b"Traceback" not in (tmp_path / "stderr.txt").read_bytes()


def test_sample_bot_process_exits_after_a_fatal_error(bot_process: BotProcess) -> None:
    bot_process(Hello())
    bot_process.send(Error(code="timeout", message="no reply in time", fatal=True))
    assert bot_process.proc.wait(timeout=20) == 1


# ---------------------------------------------------------------------------------------------
# Whole matches on the rules engine: legal replies, state kept right, the heuristic is strong
# ---------------------------------------------------------------------------------------------
def checker(sessions: list[Session]) -> Any:
    """Compare each asking seat's state with the engine's truth."""

    def inspect(seat: int, round_: Round, scores: list[int]) -> None:
        state = sessions[seat].state
        hands = [Counter(card_code(c) for c in round_.hand(s)) for s in range(round_.deck.players)]
        assert Counter(state.hand) == hands[seat]
        assert Counter(state.unseen()) == sum((h for s, h in enumerate(hands) if s != seat), Counter())
        assert state.trick == [card_code(c) for c in round_.trick]
        assert state.points_taken == list(round_.points)
        assert state.hearts_broken == round_.broken
        assert len(state.tricks) == round_.trick_number
        for other, voids in enumerate(state.voids):
            assert all(card_suit(code) not in voids for code in hands[other]), (other, voids)

    return inspect


@pytest.mark.parametrize("preset", list(PRESETS))
def test_sample_bots_play_every_variant(preset: str) -> None:
    rules = ruleset(preset)
    for seed in range(2):
        sessions = [
            Session(StrictHeuristic() if (s + seed) % 2 else StrictRandom(seed=s)) for s in range(rules.players)
        ]
        outcome = play_match(rules, seed, [s.handle for s in sessions], inspect=checker(sessions))
        assert outcome.winners


def test_heuristic_beats_random_clearly() -> None:
    rules = ruleset("american")
    wins = 0
    heuristic_points = random_points = 0
    for seed in range(16):
        seat = seed % 4
        bots = [StrictHeuristic() if s == seat else StrictRandom(seed=seed * 4 + s) for s in range(4)]
        outcome = play_match(rules, seed, [Session(b).handle for b in bots])
        wins += seat in outcome.winners
        heuristic_points += outcome.points[seat]
        random_points += sum(outcome.points) - outcome.points[seat]
    assert wins >= 12
    assert heuristic_points * 3 * 2 < random_points


def test_heuristic_takes_points_in_phase_two() -> None:
    rules = ruleset("dutch")
    wins = 0
    for seed in range(16):
        seat = seed % 4
        bots = [StrictHeuristic() if s == seat else StrictRandom(seed=seed * 4 + s) for s in range(4)]
        wins += seat in play_match(rules, seed, [Session(b).handle for b in bots]).winners
    assert wins >= 8


# ---------------------------------------------------------------------------------------------
# The heuristic in crafted positions
# ---------------------------------------------------------------------------------------------
def decide(
    hand: list[str],
    trick: list[str],
    *,
    legal: list[str] | None = None,
    rules: RuleSet | None = None,
    history: Sequence[tuple[int, list[str], int]] = (),
    phase: int = 1,
    broken: bool = True,
) -> str:
    """The heuristic's play as seat 0 with ``hand``, after ``history`` (finished tricks as
    (leader, cards, winner)) and the cards of the current ``trick``."""
    rules = rules or RuleSet()
    session = Session(StrictHeuristic())
    n = rules.players
    session.handle(MatchStart(match_id="m", seat=0, players=PLAYERS[:n], rules=rules, time=CLOCK))
    played_by_me = [card for leader, cards, _ in history for i, card in enumerate(cards) if (leader + i) % n == 0]
    session.handle(RoundStart(round=0, dealer=3, hand=hand + played_by_me, pass_direction="hold", pass_count=0,
                              pass_to=None, match_phase=phase, scores=[0] * n))  # fmt: skip
    for number, (leader, cards, winner) in enumerate(history):
        for i, card in enumerate(cards):
            session.handle(CardPlayed(seat=(leader + i) % n, card=card, trick_number=number))
        points = sum(rules.card_points.get(c, 0) for c in cards)
        session.handle(TrickEnd(trick_number=number, leader=leader, cards=cards, winner=winner, points=points))
    leader = (n - len(trick)) % n
    for i, card in enumerate(trick):
        session.handle(CardPlayed(seat=(leader + i) % n, card=card, trick_number=len(history)))
    if legal is None:
        led = [c for c in hand if trick and card_suit(c) == card_suit(trick[0])]
        legal = led or list(hand)
    request = PlayRequest(id=1, legal=legal, trick=trick, leader=leader, trick_number=len(history),
                          hearts_broken=broken, time=TIME)  # fmt: skip
    reply = session.handle(request)
    assert isinstance(reply, Play)
    assert reply.card in legal
    return reply.card


FIRST = (0, ["2C", "3C", "4C", "TC"], 3)
"""A finished first trick (seat 0 played the 2C), so later positions are not the first trick."""


def test_dumps_the_queen_when_void() -> None:
    assert decide(["QS", "AH", "KD", "3S"], ["5C", "9C"], history=[FIRST]) == "QS"


def test_dumps_the_ace_of_spades_before_hearts_while_the_queen_is_out() -> None:
    assert decide(["AS", "AH", "2D", "3S"], ["5C", "9C"], history=[FIRST]) == "AS"


def test_dumps_the_highest_penalty_card_then_high_cards() -> None:
    assert decide(["2H", "QH", "KD", "3S"], ["5C", "9C"], history=[FIRST]) == "QH"
    assert decide(["KD", "2D", "3S"], ["5C", "9C"], history=[FIRST]) == "KD"


def test_ducks_under_the_current_winner() -> None:
    assert decide(["AD", "QD", "3D", "5S"], ["9D", "KD"], history=[FIRST, (3, ["6D", "7D", "8D", "TD"], 2)]) == "QD"
    assert decide(["KS", "QS", "3S", "5D"], ["AS"], history=[FIRST]) == "QS"  # the queen under the ace


def test_when_it_must_win_it_plays_low_unless_it_is_last() -> None:
    assert decide(["9H", "KH", "2D"], ["5H"], history=[FIRST]) == "9H"
    assert decide(["9H", "KH", "2D"], ["5H", "2H", "3H"], history=[FIRST]) == "KH"
    assert decide(["KS", "QS", "2D"], ["5S"], history=[FIRST]) == "KS"  # never win with the queen


def test_leads_low_spades_to_flush_the_queen() -> None:
    assert decide(["3S", "8S", "4C", "9D", "JH"], [], history=[FIRST]) == "3S"


def test_avoids_leading_hearts() -> None:
    assert decide(["2H", "3H", "TD"], [], history=[FIRST]) == "TD"


def test_takes_a_bonus_card() -> None:
    omnibus = ruleset("omnibus")
    assert omnibus.card_points.get("JD", 0) < 0
    assert decide(["JD", "3D", "5S"], ["2D", "5D", "9D"], rules=omnibus, history=[FIRST]) == "JD"
    assert decide(["JD", "5S", "6C"], ["2H", "4H"], rules=omnibus, history=[FIRST]) != "JD"  # never given away


def test_takes_points_in_phase_two() -> None:
    dutch = ruleset("dutch")
    assert decide(["JH", "7H", "8S"], ["8H", "9H", "TH"], rules=dutch, phase=1) == "7H"
    assert decide(["JH", "7H", "8S"], ["8H", "9H", "TH"], rules=dutch, phase=2) == "JH"


def test_heuristic_passes_the_queen_high_hearts_and_voids_a_suit() -> None:
    bot = HeuristicBot()
    session = Session(bot)
    session.handle(MatchStart(match_id="m", seat=0, players=PLAYERS, rules=RuleSet(), time=CLOCK))
    hand = ["2C", "3C", "5D", "7D", "9D", "JD", "QS", "4S", "6H", "8H", "TH", "AH", "KC"]
    session.handle(RoundStart(round=0, dealer=3, hand=hand, pass_direction="left", pass_count=3, pass_to=1,
                              match_phase=1, scores=[0] * 4))  # fmt: skip
    reply = session.handle(PassRequest(id=1, count=3, legal=hand, to_seat=1, time=TIME))
    assert isinstance(reply, Pass)
    assert "QS" in reply.cards and "AH" in reply.cards
    spades = ["AS", "KS", "3S", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "2D", "3D", "2H"]
    session.handle(RoundStart(round=1, dealer=0, hand=spades, pass_direction="left", pass_count=3, pass_to=1,
                              match_phase=1, scores=[0] * 4))  # fmt: skip
    reply = session.handle(PassRequest(id=2, count=3, legal=spades, to_seat=1, time=TIME))
    assert isinstance(reply, Pass)
    assert {"AS", "KS"} <= set(reply.cards)
    voidable = ["9D", "3D", "2C", "3C", "4C", "5C", "6C", "2S", "3S", "4S", "5S", "2H", "3H"]
    session.handle(RoundStart(round=2, dealer=1, hand=voidable, pass_direction="right", pass_count=3, pass_to=3,
                              match_phase=1, scores=[0] * 4))  # fmt: skip
    reply = session.handle(PassRequest(id=3, count=3, legal=voidable, to_seat=3, time=TIME))
    assert isinstance(reply, Pass)
    assert {"9D", "3D"} <= set(reply.cards)


def test_the_default_moon_choice_is_one_offered(caplog: pytest.LogCaptureFixture) -> None:
    """A bot that leaves ``choose_moon`` alone adds to the others when that is offered, else
    takes the first option: never an answer the kit must replace."""
    session = Session(Bot())
    both = MoonRequest(id=1, options=["add_to_others", "subtract_from_shooter"], points=26, time=TIME)
    assert session.handle(both) == Moon(id=1, choice="add_to_others")
    one = MoonRequest(id=2, options=["subtract_from_shooter"], points=26, time=TIME)
    assert session.handle(one) == Moon(id=2, choice="subtract_from_shooter")
    assert "choose_moon returned" not in caplog.text


@pytest.mark.parametrize("command_line", list(BAD_COMMAND_LINES))
def test_a_bad_command_line_exits_two_as_every_kit_does(command_line: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The Python kit's ``main`` refuses what the other kits refuse (tests/sample_bots/test_kits.py),
    with argparse's status 2 and the option named, before any connection is tried."""
    with pytest.raises(SystemExit) as exited:
        main(RandomBot, BAD_COMMAND_LINES[command_line])
    assert exited.value.code == 2
    assert "--tcp" in capsys.readouterr().err or "--retry-for" in BAD_COMMAND_LINES[command_line]
