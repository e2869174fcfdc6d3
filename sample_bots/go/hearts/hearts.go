// Package hearts is the Go kit for Hearts bots (protocol v1): the standard library only.
//
// A bot implements ChoosePass and ChoosePlay and embeds BaseBot for the rest:
//
//	type myBot struct{ hearts.BaseBot }
//
//	func (myBot) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string {
//		return r.Legal[:r.Count]
//	}
//
//	func (myBot) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
//		return r.Legal[0]
//	}
//
//	func main() {
//		hearts.Run(myBot{}, hearts.Info{Name: "my-bot", Version: "0.1", Author: "me"})
//	}
//
// The kit reads one JSON object per line from the referee, keeps the table State current,
// calls the bot for each decision and writes the reply at once (one line, unbuffered: nothing
// waits in a buffer while the referee's clock runs). It echoes request ids exactly (int64,
// never a float), ignores message types and fields it does not know, and stops on goodbye, on
// a fatal error or at the end of its input.
//
// Answers are checked before they are sent: an answer that is not legal, or a panic in the
// bot's code, is logged to stderr and replaced by a legal default (the first legal cards,
// no declaration, the moon added to the others), so a bug costs a decision, not the match.
// Set Info.Strict while developing to let a panic end the bot instead.
//
// stdout carries the protocol only. Run points os.Stdout at stderr, so a stray fmt.Println
// cannot corrupt it; log with Logf, fmt.Fprintln(os.Stderr, ...) or the log package.
//
// Command line (handled by Run; other arguments are left to the bot, in os.Args):
//
//	./bot                               stdin/stdout: the referee starts the bot
//	./bot --tcp HOST:PORT --token T     connect to a referee over TCP; the token goes in the hello
//	--token-file F                      the token from the first line of F (a command line is
//	                                    readable by every process of the machine; a 0600 file
//	                                    or the environment variable HEARTS_TOKEN is not)
//	--retry-for S                       over TCP: when the referee answers busy, refuses the
//	                                    connection or drops it before seating the bot, try again
//	                                    (0.1 s doubling to 5 s, with jitter) for up to S seconds
//	                                    (default 60; 0: no retries)
package hearts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ProtocolVersion is the protocol version this kit speaks.
const ProtocolVersion = 1

// MaxLine is the protocol's longest line in bytes, the newline not counted.
const MaxLine = 65536

// TokenVariable is the environment variable a seat token may come in.
const TokenVariable = "HEARTS_TOKEN"

// The pauses between TCP connection attempts: RetryFirst, doubling up to RetryCap, each a
// random half to all of it, for RetryFor in all (--retry-for), as the Python and JS kits do.
const (
	RetryFor   = 60 * time.Second
	RetryFirst = 100 * time.Millisecond
	RetryCap   = 5 * time.Second
)

// maxSeats bounds every per-seat list, so that a hostile seat number cannot make the kit
// allocate without limit (the largest real table has 6 seats).
const maxSeats = 64

// Ranks and Suits in the order of the card codes: rank "2".."A", suit clubs, diamonds,
// spades, hearts (the order the referee lists hands in).
const (
	Ranks = "23456789TJQKA"
	Suits = "CDSH"
)

// ---------------------------------------------------------------------------------------------
// Messages from the referee
// ---------------------------------------------------------------------------------------------

// Message is any message from the referee: one of the pointer types below (*Hello,
// *MatchStart, ..., *Unknown). OnMessage gets every one; use a type switch.
type Message interface {
	// Kind is the message's "type" field: "hello", "match_start", ...
	Kind() string
}

// Hello is the referee's first line; the kit answers it.
type Hello struct {
	Protocol string `json:"protocol"`
	Versions []int  `json:"versions"`
	Referee  string `json:"referee"`
}

// Player is a seat at the table and the name its bot gave.
type Player struct {
	Seat int    `json:"seat"`
	Name string `json:"name"`
}

// TimeControl is the match's clock: per decision, the bank, the start-up (milliseconds).
type TimeControl struct {
	PerDecisionMs int64 `json:"per_decision_ms"`
	BankMs        int64 `json:"bank_ms"`
	StartupMs     int64 `json:"startup_ms"`
}

// TimeLeft is the time a request allows: decision_ms free, then what is left in the bank.
type TimeLeft struct {
	DecisionMs int64 `json:"decision_ms"`
	BankMs     int64 `json:"bank_ms"`
}

// MatchStart begins a match: your seat, the players, the complete rules and the clock.
type MatchStart struct {
	MatchID string      `json:"match_id"`
	Seat    int         `json:"seat"`
	Players []Player    `json:"players"`
	Rules   Rules       `json:"rules"`
	Time    TimeControl `json:"time"`
}

// RoundStart is a new deal: your hand, the dealer, where passed cards go.
type RoundStart struct {
	Round         int      `json:"round"`
	Dealer        int      `json:"dealer"`
	Hand          []string `json:"hand"`
	PassDirection string   `json:"pass_direction"`
	PassCount     int      `json:"pass_count"`
	PassTo        *int     `json:"pass_to"` // nil when nobody passes
	MatchPhase    int      `json:"match_phase"`
	Scores        []int    `json:"scores"`
}

// PassRequest asks for Count distinct cards of Legal (your hand) to pass to ToSeat.
type PassRequest struct {
	ID     int64    `json:"id"`
	Count  int      `json:"count"`
	Legal  []string `json:"legal"`
	ToSeat int      `json:"to_seat"`
	Time   TimeLeft `json:"time"`
}

// Passed says the exchange is done: what you gave and got, and your hand now.
type Passed struct {
	Given    []string `json:"given"`
	ToSeat   int      `json:"to_seat"`
	Received []string `json:"received"`
	FromSeat int      `json:"from_seat"`
	Hand     []string `json:"hand"`
}

// DeclareRequest (Achterhoeks miezen) asks whether you will take no penalty points this
// round. Declarations holds the decisions made so far by seat (nil: not yet).
type DeclareRequest struct {
	ID           int64    `json:"id"`
	Declarations []*bool  `json:"declarations"`
	Points       int      `json:"points"`
	Time         TimeLeft `json:"time"`
}

// Declared is a seat's declaration (true: it will take no penalty points).
type Declared struct {
	Seat     int  `json:"seat"`
	Declared bool `json:"declared"`
}

// PlayRequest asks for one card of Legal. Trick holds the cards already played to it, the
// leader's first (empty when you lead).
type PlayRequest struct {
	ID           int64    `json:"id"`
	Legal        []string `json:"legal"`
	Trick        []string `json:"trick"`
	Leader       int      `json:"leader"`
	TrickNumber  int      `json:"trick_number"`
	HeartsBroken bool     `json:"hearts_broken"`
	Time         TimeLeft `json:"time"`
}

// CardPlayed is a card played by any seat, yours included.
type CardPlayed struct {
	Seat        int    `json:"seat"`
	Card        string `json:"card"`
	TrickNumber int    `json:"trick_number"`
}

// TrickEnd is a finished trick. Winner is nil when every card of the led suit was cancelled
// by its twin (double deck): the cards go to the next trick's winner.
type TrickEnd struct {
	TrickNumber int      `json:"trick_number"`
	Leader      int      `json:"leader"`
	Cards       []string `json:"cards"`
	Winner      *int     `json:"winner"`
	Points      int      `json:"points"`
}

// MoonRequest: you took every penalty card; choose one of Options.
type MoonRequest struct {
	ID      int64    `json:"id"`
	Options []string `json:"options"`
	Points  int      `json:"points"`
	Time    TimeLeft `json:"time"`
}

// RoundEnd is the round's score. Per-seat lists are indexed by seat.
type RoundEnd struct {
	Round              int     `json:"round"`
	PointsTaken        []int   `json:"points_taken"`
	ScoreChanges       []int   `json:"score_changes"`
	Scores             []int   `json:"scores"`
	Moon               *int    `json:"moon"`
	MoonScoring        *string `json:"moon_scoring"`
	Declared           []bool  `json:"declared"`
	DeclarationSuccess []*bool `json:"declaration_success"`
	Revoke             *int    `json:"revoke"`
	MatchPhase         int     `json:"match_phase"`
	NextMatchPhase     int     `json:"next_match_phase"`
}

// SeatOutcome is how a seat finished the match: Status "ok" or why it was dropped.
type SeatOutcome struct {
	Seat          int    `json:"seat"`
	Name          string `json:"name"`
	Status        string `json:"status"`
	Substitutions int    `json:"substitutions"`
	Penalties     int    `json:"penalties"`
}

// MatchEnd is the result. Several Winners is a tie.
type MatchEnd struct {
	MatchID string        `json:"match_id"`
	Scores  []int         `json:"scores"`
	Winners []int         `json:"winners"`
	Reason  string        `json:"reason"`
	Rounds  int           `json:"rounds"`
	Seats   []SeatOutcome `json:"seats"`
}

// Error is something the bot sent that the referee refused; Fatal means the bot is out.
type Error struct {
	Code      string  `json:"code"`
	Message   string  `json:"message"`
	Fatal     bool    `json:"fatal"`
	RequestID *int64  `json:"request_id"`
	Rule      *string `json:"rule"`
}

// Goodbye: no more matches on this connection.
type Goodbye struct {
	Reason string `json:"reason"`
}

// Unknown is a message type this kit does not know (a later protocol version): no answer.
type Unknown struct {
	Type string
	Raw  json.RawMessage
}

// Kind implements Message.
func (*Hello) Kind() string { return "hello" }

// Kind implements Message.
func (*MatchStart) Kind() string { return "match_start" }

// Kind implements Message.
func (*RoundStart) Kind() string { return "round_start" }

// Kind implements Message.
func (*PassRequest) Kind() string { return "pass_request" }

// Kind implements Message.
func (*Passed) Kind() string { return "passed" }

// Kind implements Message.
func (*DeclareRequest) Kind() string { return "declare_request" }

// Kind implements Message.
func (*Declared) Kind() string { return "declared" }

// Kind implements Message.
func (*PlayRequest) Kind() string { return "play_request" }

// Kind implements Message.
func (*CardPlayed) Kind() string { return "card_played" }

// Kind implements Message.
func (*TrickEnd) Kind() string { return "trick_end" }

// Kind implements Message.
func (*MoonRequest) Kind() string { return "moon_request" }

// Kind implements Message.
func (*RoundEnd) Kind() string { return "round_end" }

// Kind implements Message.
func (*MatchEnd) Kind() string { return "match_end" }

// Kind implements Message.
func (*Error) Kind() string { return "error" }

// Kind implements Message.
func (*Goodbye) Kind() string { return "goodbye" }

// Kind implements Message.
func (m *Unknown) Kind() string { return m.Type }

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

// Rules is the complete rule set of a match (docs/rules.md). Every field has a default, so a
// partial rule set is the American game with some options changed. Raw keeps the rules as
// the referee sent them, for fields this kit does not know yet.
type Rules struct {
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	Players            int             `json:"players"`
	Deck               string          `json:"deck"` // "standard" (52 cards) or "piket" (32: 7 to ace)
	Copies             int             `json:"copies"`
	Remove             []string        `json:"remove"`
	Add                []string        `json:"add"`
	TrimToDealEvenly   bool            `json:"trim_to_deal_evenly"`
	DealPackets        []int           `json:"deal_packets"`
	PassCount          int             `json:"pass_count"`
	PassSchedule       []string        `json:"pass_schedule"`
	OpeningLead        string          `json:"opening_lead"`
	FirstTrickNoPoints bool            `json:"first_trick_no_points"`
	HeartsLead         string          `json:"hearts_lead"` // "after_broken" or "any_time"
	QueenBreaksHearts  bool            `json:"queen_breaks_hearts"`
	QueenMustDrop      bool            `json:"queen_must_drop"`
	IdenticalCards     string          `json:"identical_cards"` // double deck: "cancel" or "later_wins"
	CardPoints         map[string]int  `json:"card_points"`     // unlisted cards are worth 0
	Moon               string          `json:"moon"`
	MoonPoints         *int            `json:"moon_points"`
	MoonPhase2         string          `json:"moon_phase2"`
	Declarations       bool            `json:"declarations"`
	DeclarationPoints  int             `json:"declaration_points"`
	RevokePoints       *int            `json:"revoke_points"`
	End                string          `json:"end"` // "target", "rounds" or "two_phase"
	Target             int             `json:"target"`
	Rounds             int             `json:"rounds"`
	Threshold          int             `json:"threshold"`
	Finish             string          `json:"finish"`
	TieBreak           string          `json:"tie_break"`
	RoundLimit         int             `json:"round_limit"`
	Raw                json.RawMessage `json:"-"`
}

// DefaultRules is the American game, the rules every missing field defaults to.
func DefaultRules() Rules {
	points := map[string]int{"QS": 13}
	for _, r := range Ranks {
		points[string(r)+"H"] = 1
	}
	return Rules{
		Name: "american", Players: 4, Deck: "standard", Copies: 1,
		Remove: []string{}, Add: []string{}, DealPackets: []int{1},
		PassCount: 3, PassSchedule: []string{"left", "right", "across", "hold"},
		OpeningLead: "lowest_club", FirstTrickNoPoints: true, HeartsLead: "after_broken",
		IdenticalCards: "cancel", CardPoints: points, Moon: "add_to_others", MoonPhase2: "none",
		DeclarationPoints: 10, End: "target", Target: 100, Rounds: 12, Threshold: 50,
		Finish: "zero_or_below", TieBreak: "none", RoundLimit: 500,
	}
}

// UnmarshalJSON fills the fields the referee sent over the defaults. card_points replaces
// the default table whole (decoding into a map would merge the two).
func (r *Rules) UnmarshalJSON(data []byte) error {
	type plain Rules // without this method
	rules := plain(DefaultRules())
	rules.CardPoints = nil
	err := json.Unmarshal(data, &rules)
	if rules.CardPoints == nil {
		rules.CardPoints = DefaultRules().CardPoints
	}
	rules.Raw = append(json.RawMessage(nil), data...)
	*r = Rules(rules)
	return err
}

// ---------------------------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------------------------

// SuitOf is the suit letter of a card code: "QS" -> 'S' (0 for an empty code).
func SuitOf(card string) byte {
	if card == "" {
		return 0
	}
	c := card[len(card)-1]
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	return c
}

// RankOf is the rank of a card code as a number, 2..14 (11 jack, 12 queen, 13 king, 14 ace):
// "QS" -> 12, "TD" -> 10, "10D" -> 10; 0 for a code that is not a card.
func RankOf(card string) int {
	if len(card) < 2 {
		return 0
	}
	text := strings.ToUpper(card[:len(card)-1])
	if text == "10" {
		return 10
	}
	if len(text) != 1 {
		return 0
	}
	i := strings.IndexByte(Ranks, text[0])
	if i < 0 {
		return 0
	}
	return i + 2
}

// Normalize writes a card code the way the referee does: "qs" -> "QS", "10h" -> "TH".
func Normalize(card string) string {
	text := strings.ToUpper(strings.TrimSpace(card))
	if strings.HasPrefix(text, "10") {
		return "T" + text[2:]
	}
	return text
}

func suitIndex(card string) int { return strings.IndexByte(Suits, SuitOf(card)) }

// CompareCards orders cards by suit (C, D, S, H), then rank: the order the referee lists
// hands in. Negative when a comes first, positive when b does, 0 for equal cards.
func CompareCards(a, b string) int {
	if d := suitIndex(a) - suitIndex(b); d != 0 {
		return d
	}
	return RankOf(a) - RankOf(b)
}

// CompareByRank orders cards by rank, then suit (C, D, S, H).
func CompareByRank(a, b string) int {
	if d := RankOf(a) - RankOf(b); d != 0 {
		return d
	}
	return suitIndex(a) - suitIndex(b)
}

// SortByRank returns a sorted copy of cards, lowest rank first (among equal ranks clubs,
// diamonds, spades, hearts). The list given is left as it was.
func SortByRank(cards []string) []string {
	out := append([]string{}, cards...)
	sort.SliceStable(out, func(i, j int) bool { return CompareByRank(out[i], out[j]) < 0 })
	return out
}

// SortCards returns a copy of cards in hand order: by suit (C, D, S, H), then rank.
func SortCards(cards []string) []string {
	out := append([]string{}, cards...)
	sort.SliceStable(out, func(i, j int) bool { return CompareCards(out[i], out[j]) < 0 })
	return out
}

// OfSuit returns the cards of one suit ('C', 'D', 'S' or 'H'), in their order.
func OfSuit(cards []string, suit byte) []string {
	out := []string{}
	for _, c := range cards {
		if SuitOf(c) == suit {
			out = append(out, c)
		}
	}
	return out
}

// Contains says whether card is among cards.
func Contains(cards []string, card string) bool {
	for _, c := range cards {
		if c == card {
			return true
		}
	}
	return false
}

// RemoveCards returns hand without one copy of each of cards (hand itself is not changed).
func RemoveCards(hand []string, cards ...string) []string {
	out := append([]string{}, hand...)
	for _, card := range cards {
		for i, c := range out {
			if c == card {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
	}
	return out
}

// CardPoints is what card is worth under rules: positive for penalty cards, negative for
// bonus cards (the omnibus JD), 0 for the rest. In phase 2 of a two-phase (Dutch) match the
// points you take are subtracted from your score.
func CardPoints(rules *Rules, card string) int {
	return rules.CardPoints[card]
}

// TrickWinner is the index in cards (played in order, the leader's first) of the card
// winning the trick so far: the highest card of the led suit. Two identical cards (double
// deck) cancel each other unless rules.IdenticalCards is "later_wins", where the later one
// wins. -1 for an empty trick, or when every card of the led suit is cancelled.
func TrickWinner(cards []string, rules *Rules) int {
	if len(cards) == 0 {
		return -1
	}
	led := SuitOf(cards[0])
	cancel := rules == nil || rules.IdenticalCards != "later_wins"
	best := -1
	for i, card := range cards {
		if SuitOf(card) != led {
			continue
		}
		if cancel && count(cards, card) > 1 {
			continue
		}
		// >=: only identical cards tie, and those were cancelled above or the later one wins
		if best < 0 || RankOf(card) >= RankOf(cards[best]) {
			best = i
		}
	}
	return best
}

func count(cards []string, card string) int {
	n := 0
	for _, c := range cards {
		if c == card {
			n++
		}
	}
	return n
}

// Deck lists every card in play under rules, in hand order (twice each in a double deck):
// the standard or piket deck, plus rules.Add, minus rules.Remove, trimmed to deal evenly
// when the rules say so.
func Deck(rules *Rules) []string {
	low := 2
	if rules.Deck == "piket" {
		low = 7
	}
	faces := []string{}
	for _, s := range Suits {
		for _, r := range Ranks {
			if card := string(r) + string(s); RankOf(card) >= low {
				faces = append(faces, card)
			}
		}
	}
	for _, c := range rules.Add {
		if c = Normalize(c); RankOf(c) > 0 && !Contains(faces, c) {
			faces = append(faces, c)
		}
	}
	copies := rules.Copies
	if copies < 1 {
		copies = 1
	} else if copies > 4 {
		copies = 4
	}
	cards := []string{}
	for i := 0; i < copies; i++ {
		cards = append(cards, faces...)
	}
	for _, c := range rules.Remove {
		cards = RemoveCards(cards, Normalize(c))
	}
	if rules.TrimToDealEvenly && rules.Players > 0 {
		for _, r := range Ranks {
			for _, s := range "DS" {
				card := string(r) + string(s)
				for len(cards)%rules.Players != 0 && Contains(cards, card) {
					cards = RemoveCards(cards, card)
				}
			}
		}
	}
	return SortCards(cards)
}

// ---------------------------------------------------------------------------------------------
// Table state
// ---------------------------------------------------------------------------------------------

// TrickRecord is a finished trick of the current round.
type TrickRecord struct {
	Number int
	Leader int
	Cards  []string // in the order played, the leader's first
	Winner int      // -1 when every card of the led suit was cancelled (double deck)
	Points int
}

// State is everything a seat knows about the match, kept current by the kit from the
// referee's messages before each call to the bot. Read it; do not change it. Seats are
// numbered 0..n-1 clockwise; per-seat lists are indexed by seat. Round fields are reset by
// round_start, match fields by match_start.
type State struct {
	// the match
	MatchID    string
	Seat       int      // your seat
	Players    []Player // every seat and its bot's name
	NumPlayers int
	Rules      Rules       // the complete rule set
	Time       TimeControl // the match's clock
	Scores     []int       // match scores by seat: before the round, then after each round_end
	MatchPhase int         // 1, or 2 in the count-down phase of a two-phase (Dutch) match

	// the round
	Round         int
	Dealer        int
	Hand          []string // your cards now: updated after passing and after each of your plays
	PassDirection string   // left, right, across, left2, right2 or hold
	PassCount     int
	PassTo        int      // where your passed cards go; -1 when nobody passes
	Passed        []string // the cards you gave this round
	Received      []string // the cards you got this round (already in Hand)
	ReceivedFrom  int      // -1 before the exchange
	Declarations  []*bool  // per seat: its declaration this round, nil while not made
	PointsTaken   []int    // per seat: card points taken this round so far
	HeartsBroken  bool
	Trick         []string // the current trick, the leader's first
	TrickLeader   int      // the seat that led (or leads) the current trick
	TrickNumber   int
	Tricks        []TrickRecord   // the finished tricks of this round
	Played        []string        // every card played this round, in order
	PlayedBy      [][]string      // per seat: the cards it played this round
	Taken         [][]string      // per seat: the cards in the tricks it took this round
	Voids         []map[byte]bool // per seat: the suits it has shown it lacks (see IsVoid)

	// the latest request
	TimeLeft TimeLeft  // what the latest request allows
	AskedAt  time.Time // when the kit read the latest request: its clock runs from about then

	LastRoundEnd *RoundEnd // this match's latest round_end (moon, declarations, score changes)
	LastMatchEnd *MatchEnd // the match_end once the match is over

	carry []string // cards of cancelled tricks, going to the next trick's winner
}

// NewState is the state before any match: the American rules, no seat.
func NewState() *State {
	s := &State{}
	s.startMatch(&MatchStart{Seat: -1, Rules: DefaultRules()})
	return s
}

// FirstTrick says whether the current trick is the round's first.
func (s *State) FirstTrick() bool { return len(s.Tricks) == 0 }

// LedSuit is the suit of the current trick's first card, 0 before the lead.
func (s *State) LedSuit() byte {
	if len(s.Trick) == 0 {
		return 0
	}
	return SuitOf(s.Trick[0])
}

// CardPoints is what card is worth under the match's rules (hearts 1, QS 13 in American).
func (s *State) CardPoints(card string) int { return CardPoints(&s.Rules, card) }

// TrickPoints is the points in the current trick so far.
func (s *State) TrickPoints() int {
	total := 0
	for _, c := range s.Trick {
		total += s.CardPoints(c)
	}
	return total
}

// WouldWin says whether card, played now to the current trick, would be winning it so far
// (true when leading: a lone card wins).
func (s *State) WouldWin(card string) bool {
	cards := append(append([]string{}, s.Trick...), card)
	return TrickWinner(cards, &s.Rules) == len(cards)-1
}

// WinningSeat is the seat winning the current trick so far, -1 before the lead or when every
// card of the led suit is cancelled (double deck).
func (s *State) WinningSeat() int {
	i := TrickWinner(s.Trick, &s.Rules)
	if i < 0 || s.TrickLeader < 0 || s.NumPlayers == 0 {
		return -1
	}
	return (s.TrickLeader + i) % s.NumPlayers
}

// StillToPlay lists the seats yet to play to the current trick, in order (you included on
// your turn).
func (s *State) StillToPlay() []int {
	out := []int{}
	if s.TrickLeader < 0 || s.NumPlayers == 0 {
		return out
	}
	for i := len(s.Trick); i < s.NumPlayers; i++ {
		out = append(out, (s.TrickLeader+i)%s.NumPlayers)
	}
	return out
}

// IsVoid says whether seat has shown it holds no card of suit (it did not follow suit).
func (s *State) IsVoid(seat int, suit byte) bool {
	return seat >= 0 && seat < len(s.Voids) && s.Voids[seat][suit]
}

// Unseen lists the cards still in the other seats' hands: the deck minus your hand and every
// card played this round (the cards you passed are among them).
func (s *State) Unseen() []string {
	rest := Deck(&s.Rules)
	rest = RemoveCards(rest, s.Hand...)
	return RemoveCards(rest, s.Played...)
}

func (s *State) validSeat(seat int) bool { return seat >= 0 && seat < s.NumPlayers }

func (s *State) startMatch(m *MatchStart) {
	n := m.Rules.Players
	if n <= 0 || n > maxSeats {
		n = len(m.Players)
	}
	if n > maxSeats {
		n = maxSeats
	}
	*s = State{
		MatchID: m.MatchID, Seat: m.Seat, Players: append([]Player{}, m.Players...),
		NumPlayers: n, Rules: m.Rules, Time: m.Time, Scores: make([]int, n), MatchPhase: 1,
	}
	s.startRound(n)
	s.Round, s.Dealer = -1, -1
}

func (s *State) startRound(n int) {
	s.Hand, s.Passed, s.Received, s.Trick, s.Played, s.carry = []string{}, []string{}, []string{}, []string{}, []string{}, nil
	s.PassDirection, s.PassCount, s.PassTo, s.ReceivedFrom = "hold", 0, -1, -1
	s.Declarations = make([]*bool, n)
	s.PointsTaken = make([]int, n)
	s.PlayedBy, s.Taken, s.Voids = make([][]string, n), make([][]string, n), make([]map[byte]bool, n)
	for i := 0; i < n; i++ {
		s.PlayedBy[i], s.Taken[i], s.Voids[i] = []string{}, []string{}, map[byte]bool{}
	}
	s.HeartsBroken = s.Rules.HeartsLead == "any_time"
	s.TrickLeader, s.TrickNumber, s.Tricks = -1, 0, []TrickRecord{}
}

func boolPtr(b bool) *bool { return &b }

func copyInts(from []int, n int) []int {
	out := make([]int, n)
	copy(out, from)
	return out
}

// Update applies one referee message to the state. The kit calls it before asking the bot;
// it is exported so that a bot's own tests can replay a log.
func (s *State) Update(msg Message) {
	switch m := msg.(type) {
	case *MatchStart:
		s.startMatch(m)
	case *RoundStart:
		s.startRound(s.NumPlayers)
		s.Round, s.Dealer = m.Round, m.Dealer
		s.Hand = append([]string{}, m.Hand...)
		s.PassDirection, s.PassCount = m.PassDirection, m.PassCount
		if m.PassTo != nil {
			s.PassTo = *m.PassTo
		}
		s.MatchPhase = m.MatchPhase
		if m.Scores != nil {
			s.Scores = copyInts(m.Scores, s.NumPlayers)
		}
	case *Passed:
		s.Passed = append([]string{}, m.Given...)
		s.Received = append([]string{}, m.Received...)
		s.ReceivedFrom = m.FromSeat
		if m.Hand != nil {
			s.Hand = append([]string{}, m.Hand...)
		} else {
			s.Hand = append(RemoveCards(s.Hand, m.Given...), m.Received...)
		}
	case *DeclareRequest:
		s.asked(m.Time)
		for i := range s.Declarations {
			s.Declarations[i] = nil
			if i < len(m.Declarations) && m.Declarations[i] != nil {
				s.Declarations[i] = boolPtr(*m.Declarations[i])
			}
		}
	case *Declared:
		if s.validSeat(m.Seat) {
			s.Declarations[m.Seat] = boolPtr(m.Declared)
		}
	case *PlayRequest:
		// The request is authoritative for the trick; the events keep it current in between.
		s.asked(m.Time)
		s.Trick = append([]string{}, m.Trick...)
		s.TrickLeader, s.TrickNumber, s.HeartsBroken = m.Leader, m.TrickNumber, m.HeartsBroken
	case *PassRequest:
		s.asked(m.Time)
	case *MoonRequest:
		s.asked(m.Time)
	case *CardPlayed:
		s.play(m.Seat, m.Card)
		s.TrickNumber = m.TrickNumber
	case *TrickEnd:
		s.endTrick(m)
	case *RoundEnd:
		end := *m
		s.LastRoundEnd = &end
		if m.Scores != nil {
			s.Scores = copyInts(m.Scores, s.NumPlayers)
		}
		if m.PointsTaken != nil {
			s.PointsTaken = copyInts(m.PointsTaken, s.NumPlayers)
		}
		s.MatchPhase = m.NextMatchPhase
	case *MatchEnd:
		end := *m
		s.LastMatchEnd = &end
		if m.Scores != nil {
			s.Scores = copyInts(m.Scores, s.NumPlayers)
		}
	}
}

func (s *State) asked(t TimeLeft) {
	s.TimeLeft = t
	s.AskedAt = time.Now()
}

func (s *State) play(seat int, card string) {
	if len(s.Trick) == 0 {
		s.TrickLeader = seat
	} else if led := SuitOf(s.Trick[0]); SuitOf(card) != led && s.validSeat(seat) {
		s.Voids[seat][led] = true
	}
	s.Trick = append(s.Trick, card)
	s.Played = append(s.Played, card)
	if s.validSeat(seat) {
		s.PlayedBy[seat] = append(s.PlayedBy[seat], card)
	}
	if seat == s.Seat {
		s.Hand = RemoveCards(s.Hand, card)
	}
	if SuitOf(card) == 'H' || (card == "QS" && s.Rules.QueenBreaksHearts) {
		s.HeartsBroken = true
	}
}

func (s *State) endTrick(m *TrickEnd) {
	if s.NumPlayers > 0 {
		for i := len(s.Trick); i < len(m.Cards) && i < maxSeats; i++ { // cards we did not see played
			s.play(((m.Leader+i)%s.NumPlayers+s.NumPlayers)%s.NumPlayers, m.Cards[i])
		}
	}
	winner := -1
	if m.Winner != nil {
		winner = *m.Winner
	}
	cards := append([]string{}, m.Cards...)
	s.Tricks = append(s.Tricks, TrickRecord{Number: m.TrickNumber, Leader: m.Leader, Cards: cards, Winner: winner, Points: m.Points})
	if m.Winner == nil {
		s.carry = append(s.carry, cards...)
		s.TrickLeader = m.Leader
	} else {
		if s.validSeat(winner) {
			s.Taken[winner] = append(append(s.Taken[winner], s.carry...), cards...)
			s.PointsTaken[winner] += m.Points
		}
		s.carry = nil
		s.TrickLeader = winner
	}
	s.Trick = []string{}
	s.TrickNumber = m.TrickNumber + 1
}

// ---------------------------------------------------------------------------------------------
// The bot
// ---------------------------------------------------------------------------------------------

// Bot is what a bot implements. Embed BaseBot for the optional methods (ChooseDeclare,
// ChooseMoon, OnMessage). One value plays every match of a connection; the State passed in
// is reset at each match_start.
type Bot interface {
	// ChoosePass returns r.Count cards of r.Legal (your hand) to pass to r.ToSeat.
	ChoosePass(s *State, r *PassRequest) []string
	// ChoosePlay returns one card of r.Legal.
	ChoosePlay(s *State, r *PlayRequest) string
	// ChooseDeclare (Achterhoeks miezen): true to declare you will take no penalty points
	// this round (kept: minus r.Points; broken: plus).
	ChooseDeclare(s *State, r *DeclareRequest) bool
	// ChooseMoon returns one of r.Options: "add_to_others" or "subtract_from_shooter".
	ChooseMoon(s *State, r *MoonRequest) string
	// OnMessage is called for every referee message once the state has taken it in
	// (requests too, before their Choose method; unknown types as *Unknown).
	OnMessage(s *State, msg Message)
}

// BaseBot gives a bot the optional methods: never declare, add the moon to the others,
// nothing on messages. Embed it and override what you need.
type BaseBot struct{}

// ChooseDeclare never declares.
func (BaseBot) ChooseDeclare(*State, *DeclareRequest) bool { return false }

// ChooseMoon adds the moon to the others when that is an option.
func (BaseBot) ChooseMoon(_ *State, r *MoonRequest) string { return defaultMoon(r.Options) }

// OnMessage does nothing.
func (BaseBot) OnMessage(*State, Message) {}

// Info is who the bot is, sent in its hello, and how the kit treats its mistakes.
type Info struct {
	Name    string // shown to the other players and in results
	Version string
	Author  string
	Strict  bool // let a panic in the bot's code end the bot instead of sending a default
}

// Logf writes one line to stderr (stdout belongs to the protocol).
func Logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "[hearts.go] "+format+"\n", args...)
}

// MoonChoices are the moon choices protocol v1 knows; a choice outside them is refused.
var MoonChoices = []string{"add_to_others", "subtract_from_shooter"}

// moonOptions are the options offered that protocol v1 knows (all of them when none is).
func moonOptions(offered []string) []string {
	known := []string{}
	for _, option := range offered {
		if Contains(MoonChoices, option) && !Contains(known, option) {
			known = append(known, option)
		}
	}
	if len(known) == 0 {
		return MoonChoices
	}
	return known
}

// defaultMoon adds the moon to the others when that is offered, else takes the first option.
func defaultMoon(offered []string) string {
	options := moonOptions(offered)
	if Contains(options, "add_to_others") {
		return "add_to_others"
	}
	return options[0]
}

// ---------------------------------------------------------------------------------------------
// One conversation, without I/O
// ---------------------------------------------------------------------------------------------

// Session is the protocol conversation of one connection, without I/O: HandleLine takes a
// line from the referee and returns the reply line to send, if any. Run and the TCP client
// drive it; a bot's tests can drive it directly.
type Session struct {
	Bot      Bot
	Info     Info
	Token    string // sent in the hello when not empty (TCP)
	State    *State
	Done     bool // goodbye or a fatal error came: the conversation is over
	ExitCode int  // 0, or 1 after a fatal error

	tcp    bool
	seated bool   // TCP: a message other than hello or error came: the bot has its seat
	busy   string // TCP: the referee's busy message, if it refused the connection as busy
}

// NewSession is a conversation for bot, as info, with token (empty: none).
func NewSession(bot Bot, info Info, token string) *Session {
	return &Session{Bot: bot, Info: info, Token: token, State: NewState()}
}

func excerpt(line []byte) string {
	if len(line) > 200 {
		return strconv.Quote(string(line[:200])) + "..."
	}
	return strconv.Quote(string(line))
}

// decodeInto decodes line into v, leniently: a field of an unexpected type is logged and
// left at its zero value, the rest kept (forward compatibility over strictness).
func decodeInto(line []byte, v interface{}, kind string) bool {
	err := json.Unmarshal(line, v)
	var typeErr *json.UnmarshalTypeError
	if err == nil {
		return true
	}
	if errors.As(err, &typeErr) {
		Logf("a %s with a field the kit cannot read (%v); using the rest", kind, err)
		return true
	}
	Logf("ignoring a %s the kit cannot read: %v", kind, err)
	return false
}

// parse turns one line into a message, or nil (logged) for a line that is not one.
func parse(line []byte) Message {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		Logf("ignoring a line that is not a JSON object: %s", excerpt(line))
		return nil
	}
	var kind string
	if err := json.Unmarshal(fields["type"], &kind); err != nil || fields["type"] == nil {
		Logf("ignoring a line without a string \"type\": %s", excerpt(line))
		return nil
	}
	var msg Message
	switch kind {
	case "hello":
		msg = &Hello{}
	case "match_start":
		msg = &MatchStart{Rules: DefaultRules()}
	case "round_start":
		msg = &RoundStart{}
	case "pass_request":
		msg = &PassRequest{}
	case "passed":
		msg = &Passed{}
	case "declare_request":
		msg = &DeclareRequest{}
	case "declared":
		msg = &Declared{}
	case "play_request":
		msg = &PlayRequest{}
	case "card_played":
		msg = &CardPlayed{}
	case "trick_end":
		msg = &TrickEnd{}
	case "moon_request":
		msg = &MoonRequest{}
	case "round_end":
		msg = &RoundEnd{}
	case "match_end":
		msg = &MatchEnd{}
	case "error":
		msg = &Error{}
	case "goodbye":
		msg = &Goodbye{}
	default:
		return &Unknown{Type: kind, Raw: append(json.RawMessage(nil), line...)}
	}
	if strings.HasSuffix(kind, "_request") {
		// A reply must echo the id exactly: a request whose id is missing or not an integer
		// that fits in 64 bits cannot be answered.
		var id int64
		if err := json.Unmarshal(fields["id"], &id); err != nil || fields["id"] == nil {
			Logf("ignoring a %s without an integer id: %s", kind, excerpt(line))
			return nil
		}
	}
	if !decodeInto(line, msg, kind) {
		return nil
	}
	return msg
}

// HandleLine takes one line from the referee (without its newline) and returns the reply
// line to send (with its newline), or nil.
func (s *Session) HandleLine(line []byte) []byte {
	if s.Done {
		return nil
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	msg := parse(line)
	if msg == nil {
		return nil
	}
	return s.Handle(msg)
}

// Handle takes one message and returns the reply line to send, or nil.
func (s *Session) Handle(msg Message) []byte {
	if s.Done {
		return nil
	}
	if s.tcp && !s.seated {
		if e, ok := msg.(*Error); ok && e.Code == "busy" {
			s.busy, s.Done, s.ExitCode = e.Message, true, 1
			return nil
		}
		switch msg.(type) {
		case *Hello, *Error, *Unknown:
		default:
			s.seated = true
		}
	}
	s.guard("updating the state", func() { s.State.Update(msg) })
	s.guard("OnMessage", func() { s.Bot.OnMessage(s.State, msg) })
	var reply interface{}
	switch m := msg.(type) {
	case *Hello:
		reply = s.hello(m)
	case *PassRequest:
		reply = passReply{Type: "pass", ID: m.ID, Cards: s.pass(m)}
	case *PlayRequest:
		if len(m.Legal) == 0 {
			Logf("a play_request with no legal card (id %d): nothing to answer", m.ID)
			return nil
		}
		reply = playReply{Type: "play", ID: m.ID, Card: s.play(m)}
	case *DeclareRequest:
		declare := false
		s.guard("ChooseDeclare", func() { declare = s.Bot.ChooseDeclare(s.State, m) })
		reply = declareReply{Type: "declare", ID: m.ID, Declare: declare}
	case *MoonRequest:
		reply = moonReply{Type: "moon", ID: m.ID, Choice: s.moon(m)}
	case *Error:
		fatal := ""
		if m.Fatal {
			fatal = " (fatal)"
		}
		rule := ""
		if m.Rule != nil {
			rule = " [" + *m.Rule + "]"
		}
		Logf("referee error %s%s%s: %s", m.Code, rule, fatal, m.Message)
		if m.Fatal {
			s.Done, s.ExitCode = true, 1
		}
		return nil
	case *Goodbye:
		s.Done = true
		return nil
	case *MatchEnd:
		Logf("match %s over: scores %v, winners %v (%s)", m.MatchID, m.Scores, m.Winners, m.Reason)
		return nil
	default:
		return nil // events, and message types this kit does not know, need no answer
	}
	data, err := json.Marshal(reply)
	if err != nil {
		Logf("cannot encode the reply: %v", err)
		return nil
	}
	return append(data, '\n')
}

// guard runs f, turning a panic into a log line (and false) unless the bot is Strict.
func (s *Session) guard(what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if s.Info.Strict && what != "updating the state" {
				panic(r)
			}
			Logf("%s panicked: %v\n%s", what, r, debug.Stack())
			ok = false
		}
	}()
	f()
	return true
}

type helloReply struct {
	Type       string `json:"type"`
	Version    int    `json:"version"`
	Name       string `json:"name"`
	BotVersion string `json:"bot_version"`
	Author     string `json:"author"`
	Token      string `json:"token,omitempty"`
}

type passReply struct {
	Type  string   `json:"type"`
	ID    int64    `json:"id"`
	Cards []string `json:"cards"`
}

type playReply struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
	Card string `json:"card"`
}

type declareReply struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Declare bool   `json:"declare"`
}

type moonReply struct {
	Type   string `json:"type"`
	ID     int64  `json:"id"`
	Choice string `json:"choice"`
}

func (s *Session) hello(m *Hello) helloReply {
	offered := false
	for _, v := range m.Versions {
		offered = offered || v == ProtocolVersion
	}
	if !offered {
		Logf("the referee offers protocol versions %v; this kit speaks %d", m.Versions, ProtocolVersion)
	}
	name := s.Info.Name
	if strings.TrimSpace(name) == "" {
		name = "go-bot"
	}
	return helloReply{Type: "hello", Version: ProtocolVersion, Name: name,
		BotVersion: s.Info.Version, Author: s.Info.Author, Token: s.Token}
}

// isLegalPass says whether cards are count cards taken from legal (a code at most as often
// as it is listed: the double deck lists a code twice when you hold both copies).
func isLegalPass(cards []string, count int, legal []string) bool {
	if len(cards) != count {
		return false
	}
	left := legal
	for _, c := range cards {
		if !Contains(left, c) {
			return false
		}
		left = RemoveCards(left, c)
	}
	return true
}

func (s *Session) pass(m *PassRequest) []string {
	n := m.Count
	if n < 0 || n > len(m.Legal) {
		Logf("asked to pass %d cards of %d legal", m.Count, len(m.Legal))
		if n < 0 {
			n = 0
		} else {
			n = len(m.Legal)
		}
	}
	fallback := append([]string{}, m.Legal[:n]...)
	var cards []string
	if !s.guard("ChoosePass", func() { cards = s.Bot.ChoosePass(s.State, m) }) {
		return fallback
	}
	chosen := make([]string, 0, len(cards))
	for _, c := range cards {
		chosen = append(chosen, Normalize(c))
	}
	if !isLegalPass(chosen, m.Count, m.Legal) {
		Logf("ChoosePass returned %q, not %d cards of %v; passing %q", cards, m.Count, m.Legal, fallback)
		return fallback
	}
	return chosen
}

func (s *Session) play(m *PlayRequest) string {
	fallback := m.Legal[0]
	var card string
	if !s.guard("ChoosePlay", func() { card = s.Bot.ChoosePlay(s.State, m) }) {
		return fallback
	}
	if !Contains(m.Legal, Normalize(card)) {
		Logf("ChoosePlay returned %q, not one of %v; playing %s", card, m.Legal, fallback)
		return fallback
	}
	return Normalize(card)
}

func (s *Session) moon(m *MoonRequest) string {
	fallback := defaultMoon(m.Options)
	var choice string
	if !s.guard("ChooseMoon", func() { choice = s.Bot.ChooseMoon(s.State, m) }) {
		return fallback
	}
	if options := moonOptions(m.Options); !Contains(options, choice) {
		Logf("ChooseMoon returned %q, not one of %q; choosing %s", choice, options, fallback)
		return fallback
	}
	return choice
}

// ---------------------------------------------------------------------------------------------
// Transports
// ---------------------------------------------------------------------------------------------

// readLine reads one line of at most MaxLine bytes before its newline (a '\r' counted), without
// its ending. A longer line is logged and skipped without holding more than the reader's buffer
// of it (MaxLine+1 bytes: the longest line and its newline). io.EOF at the end of the input.
func readLine(r *bufio.Reader) ([]byte, error) {
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			Logf("skipping a line longer than %d bytes", MaxLine)
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			return nil, err
		}
		// a last line without its newline is still a line
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// converse plays the session over a stream until goodbye, a fatal error or the end of the
// input. The error is a failure to read or write (not the end of the input).
func (s *Session) converse(in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, MaxLine+1)
	for !s.Done {
		line, err := readLine(reader)
		if err == io.EOF {
			Logf("the referee closed the connection")
			return nil
		}
		if err != nil {
			return err
		}
		if reply := s.HandleLine(line); reply != nil {
			if _, err := out.Write(reply); err != nil { // one write per line, unbuffered
				return err
			}
		}
	}
	return nil
}

// Options are the kit's command-line options.
type Options struct {
	TCP       string        // HOST:PORT, or "" for stdin/stdout
	Token     string        // the seat token (from --token, --token-file or HEARTS_TOKEN)
	TokenFile string        // --token-file
	RetryFor  time.Duration // --retry-for
}

// ParseOptions reads the kit's options (--tcp, --token, --token-file, --retry-for, each as
// "--name value" or "--name=value") from args and ignores the rest, which are the bot's.
// The token is --token, else the first line of --token-file, else $HEARTS_TOKEN.
func ParseOptions(args []string) (Options, error) {
	o := Options{RetryFor: RetryFor}
	for i := 0; i < len(args); i++ {
		key, value, inline := strings.Cut(args[i], "=")
		if !strings.HasPrefix(key, "--") {
			continue
		}
		switch key {
		case "--tcp", "--token", "--token-file", "--retry-for":
		default:
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				return o, fmt.Errorf("%s needs a value", key)
			}
			i++
			value = args[i]
		}
		switch key {
		case "--tcp":
			o.TCP = value
		case "--token":
			o.Token = value
		case "--token-file":
			o.TokenFile = value
		case "--retry-for":
			seconds, err := strconv.ParseFloat(value, 64)
			if err != nil || seconds < 0 || math.IsInf(seconds, 0) || math.IsNaN(seconds) || seconds > 1e9 {
				return o, fmt.Errorf("--retry-for wants seconds, not %q", value)
			}
			o.RetryFor = time.Duration(seconds * float64(time.Second))
		}
	}
	if o.Token == "" && o.TokenFile != "" {
		data, err := os.ReadFile(o.TokenFile)
		if err != nil {
			return o, fmt.Errorf("--token-file: %v", err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		o.Token = strings.TrimSpace(first)
	}
	if o.Token == "" {
		o.Token = os.Getenv(TokenVariable)
	}
	if o.TCP != "" {
		host, port, err := net.SplitHostPort(o.TCP)
		if err != nil || port == "" {
			return o, fmt.Errorf("--tcp wants HOST:PORT, not %q", o.TCP)
		}
		if number, err := strconv.Atoi(port); err != nil || number < 1 || number > 65535 {
			return o, fmt.Errorf("--tcp wants a port from 1 to 65535, not %q", o.TCP)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		o.TCP = net.JoinHostPort(host, port)
	}
	return o, nil
}

// Run plays bot against a referee, over stdin/stdout or, with --tcp HOST:PORT, over TCP, and
// exits: status 0 after goodbye or the end of the input, 1 after a fatal error, 2 for a bad
// command line.
func Run(bot Bot, info Info) {
	os.Exit(RunArgs(bot, info, os.Args[1:]))
}

// RunArgs is Run with the command-line arguments given; it returns the exit status.
func RunArgs(bot Bot, info Info, args []string) int {
	options, err := ParseOptions(args)
	if err != nil {
		Logf("%v", err)
		return 2
	}
	// A referee that goes away is an error to handle, not a signal that kills the bot.
	signal.Ignore(syscall.SIGPIPE)
	// stdout carries the protocol: stray fmt.Print output goes to stderr instead.
	protocol := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = protocol }()
	if options.TCP != "" {
		return Connect(bot, info, options)
	}
	session := NewSession(bot, info, options.Token)
	if err := session.converse(os.Stdin, protocol); err != nil {
		Logf("stopping: %v", err)
		return 1
	}
	return session.ExitCode
}

// Connect plays over TCP. Until the referee seats the bot (any known message but hello or
// error), a busy refusal, a refused or reset connection, or a connection closed without an
// error is tried again after a pause (RetryFirst doubling to RetryCap, a random half to all
// of it) for up to options.RetryFor; other refusals (bad_token, seat_taken, ...) are final.
// Returns the exit status.
func Connect(bot Bot, info Info, options Options) int {
	deadline := time.Now().Add(options.RetryFor)
	delay := RetryFirst
	jitter := rand.New(rand.NewSource(time.Now().UnixNano()))
	for {
		session := NewSession(bot, info, options.Token)
		session.tcp = true
		var why string
		conn, err := net.DialTimeout("tcp", options.TCP, 30*time.Second)
		if err != nil {
			why = fmt.Sprintf("cannot connect to %s (%v)", options.TCP, err)
		} else {
			Logf("connected to %s", options.TCP)
			err = session.converse(conn, conn)
			conn.Close()
			switch {
			case session.seated && err != nil:
				Logf("lost the connection to the referee: %v", err)
				return 1
			case session.seated || (session.Done && session.busy == ""):
				return session.ExitCode
			case session.busy != "":
				why = fmt.Sprintf("the referee is busy (%s)", session.busy)
			case err != nil:
				why = fmt.Sprintf("the connection failed before the bot had its seat (%v)", err)
			default:
				why = "the referee closed the connection"
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			Logf("%s; giving up after %v", why, options.RetryFor)
			return 1
		}
		pause := time.Duration(float64(delay) * (0.5 + 0.5*jitter.Float64()))
		if pause > left {
			pause = left
		}
		delay *= 2
		if delay > RetryCap {
			delay = RetryCap
		}
		Logf("%s; trying again in %.1f s", why, pause.Seconds())
		time.Sleep(pause)
	}
}
