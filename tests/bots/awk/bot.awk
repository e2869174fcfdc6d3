# A Hearts bot in awk (one JSON object a line; no JSON library: the fields it needs by pattern).
# It flushes every line it writes. Run by mawk as it is, it reads its input in blocks and sees a
# request only once its input ends; run as `mawk -W interactive -f bot.awk` it reads line by line.
function field(name,    rest) {
    if (!match($0, "\"" name "\": *[^,}]*")) return ""
    rest = substr($0, RSTART, RLENGTH)
    sub(/^[^:]*: */, "", rest)
    gsub(/"/, "", rest)
    return rest
}
function legal(count,    list, cards, n, i, out) {
    if (!match($0, /"legal": *\[[^]]*\]/)) return ""
    list = substr($0, RSTART, RLENGTH)
    sub(/^[^[]*\[/, "", list); sub(/\]$/, "", list); gsub(/[" ]/, "", list)
    n = split(list, cards, ",")
    out = ""
    for (i = 1; i <= count && i <= n; i++) out = out (i > 1 ? "," : "") "\"" cards[i] "\""
    return out
}
{
    type = field("type")
    print "read: " type > "/dev/stderr"
    fflush("/dev/stderr")
    id = field("id")
    if (type == "hello") print "{\"type\": \"hello\", \"version\": 1, \"name\": \"awk\"}"
    else if (type == "pass_request") print "{\"type\": \"pass\", \"id\": " id ", \"cards\": [" legal(field("count")) "]}"
    else if (type == "play_request") print "{\"type\": \"play\", \"id\": " id ", \"card\": " legal(1) "}"
    else if (type == "declare_request") print "{\"type\": \"declare\", \"id\": " id ", \"declare\": false}"
    else if (type == "moon_request") print "{\"type\": \"moon\", \"id\": " id ", \"choice\": \"add_to_others\"}"
    else if (type == "goodbye" || (type == "error" && field("fatal") == "true")) exit 0
    fflush()
}
