// Panics and answers illegally on purpose: the kit must log it and answer legally instead.
#[path = "../src/hearts.rs"]
mod hearts;
use hearts::{Bot, DeclareRequest, Json, MoonRequest, PassRequest, PlayRequest, State};

struct Buggy {
    calls: u32,
}

impl Bot for Buggy {
    fn name(&self) -> &str {
        "buggy"
    }
    fn on_message(&mut self, _: &State, message: &Json) {
        if message.kind() == Some("trick_end") {
            panic!("a bug in on_message");
        }
    }
    fn choose_pass(&mut self, _: &State, request: &PassRequest) -> Vec<String> {
        self.calls += 1;
        match self.calls % 3 {
            0 => panic!("a bug in choose_pass"),
            1 => vec!["XX".to_string(); request.count],
            _ => request.legal.iter().take(request.count + 1).cloned().collect(),
        }
    }
    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String {
        self.calls += 1;
        match self.calls % 4 {
            0 => panic!("a bug in choose_play"),
            1 => "ZZ".to_string(),
            2 => state.played.first().cloned().unwrap_or_default(),
            _ => request.legal[request.legal.len() - 1].to_lowercase(),
        }
    }
    fn choose_declare(&mut self, _: &State, _: &DeclareRequest) -> bool {
        panic!("a bug in choose_declare")
    }
    fn choose_moon(&mut self, _: &State, _: &MoonRequest) -> String {
        "bogus".to_string()
    }
}

fn main() {
    hearts::run(Buggy { calls: 0 })
}
