// A sample Hearts bot on the Go kit (hearts/hearts.go): copy this folder and edit the two
// methods below.
//
// Pass: the highest-ranked cards. Play: duck, shedding the most dangerous card that does not
// take the trick (the one worth the most points, then the highest); when every card would
// take it (leading, or holding only higher cards of the led suit), the lowest card.
//
//	go build -o bot .                        build (from this folder)
//	./bot                                    the referee starts it
//	./bot --tcp HOST:PORT --token-file F     or it connects to a referee over TCP
package main

import "hearts-bot/hearts"

// bot embeds hearts.BaseBot for the optional methods: never declare, add the moon to the
// others, ignore the other messages.
type bot struct{ hearts.BaseBot }

// ChoosePass passes the r.Count highest cards of the hand (r.Legal).
func (bot) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string {
	cards := hearts.SortByRank(r.Legal) // lowest first
	return cards[len(cards)-r.Count:]
}

// ChoosePlay ducks with the card worth the most points, then the highest; else the lowest.
func (bot) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
	cards := hearts.SortByRank(r.Legal) // lowest first
	duck := ""
	for i := len(cards) - 1; i >= 0; i-- { // highest first
		card := cards[i]
		if !s.WouldWin(card) && (duck == "" || s.CardPoints(card) > s.CardPoints(duck)) {
			duck = card
		}
	}
	if duck == "" {
		return cards[0]
	}
	return duck
}

func main() {
	hearts.Run(bot{}, hearts.Info{Name: "go-ducker", Version: "1.0", Author: "hearts-referee sample bots"})
}
