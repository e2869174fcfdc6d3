/*
 * A sample Hearts bot in C99 (protocol v1): no dependency beyond the compiler and libc.
 *
 * It passes the first `count` legal cards, plays the first legal card (with `--random SEED`:
 * random legal cards and passes), never declares and
 * scores a moon by adding to the others. The point is the plumbing, which a real bot can keep:
 *
 *   - one JSON object per line on stdin, read with fgets into a buffer larger than the
 *     protocol's longest line (64 KiB);
 *   - a tiny scanner that walks the top-level object and picks out the fields this bot needs
 *     ("type", "id", "count", "fatal", and the string arrays "legal" and "options"), skipping
 *     every other field whatever it holds, in any order and with any whitespace;
 *   - one reply line per request on stdout, flushed at once (each decision is timed);
 *   - unknown message types are ignored; exit 0 on goodbye (or end of input), 1 on a fatal
 *     error. Diagnostics go to stderr, never stdout.
 *
 * Build: make -C sample_bots/c      Run: ./sample_bots/c/bot
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_BUFFER 70000 /* the protocol's longest line is 64 KiB, newline excluded */
#define MAX_CARDS 256     /* more than any hand: the double deck has 104 cards */
#define CARD_SIZE 8       /* "QS" plus room; longer strings are refused */
#define MAX_OPTIONS 8
#define OPTION_SIZE 32
#define NAME_SIZE 32

typedef struct {
    char type[NAME_SIZE]; /* "" if absent, not a string, or too long to be a known type */
    int has_id;
    long long id;
    int has_count;
    long long count;
    int fatal;
    int nlegal;
    char legal[MAX_CARDS][CARD_SIZE];
    int noptions;
    char options[MAX_OPTIONS][OPTION_SIZE];
} Message;

/* ---------------------------------------------------------------------------------------- */
/* The scanner: each function takes a pointer into the line and returns the pointer after   */
/* what it read, or NULL if the text is not what it expects.                                */
/* ---------------------------------------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * A JSON string starting at the opening quote. With `out`, its decoded text is stored there
 * (escapes resolved; \u escapes beyond ASCII become '?'); `*too_long` is set if it did not fit
 * in `size` bytes with the terminating NUL. With `out` NULL the string is only skipped.
 */
static const char *scan_string(const char *p, char *out, size_t size, int *too_long)
{
    size_t n = 0;
    if (too_long)
        *too_long = 0;
    if (*p != '"')
        return NULL;
    p++;
    for (;;) {
        char c = *p++;
        if (c == '\0')
            return NULL;
        if (c == '"')
            break;
        if (c == '\\') {
            char e = *p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                int i, v = 0;
                for (i = 0; i < 4; i++) {
                    int h = hex_value(p[i]);
                    if (h < 0)
                        return NULL;
                    v = v * 16 + h;
                }
                p += 4;
                c = v > 0 && v < 0x80 ? (char)v : '?';
                break;
            }
            default:
                return NULL;
            }
        }
        if (out) {
            if (n + 1 < size)
                out[n++] = c;
            else if (too_long)
                *too_long = 1;
        }
    }
    if (out && size > 0)
        out[n] = '\0';
    return p;
}

/* Skip any JSON value: a string, a number or literal, or a whole object or array. */
static const char *skip_value(const char *p)
{
    int depth = 0;
    do {
        p = skip_ws(p);
        if (*p == '"') {
            p = scan_string(p, NULL, 0, NULL);
            if (!p)
                return NULL;
        } else if (*p == '{' || *p == '[') {
            depth++;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return NULL;
            depth--;
            p++;
        } else if (*p == ',' || *p == ':') {
            if (depth == 0)
                return NULL;
            p++;
        } else if (*p == '\0') {
            return NULL;
        } else {
            const char *start = p;
            while (*p && !strchr(" \t\r\n,:[]{}\"", *p))
                p++;
            if (p == start)
                return NULL;
        }
    } while (depth > 0);
    return p;
}

/* A JSON integer (no fraction or exponent). */
static const char *scan_integer(const char *p, long long *value)
{
    char *end;
    if (*p != '-' && (*p < '0' || *p > '9'))
        return NULL;
    *value = strtoll(p, &end, 10);
    if (end == p || *end == '.' || *end == 'e' || *end == 'E')
        return NULL;
    return end;
}

static const char *scan_bool(const char *p, int *value)
{
    if (strncmp(p, "true", 4) == 0) {
        *value = 1;
        return p + 4;
    }
    if (strncmp(p, "false", 5) == 0) {
        *value = 0;
        return p + 5;
    }
    return skip_value(p); /* null or anything else: leave the value as it was */
}

/* An array of strings, each stored in a row of `items` (rows of `size` bytes, at most `max`). */
static const char *scan_string_array(const char *p, char *items, size_t size, int max, int *count)
{
    *count = 0;
    if (*p != '[')
        return NULL;
    p = skip_ws(p + 1);
    if (*p == ']')
        return p + 1;
    for (;;) {
        int too_long;
        if (*count >= max)
            return NULL;
        p = scan_string(skip_ws(p), items + (size_t)*count * size, size, &too_long);
        if (!p || too_long)
            return NULL;
        (*count)++;
        p = skip_ws(p);
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return NULL;
        p++;
    }
}

/* Fill `m` from one line. Returns 1 for a JSON object (even one without the fields), else 0. */
static int parse_message(const char *line, Message *m)
{
    const char *p = skip_ws(line);
    memset(m, 0, sizeof *m);
    if (*p != '{')
        return 0;
    p = skip_ws(p + 1);
    if (*p == '}')
        return 1;
    for (;;) {
        char key[NAME_SIZE];
        int too_long;
        p = scan_string(skip_ws(p), key, sizeof key, &too_long);
        if (!p)
            return 0;
        if (too_long)
            key[0] = '\0'; /* longer than any key we look for: an unknown field */
        p = skip_ws(p);
        if (*p != ':')
            return 0;
        p = skip_ws(p + 1);
        if (strcmp(key, "type") == 0 && *p == '"') {
            p = scan_string(p, m->type, sizeof m->type, &too_long);
            if (p && too_long)
                m->type[0] = '\0'; /* too long to be a type this bot knows */
        } else if (strcmp(key, "id") == 0 && *p != '"' && *p != '{' && *p != '[') {
            p = scan_integer(p, &m->id);
            m->has_id = p != NULL;
        } else if (strcmp(key, "count") == 0 && *p != '"' && *p != '{' && *p != '[') {
            p = scan_integer(p, &m->count);
            m->has_count = p != NULL;
        } else if (strcmp(key, "fatal") == 0) {
            p = scan_bool(p, &m->fatal);
        } else if (strcmp(key, "legal") == 0 && *p == '[') {
            p = scan_string_array(p, &m->legal[0][0], CARD_SIZE, MAX_CARDS, &m->nlegal);
        } else if (strcmp(key, "options") == 0 && *p == '[') {
            p = scan_string_array(p, &m->options[0][0], OPTION_SIZE, MAX_OPTIONS, &m->noptions);
        } else {
            p = skip_value(p);
        }
        if (!p)
            return 0;
        p = skip_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '}')
            return 1;
        return 0;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Replies                                                                                  */
/* ---------------------------------------------------------------------------------------- */

static void put_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void reply_end(void)
{
    fputs("}\n", stdout);
    fflush(stdout);
}

static void reply_hello(void)
{
    fputs("{\"type\":\"hello\",\"version\":1,\"name\":\"c-first-legal\","
          "\"bot_version\":\"1.0\",\"author\":\"hearts-referee sample bots\"",
          stdout);
    reply_end();
}

/* With --random SEED the bot picks uniformly among the legal options (xorshift64*). */
static int random_mode = 0;
static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long next_random(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static void shuffle_legal(Message *m)
{
    int i;
    char tmp[CARD_SIZE];
    for (i = m->nlegal - 1; i > 0; i--) {
        int j = (int)(next_random() % (unsigned long long)(i + 1));
        memcpy(tmp, m->legal[i], CARD_SIZE);
        memcpy(m->legal[i], m->legal[j], CARD_SIZE);
        memcpy(m->legal[j], tmp, CARD_SIZE);
    }
}

static void reply_pass(const Message *m)
{
    long long i, n = m->count;
    if (n > m->nlegal) {
        fprintf(stderr, "c bot: asked to pass %lld cards from %d legal\n", n, m->nlegal);
        n = m->nlegal;
    }
    printf("{\"type\":\"pass\",\"id\":%lld,\"cards\":[", m->id);
    for (i = 0; i < n; i++) {
        if (i > 0)
            putchar(',');
        put_json_string(m->legal[i]);
    }
    putchar(']');
    reply_end();
}

static void reply_play(const Message *m)
{
    printf("{\"type\":\"play\",\"id\":%lld,\"card\":", m->id);
    put_json_string(m->legal[0]);
    reply_end();
}

static void reply_declare(const Message *m)
{
    printf("{\"type\":\"declare\",\"id\":%lld,\"declare\":false", m->id);
    reply_end();
}

static void reply_moon(const Message *m)
{
    const char *choice = "add_to_others";
    int i, offered = m->noptions == 0;
    for (i = 0; i < m->noptions; i++)
        if (strcmp(m->options[i], choice) == 0)
            offered = 1;
    if (!offered)
        choice = m->options[0];
    printf("{\"type\":\"moon\",\"id\":%lld,\"choice\":", m->id);
    put_json_string(choice);
    reply_end();
}

/* ---------------------------------------------------------------------------------------- */

static char line[LINE_BUFFER];
static Message message;

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && strcmp(argv[1], "--random") == 0) {
        random_mode = 1;
        rng_state ^= (unsigned long long)strtoull(argv[2], NULL, 10) * 0x9E3779B97F4A7C15ULL;
        if (rng_state == 0)
            rng_state = 1;
    }
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        Message *m = &message;
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            int c;
            while ((c = getchar()) != EOF && c != '\n')
                ;
            fprintf(stderr, "c bot: ignoring a line longer than %d bytes\n", LINE_BUFFER - 2);
            continue;
        }
        if (!parse_message(line, m)) {
            fprintf(stderr, "c bot: ignoring a line that is not a JSON object: %.200s", line);
            continue;
        }
        if (random_mode)
            shuffle_legal(m);
        if (strcmp(m->type, "hello") == 0) {
            reply_hello();
        } else if (strcmp(m->type, "goodbye") == 0) {
            return 0;
        } else if (strcmp(m->type, "error") == 0) {
            fprintf(stderr, "c bot: referee error: %.500s", line);
            if (m->fatal)
                return 1;
        } else if (strcmp(m->type, "pass_request") == 0 || strcmp(m->type, "play_request") == 0 ||
                   strcmp(m->type, "declare_request") == 0 || strcmp(m->type, "moon_request") == 0) {
            if (!m->has_id) {
                fprintf(stderr, "c bot: a %s without an id\n", m->type);
            } else if (m->type[1] == 'a') { /* pass_request */
                if (!m->has_count || m->count < 0)
                    fprintf(stderr, "c bot: a pass_request without a count\n");
                else
                    reply_pass(m);
            } else if (m->type[1] == 'l') { /* play_request */
                if (m->nlegal == 0)
                    fprintf(stderr, "c bot: a play_request with no legal card\n");
                else
                    reply_play(m);
            } else if (m->type[0] == 'd') {
                reply_declare(m);
            } else {
                reply_moon(m);
            }
        }
        /* any other type is an event this bot does not track, or one it does not know */
    }
    return 0;
}
