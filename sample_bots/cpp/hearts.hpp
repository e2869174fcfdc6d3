// hearts.hpp: a Hearts bot kit for C++17 (protocol v1). One header, the standard library and
// POSIX only: no package to install.
//
// Usage:
//
//   #include "hearts.hpp"
//
//   class MyBot : public hearts::Bot {
//    public:
//     MyBot() : Bot("my-bot", "0.1", "me") {}
//     std::vector<std::string> choosePass(const hearts::State& state,
//                                         const hearts::PassRequest& request) override {
//       return {request.legal.begin(), request.legal.begin() + request.count};
//     }
//     std::string choosePlay(const hearts::State& state, const hearts::PlayRequest& request) override {
//       return request.legal[0];
//     }
//     // optional: chooseDeclare, chooseMoon, onMessage (every message)
//   };
//
//   int main(int argc, char** argv) {
//     MyBot bot;
//     return hearts::run(bot, argc, argv);
//   }
//
// The kit reads one JSON object per line from the referee, keeps the table state current (see
// `State`), calls the bot for each decision and writes the reply at once. If a choose method
// throws or returns something illegal, the kit logs the problem to stderr and sends a legal
// default instead (the first legal cards), so a buggy bot loses a decision, not the match
// (set `strict = true` on the bot to let the exception end the program instead).
//
// stdout carries the protocol: `run` keeps the protocol on a descriptor of its own and points
// stdout (std::cout, printf) at stderr, so stray debug output cannot corrupt it. Log with
// std::cerr or `hearts::log`.
//
// Command line (handled by `run`; arguments it does not know are left to the bot):
//   ./bot                                  stdin/stdout (the referee starts the bot)
//   ./bot --tcp HOST:PORT --token T        connect to a referee over TCP; the token goes in the
//                                          hello. Also --token-file F (its first line) or the
//                                          environment variable HEARTS_TOKEN, which other users
//                                          cannot read, unlike a command line.
//   --retry-for S                          over TCP: when the referee answers `busy`, refuses
//                                          the connection or drops it before seating the bot,
//                                          try again (0.1 s doubling to 5 s, with jitter) for
//                                          up to S seconds (default 60; 0: no retries)
//
// Build: g++ -std=c++17 -O2 -Wall -Wextra -o bot bot.cpp        The protocol: docs/protocol.md

#ifndef HEARTS_HPP
#define HEARTS_HPP

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <locale>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

namespace hearts {

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxLine = 65536;  // bytes in a line, newline excluded (protocol.md)
inline constexpr int kMaxDepth = 64;            // nesting of arrays and objects; v1 needs 2
inline constexpr int kMaxSeats = 64;            // seat numbers beyond this are ignored, not grown to
inline constexpr double kRetryFor = 60.0;       // seconds of TCP retries by default
inline constexpr double kRetryFirst = 0.1;      // the first pause, doubling ...
inline constexpr double kRetryCap = 5.0;        // ... up to this
inline constexpr std::string_view kRanks = "23456789TJQKA";
inline constexpr std::string_view kSuits = "CDSH";  // the order hands are listed in
inline constexpr long long kMaxNumber = 1000000000;  // numbers the state keeps are clamped to +-this

// `value` within +-limit: a hostile number cannot overflow the sums the state keeps.
inline int clampInt(long long value, long long limit = kMaxNumber) {
    return static_cast<int>(std::clamp(value, -limit, limit));
}

// Write one line to stderr, prefixed "[hearts.hpp] ", in one write so it is not interleaved.
inline void log(const std::string& text) {
    std::string line = "[hearts.hpp] " + text + "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(2, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

// =============================================================================================
// JSON: a small reader and writer. Strings are UTF-8; numbers keep the text they were written
// with, so a request id of any size is echoed exactly; nesting is bounded (kMaxDepth) so a
// hostile line cannot exhaust the stack.
// =============================================================================================
class Json {
   public:
    enum class Type { Null, Bool, Number, String, Array, Object };
    using Member = std::pair<std::string, Json>;

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool value) : type_(Type::Bool), bool_(value) {}
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Json(T value) : type_(Type::Number), integer_(true), text_(std::to_string(value)) {}
    template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
    Json(T value) {
        double v = static_cast<double>(value);
        if (v != v || v - v != 0) return;  // NaN and infinities are not JSON: null
        std::ostringstream out;            // the classic locale: a '.' whatever the user's locale
        out.imbue(std::locale::classic());
        out.precision(17);
        out << v;
        type_ = Type::Number;
        text_ = out.str();
        integer_ = text_.find_first_of(".eE") == std::string::npos;
    }
    Json(const char* text) : type_(Type::String), text_(text ? text : "") {}
    Json(std::string_view text) : type_(Type::String), text_(text) {}
    Json(std::string text) : type_(Type::String), text_(std::move(text)) {}
    Json(const std::vector<std::string>& strings) : type_(Type::Array) {
        for (const auto& s : strings) items_.emplace_back(s);
    }

    static Json array() {
        Json j;
        j.type_ = Type::Array;
        return j;
    }
    static Json object() {
        Json j;
        j.type_ = Type::Object;
        return j;
    }
    // A number written exactly as `text` (a JSON number such as "9007199254740993"); null if
    // `text` is not one.
    static inline Json number(std::string_view text);
    // Parse one JSON value (whitespace around it allowed, nothing else). On failure returns
    // nothing and, with `error`, says why.
    static inline std::optional<Json> parse(std::string_view text, std::string* error = nullptr);

    Type type() const { return type_; }
    bool isNull() const { return type_ == Type::Null; }
    bool isBool() const { return type_ == Type::Bool; }
    bool isNumber() const { return type_ == Type::Number; }
    bool isString() const { return type_ == Type::String; }
    bool isArray() const { return type_ == Type::Array; }
    bool isObject() const { return type_ == Type::Object; }
    // A number written without a fraction or an exponent (any size).
    bool isInteger() const { return type_ == Type::Number && integer_; }

    bool asBool(bool fallback = false) const { return type_ == Type::Bool ? bool_ : fallback; }
    // An integer that fits in 64 bits, else `fallback`.
    long long asInt(long long fallback = 0) const {
        if (!isInteger()) return fallback;
        long long value = 0;
        auto result = std::from_chars(text_.data(), text_.data() + text_.size(), value);
        return result.ec == std::errc() && result.ptr == text_.data() + text_.size() ? value : fallback;
    }
    // Any number within a double's range, else `fallback`.
    double asDouble(double fallback = 0.0) const {
        if (type_ != Type::Number) return fallback;
        std::istringstream in(text_);
        in.imbue(std::locale::classic());
        double value = 0;
        in >> value;
        return in.fail() ? fallback : value;
    }
    // The string (empty if this is not a string).
    const std::string& asString() const { return type_ == Type::String ? text_ : empty(); }
    std::string asString(const std::string& fallback) const { return type_ == Type::String ? text_ : fallback; }
    // A number's text as it was written ("" for anything else).
    const std::string& numberText() const { return type_ == Type::Number ? text_ : empty(); }

    // Items of an array, members of an object, 0 for anything else.
    std::size_t size() const {
        return type_ == Type::Array ? items_.size() : type_ == Type::Object ? members_.size() : 0;
    }
    const std::vector<Json>& items() const { return items_; }
    const std::vector<Member>& members() const { return members_; }
    // An array's item, or null when out of range or not an array.
    const Json& operator[](std::size_t index) const {
        return type_ == Type::Array && index < items_.size() ? items_[index] : null();
    }
    // An object's member (the last one if the key is repeated), or null.
    const Json& operator[](std::string_view key) const {
        const Json* found = find(key);
        return found ? *found : null();
    }
    const Json& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
    bool has(std::string_view key) const { return find(key) != nullptr; }
    // The strings of an array (other items skipped); empty for anything but an array.
    std::vector<std::string> strings() const {
        std::vector<std::string> out;
        for (const auto& item : items_)
            if (item.isString()) out.push_back(item.text_);
        return out;
    }

    // Building: set an object's member (replacing one with the same key), append to an array.
    Json& set(std::string key, Json value) {
        if (type_ != Type::Object) *this = object();
        for (auto& member : members_)
            if (member.first == key) {
                member.second = std::move(value);
                return *this;
            }
        members_.emplace_back(std::move(key), std::move(value));
        return *this;
    }
    Json& push(Json value) {
        if (type_ != Type::Array) *this = array();
        items_.push_back(std::move(value));
        return *this;
    }

    // Compact JSON, one line: control characters escaped, invalid UTF-8 replaced by U+FFFD.
    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

   private:
    friend class JsonParser;

    static const std::string& empty() {
        static const std::string nothing;
        return nothing;
    }
    static const Json& null() {
        static const Json nothing;
        return nothing;
    }
    const Json* find(std::string_view key) const {
        if (type_ != Type::Object) return nullptr;
        for (auto it = members_.rbegin(); it != members_.rend(); ++it)
            if (it->first == key) return &it->second;
        return nullptr;
    }

    static inline void writeString(std::string& out, std::string_view text);
    void write(std::string& out) const {
        switch (type_) {
            case Type::Null: out += "null"; break;
            case Type::Bool: out += bool_ ? "true" : "false"; break;
            case Type::Number: out += text_; break;
            case Type::String: writeString(out, text_); break;
            case Type::Array:
                out += '[';
                for (std::size_t i = 0; i < items_.size(); ++i) {
                    if (i) out += ',';
                    items_[i].write(out);
                }
                out += ']';
                break;
            case Type::Object:
                out += '{';
                for (std::size_t i = 0; i < members_.size(); ++i) {
                    if (i) out += ',';
                    writeString(out, members_[i].first);
                    out += ':';
                    members_[i].second.write(out);
                }
                out += '}';
                break;
        }
    }

    Type type_ = Type::Null;
    bool bool_ = false;
    bool integer_ = false;
    std::string text_;  // a string's value, or a number's text
    std::vector<Json> items_;
    std::vector<Member> members_;
};

// The length of the valid UTF-8 sequence at `text[i]` (1 to 4), or 0 if it is not one.
inline std::size_t utf8Length(std::string_view text, std::size_t i) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char c = byte(i);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
    if (n == 2 && c < 0xC2) return 0;                                  // overlong
    if (n == 3 && c == 0xE0 && byte(i + 1) < 0xA0) return 0;           // overlong
    if (n == 3 && c == 0xED && byte(i + 1) >= 0xA0) return 0;          // a surrogate
    if (n == 4 && c == 0xF0 && byte(i + 1) < 0x90) return 0;           // overlong
    if (n == 4 && (c > 0xF4 || (c == 0xF4 && byte(i + 1) >= 0x90))) return 0;  // past U+10FFFF
    return n;
}

inline void appendUtf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

inline void Json::writeString(std::string& out, std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            std::size_t n = utf8Length(text, i);
            if (n == 0) {
                out += "\\ufffd";  // not UTF-8: the replacement character, so the line stays valid
                ++i;
            } else {
                out.append(text.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 0xF];
                } else {
                    out += static_cast<char>(c);
                }
        }
        ++i;
    }
    out += '"';
}

class JsonParser {
   public:
    explicit JsonParser(std::string_view text) : s_(text) {}

    std::optional<Json> parseDocument(std::string* error) {
        Json value;
        skipSpace();
        bool ok = parseValue(value, 0);
        if (ok) {
            skipSpace();
            if (pos_ != s_.size()) ok = fail("text after the value");
        }
        if (!ok) {
            if (error) *error = error_;
            return std::nullopt;
        }
        return value;
    }

   private:
    bool fail(const char* why) {
        if (error_.empty()) error_ = std::string(why) + " at byte " + std::to_string(pos_);
        return false;
    }
    void skipSpace() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    // Consumes `c` if it is the next character; whether it was.
    bool eat(char c) {
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return fail("not a JSON value");
        pos_ += word.size();
        return true;
    }

    bool parseValue(Json& out, int depth) {
        if (pos_ >= s_.size()) return fail("unexpected end");
        char c = s_[pos_];
        if (c == '{' || c == '[') {
            if (depth >= kMaxDepth) return fail("nested too deep");
            return c == '{' ? parseObject(out, depth + 1) : parseArray(out, depth + 1);
        }
        if (c == '"') {
            out.type_ = Json::Type::String;
            return parseString(out.text_);
        }
        if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(out);
        if (c == 't') {
            out = Json(true);
            return literal("true");
        }
        if (c == 'f') {
            out = Json(false);
            return literal("false");
        }
        if (c == 'n') {
            out = Json();
            return literal("null");
        }
        return fail("not a JSON value");
    }

    bool parseObject(Json& out, int depth) {
        out.type_ = Json::Type::Object;
        ++pos_;  // {
        skipSpace();
        if (eat('}')) return true;
        for (;;) {
            skipSpace();
            if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a key");
            std::string key;
            if (!parseString(key)) return false;
            skipSpace();
            if (!eat(':')) return fail("expected ':'");
            skipSpace();
            out.members_.emplace_back(std::move(key), Json());  // repeated keys kept: the last wins
            if (!parseValue(out.members_.back().second, depth)) return false;
            skipSpace();
            if (eat(',')) continue;
            if (eat('}')) return true;
            return fail("expected ',' or '}'");
        }
    }

    bool parseArray(Json& out, int depth) {
        out.type_ = Json::Type::Array;
        ++pos_;  // [
        skipSpace();
        if (eat(']')) return true;
        for (;;) {
            skipSpace();
            out.items_.emplace_back();
            if (!parseValue(out.items_.back(), depth)) return false;
            skipSpace();
            if (eat(',')) continue;
            if (eat(']')) return true;
            return fail("expected ',' or ']'");
        }
    }

    bool digits() {
        std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        return pos_ > start;
    }

    bool parseNumber(Json& out) {
        std::size_t start = pos_;
        bool integer = true;
        if (s_[pos_] == '-') ++pos_;
        if (pos_ < s_.size() && s_[pos_] == '0') {
            ++pos_;
        } else if (!digits()) {
            return fail("bad number");
        }
        if (pos_ < s_.size() && s_[pos_] == '.') {
            ++pos_;
            integer = false;
            if (!digits()) return fail("bad number");
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            integer = false;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            if (!digits()) return fail("bad number");
        }
        out.type_ = Json::Type::Number;
        out.integer_ = integer;
        out.text_.assign(s_.substr(start, pos_ - start));
        return true;
    }

    int hex4() {  // the 4 hex digits at pos_, or -1
        if (pos_ + 4 > s_.size()) return -1;
        int value = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s_[pos_ + static_cast<std::size_t>(k)];
            int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
            if (digit < 0) return -1;
            value = value * 16 + digit;
        }
        pos_ += 4;
        return value;
    }

    bool parseString(std::string& out) {
        ++pos_;  // the opening quote
        for (;;) {
            std::size_t run = pos_;  // copy plain runs in one go
            while (run < s_.size() && s_[run] != '"' && s_[run] != '\\' && static_cast<unsigned char>(s_[run]) >= 0x20)
                ++run;
            out.append(s_.substr(pos_, run - pos_));
            pos_ = run;
            if (pos_ >= s_.size()) return fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') return true;
            if (c != '\\') {
                --pos_;
                return fail("control character in a string");
            }
            if (pos_ >= s_.size()) return fail("unterminated string");
            char e = s_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    int code = hex4();
                    if (code < 0) return fail("bad \\u escape");
                    std::uint32_t point = static_cast<std::uint32_t>(code);
                    if (point >= 0xD800 && point <= 0xDBFF) {  // a high surrogate: a low one should follow
                        std::size_t save = pos_;
                        int low = -1;
                        if (pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
                            pos_ += 2;
                            low = hex4();
                        }
                        if (low >= 0xDC00 && low <= 0xDFFF) {
                            point = 0x10000 + ((point - 0xD800) << 10) + (static_cast<std::uint32_t>(low) - 0xDC00);
                        } else {
                            pos_ = save;  // a lone surrogate: the replacement character
                            point = 0xFFFD;
                        }
                    } else if (point >= 0xDC00 && point <= 0xDFFF) {
                        point = 0xFFFD;
                    }
                    appendUtf8(out, point);
                    break;
                }
                default:
                    return fail("bad escape");
            }
        }
    }

    std::string_view s_;
    std::size_t pos_ = 0;
    std::string error_;
};

inline std::optional<Json> Json::parse(std::string_view text, std::string* error) {
    return JsonParser(text).parseDocument(error);
}

inline Json Json::number(std::string_view text) {
    auto parsed = parse(text);
    return parsed && parsed->isNumber() ? *parsed : Json();
}

// =============================================================================================
// Cards
// =============================================================================================

// The suit letter of a card code: "QS" -> 'S' (0 for an empty code).
inline char suitOf(std::string_view card) {
    if (card.empty()) return 0;
    char c = card.back();
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// The rank of a card code, 2..14 (jack 11, queen 12, king 13, ace 14): "QS" -> 12, "TD" and
// "10D" -> 10; 0 if it is not a card.
inline int rankOf(std::string_view card) {
    if (card.size() == 3 && card[0] == '1' && card[1] == '0') return 10;
    if (card.size() != 2) return 0;
    char c = card[0];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    std::size_t index = kRanks.find(c);
    return index == std::string_view::npos ? 0 : static_cast<int>(index) + 2;
}

// 0..3 for clubs, diamonds, spades, hearts; 4 for anything else.
inline int suitIndex(char suit) {
    std::size_t index = kSuits.find(suit);
    return index == std::string_view::npos ? 4 : static_cast<int>(index);
}

// A card code in its wire form: "qs" -> "QS", "10h" -> "TH", " TD " -> "TD".
inline std::string normalCard(std::string_view card) {
    while (!card.empty() && card.front() == ' ') card.remove_prefix(1);
    while (!card.empty() && card.back() == ' ') card.remove_suffix(1);
    std::string out(card);
    for (char& c : out)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (out.size() == 3 && out[0] == '1' && out[1] == '0') out = "T" + out.substr(2);
    return out;
}

// Sort orders (for std::sort): by rank, ties by suit (C, D, S, H) ...
inline bool byRank(std::string_view a, std::string_view b) {
    int ra = rankOf(a), rb = rankOf(b);
    return ra != rb ? ra < rb : suitIndex(suitOf(a)) < suitIndex(suitOf(b));
}
// ... and by suit (C, D, S, H), then rank: the order the referee lists hands in.
inline bool inHandOrder(std::string_view a, std::string_view b) {
    int sa = suitIndex(suitOf(a)), sb = suitIndex(suitOf(b));
    return sa != sb ? sa < sb : rankOf(a) < rankOf(b);
}

// Remove one copy of each of `cards` from `hand` (a card not there is skipped).
inline void removeCards(std::vector<std::string>& hand, const std::vector<std::string>& cards) {
    for (const auto& card : cards) {
        auto it = std::find(hand.begin(), hand.end(), card);
        if (it != hand.end()) hand.erase(it);
    }
}

// =============================================================================================
// Rules, requests and the table state
// =============================================================================================

// The match's rule set (docs/rules.md, "Options"): every field, with the American defaults for
// any the referee left out; `raw` is the object as sent, for fields this kit does not know.
struct Rules {
    std::string name = "american";
    std::string description;
    int players = 4;
    std::string deck = "standard";  // "standard" (2..A) or "piket" (7..A)
    int copies = 1;                 // 2: the double deck
    std::vector<std::string> remove, add;
    bool trimToDealEvenly = false;
    std::vector<int> dealPackets{1};
    int passCount = 3;
    std::vector<std::string> passSchedule{"left", "right", "across", "hold"};
    std::string openingLead = "lowest_club";  // "lowest_club", "seven_of_clubs", "left_of_dealer"
    bool firstTrickNoPoints = true;
    std::string heartsLead = "after_broken";  // or "any_time"
    bool queenBreaksHearts = false;
    bool queenMustDrop = false;
    std::string identicalCards = "cancel";  // double deck: "cancel" or "later_wins"
    std::map<std::string, int> cardPoints = americanPoints();  // penalty > 0, bonus < 0
    std::string moon = "add_to_others";  // "add_to_others", "subtract_from_shooter", "shooter_choice", "none"
    std::optional<int> moonPoints;
    std::string moonPhase2 = "none";
    bool declarations = false;
    int declarationPoints = 10;
    std::optional<int> revokePoints;
    std::string end = "target";  // "target", "rounds", "two_phase"
    int target = 100;
    int rounds = 12;
    int threshold = 50;
    std::string finish = "zero_or_below";
    std::string tieBreak = "none";
    int roundLimit = 500;
    Json raw;

    static std::map<std::string, int> americanPoints() {
        std::map<std::string, int> points;
        for (char rank : kRanks) points[std::string{rank, 'H'}] = 1;
        points["QS"] = 13;
        return points;
    }

    static Rules fromJson(const Json& j) {
        Rules r;
        if (!j.isObject()) return r;
        r.raw = j;
        auto text = [&](const char* key, std::string& field) {
            if (j[key].isString()) field = j[key].asString();
        };
        auto number = [&](const char* key, int& field) {
            if (j[key].isInteger()) field = clampInt(j[key].asInt(field));
        };
        auto flag = [&](const char* key, bool& field) { field = j[key].asBool(field); };
        auto maybe = [&](const char* key, std::optional<int>& field) {
            if (j[key].isInteger()) field = clampInt(j[key].asInt());
            else if (j[key].isNull()) field.reset();
        };
        text("name", r.name);
        text("description", r.description);
        number("players", r.players);
        text("deck", r.deck);
        number("copies", r.copies);
        if (j["remove"].isArray()) r.remove = j["remove"].strings();
        if (j["add"].isArray()) r.add = j["add"].strings();
        flag("trim_to_deal_evenly", r.trimToDealEvenly);
        if (j["deal_packets"].isArray()) {
            r.dealPackets.clear();
            for (const auto& p : j["deal_packets"].items()) r.dealPackets.push_back(clampInt(p.asInt(1)));
        }
        number("pass_count", r.passCount);
        if (j["pass_schedule"].isArray()) r.passSchedule = j["pass_schedule"].strings();
        text("opening_lead", r.openingLead);
        flag("first_trick_no_points", r.firstTrickNoPoints);
        text("hearts_lead", r.heartsLead);
        flag("queen_breaks_hearts", r.queenBreaksHearts);
        flag("queen_must_drop", r.queenMustDrop);
        text("identical_cards", r.identicalCards);
        if (j["card_points"].isObject()) {
            r.cardPoints.clear();
            for (const auto& [card, points] : j["card_points"].members())
                if (points.isInteger()) r.cardPoints[normalCard(card)] = clampInt(points.asInt(), 1000000);
        }
        text("moon", r.moon);
        maybe("moon_points", r.moonPoints);
        text("moon_phase2", r.moonPhase2);
        flag("declarations", r.declarations);
        number("declaration_points", r.declarationPoints);
        maybe("revoke_points", r.revokePoints);
        text("end", r.end);
        number("target", r.target);
        number("rounds", r.rounds);
        number("threshold", r.threshold);
        text("finish", r.finish);
        text("tie_break", r.tieBreak);
        number("round_limit", r.roundLimit);
        return r;
    }
};

struct Player {
    int seat = 0;
    std::string name;
};

struct TimeControl {  // match_start.time: the match's clock
    long long perDecisionMs = 0, bankMs = 0, startupMs = 0;
};

struct TimeLeft {  // every request's time: this decision's free time and what is left in the bank
    long long decisionMs = 0, bankMs = 0;
};

// A finished trick of the current round.
struct Trick {
    int number = 0;
    int leader = 0;
    std::vector<std::string> cards;  // in the order played, the leader's first
    int winner = -1;  // -1: every card of the led suit cancelled (double deck); the cards went on
    int points = 0;
    int seatOf(std::size_t index, int players) const {  // the seat that played cards[index]
        return players > 0 ? (leader + static_cast<int>(index)) % players : -1;
    }
};

// The requests, as the kit hands them to the bot. `message` is the whole line as received,
// for fields this kit does not know; `id` is the request id as written (the kit echoes it).
struct PassRequest {
    std::string id;
    int count = 0;                   // how many cards to pass
    std::vector<std::string> legal;  // the cards you may pass: your whole hand
    int toSeat = -1;
    TimeLeft time;
    Json message;
};

struct PlayRequest {
    std::string id;
    std::vector<std::string> legal;  // the cards you may play, every rule applied; never empty
    std::vector<std::string> trick;  // cards already in the trick, the leader's first
    int leader = -1;
    int trickNumber = 0;
    bool heartsBroken = false;
    TimeLeft time;
    Json message;
};

struct DeclareRequest {
    std::string id;
    std::vector<std::optional<bool>> declarations;  // by seat: decided so far (nullopt: not yet)
    int points = 0;  // what a declaration is worth: kept -points, broken +points
    TimeLeft time;
    Json message;
};

struct MoonRequest {
    std::string id;
    std::vector<std::string> options;  // "add_to_others", "subtract_from_shooter"
    int points = 0;                    // what the moon is worth
    TimeLeft time;
    Json message;
};

// The cards of `a` less one copy of each card of `b` (a multiset difference, in `a`'s order).
inline std::vector<std::string> minusCards(std::vector<std::string> a, const std::vector<std::string>& b) {
    removeCards(a, b);
    return a;
}

// The index of the card winning (so far) a trick of `cards`, leader's first: the highest card of
// the led suit. With two decks, identical cards cancel each other (`identicalCards == "cancel"`,
// then -1 when every card of the led suit is cancelled) or the later one wins. -1 when empty.
inline int trickWinner(const std::vector<std::string>& cards, const Rules& rules) {
    if (cards.empty()) return -1;
    char led = suitOf(cards[0]);
    bool cancel = rules.identicalCards != "later_wins";
    std::map<std::string_view, int> copies;  // how often each card of the led suit was played
    if (cancel)
        for (const auto& card : cards)
            if (suitOf(card) == led) ++copies[card];
    int best = -1;
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (suitOf(cards[i]) != led) continue;
        if (cancel && copies[cards[i]] > 1) continue;
        // `>=`: only identical cards tie, and those cancelled above or the later one wins
        if (best < 0 || rankOf(cards[i]) >= rankOf(cards[static_cast<std::size_t>(best)])) best = static_cast<int>(i);
    }
    return best;
}

// Everything a seat knows about the match, kept current by the kit from the referee's messages
// before each call to the bot. Read it; the kit owns it. Seats are numbered 0..n-1 clockwise and
// per-seat vectors are indexed by seat. match_start resets everything, round_start the round.
struct State {
    // -- the match
    std::string matchId;
    int seat = -1;  // your seat
    std::vector<Player> players;
    int numPlayers = 0;
    Rules rules;
    TimeControl time;
    std::vector<int> scores;  // match scores by seat (before the round; updated at round_end)
    int matchPhase = 1;       // 2 in the count-down phase of a two-phase match: points subtract
    Json lastRoundEnd;        // the latest round_end message (moon, declarations, changes)
    Json lastMatchEnd;        // the match_end message once the match is over

    // -- the round
    int round = -1;
    int dealer = -1;
    std::vector<std::string> hand;  // your cards now, kept current through passing and play
    std::string passDirection = "hold";
    int passCount = 0;
    int passTo = -1;                    // -1: nobody passes this round
    std::vector<std::string> passed;    // the cards you gave this round
    std::vector<std::string> received;  // the cards you got (already in `hand`)
    int receivedFrom = -1;
    std::vector<std::optional<bool>> declarations;  // by seat; nullopt: not declared (yet)
    std::vector<std::string> trick;                 // the current trick, leader's first
    int trickLeader = -1;
    int trickNumber = 0;
    std::vector<Trick> tricks;                     // finished tricks of this round
    std::vector<std::string> played;               // every card played this round, in order
    std::vector<std::vector<std::string>> playedBy;  // by seat: the cards it played
    std::vector<std::vector<std::string>> taken;     // by seat: the cards in the tricks it took
    std::vector<int> pointsTaken;                  // by seat: card points taken this round
    std::vector<std::set<char>> voids;             // by seat: suits it showed it no longer holds
    bool heartsBroken = false;

    // -- the clock
    TimeLeft timeLeft;  // of the latest request
    std::chrono::steady_clock::time_point requestTime = std::chrono::steady_clock::now();  // when it came

    // -- derived facts
    // What a card is worth under the rules: > 0 penalty, < 0 bonus, 0 for the rest.
    int value(std::string_view card) const {
        auto it = rules.cardPoints.find(std::string(card));
        return it == rules.cardPoints.end() ? 0 : it->second;
    }
    bool isPenalty(std::string_view card) const { return value(card) > 0; }
    bool firstTrick() const { return tricks.empty(); }
    char ledSuit() const { return trick.empty() ? 0 : suitOf(trick[0]); }  // 0 before the lead
    int trickPoints() const {
        long long sum = 0;
        for (const auto& card : trick) sum += value(card);
        return clampInt(sum);
    }
    // The seat winning the current trick so far; -1 before the lead or when all cancelled.
    int winningSeat() const {
        int index = trickWinner(trick, rules);
        return index < 0 || numPlayers <= 0 ? -1 : (trickLeader + index) % numPlayers;
    }
    // Seats yet to play to the current trick, in order (you included on your turn).
    std::vector<int> stillToPlay() const {
        std::vector<int> seats;
        if (trickLeader < 0 || numPlayers <= 0) return seats;
        for (int i = static_cast<int>(trick.size()); i < numPlayers; ++i)
            seats.push_back((trickLeader + i) % numPlayers);
        return seats;
    }
    bool isVoid(int player, char suit) const {
        if (player < 0 || player >= static_cast<int>(voids.size())) return false;
        return voids[static_cast<std::size_t>(player)].count(suit) > 0;
    }
    // Milliseconds since the latest request was read, and left for it (its free time plus the
    // bank, less that). The referee's clock started a little earlier: keep a margin.
    long long elapsedMs() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - requestTime)
            .count();
    }
    long long msLeft() const { return timeLeft.decisionMs + timeLeft.bankMs - elapsedMs(); }

    // Every card in play this match (twice each in a double deck), in hand order.
    std::vector<std::string> deck() const {
        int low = rules.deck == "piket" ? 7 : 2;
        std::vector<std::string> faces;
        for (char suit : kSuits)
            for (char rank : kRanks)
                if (rankOf(std::string{rank, suit}) >= low) faces.push_back(std::string{rank, suit});
        for (const auto& code : rules.add) {
            std::string card = normalCard(code);
            if (std::find(faces.begin(), faces.end(), card) == faces.end()) faces.push_back(card);
        }
        std::vector<std::string> cards;
        for (int copy = 0; copy < std::clamp(rules.copies, 1, 8); ++copy)
            cards.insert(cards.end(), faces.begin(), faces.end());
        for (const auto& code : rules.remove) removeCards(cards, {normalCard(code)});
        if (rules.trimToDealEvenly && rules.players > 0) {
            for (char rank : kRanks)
                for (char suit : std::string_view("DS")) {
                    std::string card{rank, suit};
                    while (cards.size() % static_cast<std::size_t>(rules.players) != 0 &&
                           std::find(cards.begin(), cards.end(), card) != cards.end())
                        removeCards(cards, {card});
                }
        }
        std::stable_sort(cards.begin(), cards.end(), inHandOrder);
        return cards;
    }
    // The cards in the other seats' hands: the deck less your hand and every card played this
    // round (the cards you passed are among them).
    std::vector<std::string> unseen() const { return minusCards(minusCards(deck(), hand), played); }

    // Take in one referee message (the kit calls this before asking the bot).
    void update(const Json& m) {
        const std::string& type = m["type"].asString();
        if (type == "match_start") {
            startMatch(m);
        } else if (type == "round_start") {
            clearRound();
            round = asInt(m["round"], -1);
            dealer = asInt(m["dealer"], -1);
            hand = m["hand"].strings();
            passDirection = m["pass_direction"].asString("hold");
            passCount = asInt(m["pass_count"], 0);
            passTo = asInt(m["pass_to"], -1);
            matchPhase = asInt(m["match_phase"], 1);
            if (m["scores"].isArray()) scores = ints(m["scores"]);
        } else if (type == "passed") {
            passed = m["given"].strings();
            received = m["received"].strings();
            receivedFrom = asInt(m["from_seat"], -1);
            if (m["hand"].isArray()) {
                hand = m["hand"].strings();
            } else {
                removeCards(hand, passed);
                hand.insert(hand.end(), received.begin(), received.end());
            }
        } else if (type == "declare_request") {
            requested(m);
            if (m["declarations"].isArray()) {
                declarations.clear();
                for (const auto& d : m["declarations"].items())
                    declarations.push_back(d.isBool() ? std::optional<bool>(d.asBool()) : std::nullopt);
            }
        } else if (type == "declared") {
            int who = asInt(m["seat"], -1);
            if (grow(who)) declarations[static_cast<std::size_t>(who)] = m["declared"].asBool();
        } else if (type == "play_request") {
            // The request is authoritative for the trick; the events keep it current between.
            requested(m);
            if (m["trick"].isArray()) trick = m["trick"].strings();
            trickLeader = asInt(m["leader"], trickLeader);
            trickNumber = asInt(m["trick_number"], trickNumber);
            heartsBroken = m["hearts_broken"].asBool(heartsBroken);
        } else if (type == "card_played") {
            play(asInt(m["seat"], -1), m["card"].asString());
            trickNumber = asInt(m["trick_number"], trickNumber);
        } else if (type == "trick_end") {
            endTrick(m);
        } else if (type == "round_end") {
            lastRoundEnd = m;
            if (m["scores"].isArray()) scores = ints(m["scores"]);
            if (m["points_taken"].isArray()) pointsTaken = ints(m["points_taken"]);
            matchPhase = asInt(m["next_match_phase"], matchPhase);
        } else if (type == "match_end") {
            lastMatchEnd = m;
            if (m["scores"].isArray()) scores = ints(m["scores"]);
        } else if (type == "pass_request" || type == "moon_request") {
            requested(m);
        }
        // any other type: an event this kit does not know (forward compatibility)
    }

   private:
    std::vector<std::string> carry_;  // cards of cancelled tricks, for the next trick's winner

    static int asInt(const Json& j, int fallback) {
        long long v = j.asInt(fallback);
        return v < -kMaxNumber || v > kMaxNumber ? fallback : static_cast<int>(v);
    }
    static std::vector<int> ints(const Json& j) {
        std::vector<int> out;
        for (const auto& item : j.items()) out.push_back(asInt(item, 0));
        return out;
    }
    static TimeLeft timeOf(const Json& t) {
        TimeLeft left;
        left.decisionMs = std::clamp(t["decision_ms"].asInt(0), 0LL, 1000LL * kMaxNumber);
        left.bankMs = std::clamp(t["bank_ms"].asInt(0), 0LL, 1000LL * kMaxNumber);
        return left;
    }
    void requested(const Json& m) {
        requestTime = std::chrono::steady_clock::now();
        timeLeft = timeOf(m["time"]);
    }

    void startMatch(const Json& m) {
        *this = State();
        matchId = m["match_id"].asString();
        seat = asInt(m["seat"], -1);
        for (const auto& p : m["players"].items()) players.push_back(Player{asInt(p["seat"], 0), p["name"].asString()});
        rules = Rules::fromJson(m["rules"]);
        numPlayers = !players.empty() ? static_cast<int>(players.size()) : rules.players;
        numPlayers = std::clamp(numPlayers, 0, kMaxSeats);
        const Json& t = m["time"];
        time.perDecisionMs = t["per_decision_ms"].asInt(0);
        time.bankMs = t["bank_ms"].asInt(0);
        time.startupMs = t["startup_ms"].asInt(0);
        scores.assign(static_cast<std::size_t>(numPlayers), 0);
        clearRound();
    }

    void clearRound() {
        std::size_t n = static_cast<std::size_t>(numPlayers);
        round = dealer = -1;
        hand.clear();
        passDirection = "hold";
        passCount = 0;
        passTo = receivedFrom = -1;
        passed.clear();
        received.clear();
        declarations.assign(n, std::nullopt);
        trick.clear();
        trickLeader = -1;
        trickNumber = 0;
        tricks.clear();
        played.clear();
        playedBy.assign(n, {});
        taken.assign(n, {});
        pointsTaken.assign(n, 0);
        voids.assign(n, {});
        heartsBroken = rules.heartsLead == "any_time";
        carry_.clear();
    }

    // Make the per-seat vectors long enough for `who`; false for a seat out of any range.
    bool grow(int who) {
        if (who < 0 || who >= kMaxSeats) return false;
        std::size_t need = static_cast<std::size_t>(who) + 1;
        if (declarations.size() < need) declarations.resize(need);
        if (playedBy.size() < need) playedBy.resize(need);
        if (taken.size() < need) taken.resize(need);
        if (pointsTaken.size() < need) pointsTaken.resize(need, 0);
        if (voids.size() < need) voids.resize(need);
        return true;
    }

    void play(int who, const std::string& card) {
        if (!grow(who)) return;
        std::size_t s = static_cast<std::size_t>(who);
        if (trick.empty()) trickLeader = who;
        else if (suitOf(card) != suitOf(trick[0])) voids[s].insert(suitOf(trick[0]));
        trick.push_back(card);
        played.push_back(card);
        playedBy[s].push_back(card);
        if (who == seat) removeCards(hand, {card});
        if (suitOf(card) == 'H' || (card == "QS" && rules.queenBreaksHearts)) heartsBroken = true;
    }

    void endTrick(const Json& m) {
        int leader = asInt(m["leader"], trickLeader);
        std::vector<std::string> cards = m["cards"].strings();
        if (trickLeader < 0 && trick.empty()) trickLeader = leader;
        if (numPlayers > 0)  // cards whose card_played this seat did not see
            for (std::size_t i = trick.size(); i < cards.size(); ++i)
                play((leader + static_cast<int>(i)) % numPlayers, cards[i]);
        Trick done;
        done.number = asInt(m["trick_number"], trickNumber);
        done.leader = leader;
        done.cards = cards;
        done.winner = asInt(m["winner"], -1);
        done.points = asInt(m["points"], 0);
        tricks.push_back(done);
        if (done.winner < 0 || !grow(done.winner)) {  // every led card cancelled: the same seat leads
            carry_.insert(carry_.end(), cards.begin(), cards.end());
            trickLeader = leader;
        } else {
            std::size_t w = static_cast<std::size_t>(done.winner);
            taken[w].insert(taken[w].end(), carry_.begin(), carry_.end());
            taken[w].insert(taken[w].end(), cards.begin(), cards.end());
            pointsTaken[w] = clampInt(static_cast<long long>(pointsTaken[w]) + done.points);
            carry_.clear();
            trickLeader = done.winner;
        }
        trick.clear();
        trickNumber = done.number + 1;
    }
};

// What a card is worth under the match's rules (hearts 1, QS 13 in the American game).
inline int cardPoints(const State& state, std::string_view card) { return state.value(card); }

// Whether `card`, played now to the current trick, would be winning it so far.
inline bool wouldWin(const State& state, std::string_view card) {
    std::vector<std::string> cards = state.trick;
    cards.emplace_back(card);
    return trickWinner(cards, state.rules) == static_cast<int>(cards.size()) - 1;
}

// =============================================================================================
// The bot
// =============================================================================================
class Bot {
   public:
    explicit Bot(std::string botName = "cpp-bot", std::string botVersion = "", std::string botAuthor = "")
        : name(std::move(botName)), version(std::move(botVersion)), author(std::move(botAuthor)) {}
    virtual ~Bot() = default;

    std::string name, version, author;  // sent in the hello
    bool strict = false;  // true: an exception in a choose method ends the program (while you develop)

    // Return `request.count` cards of `request.legal` (your hand) to pass to `request.toSeat`.
    virtual std::vector<std::string> choosePass(const State& state, const PassRequest& request) = 0;
    // Return one card of `request.legal`.
    virtual std::string choosePlay(const State& state, const PlayRequest& request) = 0;
    // Achterhoeks "miezen": true to declare you will take no penalty points this round.
    virtual bool chooseDeclare(const State&, const DeclareRequest&) { return false; }
    // You shot the moon and may choose how it scores: one of `request.options`. Default: add
    // to the others when offered.
    virtual std::string chooseMoon(const State&, const MoonRequest& request) {
        const auto& options = request.options;  // never empty
        return std::find(options.begin(), options.end(), "add_to_others") != options.end() ? "add_to_others"
                                                                                            : options.front();
    }
    // Called for every message once the state has taken it in (requests too, before the choose
    // method; unknown types too).
    virtual void onMessage(const State&, const Json&) {}
};

// Whether `cards` is `count` cards taken from `legal` (each code at most as often as listed).
inline bool isLegalPass(const std::vector<std::string>& cards, const std::vector<std::string>& legal, int count) {
    if (count < 0 || cards.size() != static_cast<std::size_t>(count)) return false;
    std::vector<std::string> left = legal;
    for (const auto& card : cards) {
        auto it = std::find(left.begin(), left.end(), card);
        if (it == left.end()) return false;
        left.erase(it);
    }
    return true;
}

// A line's text fit for a log: at most `max` bytes, control characters shown as '?'.
inline std::string preview(std::string_view line, std::size_t max = 200) {
    std::string out(line.substr(0, max));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    if (line.size() > max) out += "...";
    return out;
}

// A referee line as a message: a JSON object with a string "type". Anything else is logged and
// skipped (the referee never sends it; a later protocol version might).
inline std::optional<Json> readMessage(std::string_view line) {
    std::size_t first = line.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::nullopt;  // blank: nothing to say
    std::string error;
    std::optional<Json> message = Json::parse(line, &error);
    if (!message) {
        log("ignoring a line that is not JSON (" + error + "): " + preview(line));
        return std::nullopt;
    }
    if (!message->isObject() || !(*message)["type"].isString()) {
        log("ignoring a line that is not a message: " + preview(line));
        return std::nullopt;
    }
    return message;
}

// The protocol conversation of one connection, without I/O: `handle` takes a referee message
// and returns the reply to send, if any. `run` drives it over stdin/stdout or TCP; tests can
// drive it directly.
class Session {
   public:
    explicit Session(Bot& bot, std::optional<std::string> token = std::nullopt) : bot_(bot), token_(std::move(token)) {}

    State state;
    bool finished = false;  // goodbye or a fatal error came: the conversation is over
    int exitCode = 0;       // 0, or 1 after a fatal error

    // One line in, the reply line (without its newline) out, if one is due.
    std::optional<std::string> handleLine(std::string_view line) {
        std::optional<Json> message = readMessage(line);
        if (!message) return std::nullopt;
        std::optional<Json> reply = handle(*message);
        if (!reply) return std::nullopt;
        return reply->dump();
    }

    std::optional<Json> handle(const Json& m) {
        const std::string type = m["type"].asString();
        state.update(m);
        guard("onMessage", "", [&] { bot_.onMessage(state, m); });
        if (type == "hello") return hello(m);
        if (type == "pass_request" || type == "play_request" || type == "declare_request" || type == "moon_request") {
            const Json& id = m["id"];
            if (!id.isInteger()) {  // ids are integers of any size, echoed exactly as written
                log(type + " without an integer id; ignored: " + preview(m.dump()));
                return std::nullopt;
            }
            if (type == "pass_request") return pass(m);
            if (type == "play_request") return play(m);
            if (type == "declare_request") return declare(m);
            return moon(m);
        }
        if (type == "error") {
            std::string rule = m["rule"].isString() ? " (" + m["rule"].asString() + ")" : "";
            bool fatal = m["fatal"].asBool();
            log("referee error " + preview(m["code"].asString(), 64) + rule + (fatal ? " (fatal): " : ": ") +
                preview(m["message"].asString(), 600));
            if (fatal) finish(1);
        } else if (type == "goodbye") {
            finish(0);
        }
        return std::nullopt;  // events and unknown types need no answer
    }

   private:
    static constexpr const char* kDefault = "; sending a legal default";

    void finish(int code) {
        if (finished) return;
        finished = true;
        exitCode = code;
    }

    // Run `f`, logging an exception (or letting it end the program when the bot is strict).
    template <class F>
    bool guard(const char* what, const char* then, F&& f) {
        try {
            f();
            return true;
        } catch (const std::exception& err) {
            if (bot_.strict) throw;
            log(std::string(what) + " threw: " + err.what() + then);
        } catch (...) {
            if (bot_.strict) throw;
            log(std::string(what) + " threw an exception" + then);
        }
        return false;
    }

    static Json reply(const char* type, const Json& m) {
        Json out = Json::object();
        out.set("type", type);
        out.set("id", Json::number(m["id"].numberText()));
        return out;
    }

    static std::string cards(const std::vector<std::string>& list) { return Json(list).dump(); }

    Json hello(const Json& m) {
        bool offered = false;
        for (const auto& v : m["versions"].items()) offered = offered || v.asInt() == kProtocolVersion;
        if (!offered) log("the referee offers versions " + preview(m["versions"].dump()) + "; this kit speaks 1");
        Json out = Json::object();
        out.set("type", "hello");
        out.set("version", kProtocolVersion);
        out.set("name", bot_.name.empty() ? "cpp-bot" : bot_.name);
        out.set("bot_version", bot_.version);
        out.set("author", bot_.author);
        if (token_) out.set("token", *token_);
        return out;
    }

    std::optional<Json> pass(const Json& m) {
        PassRequest r;
        r.id = m["id"].numberText();
        r.count = clampInt(m["count"].asInt(-1));
        r.legal = m["legal"].strings();
        r.toSeat = clampInt(m["to_seat"].asInt(-1));
        r.time = state.timeLeft;
        r.message = m;
        if (r.count < 0 || static_cast<std::size_t>(r.count) > r.legal.size()) {
            log("a pass_request for " + std::to_string(r.count) + " of " + std::to_string(r.legal.size()) +
                " legal cards; ignored");
            return std::nullopt;
        }
        std::vector<std::string> chosen(r.legal.begin(), r.legal.begin() + r.count);  // the default
        std::vector<std::string> answer;
        if (guard("choosePass", kDefault, [&] { answer = bot_.choosePass(state, r); })) {
            for (auto& card : answer) card = normalCard(card);
            if (isLegalPass(answer, r.legal, r.count)) chosen = answer;
            else
                log("choosePass returned " + cards(answer) + ", not " + std::to_string(r.count) + " cards of " +
                    cards(r.legal) + "; passing " + cards(chosen));
        }
        return reply("pass", m).set("cards", Json(chosen));
    }

    std::optional<Json> play(const Json& m) {
        PlayRequest r;
        r.id = m["id"].numberText();
        r.legal = m["legal"].strings();
        r.trick = m["trick"].strings();
        r.leader = clampInt(m["leader"].asInt(-1));
        r.trickNumber = clampInt(m["trick_number"].asInt(0));
        r.heartsBroken = m["hearts_broken"].asBool();
        r.time = state.timeLeft;
        r.message = m;
        if (r.legal.empty()) {
            log("a play_request with no legal card; ignored");
            return std::nullopt;
        }
        std::string chosen = r.legal[0];
        std::string answer;
        if (guard("choosePlay", kDefault, [&] { answer = bot_.choosePlay(state, r); })) {
            std::string card = normalCard(answer);
            if (std::find(r.legal.begin(), r.legal.end(), card) != r.legal.end()) chosen = card;
            else
                log("choosePlay returned " + Json(answer).dump() + ", not one of " + cards(r.legal) + "; playing " +
                    chosen);
        }
        return reply("play", m).set("card", chosen);
    }

    std::optional<Json> declare(const Json& m) {
        DeclareRequest r;
        r.id = m["id"].numberText();
        for (const auto& d : m["declarations"].items())
            r.declarations.push_back(d.isBool() ? std::optional<bool>(d.asBool()) : std::nullopt);
        r.points = clampInt(m["points"].asInt(0));
        r.time = state.timeLeft;
        r.message = m;
        bool chosen = false;
        guard("chooseDeclare", kDefault, [&] { chosen = bot_.chooseDeclare(state, r); });
        return reply("declare", m).set("declare", chosen);
    }

    std::optional<Json> moon(const Json& m) {
        MoonRequest r;
        r.id = m["id"].numberText();
        r.options = m["options"].strings();
        if (r.options.empty()) r.options = {"add_to_others"};
        r.points = clampInt(m["points"].asInt(0));
        r.time = state.timeLeft;
        r.message = m;
        bool offered = std::find(r.options.begin(), r.options.end(), "add_to_others") != r.options.end();
        std::string chosen = offered ? "add_to_others" : r.options[0];
        std::string answer;
        if (guard("chooseMoon", kDefault, [&] { answer = bot_.chooseMoon(state, r); })) {
            if (std::find(r.options.begin(), r.options.end(), answer) != r.options.end()) chosen = answer;
            else
                log("chooseMoon returned " + Json(answer).dump() + ", not one of " + cards(r.options) +
                    "; choosing " + chosen);
        }
        return reply("moon", m).set("choice", chosen);
    }

    Bot& bot_;
    std::optional<std::string> token_;
};

// =============================================================================================
// Transports
// =============================================================================================

// Lines from a descriptor, without their newline (and a '\r' before it). A line longer than
// kMaxLine is skipped with a log, never held whole; a last line without a newline counts.
class LineReader {
   public:
    enum class Status { Line, End, Error };
    explicit LineReader(int fd) : fd_(fd) {}
    int error = 0;  // errno after Status::Error

    Status next(std::string& line) {
        for (;;) {
            std::size_t newline = buffer_.find('\n', scanned_);
            if (newline != std::string::npos) {
                std::size_t length = newline - start_;
                bool skip = skipping_;
                if (!skip) line.assign(buffer_, start_, length);
                start_ = scanned_ = newline + 1;
                if (start_ == buffer_.size()) {
                    buffer_.clear();
                    start_ = scanned_ = 0;
                } else if (start_ > 65536 && start_ * 2 > buffer_.size()) {
                    compact();
                }
                if (skip) {
                    skipping_ = false;
                    continue;
                }
                if (line.size() > kMaxLine) {  // a '\r' before the newline counts (protocol.md)
                    tooLong();
                    continue;
                }
                if (!line.empty() && line.back() == '\r') line.pop_back();
                return Status::Line;
            }
            scanned_ = buffer_.size();
            if (scanned_ - start_ > kMaxLine + 1) {  // longer than any line may be: drop it as it comes
                if (!skipping_) tooLong();
                skipping_ = true;
                buffer_.clear();
                start_ = scanned_ = 0;
            }
            char chunk[65536];
            ssize_t n = ::read(fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                error = errno;
                return Status::Error;
            }
            if (n == 0) {
                if (start_ < buffer_.size() && !skipping_) {  // a last line without its newline
                    line.assign(buffer_, start_, std::string::npos);
                    buffer_.clear();
                    start_ = scanned_ = 0;
                    if (!line.empty() && line.back() == '\r') line.pop_back();
                    return Status::Line;
                }
                return Status::End;
            }
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

   private:
    void compact() {
        buffer_.erase(0, start_);
        scanned_ -= start_;
        start_ = 0;
    }
    static void tooLong() { log("skipping a line longer than " + std::to_string(kMaxLine) + " bytes"); }

    int fd_;
    std::string buffer_;
    std::size_t start_ = 0, scanned_ = 0;
    bool skipping_ = false;
};

// Write all of `data` to a descriptor (`run` ignores SIGPIPE: a closed peer is an error here).
inline bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// The kit's command-line options; the others are left to the bot.
struct Options {
    std::string host, port;  // --tcp HOST:PORT (host empty: stdin/stdout)
    bool tcp = false;
    std::optional<std::string> token;  // --token, else --token-file's first line, else $HEARTS_TOKEN
    double retryFor = kRetryFor;

    // Parse argv; false with `error` set for a malformed option.
    bool parse(int argc, char** argv, std::string& error) {
        std::optional<std::string> tokenFile;
        for (int i = 1; i < argc; ++i) {
            std::string arg = argv[i];
            std::string key = arg, value;
            bool inline_ = false;
            std::size_t eq = arg.find('=');
            if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
                key = arg.substr(0, eq);
                value = arg.substr(eq + 1);
                inline_ = true;
            }
            if (key != "--tcp" && key != "--token" && key != "--token-file" && key != "--retry-for") continue;
            if (!inline_) {
                if (i + 1 >= argc) {
                    error = key + " needs a value";
                    return false;
                }
                value = argv[++i];
            }
            if (key == "--tcp") {
                std::size_t colon = value.rfind(':');
                if (colon == std::string::npos) {
                    error = "--tcp wants HOST:PORT, not " + value;
                    return false;
                }
                host = value.substr(0, colon);
                port = value.substr(colon + 1);
                if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
                    host = host.substr(1, host.size() - 2);  // [::1]:7000
                if (host.empty()) host = "127.0.0.1";
                bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == port.npos;
                long number = digits ? std::strtol(port.c_str(), nullptr, 10) : 0;
                if (number < 1 || number > 65535) {
                    error = "--tcp wants HOST:PORT, not " + value;
                    return false;
                }
                tcp = true;
            } else if (key == "--token") {
                if (!value.empty()) token = value;
            } else if (key == "--token-file") {
                tokenFile = value;
            } else {
                char* end = nullptr;
                retryFor = std::strtod(value.c_str(), &end);
                if (value.empty() || *end != '\0' || !(retryFor >= 0) || retryFor > 1e9) {
                    error = "--retry-for wants seconds, not " + value;
                    return false;
                }
            }
        }
        // a token on the command line is readable by every process of the machine: prefer a
        // file (--token-file) or the environment (HEARTS_TOKEN)
        if (!token && tokenFile) {
            std::ifstream file(*tokenFile);
            if (!file) {
                error = "cannot read the token file " + *tokenFile;
                return false;
            }
            std::string first;
            std::getline(file, first);
            std::size_t a = first.find_first_not_of(" \t\r"), b = first.find_last_not_of(" \t\r");
            if (a != std::string::npos) token = first.substr(a, b - a + 1);
        }
        if (!token) {
            const char* env = std::getenv("HEARTS_TOKEN");
            if (env && *env) token = std::string(env);
        }
        return true;
    }
};

// The pauses between connection attempts: 0.1 s, doubling up to 5 s, each a random half to all
// of that (so bots refused together do not come back together), for `total` seconds in all.
class Backoff {
   public:
    explicit Backoff(double total) : deadline_(std::chrono::steady_clock::now() + toDuration(total)) {}
    // Seconds to wait before the next attempt, or nothing when the time is up.
    std::optional<double> nextPause() {
        double left = std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
        if (left <= 0) return std::nullopt;
        double pause = std::min(delay_ * std::uniform_real_distribution<double>(0.5, 1.0)(random_), left);
        delay_ = std::min(delay_ * 2, kRetryCap);
        return pause;
    }

   private:
    static std::chrono::steady_clock::duration toDuration(double seconds) {
        return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    }
    std::chrono::steady_clock::time_point deadline_;
    double delay_ = kRetryFirst;
    std::mt19937 random_{std::random_device{}()};
};

// A connected TCP socket to host:port (within 30 s), or -1 with `why`.
inline int connectTcp(const std::string& host, const std::string& port, std::string& why) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int status = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    if (status != 0) {
        why = ::gai_strerror(status);
        return -1;
    }
    int fd = -1;
    why = "no address";
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) {
            why = std::strerror(errno);
            continue;
        }
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // to bound the connect
        int result = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (result < 0 && errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            int ready;
            do ready = ::poll(&p, 1, 30000);
            while (ready < 0 && errno == EINTR);
            int err = ready == 0 ? ETIMEDOUT : 0;
            socklen_t size = sizeof err;
            if (ready > 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &size);
            result = err == 0 ? 0 : -1;
            errno = err;
        }
        if (result < 0) {
            why = std::strerror(errno);
            ::close(fd);
            fd = -1;
            continue;
        }
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ::freeaddrinfo(found);
    return fd;
}

// Play over stdin/stdout (the protocol on `out`, a copy of the original stdout).
inline int runStdio(Bot& bot, const Options& options, int out) {
    Session session(bot, options.token);
    LineReader reader(0);
    std::string line;
    for (;;) {
        LineReader::Status status = reader.next(line);
        if (status == LineReader::Status::End) return 0;  // the referee closed our input
        if (status == LineReader::Status::Error) {
            log(std::string("cannot read stdin: ") + std::strerror(reader.error));
            return 1;
        }
        std::optional<std::string> reply = session.handleLine(line);
        if (reply && !writeAll(out, *reply + "\n")) {
            log(std::string("cannot write the reply: ") + std::strerror(errno));
            return 1;
        }
        if (session.finished) return session.exitCode;
    }
}

// Play over TCP. Until the referee seats the bot (any message but `hello` or `error`), a `busy`
// refusal, a refused or failed connection, or one closed without an error is tried again after
// a Backoff pause for up to `options.retryFor` seconds; other refusals (`bad_token`,
// `seat_taken`, ...) are final. Returns the exit status.
inline int runTcp(Bot& bot, const Options& options) {
    Backoff backoff(options.retryFor);
    const std::string where = options.host + ":" + options.port;
    for (;;) {
        std::string why;
        int fd = connectTcp(options.host, options.port, why);
        if (fd < 0) {
            why = "cannot connect to " + where + " (" + why + ")";
        } else {
            log("connected to " + where);
            Session session(bot, options.token);
            LineReader reader(fd);
            std::string line;
            bool seated = false, lost = false;
            std::optional<std::string> busy;
            std::string failure;
            for (;;) {
                LineReader::Status status = reader.next(line);
                if (status != LineReader::Status::Line) {
                    lost = status == LineReader::Status::Error;
                    if (lost) failure = std::strerror(reader.error);
                    break;
                }
                std::optional<Json> message = readMessage(line);
                if (!message) continue;
                const std::string& type = (*message)["type"].asString();
                if (!seated && type == "error" && (*message)["code"].asString() == "busy") {
                    busy = (*message)["message"].asString();
                    break;
                }
                if (type != "hello" && type != "error") seated = true;
                std::optional<Json> reply = session.handle(*message);
                if (reply && !writeAll(fd, reply->dump() + "\n")) {
                    lost = true;
                    failure = std::strerror(errno);
                    break;
                }
                if (session.finished) break;
            }
            ::close(fd);
            if (session.finished && !busy) return session.exitCode;  // goodbye, or a final refusal
            if (seated) {
                if (lost) {
                    log("lost the connection to the referee: " + failure);
                    return 1;
                }
                log("the referee closed the connection");
                return 0;
            }
            why = busy ? "the referee is busy (" + preview(*busy, 300) + ")"
                  : lost ? "the connection to " + where + " failed (" + failure + ")"
                         : "the referee closed the connection";
        }
        std::optional<double> pause = backoff.nextPause();
        if (!pause) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%g", options.retryFor);
            log(why + "; giving up after " + seconds + " s");
            return 1;
        }
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", *pause);
        log(why + "; trying again in " + text + " s");
        std::this_thread::sleep_for(std::chrono::duration<double>(*pause));
    }
}

// Run `bot` against a referee: over stdin/stdout, or over TCP with `--tcp HOST:PORT`. Returns
// the exit status for main: 0 after goodbye or the end of the input, 1 after a fatal error or
// a lost connection, 2 for a bad option.
inline int run(Bot& bot, int argc, char** argv) {
    Options options;
    std::string error;
    if (!options.parse(argc, argv, error)) {
        log(error);
        return 2;
    }
    ::signal(SIGPIPE, SIG_IGN);  // a closed pipe or socket is an error to handle, not a death
    // stdout is the protocol channel: keep it on a descriptor of our own and send whatever else
    // writes to stdout (std::cout, printf) to stderr.
    int out = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (out < 0 || ::dup2(2, 1) < 0) {
        log(std::string("cannot set up stdout: ") + std::strerror(errno));
        return 1;
    }
    try {
        int code = options.tcp ? runTcp(bot, options) : runStdio(bot, options, out);
        ::close(out);
        return code;
    } catch (const std::exception& err) {  // only a strict bot lets an exception out
        log(std::string("the bot threw: ") + err.what());
    } catch (...) {
        log("the bot threw");
    }
    ::close(out);
    return 1;
}

}  // namespace hearts

#endif  // HEARTS_HPP
