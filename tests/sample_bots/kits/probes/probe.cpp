// The sample bot with its table state on stderr (tests only): the class of bot.cpp, not its main.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "hearts.hpp"
#define main sample_bot_main
#include "bot.cpp"
#undef main

class Probe : public Ducker {
   public:
    Probe() {
        name = "cpp-probe";
        const char* mode = std::getenv("PROBE_MISBEHAVE");
        misbehave_ = mode ? mode : "";
        strict = std::getenv("PROBE_STRICT") != nullptr;
    }

    void onMessage(const hearts::State& state, const hearts::Json& message) override {
        const std::string& type = message["type"].asString();
        if (type == "hello") {  // stray output: the kit must keep it off the protocol
            std::cout << "a debug line on std::cout" << std::endl;
            std::printf("and one from printf\n");
            std::fflush(stdout);
        }
        if (type == "match_start") std::cerr << "DECK " << hearts::Json(state.deck()).dump() << std::endl;
        if (type != "play_request") {  // the state as the events left it, before a request syncs it
            events_ = hearts::Json::object();
            events_.set("trick", state.trick).set("heartsBroken", state.heartsBroken);
            events_.set("trickNumber", state.trickNumber);
        }
        trouble("onMessage");
    }

    std::vector<std::string> choosePass(const hearts::State& state, const hearts::PassRequest& request) override {
        trouble("choosePass");
        if (misbehave_ == "illegal") return {"XX"};
        std::vector<std::string> cards = Ducker::choosePass(state, request);
        if (misbehave_ == "lower") cards[0][1] = static_cast<char>(cards[0][1] - 'A' + 'a');  // "kc": still KC
        return cards;
    }

    std::string choosePlay(const hearts::State& state, const hearts::PlayRequest& request) override {
        dump(state);
        trouble("choosePlay");
        if (misbehave_ == "illegal") return "XX";
        std::string card = Ducker::choosePlay(state, request);
        if (misbehave_ == "lower") card[1] = static_cast<char>(card[1] - 'A' + 'a');  // "2d": still 2D
        return card;
    }

    bool chooseDeclare(const hearts::State&, const hearts::DeclareRequest&) override {
        trouble("chooseDeclare");
        return false;
    }

    std::string chooseMoon(const hearts::State& state, const hearts::MoonRequest& request) override {
        trouble("chooseMoon");
        if (misbehave_ == "illegal") return "keep_it";
        return Bot::chooseMoon(state, request);
    }

   private:
    void trouble(const std::string& where) const {
        if (misbehave_ == "throw") throw std::runtime_error("a bug in " + where);
        if (misbehave_ == "throw_int" || misbehave_ == "throw_in_" + where) throw 42;
    }

    void dump(const hearts::State& s) {
        hearts::Json voids = hearts::Json::array(), declarations = hearts::Json::array(), taken = hearts::Json::array();
        for (const auto& suits : s.voids) voids.push(std::string(suits.begin(), suits.end()));
        for (const auto& d : s.declarations) declarations.push(d ? hearts::Json(*d) : hearts::Json());
        for (const auto& cards : s.taken) taken.push(cards.size());
        hearts::Json out = hearts::Json::object();
        out.set("hand", s.hand).set("seat", s.seat).set("events", events_).set("trickLeader", s.trickLeader);
        hearts::Json points = hearts::Json::array(), scores = hearts::Json::array();
        for (int p : s.pointsTaken) points.push(p);
        for (int p : s.scores) scores.push(p);
        out.set("pointsTaken", points).set("scores", scores).set("voids", voids).set("declarations", declarations);
        out.set("played", s.played.size()).set("tricks", s.tricks.size()).set("unseen", s.unseen().size());
        out.set("passed", s.passed).set("received", s.received).set("taken", taken);
        out.set("winning", s.winningSeat()).set("stillToPlay", s.stillToPlay().size());
        out.set("clock", s.msLeft() <= s.timeLeft.decisionMs + s.timeLeft.bankMs);  // never more than given
        std::cerr << "STATE " << out.dump() << std::endl;
    }

    std::string misbehave_;
    hearts::Json events_;
};

int main(int argc, char** argv) {
    Probe bot;
    return hearts::run(bot, argc, argv);
}
