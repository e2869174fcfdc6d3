// A bot that makes every mistake on purpose (tests/sample_bots/test_kit_only.py).
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Every mistake an author makes: exceptions, illegal answers, a debug print on stdout. */
public final class BadBot implements Hearts.Bot {
    private final boolean strict;

    BadBot(boolean strict) {
        this.strict = strict;
    }

    public static void main(String[] args) {
        Hearts.run(new BadBot(Arrays.asList(args).contains("--strict")), args);
    }

    @Override
    public String name() {
        return "bad-bot";
    }

    @Override
    public boolean strict() {
        return strict;
    }

    @Override
    public void onMessage(Hearts.State state, Map<String, Object> message) {
        System.out.println("debug: got a " + message.get("type"));
    }

    @Override
    public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
        throw new IllegalStateException("no pass today");
    }

    @Override
    public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
        if (request.trick().isEmpty()) return "XX";
        return request.legal().get(request.legal().size() - 1).toLowerCase();
    }

    @Override
    public boolean chooseDeclare(Hearts.State state, Hearts.DeclareRequest request) {
        throw new ArithmeticException("/ by zero");
    }

    @Override
    public String chooseMoon(Hearts.State state, Hearts.MoonRequest request) {
        return "keep_it";
    }
}
