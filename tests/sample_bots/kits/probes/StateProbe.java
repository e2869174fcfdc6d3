// The Java kit's state probe (tests/sample_bots/kits/java.py).
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Writes the kit's state to stderr at every play request (and the trick as the events left it). */
public final class StateProbe implements Hearts.Bot {
    private Map<String, Object> events;

    public static void main(String[] args) {
        Hearts.run(new StateProbe(), args);
    }

    @Override
    public String name() {
        return "state-probe";
    }

    @Override
    public void onMessage(Hearts.State state, Map<String, Object> message) {
        if (!"play_request".equals(message.get("type"))) {
            Map<String, Object> seen = new LinkedHashMap<>();
            seen.put("trick", new ArrayList<>(state.trick));
            seen.put("heartsBroken", state.heartsBroken);
            seen.put("trickNumber", state.trickNumber);
            events = seen;
        }
    }

    @Override
    public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
        return request.legal().subList(request.legal().size() - request.count(), request.legal().size());
    }

    @Override
    public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
        List<String> voids = new ArrayList<>();
        for (Set<Character> suits : state.voids) {
            StringBuilder text = new StringBuilder();
            for (char suit : Hearts.SUITS.toCharArray()) if (suits.contains(suit)) text.append(suit);
            voids.add(text.toString());
        }
        Map<String, Object> seen = new LinkedHashMap<>();
        seen.put("hand", state.hand);
        seen.put("pointsTaken", Arrays.stream(state.pointsTaken).boxed().toList());
        seen.put("scores", Arrays.stream(state.scores).boxed().toList());
        seen.put("seat", state.seat);
        seen.put("events", events);
        seen.put("unseen", state.unseen());
        seen.put("voids", voids);
        seen.put("winning", state.winningSeat());
        seen.put("stillToPlay", state.stillToPlay());
        System.err.println("STATE " + Hearts.Json.write(seen));
        return request.legal().get(request.legal().size() - 1);
    }
}
