// A Hearts bot on the JVM, for the tests: `java tests/bots/java/Bot.java` (Java 11+ runs a
// single source file). It answers hello, passes the first `count` legal cards, plays the first
// legal card, never declares, scores a moon add_to_others (else the first option), and exits
// on goodbye or a fatal error. There is no JSON library in the JDK, so a small reader below
// parses each line; numbers are kept as their text, so an id of 2**53 - 1 is echoed exactly.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Bot {
    /** A JSON number, as written. */
    record Num(String text) {}

    /** A recursive-descent reader of one JSON value (objects, arrays, strings, numbers, literals). */
    static final class Reader {
        private final String s;
        private int i;

        Reader(String s) {
            this.s = s;
        }

        Object value() {
            space();
            char c = s.charAt(i);
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (start == i) throw new IllegalArgumentException("bad JSON at " + i);
            return new Num(s.substring(start, i));
        }

        private Map<String, Object> object() {
            Map<String, Object> out = new LinkedHashMap<>();
            i++;
            space();
            if (s.charAt(i) == '}') { i++; return out; }
            while (true) {
                space();
                String key = string();
                space();
                expect(':');
                out.put(key, value());
                space();
                if (s.charAt(i) == ',') { i++; continue; }
                expect('}');
                return out;
            }
        }

        private List<Object> array() {
            List<Object> out = new ArrayList<>();
            i++;
            space();
            if (s.charAt(i) == ']') { i++; return out; }
            while (true) {
                out.add(value());
                space();
                if (s.charAt(i) == ',') { i++; continue; }
                expect(']');
                return out;
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> { out.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; }
                    default -> out.append(e);
                }
            }
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        private void expect(char c) {
            if (s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
            i++;
        }
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    static String cards(List<Object> codes) {
        List<String> quoted = new ArrayList<>();
        for (Object code : codes) quoted.add(quote((String) code));
        return "[" + String.join(",", quoted) + "]";
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> m = (Map<String, Object>) new Reader(line).value();
            Object type = m.get("type");
            String id = m.get("id") instanceof Num n ? n.text() : "null";
            String reply = null;
            if ("hello".equals(type)) {
                reply = "{\"type\":\"hello\",\"version\":1,\"name\":\"java-first-legal\"}";
            } else if ("pass_request".equals(type)) {
                List<Object> legal = (List<Object>) m.get("legal");
                int count = Integer.parseInt(((Num) m.get("count")).text());
                reply = "{\"type\":\"pass\",\"id\":" + id + ",\"cards\":" + cards(legal.subList(0, count)) + "}";
            } else if ("play_request".equals(type)) {
                List<Object> legal = (List<Object>) m.get("legal");
                reply = "{\"type\":\"play\",\"id\":" + id + ",\"card\":" + quote((String) legal.get(0)) + "}";
            } else if ("declare_request".equals(type)) {
                reply = "{\"type\":\"declare\",\"id\":" + id + ",\"declare\":false}";
            } else if ("moon_request".equals(type)) {
                List<Object> options = (List<Object>) m.get("options");
                String choice = options.contains("add_to_others") ? "add_to_others" : (String) options.get(0);
                reply = "{\"type\":\"moon\",\"id\":" + id + ",\"choice\":" + quote(choice) + "}";
            } else if ("goodbye".equals(type) || ("error".equals(type) && Boolean.TRUE.equals(m.get("fatal")))) {
                return;
            }
            if (reply != null) {
                out.print(reply + "\n");
                out.flush();
            }
        }
    }
}
