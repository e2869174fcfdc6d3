// Every choice panics or is illegal on purpose (tests/sample_bots/test_kit_only.py): the kit must replace each.
package main

import "hearts-bot/hearts"

type faulty struct{ hearts.BaseBot }

func (faulty) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string { return r.Legal[:1] }

func (faulty) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
	switch r.ID {
	case 2:
		panic("on purpose")
	case 3:
		return "2C"
	}
	return "qs"
}

func (faulty) ChooseDeclare(s *hearts.State, r *hearts.DeclareRequest) bool {
	var declarations []bool
	return declarations[3]
}

func (faulty) ChooseMoon(s *hearts.State, r *hearts.MoonRequest) string { return "win" }

func main() { hearts.Run(faulty{}, hearts.Info{Name: "faulty"}) }
