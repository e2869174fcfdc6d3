// The Java kit's JSON reader and writer, line by line (tests/sample_bots/test_kit_only.py).
import java.nio.charset.StandardCharsets;

/** Reads lines on stdin, writes back each one as Hearts.Json read and wrote it, or ERR. */
public final class JsonProbe {
    public static void main(String[] args) throws Exception {
        String input = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (String line : input.split("\n", -1)) {
            try {
                String written = Hearts.Json.write(Hearts.Json.parse(line));
                out.append("OK ").append(written);
            } catch (Hearts.Json.JsonException err) {
                out.append("ERR ").append(err.getMessage());
            }
            out.append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }
}
