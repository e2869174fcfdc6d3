/*
 * Hearts bot kit for Java (protocol v1). One file, standard library only (Java 17+).
 *
 * Usage: implement Hearts.Bot and hand it to Hearts.run (SampleBot.java is a whole bot):
 *
 *   public final class MyBot implements Hearts.Bot {
 *       public static void main(String[] args) { Hearts.run(new MyBot(), args); }
 *       public String name() { return "my-bot"; }
 *       public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
 *           return request.legal().subList(0, request.count());
 *       }
 *       public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
 *           return request.legal().get(0);
 *       }
 *       // optional: chooseDeclare, chooseMoon, onMessage, version, author, strict
 *   }
 *
 * Build and run (from this folder):
 *
 *   javac -d classes Hearts.java MyBot.java && jar cfe bot.jar MyBot -C classes .
 *   java -jar bot.jar                               the referee starts it: stdin/stdout
 *   java -jar bot.jar --tcp HOST:PORT --token T     it connects to a referee over TCP
 *
 * The kit reads one JSON object per line from the referee, keeps the table state current
 * (Hearts.State), calls the bot for each decision and writes the reply at once, flushed. If a
 * choose method throws or returns something illegal, the kit logs the problem to stderr and
 * sends a legal fallback instead (the first legal cards, no declaration, add_to_others), so a
 * buggy bot loses a decision instead of the match (strict() true: an exception ends the bot).
 *
 * stdout carries the protocol: the kit sends System.out to stderr, so a stray println cannot
 * corrupt it. Log with System.err.println or Hearts.log.
 *
 * Options (the rest of the command line is left for the bot):
 *   --tcp HOST:PORT     connect to a referee (its tcp:NAME seat) instead of using stdin/stdout
 *   --token T           the seat token for the hello; a command line is readable by every
 *   --token-file F        process of the machine, so prefer the first line of a file (mode
 *   $HEARTS_TOKEN         0600) or the environment variable
 *   --retry-for S       over TCP: when the referee answers busy, refuses the connection or drops
 *                       it before seating the bot, try again (0.1 s doubling to 5 s, each pause a
 *                       random half to all of it) for up to S seconds (default 60; 0: no retry)
 */

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The kit: the bot interface, the requests, the table state, card helpers, JSON, transports. */
public final class Hearts {
    private Hearts() {}

    public static final int PROTOCOL_VERSION = 1;
    /** The protocol's longest line in bytes, newline excluded: longer lines are skipped. */
    public static final int MAX_LINE = 65536;
    /** More seats than any rule set has: a message naming a seat beyond it is not believed. */
    public static final int MAX_SEATS = 64;
    public static final double RETRY_FOR = 60.0;
    public static final double RETRY_FIRST = 0.1;
    public static final double RETRY_CAP = 5.0;
    public static final String TOKEN_VARIABLE = "HEARTS_TOKEN";
    public static final String RANKS = "23456789TJQKA";
    public static final String SUITS = "CDSH";

    // ------------------------------------------------------------------------------------------
    // The bot
    // ------------------------------------------------------------------------------------------

    /** What a bot implements. One instance plays every match of a connection. */
    public interface Bot {
        /** Shown to the other players and in results (the referee cuts it to 64 characters). */
        default String name() {
            return "java-bot";
        }

        default String version() {
            return "";
        }

        default String author() {
            return "";
        }

        /** true: an exception in a choose method ends the bot (while you develop) instead of
         * being logged and replaced by a legal default. */
        default boolean strict() {
            return false;
        }

        /** request.count() cards of request.legal() (your hand) to pass to request.toSeat(). */
        List<String> choosePass(State state, PassRequest request);

        /** One card of request.legal(). request.trick() is the trick so far (empty: you lead). */
        String choosePlay(State state, PlayRequest request);

        /** Achterhoeks miezen: true declares you will take no penalty points this round (kept:
         * minus request.points(), broken: plus). Default: never. */
        default boolean chooseDeclare(State state, DeclareRequest request) {
            return false;
        }

        /** You shot the moon and choose how it is scored: one of request.options()
         * ("add_to_others" or "subtract_from_shooter"). Default: add to the others. */
        default String chooseMoon(State state, MoonRequest request) {
            return request.options().contains("add_to_others") || request.options().isEmpty()
                    ? "add_to_others"
                    : request.options().get(0);
        }

        /** Every message from the referee (a Map from Json.parse), after the state took it in
         * and before the matching choose method. Unknown message types come here too. */
        default void onMessage(State state, Map<String, Object> message) {}
    }

    // ------------------------------------------------------------------------------------------
    // Requests (lists are read-only: copy before sorting, new ArrayList<>(request.legal()))
    // ------------------------------------------------------------------------------------------

    /** This decision's free time and what is left in the bank before it, in milliseconds. */
    public record TimeLeft(long decisionMs, long bankMs) {}

    /** The match's clock: free time per decision, the bank for the match, the start-up limit. */
    public record TimeControl(long perDecisionMs, long bankMs, long startupMs) {}

    /** Pass count cards of legal (your whole hand) to toSeat. */
    public record PassRequest(long id, int count, List<String> legal, int toSeat, TimeLeft time,
            Map<String, Object> message) {}

    /** Play one card of legal (every rule already applied) to trick, led by leader. */
    public record PlayRequest(long id, List<String> legal, List<String> trick, int leader, int trickNumber,
            boolean heartsBroken, TimeLeft time, Map<String, Object> message) {}

    /** Declare or not; declarations by seat so far (null: not decided yet, you among them). */
    public record DeclareRequest(long id, List<Boolean> declarations, int points, TimeLeft time,
            Map<String, Object> message) {}

    /** Choose how your moon is scored: one of options; points is what it is worth. */
    public record MoonRequest(long id, List<String> options, int points, TimeLeft time,
            Map<String, Object> message) {}

    // ------------------------------------------------------------------------------------------
    // Cards
    // ------------------------------------------------------------------------------------------

    /** The suit letter of a card code: "QS" gives 'S'; (char) 0 for an empty code. */
    public static char suitOf(String card) {
        return card == null || card.isEmpty() ? 0 : Character.toUpperCase(card.charAt(card.length() - 1));
    }

    /** The rank of a card code, 2..14 (11 jack, 12 queen, 13 king, 14 ace): "QS" 12, "TD" and
     * "10D" 10; 0 for something that is no card. */
    public static int rankOf(String card) {
        if (card == null || card.length() < 2) return 0;
        String text = card.substring(0, card.length() - 1).toUpperCase();
        if (text.equals("10")) return 10;
        int index = text.length() == 1 ? RANKS.indexOf(text.charAt(0)) : -1;
        return index < 0 ? 0 : index + 2;
    }

    /** A code in the referee's form: "qs" gives "QS", " 10h " gives "TH". */
    public static String normal(String card) {
        String text = card.strip().toUpperCase();
        return text.startsWith("10") ? "T" + text.substring(2) : text;
    }

    /** By rank, then suit (C, D, S, H): card.sort(Hearts::compareByRank) sorts low to high. */
    public static int compareByRank(String a, String b) {
        int byRank = Integer.compare(rankOf(a), rankOf(b));
        return byRank != 0 ? byRank : Integer.compare(SUITS.indexOf(suitOf(a)), SUITS.indexOf(suitOf(b)));
    }

    /** By suit (C, D, S, H), then rank: the order the referee lists hands in. */
    public static int compareCards(String a, String b) {
        int bySuit = Integer.compare(SUITS.indexOf(suitOf(a)), SUITS.indexOf(suitOf(b)));
        return bySuit != 0 ? bySuit : Integer.compare(rankOf(a), rankOf(b));
    }

    /** What a card is worth under the match's rules: positive for penalty cards (hearts 1, QS 13
     * in the American game), negative for bonus cards (omnibus JD -10), 0 if unlisted. In
     * phase 2 of a two-phase (Dutch) match the points you take are subtracted from your score. */
    public static int cardPoints(State state, String card) {
        Integer points = state.rules.cardPoints.get(card);
        return points == null ? 0 : points;
    }

    /** The index in cards (played in order, the leader's first) of the card winning the trick so
     * far: the highest card of the led suit. In a double deck two identical cards cancel each
     * other (identical_cards "cancel": -1 when every card of the led suit is cancelled) or the
     * later one wins ("later_wins"). -1 for an empty trick. */
    public static int trickWinner(List<String> cards, Rules rules) {
        if (cards.isEmpty()) return -1;
        char led = suitOf(cards.get(0));
        boolean cancel = !"later_wins".equals(rules.identicalCards);
        int best = -1;
        int bestRank = -1;
        for (int i = 0; i < cards.size(); i++) {
            String card = cards.get(i);
            if (suitOf(card) != led) continue;
            if (cancel && Collections.frequency(cards, card) > 1) continue;
            int rank = rankOf(card);
            if (rank >= bestRank) { // only identical cards tie, and then the later one wins
                best = i;
                bestRank = rank;
            }
        }
        return best;
    }

    /** True if card, played now to the current trick, would be winning it so far. */
    public static boolean wouldWin(State state, String card) {
        List<String> cards = new ArrayList<>(state.trick);
        cards.add(card);
        return trickWinner(cards, state.rules) == cards.size() - 1;
    }

    /** Remove one copy of each of cards from hand (in place); returns hand. */
    public static List<String> removeCards(List<String> hand, List<String> cards) {
        for (String card : cards) hand.remove(card);
        return hand;
    }

    /** True if cards is count cards of legal (each code at most as often as legal lists it). */
    public static boolean isLegalPass(List<String> cards, PassRequest request) {
        if (cards == null || cards.size() != request.count()) return false;
        List<String> left = new ArrayList<>(request.legal());
        for (String card : cards) {
            if (card == null || !left.remove(card)) return false;
        }
        return true;
    }

    private static final String[] TRIM_ORDER = trimOrder();

    private static String[] trimOrder() {
        List<String> order = new ArrayList<>();
        for (char rank : RANKS.toCharArray()) {
            order.add(rank + "D");
            order.add(rank + "S");
        }
        return order.toArray(new String[0]);
    }

    /** Every card in play under rules (twice each in a double deck), in hand order. */
    public static List<String> deck(Rules rules) {
        int low = "piket".equals(rules.deck) ? 7 : 2;
        List<String> faces = new ArrayList<>();
        for (char suit : SUITS.toCharArray()) {
            for (char rank : RANKS.toCharArray()) {
                String code = "" + rank + suit;
                if (rankOf(code) >= low) faces.add(code);
            }
        }
        for (String code : rules.add) {
            String card = normal(code);
            if (rankOf(card) > 0 && !faces.contains(card)) faces.add(card);
        }
        List<String> cards = new ArrayList<>();
        for (int copy = 0; copy < Math.max(1, Math.min(rules.copies, 4)); copy++) cards.addAll(faces);
        for (String code : rules.remove) cards.remove(normal(code));
        if (rules.trimToDealEvenly && rules.players > 0) {
            for (String code : TRIM_ORDER) {
                while (cards.size() % rules.players != 0 && cards.remove(code)) {
                    // removed one copy; go on while the deck still does not divide evenly
                }
            }
        }
        cards.sort(Hearts::compareCards);
        return cards;
    }

    // ------------------------------------------------------------------------------------------
    // The rule set (docs/rules.md): every field of the match_start's rules, with the American
    // game's defaults for any field missing, and the whole object as sent in raw
    // ------------------------------------------------------------------------------------------

    /** The complete rules of a match, as match_start sends them. */
    public static final class Rules {
        public final String name;
        public final int players;
        /** "standard" (52 cards, 2 to ace) or "piket" (32 cards, 7 to ace). */
        public final String deck;
        /** 1, or 2 for the double deck. */
        public final int copies;
        public final List<String> remove;
        public final List<String> add;
        public final boolean trimToDealEvenly;
        public final int passCount;
        /** Pass directions of successive rounds, repeated: left, right, across, left2, right2, hold. */
        public final List<String> passSchedule;
        /** "lowest_club", "seven_of_clubs" or "left_of_dealer". */
        public final String openingLead;
        public final boolean firstTrickNoPoints;
        /** "after_broken" or "any_time". */
        public final String heartsLead;
        public final boolean queenBreaksHearts;
        public final boolean queenMustDrop;
        /** Double deck: "cancel" or "later_wins". */
        public final String identicalCards;
        /** Points per card code; unlisted cards are worth 0 (see Hearts.cardPoints). */
        public final Map<String, Integer> cardPoints;
        /** "none", "add_to_others", "subtract_from_shooter" or "shooter_choice". */
        public final String moon;
        /** What a moon is worth; null: the round's penalty total. */
        public final Integer moonPoints;
        public final String moonPhase2;
        /** Achterhoeks declarations (miezen). */
        public final boolean declarations;
        public final int declarationPoints;
        public final Integer revokePoints;
        /** "target", "rounds" or "two_phase" (Dutch: up to threshold, then back to 0). */
        public final String end;
        public final int target;
        public final int rounds;
        public final int threshold;
        public final String finish;
        public final String tieBreak;
        public final int roundLimit;
        /** Every field as sent, unknown ones included. */
        public final Map<String, Object> raw;
        private List<String> deckCache;

        public Rules(Map<String, Object> raw) {
            this.raw = Collections.unmodifiableMap(raw);
            name = Json.str(raw, "name", "american");
            players = Json.integer(raw, "players", 4);
            deck = Json.str(raw, "deck", "standard");
            copies = Json.integer(raw, "copies", 1);
            remove = Json.strings(raw, "remove");
            add = Json.strings(raw, "add");
            trimToDealEvenly = Json.bool(raw, "trim_to_deal_evenly", false);
            passCount = Json.integer(raw, "pass_count", 3);
            List<String> schedule = Json.strings(raw, "pass_schedule");
            passSchedule = raw.containsKey("pass_schedule") ? schedule : List.of("left", "right", "across", "hold");
            openingLead = Json.str(raw, "opening_lead", "lowest_club");
            firstTrickNoPoints = Json.bool(raw, "first_trick_no_points", true);
            heartsLead = Json.str(raw, "hearts_lead", "after_broken");
            queenBreaksHearts = Json.bool(raw, "queen_breaks_hearts", false);
            queenMustDrop = Json.bool(raw, "queen_must_drop", false);
            identicalCards = Json.str(raw, "identical_cards", "cancel");
            Map<String, Integer> points = new HashMap<>();
            Map<String, Object> given = Json.map(raw.get("card_points"));
            if (given != null) {
                for (Map.Entry<String, Object> entry : given.entrySet()) {
                    if (entry.getValue() instanceof Json.Num num) points.put(entry.getKey(), num.intValue(0));
                }
            } else {
                for (char rank : RANKS.toCharArray()) points.put(rank + "H", 1);
                points.put("QS", 13);
            }
            cardPoints = Collections.unmodifiableMap(points);
            moon = Json.str(raw, "moon", "add_to_others");
            moonPoints = Json.optInteger(raw, "moon_points");
            moonPhase2 = Json.str(raw, "moon_phase2", "none");
            declarations = Json.bool(raw, "declarations", false);
            declarationPoints = Json.integer(raw, "declaration_points", 10);
            revokePoints = Json.optInteger(raw, "revoke_points");
            end = Json.str(raw, "end", "target");
            target = Json.integer(raw, "target", 100);
            rounds = Json.integer(raw, "rounds", 12);
            threshold = Json.integer(raw, "threshold", 50);
            finish = Json.str(raw, "finish", "zero_or_below");
            tieBreak = Json.str(raw, "tie_break", "none");
            roundLimit = Json.integer(raw, "round_limit", 500);
        }

        /** The American game (the defaults of every field). */
        public static Rules american() {
            return new Rules(new LinkedHashMap<>());
        }

        /** Every card in play (see Hearts.deck), computed once. */
        public List<String> deck() {
            if (deckCache == null) deckCache = Collections.unmodifiableList(Hearts.deck(this));
            return deckCache;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Table state
    // ------------------------------------------------------------------------------------------

    /** A seat and the name its bot gave. */
    public record Player(int seat, String name) {}

    /** A finished trick of the current round. winner is null only in the double deck, when every
     * card of the led suit was cancelled: the cards then go to the next trick's winner. */
    public record Trick(int number, int leader, List<String> cards, Integer winner, int points) {
        /** The seat that played cards().get(index), at a table of players seats. */
        public int seatOf(int index, int players) {
            return players > 0 ? Math.floorMod(leader + index, players) : -1;
        }
    }

    /**
     * Everything a seat knows about the match, kept current by the kit from the referee's
     * messages before each decision. Read it; do not change it (the kit owns it). Seats are
     * numbered 0..numPlayers-1 clockwise; per-seat arrays and lists are indexed by seat. Round
     * fields are reset by round_start, match fields by match_start.
     */
    public static final class State {
        // -- the match
        public String matchId = "";
        /** Your seat. */
        public int seat = -1;
        public List<Player> players = new ArrayList<>();
        public int numPlayers;
        /** The complete rule set (docs/rules.md). */
        public Rules rules = Rules.american();
        /** The match's clock; null before match_start. */
        public TimeControl time;
        /** Match scores by seat: before the current round, then after each round_end. */
        public int[] scores = new int[0];
        /** 1, or 2 in the count-down phase of a two-phase (Dutch) match. */
        public int matchPhase = 1;
        /** The latest round_end and match_end messages, as sent (null until they come). */
        public Map<String, Object> lastRoundEnd;
        public Map<String, Object> lastMatchEnd;
        /** The time the latest request allows, and System.nanoTime() when the kit read it (the
         * referee's clock started a little earlier). */
        public TimeLeft timeLeft;
        public long requestNanos;

        // -- the round
        public int round = -1;
        public int dealer = -1;
        /** Your cards now, kept current through passing and play. */
        public List<String> hand = new ArrayList<>();
        /** left, right, across, left2, right2 or hold. */
        public String passDirection = "hold";
        public int passCount;
        /** Where your passed cards go; null when nobody passes. */
        public Integer passTo;
        /** The cards you gave this round (in passTo's hand until played). */
        public List<String> passed = new ArrayList<>();
        /** The cards passed to you this round (already in hand), and who gave them. */
        public List<String> received = new ArrayList<>();
        public Integer receivedFrom;
        /** Per seat: true or false once it has declared, null before (or without declarations). */
        public Boolean[] declarations = new Boolean[0];
        /** Per seat: card points taken this round so far (bonus cards count negative). */
        public int[] pointsTaken = new int[0];
        public boolean heartsBroken;
        /** The cards of the current trick, the leader's first, its leader and its number. */
        public List<String> trick = new ArrayList<>();
        public int trickLeader = -1;
        public int trickNumber;
        /** Finished tricks of this round, in order. */
        public List<Trick> tricks = new ArrayList<>();
        /** Every card played this round, in order (the current trick's included). */
        public List<String> played = new ArrayList<>();
        /** Per seat: the cards it played this round, and the cards in the tricks it took. */
        public List<List<String>> playedBy = new ArrayList<>();
        public List<List<String>> taken = new ArrayList<>();
        /** Per seat: the suits it has shown it no longer holds (it did not follow suit). */
        public List<Set<Character>> voids = new ArrayList<>();
        private final List<String> carry = new ArrayList<>();

        /** Points card is worth under the rules (Hearts.cardPoints). */
        public int value(String card) {
            return cardPoints(this, card);
        }

        public boolean isPenalty(String card) {
            return value(card) > 0;
        }

        /** Whether the current trick is the round's first. */
        public boolean firstTrick() {
            return tricks.isEmpty();
        }

        /** The suit led to the current trick, (char) 0 before the lead. */
        public char ledSuit() {
            return trick.isEmpty() ? 0 : suitOf(trick.get(0));
        }

        /** Whether seat has shown it holds no card of suit ('C', 'D', 'S', 'H') this round. */
        public boolean isVoid(int seat, char suit) {
            return seat >= 0 && seat < voids.size() && voids.get(seat).contains(suit);
        }

        /** The seat winning the current trick so far; -1 before the lead or when every card of
         * the led suit is cancelled (double deck). */
        public int winningSeat() {
            int index = trickWinner(trick, rules);
            return index < 0 || numPlayers <= 0 ? -1 : Math.floorMod(trickLeader + index, numPlayers);
        }

        /** The points in the current trick so far. */
        public int trickPoints() {
            int total = 0;
            for (String card : trick) total += value(card);
            return total;
        }

        /** The seats yet to play to the current trick, in order (you included on your turn). */
        public List<Integer> stillToPlay() {
            List<Integer> seats = new ArrayList<>();
            if (trickLeader < 0 || numPlayers <= 0) return seats;
            for (int i = trick.size(); i < numPlayers; i++) seats.add((trickLeader + i) % numPlayers);
            return seats;
        }

        /** Every card in play this match (twice each in a double deck). */
        public List<String> deck() {
            return rules.deck();
        }

        /** The cards still in the other seats' hands: the deck minus your hand and every card
         * played this round (the cards you passed are among them). */
        public List<String> unseen() {
            Map<String, Integer> gone = new HashMap<>();
            for (String card : hand) gone.merge(card, 1, Integer::sum);
            for (String card : played) gone.merge(card, 1, Integer::sum);
            List<String> rest = new ArrayList<>();
            for (String card : deck()) {
                int count = gone.getOrDefault(card, 0);
                if (count > 0) gone.put(card, count - 1);
                else rest.add(card);
            }
            return rest;
        }

        /** Milliseconds since the kit read the latest request. */
        public long elapsedMs() {
            return (System.nanoTime() - requestNanos) / 1_000_000;
        }

        /** Take in one referee message (the kit calls this before asking the bot; public so that
         * tests and tools can replay a log). Messages it does not know change nothing. */
        public void update(Map<String, Object> msg) {
            switch (Json.str(msg, "type", "")) {
                case "match_start" -> startMatch(msg);
                case "round_start" -> startRound(msg);
                case "passed" -> {
                    passed = Json.strings(msg, "given", true);
                    received = Json.strings(msg, "received", true);
                    receivedFrom = Json.optInteger(msg, "from_seat");
                    if (msg.get("hand") instanceof List) hand = Json.strings(msg, "hand", true);
                    else removeCards(hand, passed).addAll(received);
                }
                case "declared" -> {
                    int who = Json.integer(msg, "seat", -1);
                    if (grow(who)) declarations[who] = Json.bool(msg, "declared", false);
                }
                case "card_played" -> {
                    playCard(Json.integer(msg, "seat", -1), Json.str(msg, "card", ""));
                    trickNumber = Json.integer(msg, "trick_number", trickNumber);
                }
                case "trick_end" -> endTrick(msg);
                case "play_request" -> {
                    // the request is authoritative for the trick; the events keep it current between
                    request(msg);
                    if (msg.get("trick") instanceof List) trick = Json.strings(msg, "trick", true);
                    trickLeader = Json.integer(msg, "leader", trickLeader);
                    trickNumber = Json.integer(msg, "trick_number", trickNumber);
                    heartsBroken = Json.bool(msg, "hearts_broken", heartsBroken);
                }
                case "declare_request" -> {
                    request(msg);
                    List<Object> made = Json.list(msg.get("declarations"));
                    if (made != null && made.size() <= MAX_SEATS) {
                        declarations = new Boolean[made.size()];
                        for (int i = 0; i < made.size(); i++) {
                            declarations[i] = made.get(i) instanceof Boolean b ? b : null;
                        }
                    }
                }
                case "pass_request", "moon_request" -> request(msg);
                case "round_end" -> {
                    lastRoundEnd = msg;
                    if (msg.get("scores") instanceof List) scores = Json.ints(msg, "scores");
                    if (msg.get("points_taken") instanceof List) pointsTaken = Json.ints(msg, "points_taken");
                    matchPhase = Json.integer(msg, "next_match_phase", matchPhase);
                }
                case "match_end" -> {
                    lastMatchEnd = msg;
                    if (msg.get("scores") instanceof List) scores = Json.ints(msg, "scores");
                }
                default -> {
                    // events this kit does not know need nothing (forward compatibility)
                }
            }
        }

        private void request(Map<String, Object> msg) {
            timeLeft = timeLeftOf(msg);
            requestNanos = System.nanoTime();
        }

        private void startMatch(Map<String, Object> msg) {
            matchId = Json.str(msg, "match_id", "");
            seat = Json.integer(msg, "seat", -1);
            players = new ArrayList<>();
            List<Object> given = Json.list(msg.get("players"));
            for (Object entry : given == null ? List.of() : given) {
                Map<String, Object> player = Json.map(entry);
                if (player != null) {
                    players.add(new Player(Json.integer(player, "seat", players.size()), Json.str(player, "name", "")));
                }
            }
            Map<String, Object> rulesGiven = Json.map(msg.get("rules"));
            rules = rulesGiven == null ? Rules.american() : new Rules(rulesGiven);
            int n = players.isEmpty() ? rules.players : players.size();
            numPlayers = Math.max(0, Math.min(n, MAX_SEATS));
            Map<String, Object> clock = Json.map(msg.get("time"));
            time = clock == null ? null : new TimeControl(Json.longInt(clock, "per_decision_ms", 0),
                    Json.longInt(clock, "bank_ms", 0), Json.longInt(clock, "startup_ms", 0));
            scores = new int[numPlayers];
            matchPhase = 1;
            lastRoundEnd = null;
            lastMatchEnd = null;
            timeLeft = null;
            clearRound();
        }

        private void startRound(Map<String, Object> msg) {
            clearRound();
            round = Json.integer(msg, "round", -1);
            dealer = Json.integer(msg, "dealer", -1);
            hand = Json.strings(msg, "hand", true);
            passDirection = Json.str(msg, "pass_direction", "hold");
            passCount = Json.integer(msg, "pass_count", 0);
            passTo = Json.optInteger(msg, "pass_to");
            matchPhase = Json.integer(msg, "match_phase", matchPhase);
            if (msg.get("scores") instanceof List) scores = Json.ints(msg, "scores");
        }

        private void clearRound() {
            int n = numPlayers;
            round = -1;
            dealer = -1;
            hand = new ArrayList<>();
            passDirection = "hold";
            passCount = 0;
            passTo = null;
            passed = new ArrayList<>();
            received = new ArrayList<>();
            receivedFrom = null;
            declarations = new Boolean[n];
            pointsTaken = new int[n];
            heartsBroken = "any_time".equals(rules.heartsLead);
            trick = new ArrayList<>();
            trickLeader = -1;
            trickNumber = 0;
            tricks = new ArrayList<>();
            played = new ArrayList<>();
            playedBy = new ArrayList<>();
            taken = new ArrayList<>();
            voids = new ArrayList<>();
            carry.clear();
            grow(n - 1);
        }

        /** Make every per-seat list long enough for seat; false for a seat that cannot be. */
        private boolean grow(int seat) {
            if (seat < 0 || seat >= MAX_SEATS) return false;
            int n = seat + 1;
            if (declarations.length < n) declarations = Arrays.copyOf(declarations, n);
            if (pointsTaken.length < n) pointsTaken = Arrays.copyOf(pointsTaken, n);
            while (playedBy.size() < n) playedBy.add(new ArrayList<>());
            while (taken.size() < n) taken.add(new ArrayList<>());
            while (voids.size() < n) voids.add(new HashSet<>());
            return true;
        }

        private void playCard(int who, String card) {
            boolean known = grow(who);
            if (trick.isEmpty()) trickLeader = who;
            else if (known && suitOf(card) != suitOf(trick.get(0))) voids.get(who).add(suitOf(trick.get(0)));
            trick.add(card);
            played.add(card);
            if (known) playedBy.get(who).add(card);
            if (who == seat) hand.remove(card);
            if (suitOf(card) == 'H' || (card.equals("QS") && rules.queenBreaksHearts)) heartsBroken = true;
        }

        private void endTrick(Map<String, Object> msg) {
            int leader = Json.integer(msg, "leader", trickLeader);
            List<String> cards = Json.strings(msg, "cards", true);
            if (trickLeader < 0 && trick.isEmpty()) trickLeader = leader;
            int n = numPlayers > 0 ? numPlayers : Math.max(1, cards.size());
            for (int i = trick.size(); i < cards.size(); i++) { // cards whose card_played we missed
                playCard(Math.floorMod(leader + i, n), cards.get(i));
            }
            Integer winner = Json.optInteger(msg, "winner");
            int points = Json.integer(msg, "points", 0);
            int number = Json.integer(msg, "trick_number", trickNumber);
            tricks.add(new Trick(number, leader, Collections.unmodifiableList(cards), winner, points));
            if (winner == null) { // every card of the led suit cancelled: the cards carry over
                carry.addAll(cards);
                trickLeader = leader;
            } else {
                if (grow(winner)) {
                    taken.get(winner).addAll(carry);
                    taken.get(winner).addAll(cards);
                    pointsTaken[winner] += points;
                }
                carry.clear();
                trickLeader = winner;
            }
            trick = new ArrayList<>();
            trickNumber = number + 1;
        }
    }

    static TimeLeft timeLeftOf(Map<String, Object> msg) {
        Map<String, Object> time = Json.map(msg.get("time"));
        if (time == null) return null;
        return new TimeLeft(Json.longInt(time, "decision_ms", 0), Json.longInt(time, "bank_ms", 0));
    }

    // ------------------------------------------------------------------------------------------
    // JSON: a small reader and writer (the JDK has none)
    // ------------------------------------------------------------------------------------------

    /**
     * Json.parse turns a line into Map (objects, fields in order), List, String, Num, Boolean or
     * null; Json.write turns those (and Integer, Long, Double) back into compact text. Numbers
     * keep their text (Num), so an id beyond 64 bits is still echoed exactly and a number too
     * large for any type costs nothing until it is read. The accessors (str, integer, ...) never
     * throw: a field missing or of another type gives the default.
     */
    public static final class Json {
        private Json() {}

        /** Deeper nesting is refused (the protocol allows 32 levels and uses 2): recursion stays
         * shallow whatever a line holds. */
        public static final int MAX_DEPTH = 64;

        /** A JSON number, exactly as written. */
        public record Num(String text) {
            /** Its value if it is an integer that fits in a long, else fallback. */
            public long longValue(long fallback) {
                if (text.length() > 20 || text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0) {
                    return fallback;
                }
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException err) {
                    return fallback;
                }
            }

            /** Its value if it is an integer that fits in an int, else fallback. */
            public int intValue(int fallback) {
                long value = longValue(Long.MIN_VALUE);
                return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? (int) value : fallback;
            }

            /** Its value as a double (infinite if out of range). */
            public double doubleValue() {
                return Double.parseDouble(text);
            }

            @Override
            public String toString() {
                return text;
            }
        }

        /** Text that is not one JSON value. */
        public static final class JsonException extends Exception {
            private static final long serialVersionUID = 1L;

            JsonException(String message) {
                super(message);
            }
        }

        /** One JSON value, the whole text (whitespace around it allowed). */
        public static Object parse(String text) throws JsonException {
            Parser parser = new Parser(text);
            parser.space();
            Object value = parser.value(0);
            parser.space();
            if (parser.i != text.length()) throw parser.error("text after the value");
            return value;
        }

        private static final class Parser {
            private final String s;
            private int i;

            Parser(String s) {
                this.s = s;
            }

            JsonException error(String what) {
                return new JsonException(what + " at character " + i);
            }

            void space() {
                while (i < s.length()) {
                    char c = s.charAt(i);
                    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
                    i++;
                }
            }

            Object value(int depth) throws JsonException {
                if (i >= s.length()) throw error("unexpected end");
                char c = s.charAt(i);
                if (c == '{' || c == '[') {
                    if (depth >= MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH);
                    return c == '{' ? object(depth + 1) : array(depth + 1);
                }
                if (c == '"') return string();
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                if (s.startsWith("true", i)) {
                    i += 4;
                    return Boolean.TRUE;
                }
                if (s.startsWith("false", i)) {
                    i += 5;
                    return Boolean.FALSE;
                }
                if (s.startsWith("null", i)) {
                    i += 4;
                    return null;
                }
                throw error("unexpected character");
            }

            private Map<String, Object> object(int depth) throws JsonException {
                Map<String, Object> out = new LinkedHashMap<>();
                i++; // {
                space();
                if (eat('}')) return out;
                while (true) {
                    space();
                    if (i >= s.length() || s.charAt(i) != '"') throw error("a field name expected");
                    String key = string();
                    space();
                    expect(':');
                    space();
                    out.put(key, value(depth));
                    space();
                    if (eat(',')) continue;
                    expect('}');
                    return out;
                }
            }

            private List<Object> array(int depth) throws JsonException {
                List<Object> out = new ArrayList<>();
                i++; // [
                space();
                if (eat(']')) return out;
                while (true) {
                    space();
                    out.add(value(depth));
                    space();
                    if (eat(',')) continue;
                    expect(']');
                    return out;
                }
            }

            /** Consumes {@code c} if it is the next character; whether it was. */
            private boolean eat(char c) {
                if (i >= s.length() || s.charAt(i) != c) return false;
                i++;
                return true;
            }

            private void expect(char c) throws JsonException {
                if (!eat(c)) throw error("'" + c + "' expected");
            }

            private String string() throws JsonException {
                i++; // the opening quote
                StringBuilder out = new StringBuilder();
                while (true) {
                    int start = i;
                    while (i < s.length() && s.charAt(i) != '"' && s.charAt(i) != '\\' && s.charAt(i) >= 0x20) i++;
                    out.append(s, start, i);
                    if (i >= s.length()) throw error("unterminated string");
                    char c = s.charAt(i++);
                    if (c == '"') return out.toString();
                    if (c != '\\') throw error("control character in a string");
                    if (i >= s.length()) throw error("unterminated escape");
                    char e = s.charAt(i++);
                    switch (e) {
                        case '"', '\\', '/' -> out.append(e);
                        case 'b' -> out.append('\b');
                        case 'f' -> out.append('\f');
                        case 'n' -> out.append('\n');
                        case 'r' -> out.append('\r');
                        case 't' -> out.append('\t');
                        case 'u' -> {
                            // \\uXXXX is one UTF-16 unit: a surrogate pair arrives as two escapes
                            // and joins up in the Java string by itself
                            if (i + 4 > s.length()) throw error("short \\u escape");
                            int code = 0;
                            for (int k = 0; k < 4; k++) {
                                int digit = Character.digit(s.charAt(i++), 16);
                                if (digit < 0) throw error("bad \\u escape");
                                code = code * 16 + digit;
                            }
                            out.append((char) code);
                        }
                        default -> throw error("bad escape");
                    }
                }
            }

            private Num number() throws JsonException {
                int start = i;
                if (s.charAt(i) == '-') i++;
                if (i < s.length() && s.charAt(i) == '0') i++;
                else if (!digits()) throw error("bad number");
                if (i < s.length() && s.charAt(i) == '.') {
                    i++;
                    if (!digits()) throw error("bad number");
                }
                if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                    i++;
                    if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
                    if (!digits()) throw error("bad number");
                }
                return new Num(s.substring(start, i));
            }

            private boolean digits() {
                int start = i;
                while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
                return i > start;
            }
        }

        /** Compact JSON text of value: Map, List, String, Boolean, Num, Integer, Long, Double or
         * null (anything else as its toString). Non-ASCII text is escaped (\\uXXXX), so the
         * line is plain ASCII whatever the names hold. */
        public static String write(Object value) {
            StringBuilder out = new StringBuilder();
            write(out, value);
            return out.toString();
        }

        private static void write(StringBuilder out, Object value) {
            if (value == null) {
                out.append("null");
            } else if (value instanceof String text) {
                quote(out, text);
            } else if (value instanceof Boolean || value instanceof Num || value instanceof Integer
                    || value instanceof Long || value instanceof Short || value instanceof Byte) {
                out.append(value);
            } else if (value instanceof Number number) {
                double d = number.doubleValue();
                out.append(Double.isFinite(d) ? Double.toString(d) : "null");
            } else if (value instanceof Map<?, ?> map) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (!first) out.append(',');
                    first = false;
                    quote(out, String.valueOf(entry.getKey()));
                    out.append(':');
                    write(out, entry.getValue());
                }
                out.append('}');
            } else if (value instanceof Iterable<?> items) {
                out.append('[');
                boolean first = true;
                for (Object item : items) {
                    if (!first) out.append(',');
                    first = false;
                    write(out, item);
                }
                out.append(']');
            } else {
                quote(out, value.toString());
            }
        }

        private static void quote(StringBuilder out, String text) {
            out.append('"');
            for (int k = 0; k < text.length(); k++) {
                char c = text.charAt(k);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c >= 0x20 && c < 0x7f) {
                            out.append(c);
                        } else if (Character.isHighSurrogate(c) && k + 1 < text.length()
                                && Character.isLowSurrogate(text.charAt(k + 1))) {
                            hex(out, c);
                            hex(out, text.charAt(++k));
                        } else {
                            hex(out, Character.isSurrogate(c) ? '\ufffd' : c); // a lone half is no text
                        }
                    }
                }
            }
            out.append('"');
        }

        private static void hex(StringBuilder out, char c) {
            out.append(String.format("\\u%04x", (int) c));
        }

        // -- accessors that never throw ----------------------------------------------------------

        /** value as an object (our parser's maps have string keys), or null. */
        @SuppressWarnings("unchecked")
        public static Map<String, Object> map(Object value) {
            return value instanceof Map ? (Map<String, Object>) value : null;
        }

        /** value as an array, or null. */
        @SuppressWarnings("unchecked")
        public static List<Object> list(Object value) {
            return value instanceof List ? (List<Object>) value : null;
        }

        public static String str(Map<String, Object> m, String key, String fallback) {
            return m.get(key) instanceof String text ? text : fallback;
        }

        public static boolean bool(Map<String, Object> m, String key, boolean fallback) {
            return m.get(key) instanceof Boolean b ? b : fallback;
        }

        public static int integer(Map<String, Object> m, String key, int fallback) {
            return m.get(key) instanceof Num num ? num.intValue(fallback) : fallback;
        }

        public static long longInt(Map<String, Object> m, String key, long fallback) {
            return m.get(key) instanceof Num num ? num.longValue(fallback) : fallback;
        }

        /** An int field that may be null (or missing, or not an int): null then. */
        public static Integer optInteger(Map<String, Object> m, String key) {
            if (!(m.get(key) instanceof Num num)) return null;
            long value = num.longValue(Long.MIN_VALUE);
            return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? Integer.valueOf((int) value) : null;
        }

        /** The strings of an array field (other items skipped), read-only; empty if missing. */
        public static List<String> strings(Map<String, Object> m, String key) {
            return strings(m, key, false);
        }

        /** The strings of an array field as a new list (mutable when mutable is true). */
        static List<String> strings(Map<String, Object> m, String key, boolean mutable) {
            List<String> out = new ArrayList<>();
            List<Object> items = list(m.get(key));
            if (items != null) {
                for (Object item : items) {
                    if (item instanceof String text) out.add(text);
                }
            }
            return mutable ? out : Collections.unmodifiableList(out);
        }

        /** The ints of an array field (a non-int item counts 0). */
        public static int[] ints(Map<String, Object> m, String key) {
            List<Object> items = list(m.get(key));
            if (items == null) return new int[0];
            int[] out = new int[Math.min(items.size(), MAX_SEATS)];
            for (int k = 0; k < out.length; k++) {
                out[k] = items.get(k) instanceof Num num ? num.intValue(0) : 0;
            }
            return out;
        }
    }

    // ------------------------------------------------------------------------------------------
    // The conversation, without I/O: a message in, the reply (or null) out
    // ------------------------------------------------------------------------------------------

    /** One connection's conversation: handle takes a parsed referee message and returns the
     * reply to send, or null. The transports drive it; tests can drive it directly. */
    public static final class Session {
        public final Bot bot;
        public final State state = new State();
        private final String token;
        /** Set by goodbye or a fatal error: the conversation is over. */
        public boolean finished;
        /** 0, or 1 after a fatal error. */
        public int exitCode;

        public Session(Bot bot, String token) {
            this.bot = bot;
            this.token = token;
        }

        public Map<String, Object> handle(Map<String, Object> msg) {
            String type = Json.str(msg, "type", "");
            try {
                state.update(msg);
            } catch (RuntimeException err) { // a message too odd to take in: the state stays as it was
                log("could not take in a " + type + " message: " + err);
            }
            try {
                bot.onMessage(state, msg);
            } catch (RuntimeException | Error err) {
                if (bot.strict()) throw err;
                log("onMessage threw " + trace(err));
            }
            return switch (type) {
                case "hello" -> hello(msg);
                case "pass_request" -> pass(msg);
                case "play_request" -> play(msg);
                case "declare_request" -> declare(msg);
                case "moon_request" -> moon(msg);
                case "error" -> {
                    boolean fatal = Json.bool(msg, "fatal", false);
                    String rule = Json.str(msg, "rule", null);
                    log("referee error " + Json.str(msg, "code", "?") + (rule != null ? " (" + rule + ")" : "")
                            + (fatal ? " (fatal)" : "") + ": " + Json.str(msg, "message", ""));
                    if (fatal) finish(1);
                    yield null;
                }
                case "goodbye" -> {
                    finish(0);
                    yield null;
                }
                default -> null; // events, and types of a later protocol version, need no answer
            };
        }

        private void finish(int code) {
            finished = true;
            exitCode = code;
        }

        private Map<String, Object> hello(Map<String, Object> msg) {
            List<Object> versions = Json.list(msg.get("versions"));
            boolean offered = false;
            for (Object version : versions == null ? List.of() : versions) {
                offered |= version instanceof Json.Num num && num.longValue(0) == PROTOCOL_VERSION;
            }
            if (!offered) {
                log("the referee offers versions " + Json.write(versions) + "; this kit speaks " + PROTOCOL_VERSION);
            }
            Map<String, Object> reply = reply("hello", null);
            reply.put("version", PROTOCOL_VERSION);
            reply.put("name", orDefault(bot::name, "java-bot"));
            reply.put("bot_version", orDefault(bot::version, ""));
            reply.put("author", orDefault(bot::author, ""));
            if (token != null) reply.put("token", token);
            return reply;
        }

        private static String orDefault(Supplier<String> field, String fallback) {
            try {
                String value = field.get();
                return value != null ? value : fallback;
            } catch (RuntimeException err) {
                log("the bot's name, version or author threw " + err);
                return fallback;
            }
        }

        /** The reply's start: its type and the request's id exactly as the referee wrote it. */
        private static Map<String, Object> reply(String type, Object id) {
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("type", type);
            if (id != null) reply.put("id", id);
            return reply;
        }

        /** The request's id, or null (logged) when it has none: such a request cannot be answered. */
        private static Json.Num idOf(Map<String, Object> msg, String type) {
            if (msg.get("id") instanceof Json.Num num) return num;
            log("a " + type + " without a numeric id; not answering it");
            return null;
        }

        private <T> T ask(String what, Supplier<T> choice) {
            try {
                return choice.get();
            } catch (RuntimeException | Error err) {
                if (bot.strict()) throw err;
                log(what + " threw " + trace(err) + "; answering with a legal default");
                return null;
            }
        }

        private Map<String, Object> pass(Map<String, Object> msg) {
            Json.Num id = idOf(msg, "pass_request");
            if (id == null) return null;
            PassRequest request = new PassRequest(id.longValue(0), Json.integer(msg, "count", 0),
                    Json.strings(msg, "legal"), Json.integer(msg, "to_seat", -1), timeLeftOf(msg), msg);
            List<String> legal = request.legal();
            List<String> fallback = legal.subList(0, Math.max(0, Math.min(request.count(), legal.size())));
            List<String> answer = ask("choosePass", () -> bot.choosePass(state, request));
            List<String> cards = null;
            if (answer != null) {
                try {
                    cards = new ArrayList<>();
                    for (String card : answer) cards.add(card == null ? null : normal(card));
                } catch (RuntimeException err) {
                    cards = null;
                }
            }
            if (answer != null && !isLegalPass(cards, request)) {
                log("choosePass returned " + answer + ", not " + request.count() + " cards of " + legal + "; passing "
                        + fallback);
            }
            Map<String, Object> reply = reply("pass", id);
            reply.put("cards", isLegalPass(cards, request) ? cards : new ArrayList<>(fallback));
            return reply;
        }

        private Map<String, Object> play(Map<String, Object> msg) {
            Json.Num id = idOf(msg, "play_request");
            if (id == null) return null;
            PlayRequest request = new PlayRequest(id.longValue(0), Json.strings(msg, "legal"),
                    Json.strings(msg, "trick"), Json.integer(msg, "leader", -1),
                    Json.integer(msg, "trick_number", 0), Json.bool(msg, "hearts_broken", false), timeLeftOf(msg), msg);
            List<String> legal = request.legal();
            String answer = ask("choosePlay", () -> bot.choosePlay(state, request));
            String card = answer == null ? null : normal(answer);
            if (card == null || !legal.contains(card)) {
                String fallback = legal.isEmpty() ? answer : legal.get(0);
                if (answer != null) {
                    log("choosePlay returned " + answer + ", not one of " + legal + "; playing " + fallback);
                }
                card = fallback;
            }
            if (card == null) {
                log("a play_request without a legal card; not answering it");
                return null;
            }
            Map<String, Object> reply = reply("play", id);
            reply.put("card", card);
            return reply;
        }

        private Map<String, Object> declare(Map<String, Object> msg) {
            Json.Num id = idOf(msg, "declare_request");
            if (id == null) return null;
            List<Boolean> made = new ArrayList<>();
            List<Object> given = Json.list(msg.get("declarations"));
            for (Object item : given == null ? List.of() : given) made.add(item instanceof Boolean b ? b : null);
            DeclareRequest request = new DeclareRequest(id.longValue(0), Collections.unmodifiableList(made),
                    Json.integer(msg, "points", 0), timeLeftOf(msg), msg);
            Boolean answer = ask("chooseDeclare", () -> bot.chooseDeclare(state, request));
            Map<String, Object> reply = reply("declare", id);
            reply.put("declare", answer != null && answer);
            return reply;
        }

        private Map<String, Object> moon(Map<String, Object> msg) {
            Json.Num id = idOf(msg, "moon_request");
            if (id == null) return null;
            MoonRequest request = new MoonRequest(id.longValue(0), Json.strings(msg, "options"),
                    Json.integer(msg, "points", 0), timeLeftOf(msg), msg);
            List<String> options = request.options();
            String fallback = options.contains("add_to_others") || options.isEmpty() ? "add_to_others" : options.get(0);
            String answer = ask("chooseMoon", () -> bot.chooseMoon(state, request));
            String choice = answer != null && options.contains(answer) ? answer : fallback;
            if (answer != null && !answer.equals(choice)) {
                log("chooseMoon returned " + answer + ", not one of " + options + "; choosing " + fallback);
            }
            Map<String, Object> reply = reply("moon", id);
            reply.put("choice", choice);
            return reply;
        }
    }

    private static String trace(Throwable err) {
        StringWriter text = new StringWriter();
        err.printStackTrace(new PrintWriter(text));
        return text.toString().strip();
    }

    /** Write a line to stderr (the referee keeps the first 64 KiB of it in the replay log). */
    public static void log(String text) {
        System.err.println("[Hearts.java] " + text);
    }

    // ------------------------------------------------------------------------------------------
    // Transports
    // ------------------------------------------------------------------------------------------

    /** Lines of bytes, at most MAX_LINE each before the newline, a '\r' counted (a longer line is
     * skipped without ever holding more than MAX_LINE bytes of it), decoded as UTF-8 (bad bytes
     * become U+FFFD). */
    static final class LineReader {
        private final InputStream in;
        private final byte[] buffer = new byte[16384];
        private final byte[] line = new byte[MAX_LINE];
        private int position;
        private int length;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** The next line without its ending, or null at the end of the input. */
        String readLine() throws IOException {
            int size = 0;
            boolean tooLong = false;
            while (true) {
                if (position == length) {
                    length = in.read(buffer);
                    position = 0;
                    if (length <= 0) {
                        length = 0;
                        if (size == 0 || tooLong) return null;
                        break; // the last line, without a newline
                    }
                }
                byte b = buffer[position++];
                if (b == '\n') {
                    if (!tooLong) break;
                    log("skipped a line longer than " + MAX_LINE + " bytes");
                    size = 0;
                    tooLong = false;
                    continue;
                }
                if (size < line.length) line[size++] = b;
                else tooLong = true;
            }
            if (size > 0 && line[size - 1] == '\r') size--;
            return new String(line, 0, size, StandardCharsets.UTF_8);
        }
    }

    /** What happened to a connection. */
    private static final class Talk {
        boolean seated; // a message other than hello or error came: the bot has its seat
        String busy; // the referee's busy message, when it refused the connection as busy
    }

    /** Read lines, answer them, until goodbye, a fatal error or the end of the input. With tcp,
     * a busy refusal before the seat ends the talk without being handed to the session. */
    private static void converse(Session session, LineReader reader, OutputStream out, Talk talk, boolean tcp)
            throws IOException {
        String line;
        while (!session.finished && (line = reader.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> msg;
            try {
                msg = Json.map(Json.parse(line));
            } catch (Json.JsonException err) {
                log("ignoring a line that is not JSON (" + err.getMessage() + "): " + cut(line));
                continue;
            }
            if (msg == null || !(msg.get("type") instanceof String type)) {
                log("ignoring a line that is not a message: " + cut(line));
                continue;
            }
            if (tcp && !talk.seated) {
                if (type.equals("error") && "busy".equals(msg.get("code"))) {
                    talk.busy = Json.str(msg, "message", "busy");
                    return;
                }
                talk.seated = !type.equals("hello") && !type.equals("error");
            }
            Map<String, Object> reply;
            try {
                reply = session.handle(msg);
            } catch (RuntimeException err) {
                if (session.bot.strict()) throw err;
                log("internal error on a " + type + " message: " + trace(err));
                continue;
            }
            if (reply != null) {
                out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush(); // every reply is timed: it must not wait in a buffer
            }
        }
    }

    private static String cut(String line) {
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    /** The kit's command-line options. */
    static final class Options {
        String host;
        int port = -1;
        String token;
        String tokenFile;
        double retryFor = RETRY_FOR;
    }

    private static final Pattern HOST_PORT = Pattern.compile("^\\[?(.*?)\\]?:(\\d{1,5})$");

    /** --tcp HOST:PORT, --token T, --token-file F, --retry-for S (also as --name=value); other
     * arguments are left for the bot. The token: --token, else --token-file's first line, else
     * $HEARTS_TOKEN. Throws IllegalArgumentException for a bad option. */
    static Options parseArgs(String[] args) throws IOException {
        Options options = new Options();
        String tcp = null;
        for (int k = 0; k < args.length; k++) {
            String arg = args[k];
            int eq = arg.indexOf('=');
            String key = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
            if (!List.of("--tcp", "--token", "--token-file", "--retry-for").contains(key)) continue;
            String value = eq > 0 ? arg.substring(eq + 1) : k + 1 < args.length ? args[++k] : null;
            if (value == null) throw new IllegalArgumentException(key + " needs a value");
            switch (key) {
                case "--tcp" -> tcp = value;
                case "--token" -> options.token = value;
                case "--token-file" -> options.tokenFile = value;
                default -> {
                    try {
                        options.retryFor = Double.parseDouble(value);
                    } catch (NumberFormatException err) {
                        options.retryFor = Double.NaN;
                    }
                    if (!(options.retryFor >= 0) || Double.isInfinite(options.retryFor)) {
                        throw new IllegalArgumentException("--retry-for wants seconds, not " + value);
                    }
                }
            }
        }
        if ((options.token == null || options.token.isEmpty()) && options.tokenFile != null) {
            String text = Files.readString(Path.of(options.tokenFile), StandardCharsets.UTF_8);
            String first = text.split("\n", 2)[0].strip();
            options.token = first.isEmpty() ? null : first;
        }
        if (options.token == null || options.token.isEmpty()) {
            String variable = System.getenv(TOKEN_VARIABLE);
            options.token = variable == null || variable.isEmpty() ? null : variable;
        }
        if (tcp != null) {
            Matcher match = HOST_PORT.matcher(tcp);
            if (!match.matches()) {
                throw new IllegalArgumentException("--tcp wants HOST:PORT, not " + tcp);
            }
            int port = Integer.parseInt(match.group(2));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("--tcp wants a port from 1 to 65535, not " + tcp);
            }
            options.host = match.group(1).isEmpty() ? "127.0.0.1" : match.group(1);
            options.port = port;
        }
        return options;
    }

    /** Run bot against a referee: over stdin/stdout, or over TCP with --tcp HOST:PORT. Exits the
     * program: 0 after goodbye or the end of the input, 1 after a fatal error or when the
     * connection failed, 2 for a bad option. */
    public static void run(Bot bot, String[] args) {
        Options options;
        try {
            options = parseArgs(args);
        } catch (IOException | IllegalArgumentException err) {
            log(err instanceof IOException ? "cannot read the token file: " + err : err.getMessage());
            System.exit(2);
            return;
        }
        // stdout is the protocol channel: the kit writes to it directly, and stray prints go to stderr
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        int code;
        if (options.host == null) {
            Session session = new Session(bot, options.token);
            try {
                converse(session, new LineReader(new FileInputStream(FileDescriptor.in)), stdout, new Talk(), false);
                code = session.exitCode;
            } catch (IOException err) {
                log("the referee's pipes failed: " + err);
                code = 1;
            }
        } else {
            code = connectTcp(bot, options);
        }
        System.exit(code);
    }

    /** Play over TCP. Until the referee seats the bot (any message but hello or error), a busy
     * refusal, a refused or reset connection, or one closed without an error is tried again
     * after a pause (0.1 s doubling to 5 s, a random half to all of it) for up to
     * options.retryFor seconds, each retry logged; other refusals (bad_token, seat_taken, ...)
     * are final. Returns the exit status. */
    static int connectTcp(Bot bot, Options options) {
        long deadline = System.nanoTime() + (long) (options.retryFor * 1e9);
        double delay = RETRY_FIRST;
        String where = options.host + ":" + options.port;
        while (true) {
            Session session = new Session(bot, options.token);
            Talk talk = new Talk();
            String why;
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(options.host, options.port), 30_000);
                socket.setTcpNoDelay(true);
                log("connected to " + where);
                converse(session, new LineReader(socket.getInputStream()), socket.getOutputStream(), talk, true);
                if (talk.seated || (session.finished && talk.busy == null)) return session.exitCode;
                why = talk.busy != null ? "the referee is busy (" + talk.busy + ")"
                        : "the referee closed the connection";
            } catch (UnknownHostException err) {
                log("unknown host " + options.host);
                return 1;
            } catch (IOException err) {
                if (talk.seated) {
                    log("lost the connection to the referee: " + err);
                    return 1;
                }
                why = "cannot connect to " + where + " (" + err.getMessage() + ")";
            }
            double left = (deadline - System.nanoTime()) / 1e9;
            if (left <= 0) {
                log(why + "; giving up after " + String.format("%.1f", options.retryFor) + " s");
                return 1;
            }
            double pause = Math.min(delay * (0.5 + 0.5 * ThreadLocalRandom.current().nextDouble()), left);
            delay = Math.min(delay * 2, RETRY_CAP);
            log(why + "; trying again in " + String.format("%.1f", pause) + " s");
            try {
                Thread.sleep((long) (pause * 1000));
            } catch (InterruptedException err) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
    }
}
