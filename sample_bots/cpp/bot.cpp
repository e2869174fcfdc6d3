// A sample Hearts bot on the C++ kit (hearts.hpp): copy this file and change what it plays.
//
// Pass: the highest-ranked cards. Play: follow with the highest card that still ducks under the
// trick; with nothing of the led suit, dump the card worth the most points (then the highest);
// lead the lowest card, and take a trick you cannot duck with the lowest card.
//
//   g++ -std=c++17 -O2 -Wall -Wextra -o bot bot.cpp      (or: make)
//   ./bot                                  the referee starts it
//   ./bot --tcp HOST:PORT --token T         or it connects over TCP

#include <algorithm>
#include <string>
#include <vector>

#include "hearts.hpp"

class Ducker : public hearts::Bot {
   public:
    Ducker() : Bot("cpp-ducker", "1.0", "hearts-referee sample bots") {}

    std::vector<std::string> choosePass(const hearts::State&, const hearts::PassRequest& request) override {
        std::vector<std::string> cards = request.legal;  // the whole hand
        std::sort(cards.begin(), cards.end(), hearts::byRank);
        return {cards.end() - request.count, cards.end()};  // the `count` highest
    }

    std::string choosePlay(const hearts::State& state, const hearts::PlayRequest& request) override {
        std::vector<std::string> cards = request.legal;
        std::sort(cards.begin(), cards.end(), hearts::byRank);  // lowest first
        if (request.trick.empty()) return cards.front();        // leading: the lowest card

        char led = hearts::suitOf(request.trick[0]);
        if (hearts::suitOf(cards.front()) != led) {  // void in the led suit: dump the worst card
            return *std::max_element(cards.begin(), cards.end(), [&](const std::string& a, const std::string& b) {
                int pa = state.value(a), pb = state.value(b);
                return pa != pb ? pa < pb : hearts::byRank(a, b);
            });
        }
        for (auto card = cards.rbegin(); card != cards.rend(); ++card)  // highest first
            if (!hearts::wouldWin(state, *card)) return *card;          // the highest that ducks
        return cards.front();  // every card wins: the lowest
    }
};

int main(int argc, char** argv) {
    Ducker bot;
    return hearts::run(bot, argc, argv);
}
