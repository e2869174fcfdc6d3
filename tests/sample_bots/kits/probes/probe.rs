// Prints the kit's table state on stderr at every play, for the test to compare with the engine.
#[path = "../src/hearts.rs"]
mod hearts;
use hearts::{Bot, Json, PassRequest, PlayRequest, State};

fn cards(list: &[String]) -> Json {
    let mut sorted = list.to_vec();
    sorted.sort();
    sorted.into()
}

fn seat(seat: Option<usize>) -> Json {
    seat.map_or(Json::Null, |s| (s as i64).into())
}

#[derive(Default)]
struct Probe {
    events: Option<Json>, // the state as the events left it, before the request synced it
}

impl Bot for Probe {
    fn name(&self) -> &str {
        "state-probe"
    }
    fn on_message(&mut self, state: &State, message: &Json) {
        if message.kind() != Some("play_request") {
            self.events = Some(Json::object([
                ("trick", state.trick.clone().into()),
                ("hearts_broken", state.hearts_broken.into()),
                ("trick_number", (state.trick_number as i64).into()),
            ]));
        }
    }
    fn choose_pass(&mut self, _: &State, request: &PassRequest) -> Vec<String> {
        request.legal[request.legal.len() - request.count..].to_vec()
    }
    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String {
        println!("stray output: the kit must send it to stderr");
        let ints = |list: &[i64]| Json::Array(list.iter().map(|&n| n.into()).collect());
        let voids = state.voids.iter().map(|v| {
            let mut suits: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            suits.sort();
            Json::from(suits)
        });
        let seen = Json::object([
            ("seat", (state.seat as i64).into()),
            ("hand", cards(&state.hand)),
            ("scores", ints(&state.scores)),
            ("points_taken", ints(&state.points_taken)),
            ("passed", cards(&state.passed)),
            ("received", cards(&state.received)),
            ("declared", Json::Array(state.declarations.iter().map(|d| d.map_or(Json::Null, Json::from)).collect())),
            ("winners", Json::Array(state.tricks.iter().map(|t| seat(t.winner)).collect())),
            ("leader", seat(state.trick_leader)),
            ("winning", seat(state.trick_winner())),
            ("voids", Json::Array(voids.collect())),
            ("unseen", cards(&state.unseen())),
            ("events", self.events.clone().unwrap_or(Json::Null)),
        ]);
        eprintln!("STATE {seen}");
        request.legal[request.legal.len() - 1].clone()
    }
}

fn main() {
    hearts::run(Probe::default())
}
