//! A sample Hearts bot on the kit in `hearts.rs`: copy this folder and change what it plays.
//!
//! Pass: the highest cards. Play: lead the cheapest card; when following, the costliest card
//! that does not take the trick (a penalty card first, when void); when every card takes it,
//! the lowest, or, last to play, the highest card that carries no points.
//!
//! Build: cargo build --release --offline      Run: ./target/release/hearts-bot
//! Over TCP: ./target/release/hearts-bot --tcp HOST:PORT --token T

mod hearts;

use hearts::{card_points, compare_by_rank, rank_of, would_win, Bot, PassRequest, PlayRequest, State};

struct Ducker;

impl Bot for Ducker {
    fn name(&self) -> &str {
        "rust-ducker"
    }

    fn version(&self) -> &str {
        "1.0"
    }

    fn author(&self) -> &str {
        "hearts-referee sample bots"
    }

    fn choose_pass(&mut self, _state: &State, request: &PassRequest) -> Vec<String> {
        // request.legal is the whole hand: pass the request.count highest cards
        let mut cards = request.legal.clone();
        cards.sort_by(|a, b| compare_by_rank(b, a));
        cards.truncate(request.count);
        cards
    }

    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String {
        // cheapest first: fewest points, then lowest rank (request.legal is never empty)
        let mut cards = request.legal.clone();
        cards.sort_by_key(|card| (card_points(state, card), rank_of(card)));
        if request.trick.is_empty() {
            return cards[0].clone();
        }
        if let Some(duck) = cards.iter().rev().find(|card| !would_win(state, card)) {
            return duck.clone();
        }
        // every card takes the trick
        let last_to_play = request.trick.len() + 1 == state.num_players();
        if !last_to_play {
            return cards[0].clone();
        }
        let keep_points_out = |card: &&String| (-card_points(state, card), rank_of(card));
        cards.iter().max_by_key(keep_points_out).unwrap_or(&cards[0]).clone()
    }
}

fn main() {
    hearts::run(Ducker)
}
