/*
 * A sample Hearts bot on the kit in Hearts.java: copy this file, rename the class, and change
 * what it plays. It passes its highest cards, leads its lowest, follows with the highest card
 * that still loses the trick, and when it cannot follow throws away its most costly card.
 *
 *   javac -d classes Hearts.java SampleBot.java && jar cfe bot.jar SampleBot -C classes .
 *   java -jar bot.jar                              the referee starts it
 *   java -jar bot.jar --tcp HOST:PORT --token T    or it connects to a referee over TCP
 */

import java.util.ArrayList;
import java.util.List;

public final class SampleBot implements Hearts.Bot {
    public static void main(String[] args) {
        Hearts.run(new SampleBot(), args);
    }

    @Override
    public String name() {
        return "java-ducker";
    }

    @Override
    public String version() {
        return "1.0";
    }

    @Override
    public String author() {
        return "hearts-referee sample bots";
    }

    /** The highest cards: they are the ones that win tricks. */
    @Override
    public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
        List<String> cards = new ArrayList<>(request.legal()); // the request's lists are read-only
        cards.sort(Hearts::compareByRank); // low to high
        return cards.subList(cards.size() - request.count(), cards.size());
    }

    @Override
    public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
        List<String> cards = new ArrayList<>(request.legal());
        cards.sort(Hearts::compareByRank);
        String lowest = cards.get(0);
        if (request.trick().isEmpty()) {
            return lowest; // leading: the lowest card, the least likely to win
        }
        char led = state.ledSuit();
        if (cards.stream().noneMatch(card -> Hearts.suitOf(card) == led)) {
            // Cannot follow suit: get rid of the card worth the most points (the queen of
            // spades, then hearts), else the highest card.
            String discard = cards.get(cards.size() - 1);
            for (String card : cards) {
                if (state.value(card) > state.value(discard)) discard = card;
            }
            return discard;
        }
        // Following suit: the highest card that still loses the trick.
        String duck = null;
        for (String card : cards) {
            if (!Hearts.wouldWin(state, card)) duck = card;
        }
        if (duck != null) return duck;
        // Every card wins. The last to play takes the trick with its highest card that costs
        // nothing; anyone else plays low, hoping a later player goes over it.
        if (request.trick().size() == state.numPlayers - 1) {
            for (int i = cards.size() - 1; i >= 0; i--) {
                if (state.value(cards.get(i)) <= 0) return cards.get(i);
            }
        }
        return lowest;
    }
}
