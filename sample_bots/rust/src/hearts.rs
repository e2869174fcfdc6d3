//! Hearts bot kit for Rust (protocol v1): one file, the standard library only.
//!
//! `sample_bots/rust/` is a cargo project around it: copy the folder, and in `src/main.rs`
//! declare the kit (`mod hearts;`), implement the trait [`Bot`] and hand your bot to [`run`]:
//!
//! ```ignore
//! mod hearts;
//! use hearts::{Bot, PassRequest, PlayRequest, State};
//!
//! struct MyBot;
//!
//! impl Bot for MyBot {
//!     fn name(&self) -> &str { "my-bot" }
//!     fn choose_pass(&mut self, _: &State, request: &PassRequest) -> Vec<String> {
//!         request.legal[..request.count].to_vec()
//!     }
//!     fn choose_play(&mut self, _: &State, request: &PlayRequest) -> String {
//!         request.legal[0].clone()
//!     }
//! }
//!
//! fn main() { hearts::run(MyBot) }
//! ```
//!
//! The kit reads one JSON object per line from the referee, keeps the table state current
//! ([`State`]), asks the bot for each decision and writes the reply at once, flushed. A choose
//! method that panics or returns something illegal is logged to stderr and replaced by a legal
//! default (the first legal cards), so a bug costs a decision, not the match
//! ([`Bot::strict`] turns that off while you develop). Unknown message types and fields are
//! ignored, as protocol v1 asks (docs/protocol.md, "Versioning").
//!
//! stdout carries the protocol only: on Unix the kit moves the protocol to a descriptor of
//! its own and points stdout at stderr, so a stray `println!` cannot corrupt it. Log with
//! `eprintln!` or [`log`].
//!
//! Command line (handled by [`run`]; other arguments are left to the bot):
//!
//! ```text
//! ./target/release/hearts-bot                              stdin/stdout (the referee starts it)
//! ./target/release/hearts-bot --tcp HOST:PORT --token T    connect to a referee over TCP
//!   --token-file F      the token from the first line of F (a command line is readable by
//!                       every process of the machine; HEARTS_TOKEN in the environment too)
//!   --retry-for S       over TCP: when the referee answers `busy`, is not listening yet or
//!                       drops the connection before seating the bot, try again (0.1 s
//!                       doubling to 5 s, with jitter) for up to S seconds (default 60)
//! ```

// A bot uses only some of the kit: the rest must not warn.
#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// The protocol version this kit speaks.
pub const PROTOCOL_VERSION: i64 = 1;
/// The longest line the protocol allows, newline excluded; longer lines are skipped unread.
pub const MAX_LINE: usize = 65536;
/// How deep arrays and objects may nest in a line the kit reads (the referee's need 3).
pub const MAX_DEPTH: usize = 64;
/// Seconds a TCP bot keeps trying a referee that is busy or not (yet) listening.
pub const RETRY_FOR: f64 = 60.0;
const RETRY_FIRST: f64 = 0.1;
const RETRY_CAP: f64 = 5.0;
/// The environment variable a seat token may come in.
pub const TOKEN_VARIABLE: &str = "HEARTS_TOKEN";
/// Ranks, low to high.
pub const RANKS: &str = "23456789TJQKA";
/// Suits in the order the referee lists hands: clubs, diamonds, spades, hearts.
pub const SUITS: &str = "CDSH";

/// Write one line to stderr, where logs belong (the referee keeps the first 64 KiB).
pub fn log(message: &str) {
    eprintln!("[hearts.rs] {message}");
}

// =============================================================================================
// JSON: a small reader and writer
// =============================================================================================

/// A JSON value. Numbers keep the text they were written with, so an integer of any size (a
/// request id) is echoed exactly; objects keep their fields in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Why a line is not JSON, and at which byte.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonError {
    pub message: &'static str,
    pub at: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (byte {})", self.message, self.at)
    }
}

impl Json {
    /// Parse one JSON value (surrounding whitespace allowed, nothing else). Strict JSON: no
    /// NaN, no trailing commas, no control characters in strings; nesting deeper than
    /// [`MAX_DEPTH`] is refused before it can exhaust the stack.
    pub fn parse(text: &str) -> Result<Json, JsonError> {
        let mut parser = Parser { text, bytes: text.as_bytes(), at: 0 };
        parser.skip_whitespace();
        let value = parser.value(0)?;
        parser.skip_whitespace();
        if parser.at != parser.bytes.len() {
            return Err(parser.error("text after the value"));
        }
        Ok(value)
    }

    /// An object from `(key, value)` pairs: `Json::object([("type", "play".into())])`.
    pub fn object<const N: usize>(fields: [(&str, Json); N]) -> Json {
        Json::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// The field `key` of an object (the last one, if it appears twice), or `None`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// An integer (written without fraction or exponent) that fits in an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(text) if is_integer_literal(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// A non-negative integer that fits in a `usize` (a seat, a count, a trick number).
    pub fn as_usize(&self) -> Option<usize> {
        self.as_i64().and_then(|n| usize::try_from(n).ok())
    }

    /// Any finite number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse::<f64>().ok().filter(|x| x.is_finite()),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// An array of strings (card codes), or `None` if it is not one.
    pub fn as_strings(&self) -> Option<Vec<String>> {
        self.as_array()?.iter().map(|v| v.as_str().map(str::to_string)).collect()
    }

    /// The message type of a referee message: its `type` field.
    pub fn kind(&self) -> Option<&str> {
        self.get("type").and_then(Json::as_str)
    }

    fn str_field(&self, key: &str) -> Option<String> {
        self.get(key).and_then(Json::as_str).map(str::to_string)
    }

    fn int_field(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(Json::as_i64)
    }

    fn seat_field(&self, key: &str) -> Option<usize> {
        self.get(key).and_then(Json::as_usize)
    }

    fn cards_field(&self, key: &str) -> Option<Vec<String>> {
        self.get(key).and_then(Json::as_strings)
    }

    fn ints_field(&self, key: &str) -> Option<Vec<i64>> {
        self.get(key)?.as_array()?.iter().map(Json::as_i64).collect()
    }
}

impl From<&str> for Json {
    fn from(text: &str) -> Json {
        Json::String(text.to_string())
    }
}

impl From<String> for Json {
    fn from(text: String) -> Json {
        Json::String(text)
    }
}

impl From<i64> for Json {
    fn from(n: i64) -> Json {
        Json::Number(n.to_string())
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<Vec<String>> for Json {
    fn from(items: Vec<String>) -> Json {
        Json::Array(items.into_iter().map(Json::String).collect())
    }
}

/// Compact JSON, the way the referee writes it: `{"type":"play","id":3,"card":"QC"}`.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(text) => f.write_str(text),
            Json::String(s) => write_string(f, s),
            Json::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Json::Object(fields) => {
                f.write_str("{")?;
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_string(f, key)?;
                    write!(f, ":{value}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
fn write_string(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            // Control characters, and the two separators JavaScript once read as newlines.
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{2028}' || c == '\u{2029}' => {
                write!(f, "\\u{:04x}", c as u32)?
            }
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

fn is_integer_literal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error(&self, message: &'static str) -> JsonError {
        JsonError { message, at: self.at }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, literal: &str, value: Json) -> Result<Json, JsonError> {
        if self.bytes[self.at..].starts_with(literal.as_bytes()) {
            self.at += literal.len();
            Ok(value)
        } else {
            Err(self.error("not a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        match self.peek() {
            None => Err(self.error("the line ends before the value")),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.expect("true", Json::Bool(true)),
            Some(b'f') => self.expect("false", Json::Bool(false)),
            Some(b'n') => self.expect("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("not a JSON value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deep"));
        }
        self.at += 1; // {
        let mut fields = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error("an object key must be a string"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.error("':' expected after an object key"));
            }
            self.at += 1;
            self.skip_whitespace();
            fields.push((key, self.value(depth)?));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(fields));
                }
                _ => return Err(self.error("',' or '}' expected in an object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deep"));
        }
        self.at += 1; // [
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("',' or ']' expected in an array")),
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as written.
    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("a digit expected in a number")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit expected after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit expected in an exponent"));
            }
            self.digits();
        }
        Ok(Json::Number(self.text[start..self.at].to_string()))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let hex = self.bytes.get(self.at..self.at + 4).ok_or_else(|| self.error("\\u needs 4 hex digits"))?;
        let mut value = 0;
        for &b in hex {
            let digit = (b as char).to_digit(16).ok_or_else(|| self.error("\\u needs 4 hex digits"))?;
            value = value * 16 + digit;
        }
        self.at += 4;
        Ok(value)
    }

    /// A string from its opening quote. `\uXXXX` escapes are decoded, surrogate pairs joined;
    /// a lone surrogate becomes U+FFFD (the kit is lenient in what it reads).
    fn string(&mut self) -> Result<String, JsonError> {
        self.at += 1; // "
        let mut out = String::new();
        loop {
            let run = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // Both ends are at ASCII bytes (or the end), so the slice is whole UTF-8.
            out.push_str(&self.text[run..self.at]);
            match self.peek() {
                None => return Err(self.error("the line ends inside a string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self.peek().ok_or_else(|| self.error("the line ends inside a string"))?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let first = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&first) && self.bytes[self.at..].starts_with(b"\\u")
                            {
                                let back = self.at;
                                self.at += 2;
                                let second = self.hex4()?;
                                if (0xDC00..0xE000).contains(&second) {
                                    0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                                } else {
                                    self.at = back; // not a pair: the second escape stands alone
                                    first
                                }
                            } else {
                                first
                            };
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => {
                            self.at -= 1;
                            return Err(self.error("unknown escape in a string"));
                        }
                    }
                }
                Some(_) => return Err(self.error("a control character in a string")),
            }
        }
    }
}

// =============================================================================================
// Cards
// =============================================================================================

/// The suit letter of a card code: `"QS"` -> `'S'`.
pub fn suit_of(card: &str) -> char {
    card.chars().last().map(|c| c.to_ascii_uppercase()).unwrap_or('?')
}

/// The rank of a card code, 2..14 (jack 11, queen 12, king 13, ace 14): `"QS"` -> 12,
/// `"TD"` -> 10 (`"10D"` too). 0 for something that is not a card.
pub fn rank_of(card: &str) -> u8 {
    let text = card.get(..card.len().saturating_sub(1)).unwrap_or("").to_ascii_uppercase();
    if text == "10" {
        return 10;
    }
    match (text.len(), RANKS.find(text.as_str())) {
        (1, Some(index)) => index as u8 + 2,
        _ => 0,
    }
}

fn suit_index(card: &str) -> usize {
    SUITS.find(suit_of(card)).unwrap_or(SUITS.len())
}

/// By suit (clubs, diamonds, spades, hearts), then rank: the order the referee lists hands in.
pub fn compare_cards(a: &str, b: &str) -> Ordering {
    suit_index(a).cmp(&suit_index(b)).then(rank_of(a).cmp(&rank_of(b)))
}

/// By rank, then suit (clubs, diamonds, spades, hearts).
pub fn compare_by_rank(a: &str, b: &str) -> Ordering {
    rank_of(a).cmp(&rank_of(b)).then(suit_index(a).cmp(&suit_index(b)))
}

/// A card code in its wire form: `"qs"` -> `"QS"`, `"10H"` -> `"TH"`.
pub fn normal_card(code: &str) -> String {
    let text = code.trim().to_ascii_uppercase();
    match text.strip_prefix("10") {
        Some(suit) if !suit.is_empty() => format!("T{suit}"),
        _ => text,
    }
}

/// What a card is worth under the match's rules (`rules.card_points`: hearts 1 and QS 13 in
/// the American game; negative for a bonus card; 0 if unlisted).
pub fn card_points(state: &State, card: &str) -> i64 {
    state.value(card)
}

/// The index in `cards` (in the order played, the leader's first) of the card winning the
/// trick so far: the highest card of the led suit. In a double deck two identical cards
/// cancel each other (`identical_cards: "cancel"`; `None` when every card of the led suit is
/// cancelled) or the later one wins (`"later_wins"`). `None` for an empty trick.
pub fn trick_winner(cards: &[String], rules: &Rules) -> Option<usize> {
    let led = suit_of(cards.first()?);
    let cancel = rules.identical_cards != "later_wins";
    let mut best: Option<usize> = None;
    for (i, card) in cards.iter().enumerate() {
        if suit_of(card) != led {
            continue;
        }
        if cancel && cards.iter().filter(|c| normal_card(c) == normal_card(card)).count() > 1 {
            continue;
        }
        // `>=`: only identical cards tie, and then the later one wins (or both cancelled above).
        if best.is_none_or(|b| rank_of(card) >= rank_of(&cards[b])) {
            best = Some(i);
        }
    }
    best
}

/// Whether `card`, played now to the current trick, would be winning it so far.
pub fn would_win(state: &State, card: &str) -> bool {
    let mut cards = state.trick.clone();
    cards.push(card.to_string());
    trick_winner(&cards, &state.rules) == Some(cards.len() - 1)
}

/// Remove one copy of each of `cards` from `hand`.
pub fn remove_cards(hand: &mut Vec<String>, cards: &[String]) {
    for card in cards {
        if let Some(index) = hand.iter().position(|c| c == card) {
            hand.remove(index);
        }
    }
}

// =============================================================================================
// The messages
// =============================================================================================

/// The match's rule set (`match_start.rules`; every field in docs/rules.md). Fields the kit
/// does not know are in `raw`, the whole object as sent.
#[derive(Clone, Debug)]
pub struct Rules {
    pub name: String,
    pub description: String,
    pub players: usize,
    /// `standard` (2 to ace) or `piket` (7 to ace).
    pub deck: String,
    /// 1, or 2 for a double deck (two cards share each code).
    pub copies: usize,
    pub remove: Vec<String>,
    pub add: Vec<String>,
    pub trim_to_deal_evenly: bool,
    pub deal_packets: Vec<i64>,
    pub pass_count: usize,
    pub pass_schedule: Vec<String>,
    /// `lowest_club`, `seven_of_clubs` or `left_of_dealer`.
    pub opening_lead: String,
    pub first_trick_no_points: bool,
    /// `after_broken` or `any_time`.
    pub hearts_lead: String,
    pub queen_breaks_hearts: bool,
    pub queen_must_drop: bool,
    /// `cancel` or `later_wins` (double deck).
    pub identical_cards: String,
    /// Card code -> points (negative: a bonus card). Unlisted cards are worth 0.
    pub card_points: HashMap<String, i64>,
    /// `none`, `add_to_others`, `subtract_from_shooter` or `shooter_choice`.
    pub moon: String,
    pub moon_points: Option<i64>,
    pub moon_phase2: String,
    /// Achterhoeks *miezen*: seats may declare to take no penalty points.
    pub declarations: bool,
    pub declaration_points: i64,
    pub revoke_points: Option<i64>,
    /// `target`, `rounds` or `two_phase`.
    pub end: String,
    pub target: i64,
    pub rounds: i64,
    pub threshold: i64,
    pub finish: String,
    pub tie_break: String,
    pub round_limit: i64,
    pub raw: Json,
}

impl Default for Rules {
    /// The American game, as the protocol's defaults describe it.
    fn default() -> Rules {
        let mut card_points: HashMap<String, i64> = RANKS.chars().map(|r| (format!("{r}H"), 1)).collect();
        card_points.insert("QS".to_string(), 13);
        Rules {
            name: "american".into(),
            description: String::new(),
            players: 4,
            deck: "standard".into(),
            copies: 1,
            remove: Vec::new(),
            add: Vec::new(),
            trim_to_deal_evenly: false,
            deal_packets: vec![1],
            pass_count: 3,
            pass_schedule: ["left", "right", "across", "hold"].map(String::from).to_vec(),
            opening_lead: "lowest_club".into(),
            first_trick_no_points: true,
            hearts_lead: "after_broken".into(),
            queen_breaks_hearts: false,
            queen_must_drop: false,
            identical_cards: "cancel".into(),
            card_points,
            moon: "add_to_others".into(),
            moon_points: None,
            moon_phase2: "none".into(),
            declarations: false,
            declaration_points: 10,
            revoke_points: None,
            end: "target".into(),
            target: 100,
            rounds: 12,
            threshold: 50,
            finish: "zero_or_below".into(),
            tie_break: "none".into(),
            round_limit: 500,
            raw: Json::Object(Vec::new()),
        }
    }
}

impl Rules {
    /// The rules from `match_start.rules`; a missing or mistyped field keeps its default.
    pub fn from_json(json: &Json) -> Rules {
        let d = Rules::default();
        let text = |key: &str, default: String| json.str_field(key).unwrap_or(default);
        let int = |key: &str, default: i64| json.int_field(key).unwrap_or(default);
        let flag = |key: &str, default: bool| json.get(key).and_then(Json::as_bool).unwrap_or(default);
        let card_points = match json.get("card_points") {
            Some(Json::Object(fields)) => {
                fields.iter().filter_map(|(k, v)| Some((normal_card(k), v.as_i64()?))).collect()
            }
            _ => d.card_points,
        };
        Rules {
            name: text("name", d.name),
            description: text("description", d.description),
            players: json.seat_field("players").unwrap_or(d.players),
            deck: text("deck", d.deck),
            copies: json.seat_field("copies").unwrap_or(d.copies),
            remove: json.cards_field("remove").unwrap_or(d.remove),
            add: json.cards_field("add").unwrap_or(d.add),
            trim_to_deal_evenly: flag("trim_to_deal_evenly", d.trim_to_deal_evenly),
            deal_packets: json.ints_field("deal_packets").unwrap_or(d.deal_packets),
            pass_count: json.seat_field("pass_count").unwrap_or(d.pass_count),
            pass_schedule: json.cards_field("pass_schedule").unwrap_or(d.pass_schedule),
            opening_lead: text("opening_lead", d.opening_lead),
            first_trick_no_points: flag("first_trick_no_points", d.first_trick_no_points),
            hearts_lead: text("hearts_lead", d.hearts_lead),
            queen_breaks_hearts: flag("queen_breaks_hearts", d.queen_breaks_hearts),
            queen_must_drop: flag("queen_must_drop", d.queen_must_drop),
            identical_cards: text("identical_cards", d.identical_cards),
            card_points,
            moon: text("moon", d.moon),
            moon_points: json.int_field("moon_points"),
            moon_phase2: text("moon_phase2", d.moon_phase2),
            declarations: flag("declarations", d.declarations),
            declaration_points: int("declaration_points", d.declaration_points),
            revoke_points: json.int_field("revoke_points"),
            end: text("end", d.end),
            target: int("target", d.target),
            rounds: int("rounds", d.rounds),
            threshold: int("threshold", d.threshold),
            finish: text("finish", d.finish),
            tie_break: text("tie_break", d.tie_break),
            round_limit: int("round_limit", d.round_limit),
            raw: json.clone(),
        }
    }

    /// Every card in play under these rules (twice each in a double deck), in hand order.
    pub fn deck(&self) -> Vec<String> {
        let low = if self.deck == "piket" { 7 } else { 2 };
        let mut faces: Vec<String> = SUITS
            .chars()
            .flat_map(|s| RANKS.chars().map(move |r| format!("{r}{s}")))
            .filter(|c| rank_of(c) >= low)
            .collect();
        for card in self.add.iter().map(|c| normal_card(c)) {
            if !faces.contains(&card) {
                faces.push(card);
            }
        }
        // clamped: a rule set is data from the wire, and no game has more than two decks
        let copies = self.copies.clamp(1, 8);
        let mut cards: Vec<String> = (0..copies).flat_map(|_| faces.iter().cloned()).collect();
        for card in self.remove.iter().map(|c| normal_card(c)) {
            remove_cards(&mut cards, &[card]);
        }
        if self.trim_to_deal_evenly && self.players > 0 {
            // the referee's order: the twos of diamonds and spades first, then the threes, ...
            for card in RANKS.chars().flat_map(|r| ['D', 'S'].map(|s| format!("{r}{s}"))) {
                while cards.len() % self.players != 0 && cards.contains(&card) {
                    remove_cards(&mut cards, std::slice::from_ref(&card));
                }
            }
        }
        cards.sort_by(|a, b| compare_cards(a, b));
        cards
    }
}

/// The clock of the match (`match_start.time`), in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeControl {
    pub per_decision_ms: i64,
    pub bank_ms: i64,
    pub startup_ms: i64,
}

/// What a request allows (`time` of every request): `decision_ms` free, then the bank.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeLeft {
    pub decision_ms: i64,
    pub bank_ms: i64,
}

impl TimeLeft {
    fn from_json(json: Option<&Json>) -> TimeLeft {
        let field = |key| json.and_then(|t| t.int_field(key)).unwrap_or(0);
        TimeLeft { decision_ms: field("decision_ms"), bank_ms: field("bank_ms") }
    }
}

/// `pass_request`: pass `count` cards of `legal` (your whole hand) to `to_seat`.
#[derive(Clone, Debug)]
pub struct PassRequest {
    /// The request id (the kit echoes it itself, exactly as written; `i64::MAX` if larger).
    pub id: i64,
    pub count: usize,
    pub legal: Vec<String>,
    pub to_seat: Option<usize>,
    pub time: TimeLeft,
}

/// `play_request`: play one card of `legal`. `trick` holds the cards already played to it,
/// the leader's first (empty when you lead).
#[derive(Clone, Debug)]
pub struct PlayRequest {
    pub id: i64,
    pub legal: Vec<String>,
    pub trick: Vec<String>,
    pub leader: usize,
    pub trick_number: usize,
    pub hearts_broken: bool,
    pub time: TimeLeft,
}

/// `declare_request` (Achterhoeks *miezen*): declare that you will take no penalty points
/// this round (kept: minus `points`; broken: plus). `declarations` by seat, `None` if not yet.
#[derive(Clone, Debug)]
pub struct DeclareRequest {
    pub id: i64,
    pub declarations: Vec<Option<bool>>,
    pub points: i64,
    pub time: TimeLeft,
}

/// `moon_request`: you took every penalty card; choose one of `options`
/// (`add_to_others`, `subtract_from_shooter`).
#[derive(Clone, Debug)]
pub struct MoonRequest {
    pub id: i64,
    pub options: Vec<String>,
    pub points: i64,
    pub time: TimeLeft,
}

/// The request id, exactly as written (an integer of any size), and as an `i64` for the bot.
fn request_id(msg: &Json) -> Option<(Json, i64)> {
    match msg.get("id") {
        Some(Json::Number(text)) if is_integer_literal(text) => {
            Some((Json::Number(text.clone()), text.parse().unwrap_or(i64::MAX)))
        }
        _ => None,
    }
}

impl PassRequest {
    fn from_json(msg: &Json, id: i64) -> PassRequest {
        PassRequest {
            id,
            count: msg.seat_field("count").unwrap_or(0),
            legal: msg.cards_field("legal").unwrap_or_default(),
            to_seat: msg.seat_field("to_seat"),
            time: TimeLeft::from_json(msg.get("time")),
        }
    }
}

impl PlayRequest {
    fn from_json(msg: &Json, id: i64) -> PlayRequest {
        PlayRequest {
            id,
            legal: msg.cards_field("legal").unwrap_or_default(),
            trick: msg.cards_field("trick").unwrap_or_default(),
            leader: msg.seat_field("leader").unwrap_or(0),
            trick_number: msg.seat_field("trick_number").unwrap_or(0),
            hearts_broken: msg.get("hearts_broken").and_then(Json::as_bool).unwrap_or(false),
            time: TimeLeft::from_json(msg.get("time")),
        }
    }
}

impl DeclareRequest {
    fn from_json(msg: &Json, id: i64) -> DeclareRequest {
        let declarations = match msg.get("declarations").and_then(Json::as_array) {
            Some(items) => items.iter().map(Json::as_bool).collect(),
            None => Vec::new(),
        };
        DeclareRequest {
            id,
            declarations,
            points: msg.int_field("points").unwrap_or(0),
            time: TimeLeft::from_json(msg.get("time")),
        }
    }
}

impl MoonRequest {
    fn from_json(msg: &Json, id: i64) -> MoonRequest {
        MoonRequest {
            id,
            options: msg.cards_field("options").unwrap_or_default(),
            points: msg.int_field("points").unwrap_or(0),
            time: TimeLeft::from_json(msg.get("time")),
        }
    }
}

// =============================================================================================
// The table as the bot knows it
// =============================================================================================

/// A player at the table: its seat and the name from its hello.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    pub seat: usize,
    pub name: String,
}

/// A finished trick of the current round.
#[derive(Clone, Debug, PartialEq)]
pub struct Trick {
    pub number: usize,
    pub leader: usize,
    /// In the order played, the leader's first.
    pub cards: Vec<String>,
    /// `None` when every card of the led suit was cancelled (double deck): its cards go to
    /// the winner of the next trick.
    pub winner: Option<usize>,
    pub points: i64,
}

/// Per-seat lists grow only this far: a message naming seat 10^12 must not eat the memory.
const MAX_SEATS: usize = 64;

/// Everything a seat knows about the match, kept current by the kit from the referee's
/// messages before each call to the bot. Seats are numbered 0..n-1 clockwise and per-seat
/// lists are indexed by seat. Round fields are reset by `round_start`, everything by
/// `match_start`.
#[derive(Clone, Debug, Default)]
pub struct State {
    // -- the match --
    pub match_id: String,
    /// Your seat.
    pub seat: usize,
    pub players: Vec<Player>,
    pub rules: Rules,
    /// The match's clock (per decision, bank, start-up).
    pub time: TimeControl,
    /// Match scores by seat: before the round at `round_start`, after it at `round_end`.
    pub scores: Vec<i64>,
    /// 1, or 2 in the count-down phase of a two-phase (Dutch) match, where the points you
    /// take are subtracted from your score.
    pub match_phase: i64,
    /// The last `round_end` of this match (moon, declarations, score changes), as sent.
    pub last_round_end: Option<Json>,
    /// The `match_end` message once the match is over.
    pub last_match_end: Option<Json>,
    /// The time the latest request allows, and when it arrived (for a deadline of your own).
    pub time_left: TimeLeft,
    pub request_received: Option<Instant>,
    // -- the round --
    /// The deal's number in the match, from 0.
    pub round: i64,
    pub dealer: usize,
    /// Your cards now, kept current through passing and play.
    pub hand: Vec<String>,
    /// `left`, `right`, `across`, `left2`, `right2` or `hold`.
    pub pass_direction: String,
    pub pass_count: usize,
    /// Where your passed cards go (`None` when nobody passes).
    pub pass_to: Option<usize>,
    /// The cards you gave this round (they are in `pass_to`'s hand until played).
    pub passed: Vec<String>,
    /// The cards passed to you this round (already in `hand`), and who passed them.
    pub received: Vec<String>,
    pub received_from: Option<usize>,
    /// Per seat: its declaration this round (`None` while not made, or no declarations).
    pub declarations: Vec<Option<bool>>,
    /// Cards in the current trick, the leader's first.
    pub trick: Vec<String>,
    /// The seat that led (or leads) the current trick.
    pub trick_leader: Option<usize>,
    pub trick_number: usize,
    /// Finished tricks of this round, in order.
    pub tricks: Vec<Trick>,
    /// Every card played this round, in order (the current trick included).
    pub played: Vec<String>,
    /// Per seat: the cards it played this round.
    pub played_by: Vec<Vec<String>>,
    /// Per seat: the cards in the tricks it took this round.
    pub taken: Vec<Vec<String>>,
    /// Per seat: card points taken this round (bonus cards count negative).
    pub points_taken: Vec<i64>,
    /// Per seat: the suits it has shown it no longer holds (it did not follow suit).
    pub voids: Vec<Vec<char>>,
    /// Whether hearts may be led (from the play requests, and from the cards played).
    pub hearts_broken: bool,
    carry: Vec<String>,
}

impl State {
    /// A state before any match: call [`State::update`] with each referee message.
    pub fn new() -> State {
        State { match_phase: 1, round: -1, pass_direction: "hold".into(), ..State::default() }
    }

    /// How many seats the table has.
    pub fn num_players(&self) -> usize {
        if self.players.is_empty() {
            self.rules.players
        } else {
            self.players.len()
        }
    }

    /// Whether the current trick is the round's first.
    pub fn first_trick(&self) -> bool {
        self.tricks.is_empty()
    }

    /// The suit of the current trick's first card, or `None` before the lead.
    pub fn led_suit(&self) -> Option<char> {
        self.trick.first().map(|c| suit_of(c))
    }

    /// The card's points (`rules.card_points`): positive for penalty cards, negative for
    /// bonus cards, 0 for the rest. In phase 2 of a two-phase match the points you take are
    /// subtracted from your score.
    pub fn value(&self, card: &str) -> i64 {
        let points = &self.rules.card_points;
        points.get(card).or_else(|| points.get(&normal_card(card))).copied().unwrap_or(0)
    }

    /// Whether the card is a penalty card (worth more than 0).
    pub fn is_penalty(&self, card: &str) -> bool {
        self.value(card) > 0
    }

    /// Every card in play this match (twice each in a double deck).
    pub fn deck(&self) -> Vec<String> {
        self.rules.deck()
    }

    /// The cards still in the other seats' hands: the deck minus your hand and every card
    /// played this round (the cards you passed are among them).
    pub fn unseen(&self) -> Vec<String> {
        let mut rest = self.deck();
        remove_cards(&mut rest, &self.hand);
        remove_cards(&mut rest, &self.played);
        rest
    }

    /// The seat winning the current trick so far (`None` before the lead, or when every card
    /// of the led suit is cancelled in a double deck).
    pub fn trick_winner(&self) -> Option<usize> {
        let index = trick_winner(&self.trick, &self.rules)?;
        Some((self.trick_leader? + index) % self.num_players().max(1))
    }

    /// Points in the current trick so far.
    pub fn trick_points(&self) -> i64 {
        self.trick.iter().map(|c| self.value(c)).sum()
    }

    /// Seats yet to play to the current trick, in order (you included on your turn).
    pub fn still_to_play(&self) -> Vec<usize> {
        let n = self.num_players();
        match self.trick_leader {
            Some(leader) if n > 0 => (self.trick.len()..n).map(|i| (leader + i) % n).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether `seat` has shown that it holds no card of `suit` this round.
    pub fn is_void(&self, seat: usize, suit: char) -> bool {
        self.voids.get(seat).is_some_and(|v| v.contains(&suit))
    }

    /// Apply one referee message. The kit calls this before asking the bot; tests and tools
    /// can feed a replay's lines through it.
    pub fn update(&mut self, msg: &Json) {
        match msg.kind().unwrap_or("") {
            "match_start" => self.start_match(msg),
            "round_start" => self.start_round(msg),
            "passed" => {
                self.passed = msg.cards_field("given").unwrap_or_default();
                self.received = msg.cards_field("received").unwrap_or_default();
                self.received_from = msg.seat_field("from_seat");
                match msg.cards_field("hand") {
                    Some(hand) => self.hand = hand,
                    None => {
                        let given = self.passed.clone();
                        remove_cards(&mut self.hand, &given);
                        self.hand.extend(self.received.iter().cloned());
                    }
                }
            }
            "declared" => {
                if let Some(seat) = msg.seat_field("seat").filter(|&s| self.grow(s)) {
                    self.declarations[seat] = msg.get("declared").and_then(Json::as_bool);
                }
            }
            "card_played" => {
                if let (Some(seat), Some(card)) = (msg.seat_field("seat"), msg.str_field("card")) {
                    self.play(seat, card);
                }
                if let Some(number) = msg.seat_field("trick_number") {
                    self.trick_number = number;
                }
            }
            "trick_end" => self.end_trick(msg),
            "round_end" => {
                if let Some(scores) = msg.ints_field("scores") {
                    self.scores = scores;
                }
                if let Some(points) = msg.ints_field("points_taken") {
                    self.points_taken = points;
                }
                if let Some(phase) = msg.int_field("next_match_phase") {
                    self.match_phase = phase;
                }
                self.last_round_end = Some(msg.clone());
            }
            "match_end" => {
                if let Some(scores) = msg.ints_field("scores") {
                    self.scores = scores;
                }
                self.last_match_end = Some(msg.clone());
            }
            kind @ ("pass_request" | "play_request" | "declare_request" | "moon_request") => {
                self.time_left = TimeLeft::from_json(msg.get("time"));
                self.request_received = Some(Instant::now());
                if kind == "declare_request" {
                    if let Some(items) = msg.get("declarations").and_then(Json::as_array) {
                        self.declarations = items.iter().map(Json::as_bool).take(MAX_SEATS).collect();
                    }
                }
                if kind == "play_request" {
                    // The request is authoritative for the trick; the events keep it current between.
                    if let Some(trick) = msg.cards_field("trick") {
                        self.trick = trick;
                    }
                    if let Some(leader) = msg.seat_field("leader") {
                        self.trick_leader = Some(leader);
                    }
                    if let Some(number) = msg.seat_field("trick_number") {
                        self.trick_number = number;
                    }
                    if let Some(broken) = msg.get("hearts_broken").and_then(Json::as_bool) {
                        self.hearts_broken = broken;
                    }
                }
            }
            _ => {} // other events, and types of later protocol versions: nothing to keep
        }
    }

    fn start_match(&mut self, msg: &Json) {
        *self = State::new();
        self.match_id = msg.str_field("match_id").unwrap_or_default();
        self.seat = msg.seat_field("seat").unwrap_or(0);
        if let Some(players) = msg.get("players").and_then(Json::as_array) {
            self.players = players
                .iter()
                .take(MAX_SEATS)
                .enumerate()
                .map(|(i, p)| Player {
                    seat: p.seat_field("seat").unwrap_or(i),
                    name: p.str_field("name").unwrap_or_default(),
                })
                .collect();
        }
        if let Some(rules) = msg.get("rules") {
            self.rules = Rules::from_json(rules);
        }
        if let Some(time) = msg.get("time") {
            let field = |key| time.int_field(key).unwrap_or(0);
            self.time = TimeControl {
                per_decision_ms: field("per_decision_ms"),
                bank_ms: field("bank_ms"),
                startup_ms: field("startup_ms"),
            };
        }
        self.scores = vec![0; self.num_players().min(MAX_SEATS)];
        self.clear_round();
    }

    fn clear_round(&mut self) {
        let n = self.num_players().min(MAX_SEATS);
        self.round = -1;
        self.dealer = 0;
        self.hand.clear();
        self.pass_direction = "hold".into();
        self.pass_count = 0;
        self.pass_to = None;
        self.passed.clear();
        self.received.clear();
        self.received_from = None;
        self.declarations = vec![None; n];
        self.trick.clear();
        self.trick_leader = None;
        self.trick_number = 0;
        self.tricks.clear();
        self.played.clear();
        self.played_by = vec![Vec::new(); n];
        self.taken = vec![Vec::new(); n];
        self.points_taken = vec![0; n];
        self.voids = vec![Vec::new(); n];
        self.hearts_broken = self.rules.hearts_lead == "any_time";
        self.carry.clear();
    }

    fn start_round(&mut self, msg: &Json) {
        self.clear_round();
        self.round = msg.int_field("round").unwrap_or(0);
        self.dealer = msg.seat_field("dealer").unwrap_or(0);
        self.hand = msg.cards_field("hand").unwrap_or_default();
        self.pass_direction = msg.str_field("pass_direction").unwrap_or_else(|| "hold".into());
        self.pass_count = msg.seat_field("pass_count").unwrap_or(0);
        self.pass_to = msg.seat_field("pass_to");
        self.match_phase = msg.int_field("match_phase").unwrap_or(self.match_phase);
        if let Some(scores) = msg.ints_field("scores") {
            self.scores = scores;
        }
    }

    /// Make the per-seat lists long enough for `seat`; false for a seat beyond any table.
    fn grow(&mut self, seat: usize) -> bool {
        if seat >= MAX_SEATS {
            return false;
        }
        let n = seat + 1;
        if self.declarations.len() < n {
            self.declarations.resize(n, None);
        }
        if self.played_by.len() < n {
            self.played_by.resize(n, Vec::new());
        }
        if self.taken.len() < n {
            self.taken.resize(n, Vec::new());
        }
        if self.points_taken.len() < n {
            self.points_taken.resize(n, 0);
        }
        if self.voids.len() < n {
            self.voids.resize(n, Vec::new());
        }
        true
    }

    fn play(&mut self, seat: usize, card: String) {
        if !self.grow(seat) {
            return;
        }
        match self.trick.first() {
            None => self.trick_leader = Some(seat),
            Some(lead) => {
                let led = suit_of(lead);
                if suit_of(&card) != led && !self.voids[seat].contains(&led) {
                    self.voids[seat].push(led);
                }
            }
        }
        if seat == self.seat {
            remove_cards(&mut self.hand, std::slice::from_ref(&card));
        }
        if suit_of(&card) == 'H' || (normal_card(&card) == "QS" && self.rules.queen_breaks_hearts) {
            self.hearts_broken = true;
        }
        self.trick.push(card.clone());
        self.played.push(card.clone());
        self.played_by[seat].push(card);
    }

    fn end_trick(&mut self, msg: &Json) {
        let n = self.num_players().max(1);
        let leader = msg.seat_field("leader").or(self.trick_leader).unwrap_or(0);
        let cards = msg.cards_field("cards").unwrap_or_else(|| self.trick.clone());
        if self.trick.is_empty() {
            self.trick_leader = Some(leader);
        }
        for (index, card) in cards.iter().enumerate().skip(self.trick.len()) {
            self.play((leader + index) % n, card.clone()); // cards whose events we did not see
        }
        let winner = msg.seat_field("winner");
        let points = msg.int_field("points").unwrap_or(0);
        let number = msg.seat_field("trick_number").unwrap_or(self.trick_number);
        self.tricks.push(Trick { number, leader, cards: cards.clone(), winner, points });
        match winner.filter(|&w| self.grow(w)) {
            Some(w) => {
                let carried = std::mem::take(&mut self.carry);
                self.taken[w].extend(carried);
                self.taken[w].extend(cards);
                self.points_taken[w] = self.points_taken[w].saturating_add(points);
                self.trick_leader = Some(w);
            }
            None => {
                // Every card of the led suit cancelled (double deck): the cards go to the next
                // trick's winner, and the same seat leads again.
                self.carry.extend(cards);
                self.trick_leader = Some(leader);
            }
        }
        self.trick.clear();
        self.trick_number = number + 1;
    }
}

// =============================================================================================
// The bot
// =============================================================================================

/// A bot: implement `choose_pass` and `choose_play`; the rest have defaults. One bot plays
/// every match of a connection; the `state` passed in is reset at each `match_start`.
pub trait Bot {
    /// Your bot's name, shown to the other players and in results.
    fn name(&self) -> &str {
        "rust-bot"
    }

    fn version(&self) -> &str {
        ""
    }

    fn author(&self) -> &str {
        ""
    }

    /// `true`: a panic in a choose method ends the bot instead of being logged and replaced
    /// by a legal default. Handy while you develop.
    fn strict(&self) -> bool {
        false
    }

    /// Return `request.count` cards of `request.legal` (your hand) to pass to `request.to_seat`.
    fn choose_pass(&mut self, state: &State, request: &PassRequest) -> Vec<String>;

    /// Return one card of `request.legal`.
    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String;

    /// Achterhoeks *miezen*: `true` to declare that you will take no penalty points this round.
    fn choose_declare(&mut self, _state: &State, _request: &DeclareRequest) -> bool {
        false
    }

    /// You shot the moon and may choose how it is scored: one of `request.options`. Default:
    /// add to the others when offered, else the first option.
    fn choose_moon(&mut self, _state: &State, request: &MoonRequest) -> String {
        default_moon(&request.options)
    }

    /// Called for every referee message (requests too, before their choose method), after
    /// the state has taken it in.
    fn on_message(&mut self, _state: &State, _message: &Json) {}
}

/// The moon scoring a bot chooses by default: `add_to_others` when offered (or when nothing
/// is), else the first of `options`.
fn default_moon(options: &[String]) -> String {
    match options.first() {
        Some(first) if !options.iter().any(|o| o == "add_to_others") => first.clone(),
        _ => "add_to_others".to_string(),
    }
}

/// Whether `cards` is `count` cards of `legal`, each code at most as often as it is listed.
pub fn is_legal_pass(cards: &[String], count: usize, legal: &[String]) -> bool {
    let mut left = legal.to_vec();
    cards.len() == count
        && cards.iter().all(|card| match left.iter().position(|c| c == card) {
            Some(index) => {
                left.swap_remove(index);
                true
            }
            None => false,
        })
}

/// The protocol conversation of one connection, without I/O: [`Session::handle_line`] takes
/// a referee line and returns the reply line to write, if any. [`run`] drives it over
/// stdin/stdout or TCP; tests can drive it directly.
pub struct Session<'a, B: Bot + ?Sized> {
    bot: &'a mut B,
    token: Option<String>,
    pub state: State,
    /// Set by `goodbye` or a fatal `error`: the conversation is over.
    pub finished: bool,
    /// 0, or 1 after a fatal error.
    pub exit_code: i32,
    /// A message other than `hello` or `error` came: the referee gave the bot its seat.
    pub seated: bool,
    /// The referee's `busy` message, when it turned the connection away before seating it.
    pub busy: Option<String>,
}

/// A line for a log message: at most `limit` characters of `text`.
fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

impl<'a, B: Bot + ?Sized> Session<'a, B> {
    pub fn new(bot: &'a mut B, token: Option<String>) -> Session<'a, B> {
        Session { bot, token, state: State::new(), finished: false, exit_code: 0, seated: false, busy: None }
    }

    /// Take one line from the referee (without its newline); return the reply line, if any.
    /// A line that is not a JSON object with a string `type` is logged and ignored.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<String> {
        let Ok(text) = std::str::from_utf8(line) else {
            log("ignoring a line that is not UTF-8");
            return None;
        };
        if text.trim().is_empty() {
            return None;
        }
        let msg = match Json::parse(text) {
            Ok(msg) => msg,
            Err(err) => {
                log(&format!("ignoring a line that is not JSON ({err}): {}", shorten(text, 200)));
                return None;
            }
        };
        if msg.kind().is_none() {
            log(&format!("ignoring a line that is not a message: {}", shorten(text, 200)));
            return None;
        }
        self.handle(&msg).map(|reply| reply.to_string())
    }

    /// Take one referee message; return the reply to send, if any.
    pub fn handle(&mut self, msg: &Json) -> Option<Json> {
        let kind = msg.kind().unwrap_or("");
        if !self.seated && kind == "error" && msg.str_field("code").as_deref() == Some("busy") {
            // Over TCP: turned away before the seat, so try again (see `connect`).
            self.busy = Some(msg.str_field("message").unwrap_or_default());
            self.finish(1);
            return None;
        }
        if kind != "hello" && kind != "error" {
            self.seated = true;
        }
        self.state.update(msg);
        let (bot, state) = (&mut *self.bot, &self.state);
        let strict = bot.strict();
        guarded(strict, "on_message", (), || bot.on_message(state, msg));
        match kind {
            "hello" => Some(self.hello(msg)),
            "pass_request" | "play_request" | "declare_request" | "moon_request" => {
                let Some((id, number)) = request_id(msg) else {
                    log(&format!("a {kind} without an integer id: cannot answer it"));
                    return None;
                };
                let reply = match kind {
                    "pass_request" => self.pass(PassRequest::from_json(msg, number)),
                    "play_request" => self.play(PlayRequest::from_json(msg, number))?,
                    "declare_request" => self.declare(DeclareRequest::from_json(msg, number)),
                    _ => self.moon(MoonRequest::from_json(msg, number)),
                };
                let (answer_key, answer) = reply;
                let reply_type = kind.trim_end_matches("_request");
                Some(Json::object([("type", reply_type.into()), ("id", id), (answer_key, answer)]))
            }
            "error" => {
                let fatal = msg.get("fatal").and_then(Json::as_bool) == Some(true);
                let rule = msg.str_field("rule").map(|r| format!(" ({r})")).unwrap_or_default();
                log(&format!(
                    "referee error {}{rule}{}: {}",
                    msg.str_field("code").unwrap_or_default(),
                    if fatal { " (fatal)" } else { "" },
                    msg.str_field("message").unwrap_or_default()
                ));
                if fatal {
                    self.finish(1);
                }
                None
            }
            "goodbye" => {
                self.finish(0);
                None
            }
            _ => None, // events, and message types this kit does not know, need no answer
        }
    }

    fn finish(&mut self, code: i32) {
        if !self.finished {
            self.finished = true;
            self.exit_code = code;
        }
    }

    fn hello(&self, msg: &Json) -> Json {
        let versions: Vec<i64> = msg.ints_field("versions").unwrap_or_default();
        if !versions.is_empty() && !versions.contains(&PROTOCOL_VERSION) {
            log(&format!("the referee offers protocol versions {versions:?}; this kit speaks {PROTOCOL_VERSION}"));
        }
        let mut reply = Json::object([
            ("type", "hello".into()),
            ("version", PROTOCOL_VERSION.into()),
            ("name", self.bot.name().into()),
            ("bot_version", self.bot.version().into()),
            ("author", self.bot.author().into()),
        ]);
        if let (Json::Object(fields), Some(token)) = (&mut reply, &self.token) {
            fields.push(("token".to_string(), token.as_str().into()));
        }
        reply
    }

    fn pass(&mut self, request: PassRequest) -> (&'static str, Json) {
        let (bot, state) = (&mut *self.bot, &self.state);
        let default: Vec<String> = request.legal.iter().take(request.count).cloned().collect();
        let answer = guarded(bot.strict(), "choose_pass", default.clone(), || bot.choose_pass(state, &request));
        let cards: Vec<String> = answer.iter().map(|c| normal_card(c)).collect();
        if is_legal_pass(&cards, request.count, &request.legal) {
            return ("cards", cards.into());
        }
        log(&format!(
            "choose_pass returned {answer:?}, not {} cards of {:?}; passing {default:?}",
            request.count, request.legal
        ));
        ("cards", default.into())
    }

    fn play(&mut self, request: PlayRequest) -> Option<(&'static str, Json)> {
        let (bot, state) = (&mut *self.bot, &self.state);
        let Some(default) = request.legal.first().cloned() else {
            log("a play_request with no legal card: cannot answer it");
            return None;
        };
        let answer = guarded(bot.strict(), "choose_play", default.clone(), || bot.choose_play(state, &request));
        let card = normal_card(&answer);
        if request.legal.contains(&card) {
            return Some(("card", card.into()));
        }
        log(&format!("choose_play returned {answer:?}, not one of {:?}; playing {default}", request.legal));
        Some(("card", default.into()))
    }

    fn declare(&mut self, request: DeclareRequest) -> (&'static str, Json) {
        let (bot, state) = (&mut *self.bot, &self.state);
        let declare = guarded(bot.strict(), "choose_declare", false, || bot.choose_declare(state, &request));
        ("declare", declare.into())
    }

    fn moon(&mut self, request: MoonRequest) -> (&'static str, Json) {
        let (bot, state) = (&mut *self.bot, &self.state);
        let options = &request.options;
        let default = default_moon(options);
        let choice = guarded(bot.strict(), "choose_moon", default.clone(), || bot.choose_moon(state, &request));
        if options.contains(&choice) || (options.is_empty() && choice == default) {
            return ("choice", choice.into());
        }
        log(&format!("choose_moon returned {choice:?}, not one of {options:?}; choosing {default}"));
        ("choice", default.into())
    }
}

/// Call the bot; a panic (already printed to stderr by Rust) is logged and `default` taken
/// instead, unless the bot is `strict`.
fn guarded<T>(strict: bool, what: &str, default: T, call: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(answer) => answer,
        Err(payload) if strict => panic::resume_unwind(payload),
        Err(_) => {
            let then = if what == "on_message" { "going on" } else { "answering with a legal default" };
            log(&format!("{what} panicked; {then}"));
            default
        }
    }
}

// =============================================================================================
// Transports
// =============================================================================================

/// Read one line into `line` (without its newline), holding at most `max` bytes of it.
/// `Ok(None)` at the end of input; `Ok(Some(false))` for a line longer than `max`, which is
/// consumed and dropped.
pub fn read_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>, max: usize) -> io::Result<Option<bool>> {
    line.clear();
    let mut fits = true;
    let mut any = false;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if buffer.is_empty() {
            return Ok(if any { Some(fits) } else { None });
        }
        any = true;
        let (chunk, used, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], end + 1, true),
            None => (buffer, buffer.len(), false),
        };
        if fits && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            fits = false;
            line.clear();
        }
        reader.consume(used);
        if done {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(fits));
        }
    }
}

/// Play one connection: read lines, write replies, until goodbye, a fatal error or the end
/// of the input. `Err` when reading or writing fails.
fn converse<B: Bot + ?Sized, R: BufRead, W: Write>(
    session: &mut Session<'_, B>,
    reader: &mut R,
    writer: &mut W,
) -> io::Result<()> {
    let mut line = Vec::new();
    while !session.finished {
        match read_line(reader, &mut line, MAX_LINE)? {
            None => return Ok(()),
            Some(false) => log(&format!("skipping a line longer than {MAX_LINE} bytes")),
            Some(true) => {
                if let Some(mut reply) = session.handle_line(&line) {
                    reply.push('\n');
                    writer.write_all(reply.as_bytes())?; // one write: the whole line at once
                    writer.flush()?;
                }
            }
        }
    }
    Ok(())
}

/// The kit's command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `--tcp HOST:PORT`: connect to a referee instead of using stdin/stdout.
    pub tcp: Option<(String, u16)>,
    /// `--token T`, else the first line of `--token-file F`, else `$HEARTS_TOKEN`.
    pub token: Option<String>,
    pub retry_for: f64,
}

/// Parse the kit's options (`--tcp`, `--token`, `--token-file`, `--retry-for`, each also as
/// `--name=value`); every other argument is left for the bot.
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut tcp = None;
    let mut token = None;
    let mut token_file = None;
    let mut retry_for = RETRY_FOR;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((key, value)) if key.starts_with("--") => (key, Some(value.to_string())),
            _ => (arg.as_str(), None),
        };
        if !matches!(key, "--tcp" | "--token" | "--token-file" | "--retry-for") {
            continue;
        }
        let value = match inline.or_else(|| words.next().cloned()) {
            Some(value) => value,
            None => return Err(format!("{key} needs a value")),
        };
        match key {
            "--tcp" => {
                let parsed = value.rsplit_once(':').and_then(|(host, port)| {
                    let host = host.trim_start_matches('[').trim_end_matches(']');
                    let host = if host.is_empty() { "127.0.0.1" } else { host };
                    Some((host.to_string(), port.parse::<u16>().ok().filter(|&port| port != 0)?))
                });
                tcp = Some(parsed.ok_or(format!("--tcp wants HOST:PORT, not {value:?}"))?);
            }
            "--token" => token = Some(value),
            "--token-file" => token_file = Some(value),
            _ => {
                retry_for = value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or(format!("--retry-for wants seconds, not {value:?}"))?;
            }
        }
    }
    // A token on the command line is readable by every process of the machine: a file or the
    // environment is safer.
    if token.is_none() {
        if let Some(file) = token_file {
            let text =
                std::fs::read_to_string(&file).map_err(|err| format!("cannot read the token file {file:?}: {err}"))?;
            token = text.lines().next().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
        }
    }
    if token.is_none() {
        token = std::env::var(TOKEN_VARIABLE).ok().filter(|t| !t.is_empty());
    }
    Ok(Options { tcp, token, retry_for })
}

/// Play `bot` against a referee, over stdin/stdout or, with `--tcp HOST:PORT`, over TCP, and
/// exit: 0 after goodbye or the end of the input, 1 after a fatal error, 2 for bad options.
pub fn run<B: Bot>(mut bot: B) -> ! {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match parse_args(&args) {
        Err(problem) => {
            log(&problem);
            2
        }
        Ok(Options { tcp: Some((host, port)), token, retry_for }) => connect(&mut bot, &host, port, token, retry_for),
        Ok(Options { token, .. }) => run_stdio(&mut bot, token),
    };
    std::process::exit(code)
}

/// Play over stdin and stdout. Returns the exit status.
pub fn run_stdio<B: Bot + ?Sized>(bot: &mut B, token: Option<String>) -> i32 {
    let mut session = Session::new(bot, token);
    let mut output = protocol_output();
    let stdin = io::stdin();
    match converse(&mut session, &mut stdin.lock(), &mut output) {
        Ok(()) => session.exit_code,
        Err(err) => {
            log(&format!("lost the referee: {err}"));
            1
        }
    }
}

/// Where protocol lines go. On Unix: a copy of stdout's descriptor, with descriptor 1 then
/// pointed at stderr, so a stray `println!` lands in the log instead of corrupting the
/// protocol. Elsewhere: stdout itself.
#[cfg(unix)]
fn protocol_output() -> Box<dyn Write> {
    use std::os::fd::AsFd;
    extern "C" {
        fn dup2(old: i32, new: i32) -> i32;
    }
    match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => {
            // SAFETY: dup2 only changes which file descriptor 1 refers to; Rust's stdout still
            // writes to descriptor 1, which now reaches stderr.
            if unsafe { dup2(2, 1) } < 0 {
                log("could not send stdout to stderr; a println! would corrupt the protocol");
            }
            Box::new(std::fs::File::from(fd))
        }
        Err(_) => Box::new(io::stdout()),
    }
}

#[cfg(not(unix))]
fn protocol_output() -> Box<dyn Write> {
    Box::new(io::stdout())
}

/// The pauses between connection attempts: 0.1 s, doubling up to 5 s, each a random half to
/// all of that (so bots refused together do not come back together), for `total` seconds.
struct Backoff {
    deadline: Instant,
    delay: f64,
}

impl Backoff {
    fn new(total: f64) -> Backoff {
        Backoff { deadline: Instant::now() + Duration::from_secs_f64(total.min(1e9)), delay: RETRY_FIRST }
    }

    fn next_pause(&mut self) -> Option<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let jitter = (RandomState::new().build_hasher().finish() >> 11) as f64 / (1u64 << 53) as f64;
        let pause = Duration::from_secs_f64(self.delay * (0.5 + 0.5 * jitter)).min(left);
        self.delay = (self.delay * 2.0).min(RETRY_CAP);
        Some(pause)
    }
}

/// Play over TCP, with `token` in the hello. Until the referee seats the bot (any message but
/// `hello` or `error`), a `busy` refusal, a refused or reset connection, or one closed
/// without an error is tried again after a [`Backoff`] pause for up to `retry_for` seconds;
/// other refusals (`bad_token`, `seat_taken`, ...) are final. Returns the exit status.
pub fn connect<B: Bot + ?Sized>(bot: &mut B, host: &str, port: u16, token: Option<String>, retry_for: f64) -> i32 {
    let addresses: Vec<_> = match (host, port).to_socket_addrs() {
        Ok(found) => found.collect(),
        Err(err) => {
            log(&format!("cannot find {host}: {err}"));
            return 1;
        }
    };
    let mut backoff = Backoff::new(retry_for);
    loop {
        let mut session = Session::new(&mut *bot, token.clone());
        let why = match open(&addresses) {
            Err(err) => format!("cannot connect to {host}:{port} ({err})"),
            Ok(stream) => {
                let result = match stream.try_clone() {
                    Ok(input) => converse(&mut session, &mut BufReader::new(input), &mut &stream),
                    Err(err) => Err(err),
                };
                let _ = stream.shutdown(Shutdown::Both);
                match (result, session.seated) {
                    (Err(err), true) => {
                        log(&format!("lost the connection to the referee: {err}"));
                        return 1;
                    }
                    (Ok(()), true) => return session.exit_code,
                    (Ok(()), false) if session.finished && session.busy.is_none() => return session.exit_code,
                    (Err(err), false) => format!("the connection failed before the seat ({err})"),
                    (Ok(()), false) => match &session.busy {
                        Some(message) => format!("the referee is busy ({message})"),
                        None => "the referee closed the connection".to_string(),
                    },
                }
            }
        };
        match backoff.next_pause() {
            None => {
                log(&format!("{why}; giving up after {retry_for} s"));
                return 1;
            }
            Some(pause) => {
                log(&format!("{why}; trying again in {:.1} s", pause.as_secs_f64()));
                std::thread::sleep(pause);
            }
        }
    }
}

fn open(addresses: &[std::net::SocketAddr]) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for address in addresses {
        match TcpStream::connect_timeout(address, Duration::from_secs(30)) {
            Ok(stream) => {
                stream.set_nodelay(true)?;
                return Ok(stream);
            }
            Err(err) => last = err,
        }
    }
    Err(last)
}

// =============================================================================================
// Tests: cargo test --offline
// =============================================================================================

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(codes: &[&str]) -> Vec<String> {
        codes.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn json_round_trips_and_keeps_big_integers() {
        let text = r#"{"type":"play_request","id":18446744073709551615999,"x":[1,-0.5e-3,true,null,{}],"s":"a\"\\\/\n\u00e9\ud83d\ude00"}"#;
        let value = Json::parse(text).unwrap();
        assert_eq!(value.get("id"), Some(&Json::Number("18446744073709551615999".into())));
        assert_eq!(value.get("id").unwrap().as_i64(), None);
        assert_eq!(value.get("s").unwrap().as_str(), Some("a\"\\/\né😀"));
        let again = Json::parse(&value.to_string()).unwrap();
        assert_eq!(again, value);
        assert_eq!(Json::parse(r#""\ud800x""#).unwrap().as_str(), Some("\u{FFFD}x"));
        assert_eq!(Json::from("\u{1}\u{2028}").to_string(), r#""\u0001\u2028""#);
    }

    #[test]
    fn json_refuses_what_is_not_json() {
        for bad in [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "NaN",
            "Infinity",
            "-",
            "01",
            "1.",
            "1e",
            "{\"a\" 1}",
            "\"\\x\"",
            "\"\\u12\"",
            "\"a\tb\"",
            "{} {}",
            "\u{feff}{}",
            "[\"a\"",
            "tru",
            "{1:2}",
        ] {
            assert!(Json::parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(Json::parse(&deep).unwrap_err().message, "nested too deep");
        let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(Json::parse(&fine).is_ok());
        let huge = Json::parse(&"9".repeat(5000)).unwrap();
        assert_eq!((huge.as_i64(), huge.as_f64()), (None, None));
        assert_eq!(Json::parse("1e999").unwrap().as_f64(), None);
    }

    #[test]
    fn reads_lines_within_a_bound() {
        let input = b"short\r\n".to_vec();
        let mut data = input.clone();
        data.extend(vec![b'x'; 100]);
        data.extend(b"\nlast");
        let mut reader = io::BufReader::with_capacity(7, &data[..]);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line, 50).unwrap(), Some(true));
        assert_eq!(line, b"short");
        assert_eq!(read_line(&mut reader, &mut line, 50).unwrap(), Some(false));
        assert_eq!(read_line(&mut reader, &mut line, 50).unwrap(), Some(true));
        assert_eq!(line, b"last");
        assert_eq!(read_line(&mut reader, &mut line, 50).unwrap(), None);
    }

    #[test]
    fn cards_and_tricks() {
        assert_eq!((rank_of("QS"), rank_of("TD"), rank_of("10D"), rank_of("AH"), rank_of("X")), (12, 10, 10, 14, 0));
        assert_eq!(normal_card(" 10h"), "TH");
        let rules = Rules::default();
        assert_eq!(trick_winner(&cards(&["9D", "QD", "AS", "TD"]), &rules), Some(1));
        assert_eq!(trick_winner(&cards(&["9D", "9D"]), &rules), None);
        assert_eq!(trick_winner(&cards(&["9D", "KD", "KD"]), &rules), Some(0));
        let later = Rules { identical_cards: "later_wins".into(), ..Rules::default() };
        assert_eq!(trick_winner(&cards(&["9D", "KD", "KD"]), &later), Some(2));
        assert_eq!(trick_winner(&[], &rules), None);
    }

    #[test]
    fn decks_of_the_presets() {
        let american = Rules::default();
        assert_eq!(american.deck().len(), 52);
        let dutch = Rules { deck: "piket".into(), ..Rules::default() };
        assert_eq!(dutch.deck().len(), 32);
        let maria = Rules { players: 3, remove: cards(&["2D"]), ..Rules::default() };
        assert_eq!(maria.deck().len(), 51);
        let double = Rules { players: 6, copies: 2, trim_to_deal_evenly: true, ..Rules::default() };
        let deck = double.deck();
        assert_eq!(deck.len(), 102);
        assert!(!deck.contains(&"2D".to_string()));
        assert_eq!(deck.iter().filter(|c| *c == "2S").count(), 2);
    }

    struct Fixed;

    impl Bot for Fixed {
        fn choose_pass(&mut self, _: &State, _: &PassRequest) -> Vec<String> {
            vec!["XX".into()]
        }
        fn choose_play(&mut self, _: &State, request: &PlayRequest) -> String {
            if request.trick.is_empty() {
                panic!("a bug in the bot");
            }
            request.legal.last().unwrap().to_lowercase()
        }
    }

    #[test]
    fn a_session_keeps_the_state_and_replaces_bad_answers() {
        let mut bot = Fixed;
        let mut session = Session::new(&mut bot, Some("t".into()));
        let hello = session.handle_line(br#"{"type":"hello","versions":[1]}"#).unwrap();
        assert!(hello.contains(r#""token":"t""#), "{hello}");
        let start = r#"{"type":"match_start","seat":1,"players":[{"seat":0,"name":"a"},{"seat":1,"name":"b"},{"seat":2,"name":"c"},{"seat":3,"name":"d"}],"rules":{"players":4,"new_rule":[1]},"time":{"per_decision_ms":1000,"bank_ms":10000,"startup_ms":10000}}"#;
        assert_eq!(session.handle_line(start.as_bytes()), None);
        session.handle_line(br#"{"type":"round_start","round":0,"dealer":0,"hand":["2C","5C","QS","AH"],"pass_direction":"left","pass_count":1,"pass_to":2,"match_phase":1,"scores":[0,0,0,0]}"#);
        let pass = session.handle_line(br#"{"type":"pass_request","id":9000000001,"count":1,"legal":["2C","5C","QS","AH"],"to_seat":2,"time":{"decision_ms":1000,"bank_ms":10000}}"#);
        assert_eq!(pass.unwrap(), r#"{"type":"pass","id":9000000001,"cards":["2C"]}"#);
        session.handle_line(br#"{"type":"passed","given":["2C"],"to_seat":2,"received":["3D"],"from_seat":0,"hand":["5C","3D","QS","AH"]}"#);
        session.handle_line(br#"{"type":"card_played","seat":0,"card":"9C","trick_number":0}"#);
        let play = session.handle_line(br#"{"type":"play_request","id":2,"legal":["5C"],"trick":["9C"],"leader":0,"trick_number":0,"hearts_broken":false,"time":{"decision_ms":1000,"bank_ms":10000}}"#);
        assert_eq!(play.unwrap(), r#"{"type":"play","id":2,"card":"5C"}"#);
        for line in [
            r#"{"type":"card_played","seat":1,"card":"5C","trick_number":0}"#,
            r#"{"type":"card_played","seat":2,"card":"2H","trick_number":0}"#,
            r#"{"type":"card_played","seat":3,"card":"KC","trick_number":0}"#,
            r#"{"type":"trick_end","trick_number":0,"leader":0,"cards":["9C","5C","2H","KC"],"winner":3,"points":1}"#,
        ] {
            assert_eq!(session.handle_line(line.as_bytes()), None);
        }
        let state = &session.state;
        assert_eq!(state.hand, cards(&["3D", "QS", "AH"]));
        assert_eq!(state.points_taken, vec![0, 0, 0, 1]);
        assert!(state.is_void(2, 'C') && state.hearts_broken);
        assert_eq!((state.trick_leader, state.trick_number, state.tricks.len()), (Some(3), 1, 1));
        assert_eq!(state.unseen().len(), 52 - 3 - 4);
        // leading panics in this bot: the kit answers with the first legal card
        let lead = session.handle_line(br#"{"type":"play_request","id":3,"legal":["3D","QS"],"trick":[],"leader":1,"trick_number":1,"hearts_broken":true,"time":{"decision_ms":1000,"bank_ms":10000}}"#);
        assert_eq!(lead.unwrap(), r#"{"type":"play","id":3,"card":"3D"}"#);
        let moon =
            session.handle_line(br#"{"type":"moon_request","id":4,"options":["subtract_from_shooter"],"points":26}"#);
        assert_eq!(moon.unwrap(), r#"{"type":"moon","id":4,"choice":"subtract_from_shooter"}"#);
        assert_eq!(session.handle_line(br#"{"type":"error","code":"illegal_move","message":"m","fatal":false}"#), None);
        assert!(!session.finished);
        session.handle_line(br#"{"type":"goodbye","reason":"done"}"#);
        assert!(session.finished && session.exit_code == 0);
    }

    #[test]
    fn options() {
        let args = cards(&["--tcp", "[::1]:7000", "--token=abc", "--retry-for", "2.5", "--depth", "3"]);
        let options = parse_args(&args).unwrap();
        assert_eq!(options.tcp, Some(("::1".to_string(), 7000)));
        assert_eq!((options.token.as_deref(), options.retry_for), (Some("abc"), 2.5));
        assert!(parse_args(&cards(&["--tcp", "nowhere"])).is_err());
        assert!(parse_args(&cards(&["--retry-for", "-1"])).is_err());
    }
}
