// A bot that reports the kit's state at every play (tests/sample_bots/kits/go.py).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"hearts-bot/hearts"
)

type probe struct {
	hearts.BaseBot
	events map[string]interface{}
}

func (p *probe) OnMessage(s *hearts.State, m hearts.Message) {
	if _, ok := m.(*hearts.PlayRequest); !ok { // the state as the events left it
		p.events = map[string]interface{}{
			"trick": append([]string{}, s.Trick...), "heartsBroken": s.HeartsBroken, "trickNumber": s.TrickNumber,
		}
	}
}

func (p *probe) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string {
	return r.Legal[len(r.Legal)-r.Count:]
}

func (p *probe) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
	tricks := [][]interface{}{}
	for _, t := range s.Tricks {
		tricks = append(tricks, []interface{}{t.Leader, t.Cards, t.Winner, t.Points})
	}
	voids := []string{}
	for seat := 0; seat < s.NumPlayers; seat++ {
		v := ""
		for _, suit := range []byte(hearts.Suits) {
			if s.IsVoid(seat, suit) {
				v += string(suit)
			}
		}
		voids = append(voids, v)
	}
	wins := map[string]bool{}
	for _, card := range r.Legal {
		wins[card] = s.WouldWin(card)
	}
	seen := map[string]interface{}{
		"hand": s.Hand, "pointsTaken": s.PointsTaken, "scores": s.Scores, "seat": s.Seat,
		"events": p.events, "tricks": tricks, "unseen": s.Unseen(), "deck": hearts.Deck(&s.Rules),
		"voids": voids, "wouldWin": wins, "declarations": s.Declarations, "winningSeat": s.WinningSeat(),
		"trickPoints": s.TrickPoints(), "numPlayers": s.NumPlayers, "phase": s.MatchPhase,
		"passed": s.Passed, "received": s.Received,
	}
	data, _ := json.Marshal(seen)
	fmt.Fprintf(os.Stderr, "STATE %s\n", data)
	return r.Legal[len(r.Legal)-1]
}

func main() {
	hearts.Run(&probe{}, hearts.Info{Name: "state-probe"})
}
