// A person's seat: protocol v1 over a WebSocket. Every referee message is one text message;
// every reply is one. The page only ever sets text (never HTML) from what it is sent.
"use strict";
// cards.js, loaded first: SUITS, SUIT_ORDER, RANKS, $, token, suitOf, rankOf.


// How long a finished trick stays on the table with its winner marked (ms): a person follows
// the play; bots are told at once and never wait for a page. The address may set it: #hold=0.
const HOLD_MS = (() => {
  const match = /(?:^|[#&])hold=([0-9]{1,5})/.exec(location.hash);
  return match ? Number(match[1]) : 1500;
})();

const state = {
  ws: null, seat: 0, players: [], rules: null, hand: [], request: null, selected: new Set(),
  cursor: 0, trick: [], leader: 0, taken: [], scores: [], lastTrick: [], deadline: 0, bankEnd: 0,
  sheet: [], matchId: null, received: [], passedRound: null, held: null, declarations: [],
  ended: false, round: -1, phase: 1,
};

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws?token=${encodeURIComponent(token())}`);
  state.ws = ws;
  ws.onmessage = (event) => {
    if (typeof event.data !== "string") return;
    let message;
    try { message = JSON.parse(event.data); } catch (err) { return; }
    if (message && typeof message.type === "string") handle(message);
  };
  ws.onclose = () => {
    if (state.dropped) setStatus("dropped: the referee plays your seat until the match ends");
    else if (!state.ended) setStatus("disconnected: reload the page to take your seat again");
  };
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

function setStatus(text) { $("status").textContent = text; }
function say(text, refused = false) {
  const node = $("message");
  node.textContent = text;
  node.className = refused ? "message refused" : "message";
}

function sortHand(cards) {
  return [...cards].sort((a, b) =>
    SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)));
}
function cardNode(code) {
  const node = document.createElement("span");
  node.className = "card" + ("DH".includes(suitOf(code)) ? " red" : "");
  const rank = document.createElement("span");
  rank.textContent = rankOf(code) === "T" ? "10" : rankOf(code);
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUITS[suitOf(code)] || suitOf(code);
  node.append(rank, suit);
  node.dataset.card = code;
  return node;
}
// A seat's name, with its number when another seat has the same name ("random #2"): three
// bots called "random" must be told apart in the prompts, the table and the score sheet.
function nameOf(seat) {
  const player = state.players.find((p) => p.seat === seat);
  if (!player) return `seat ${seat}`;
  const twins = state.players.filter((p) => p.name === player.name).length;
  return twins > 1 ? `${player.name} #${seat}` : player.name;
}

// Where a pass goes, in words (the rules' offset clockwise: left 1, right n-1, across n/2).
function direction(toSeat) {
  const n = state.players.length || 4;
  const offset = (toSeat - state.seat + n) % n;
  if (offset === 1) return "left";
  if (offset === n - 1) return "right";
  if (2 * offset === n) return "across";
  return offset < n / 2 ? `${offset} seats left` : `${n - offset} seats right`;
}

function handle(m) {
  switch (m.type) {
    case "hello":
      send({ type: "hello", version: 1, name: "person", bot_version: "web" });
      setStatus("connected: waiting for the match");
      break;
    case "match_start":
      state.seat = m.seat; state.players = m.players; state.rules = m.rules;
      $("variant").textContent = m.rules.name || "";
      $("my-name").textContent = `${nameOf(m.seat)} (seat ${m.seat})`;
      if (!state.scores.length) state.scores = m.players.map(() => 0);
      scoreHeader();
      state.matchId = m.match_id;
      state.sheet = loadSheet(); // a reload keeps the rounds already scored
      document.querySelector("#scores tbody").textContent = "";
      state.sheet.forEach(scoreRow);
      setStatus("match started");
      break;
    case "round_start":
      state.toAct = null; // passing is everyone's at once; the first lead is not known yet
      if (m.round !== state.round) {
        state.taken = state.players.map(() => 0); state.trick = []; state.lastTrick = []; state.declarations = [];
      }
      state.round = m.round; state.hand = m.hand; state.scores = m.scores; state.phase = m.match_phase;
      state.selected.clear(); state.request = null;
      if (m.round !== state.passedRound) { state.received = []; $("passed").textContent = ""; }
      setStatus(`round ${m.round + 1}` + (m.pass_count ? `: pass ${m.pass_count} to ${nameOf(m.pass_to)}` : ": no passing"));
      break;
    case "pass_request":
      ask(m, `Choose ${m.count} cards to pass ${direction(m.to_seat)}, to ${nameOf(m.to_seat)}`);
      break;
    case "passed":
      state.hand = m.hand;
      setStatus(`round ${state.round + 1}: tricks`);
      state.received = [...m.received]; state.passedRound = state.round; // marked until the first card
      $("passed").textContent = `You passed ${m.given.map(label).join(" ")} to ${nameOf(m.to_seat)}` +
        ` and received ${m.received.map(label).join(" ")} from ${nameOf(m.from_seat)}.`;
      break;
    case "play_request":
      state.trick = m.trick.map((card, i) => ({ seat: (m.leader + i) % state.players.length, card }));
      ask(m, "Your turn: play a raised card");
      break;
    case "declare_request":
      // the earlier seats' decisions, also after a reload (null: yet to decide)
      state.declarations = m.declarations.map((d, seat) => ({ seat, declared: d })).filter((d) => d.declared !== null);
      ask(m, `Declare to take no penalty points this round (worth ${m.points})?`);
      break;
    case "moon_request":
      ask(m, `You shot the moon (${m.points}): how is it scored?`);
      break;
    case "declared":
      // every declaration of the round stays listed, not only the last
      state.declarations = [...state.declarations.filter((d) => d.seat !== m.seat), { seat: m.seat, declared: m.declared }];
      break;
    case "card_played":
      state.held = null; // the next trick has begun: the last one is gathered at once
      if (!state.trick.length) state.leader = m.seat;
      state.received = []; // the received cards are marked until the first card of the round
      state.trick.push({ seat: m.seat, card: m.card });
      if (m.seat === state.seat) removeOne(m.card); // a double deck holds two of a card: one goes
      state.toAct = (m.seat + 1) % (state.players.length || 4); // clockwise, until the trick ends
      break;
    case "trick_end":
      // the whole trick stays on the table a moment, its winner marked, before it is gathered
      state.held = { trick: state.trick, winner: m.winner ?? null, until: performance.now() + HOLD_MS };
      if (m.winner !== null && m.winner !== undefined) say(`${nameOf(m.winner)} takes the trick (${m.points} points).`);
      state.lastTrick = state.trick; state.trick = [];
      setStatus(`round ${state.round + 1}: trick ${m.trick_number + 2}`);
      if (m.winner !== null && m.winner !== undefined) state.taken[m.winner] += m.points;
      state.toAct = m.winner ?? null; // the winner leads the next trick
      break;
    case "round_end":
      state.toAct = null;
      state.scores = m.scores;
      setStatus(`round ${m.round + 1} over`);
      scoreRow(m);
      state.sheet.push(m); saveSheet();
      break;
    case "match_end":
      state.ended = true; endScreen(m);
      break;
    case "error":
      say(`The referee says (${m.code}${m.rule ? ", " + m.rule : ""}): ${m.message}`, true);
      if (m.fatal) { state.request = null; state.dropped = true; setStatus("dropped: the referee plays your seat now"); }
      break;
    case "goodbye":
      state.ended = true; setStatus("the match is over");
      break;
    default:
      return; // protocol v1: unknown messages are ignored
  }
  render();
}

function label(code) { return (rankOf(code) === "T" ? "10" : rankOf(code)) + (SUITS[suitOf(code)] || ""); }

function ask(m, prompt) {
  state.request = m; state.selected.clear();
  const now = performance.now();
  state.deadline = now + m.time.decision_ms; state.bankEnd = state.deadline + m.time.bank_ms;
  $("prompt").textContent = prompt;
  const legal = legalCards();
  const first = sortHand(state.hand).findIndex((c) => legal.has(c));
  if (first >= 0) state.cursor = first;
}

function legalCards() {
  const r = state.request;
  return new Set(r && (r.type === "play_request" || r.type === "pass_request") ? r.legal : []);
}

// Why a card is not playable now, in the rules' own words (the request's legal list decides;
// this only explains it, so a person is never dropped for a misclick).
function whyNot(code) {
  const r = state.request;
  if (!r || r.type !== "play_request") return "It is not your turn.";
  if (r.trick.length) {
    const led = suitOf(r.trick[0]);
    if (suitOf(code) !== led && state.hand.some((c) => suitOf(c) === led))
      return `must_follow_suit: ${SUITS[led]} was led and you hold ${SUITS[led]}.`;
  } else if (suitOf(code) === "H" && !r.hearts_broken) {
    return "hearts_not_broken: you may not lead ♥ until hearts are broken.";
  }
  if (r.trick_number === 0 || r.trick_number === 1) {
    if (!r.trick.length && r.legal.length === 1) return `first_lead: the first trick is led with ${label(r.legal[0])}.`;
    return "no_points_first_trick: no penalty cards on the first trick while you have another card.";
  }
  return "not a legal play now: the raised cards are.";
}

function removeOne(code) {
  const at = state.hand.indexOf(code);
  if (at >= 0) state.hand = [...state.hand.slice(0, at), ...state.hand.slice(at + 1)];
}

// Cards to pass are chosen by their place in the sorted hand, not by code: a double deck
// holds two copies of a card, and choosing one must not choose both.
function chosenCards() {
  const sorted = sortHand(state.hand);
  return [...state.selected].map((i) => sorted[i]);
}

function clickCard(code, index) {
  const r = state.request;
  if (!r) { say("It is not your turn.", true); return; }
  if (r.type === "pass_request") {
    const at = index ?? sortHand(state.hand).indexOf(code);
    if (state.selected.has(at)) state.selected.delete(at);
    else if (state.selected.size < r.count) state.selected.add(at);
    else say(`Pass exactly ${r.count} cards: unselect one first.`, true);
    render();
    return;
  }
  if (r.type !== "play_request") return;
  if (!r.legal.includes(code)) { say(`Refused: ${whyNot(code)}`, true); return; }
  send({ type: "play", id: r.id, card: code });
  state.request = null; say("");
  render();
}

function confirmPass() {
  const r = state.request;
  if (!r || r.type !== "pass_request" || state.selected.size !== r.count) return;
  send({ type: "pass", id: r.id, cards: chosenCards() });
  state.request = null; say("");
  render();
}

function choose(reply) {
  const r = state.request;
  if (!r) return;
  send({ ...reply, id: r.id });
  state.request = null;
  render();
}

function render() {
  const n = state.players.length || 4;
  const seats = $("seats");
  seats.textContent = "";
  // where each seat sits, in % of the table, from your seat (bottom) clockwise
  const spots = n === 3 ? [[50, 86], [16, 28], [84, 28]] : n === 5 ? [[50, 88], [12, 58], [24, 12], [76, 12], [88, 58]]
    : n === 6 ? [[50, 88], [12, 66], [12, 24], [50, 10], [88, 24], [88, 66]] : [[50, 86], [14, 50], [50, 12], [86, 50]];
  const half = n >= 5 ? 80 : 105; // half a seat box (px): a box never leaves the table's edge
  const turn = state.request ? state.seat : state.toAct ?? null; // whoever is to act, not only you
  $("table").dataset.players = String(n);
  state.players.forEach((p, i) => {
    const rel = (p.seat - state.seat + n) % n;
    const node = document.createElement("div");
    node.className = "seat" + (p.seat === state.seat ? " me" : "") + (turn === p.seat ? " turn" : "");
    node.dataset.seat = String(p.seat);
    const [x, y] = spots[rel] || [50, 50];
    node.style.left = `clamp(${half}px, ${x}%, calc(100% - ${half}px))`; node.style.top = `${y}%`;
    const who = document.createElement("div");
    who.className = "who";
    const name = document.createElement("span");
    name.className = "name"; name.textContent = nameOf(p.seat); name.title = p.name;
    const stats = document.createElement("span");
    stats.className = "stats";
    stats.textContent = `${state.scores[i] ?? 0} pts · took ${state.taken[i] ?? 0}`;
    who.append(name, stats);
    node.append(who);
    seats.append(node);
  });
  const trick = $("trick");
  trick.textContent = "";
  // each card in front of the seat that played it: halfway from the table's middle to the seat
  const at = spots.map(([x, y]) => [50 + (x - 50) * 0.5, 50 + (y - 50) * 0.52]);
  const held = !state.trick.length && state.held && performance.now() < state.held.until ? state.held : null;
  for (const { seat, card } of held ? held.trick : state.trick) {
    const rel = (seat - state.seat + n) % n;
    const spot = document.createElement("div");
    spot.className = "played" + (held && seat === held.winner ? " won" : "");
    spot.dataset.seat = String(seat);
    const [x, y] = at[rel] || [50, 50];
    spot.style.left = `${x}%`; spot.style.top = `${y}%`;
    const by = document.createElement("span");
    by.className = "by"; by.textContent = nameOf(seat);
    spot.append(cardNode(card), by);
    trick.append(spot);
  }
  if (!state.request) $("prompt").textContent = state.ended ? "" : "waiting for the others…";
  const hand = $("hand");
  hand.textContent = "";
  const legal = legalCards();
  const sorted = sortHand(state.hand);
  hand.classList.toggle("many", sorted.length > 13); // 16 or 17 cards (3 players) on one row
  const receivedLeft = {}; // a double deck may pass you a copy of a card you hold: mark one
  for (const code of state.received || []) receivedLeft[code] = (receivedLeft[code] || 0) + 1;
  if (state.cursor >= sorted.length) state.cursor = Math.max(0, sorted.length - 1);
  sorted.forEach((code, i) => {
    const node = cardNode(code);
    if (legal.has(code)) node.classList.add("legal");
    if (state.selected.has(i)) node.classList.add("selected");
    if (receivedLeft[code] > 0) { node.classList.add("received"); receivedLeft[code] -= 1; node.title = "received"; }
    if (i === state.cursor && state.request) node.classList.add("cursor");
    if (i > 0 && suitOf(sorted[i - 1]) !== suitOf(code)) node.classList.add("gap");
    node.setAttribute("role", "option");
    node.addEventListener("click", () => { state.cursor = i; clickCard(code, i); });
    hand.append(node);
  });
  const choices = $("choices");
  choices.textContent = "";
  const r = state.request;
  const button = (text, action, disabled = false) => {
    const b = document.createElement("button");
    b.textContent = text; b.disabled = disabled; b.addEventListener("click", action);
    choices.append(b);
  };
  if (r && r.type === "pass_request")
    button(`Pass ${state.selected.size}/${r.count}`, confirmPass, state.selected.size !== r.count);
  if (r && r.type === "declare_request") {
    button("Declare (take no points)", () => choose({ type: "declare", declare: true }));
    button("Do not declare", () => choose({ type: "declare", declare: false }));
  }
  if (r && r.type === "moon_request")
    for (const option of r.options) button(option.replaceAll("_", " "), () => choose({ type: "moon", choice: option }));
  $("declarations").textContent = state.declarations.length ? "Declarations: " + state.declarations
    .map((d) => `${d.seat === state.seat ? "you" : nameOf(d.seat)} ${d.declared ? "declared" : "did not declare"}`).join(", ") + "." : "";
  const last = $("last-trick");
  last.textContent = "";
  for (const { card } of state.lastTrick) last.append(cardNode(card));
}

function loadSheet() {
  try { return JSON.parse(sessionStorage.getItem(`sheet:${state.matchId}`) || "[]"); } catch { return []; }
}

function saveSheet() {
  try { sessionStorage.setItem(`sheet:${state.matchId}`, JSON.stringify(state.sheet)); } catch { /* private mode */ }
}

function scoreHeader() {
  const head = document.querySelector("#scores thead");
  head.textContent = "";
  const row = document.createElement("tr");
  const many = state.players.length > 4; // six names and the round fit the sheet's width
  $("scores").classList.toggle("many", many);
  for (const text of [many ? "#" : "round", ...state.players.map((p) => nameOf(p.seat))]) {
    const th = document.createElement("th"); th.textContent = text; row.append(th);
  }
  row.firstElementChild.title = "round";
  head.append(row);
}

function scoreRow(m) {
  const body = document.querySelector("#scores tbody");
  const row = document.createElement("tr");
  if (body.lastElementChild && body.lastElementChild.dataset.phase !== String(m.match_phase)) row.className = "phase";
  row.dataset.phase = String(m.match_phase);
  const cells = [`${m.round + 1}${m.match_phase === 2 ? " (phase 2)" : ""}${m.moon !== null ? " 🌙" : ""}`,
    ...m.scores.map(String)];
  cells.forEach((text, i) => {
    const td = document.createElement("td"); td.textContent = text;
    if (i > 0) { // the round's change under the score: six seats still fit the sheet's width
      const change = document.createElement("span");
      change.className = "change"; change.textContent = `${m.score_changes[i - 1] >= 0 ? "+" : ""}${m.score_changes[i - 1]}`;
      td.append(change);
    }
    row.append(td);
  });
  body.append(row);
}

function endScreen(m) {
  const text = $("result-text");
  text.textContent = "";
  const winners = m.winners.map(nameOf).join(", ") || "nobody";
  const head = document.createElement("p");
  head.textContent = `${m.winners.includes(state.seat) ? "You win!" : "Winner: " + winners} (${m.reason.replaceAll("_", " ")}, ${m.rounds} rounds)`;
  text.append(head);
  for (const s of m.seats) {
    const p = document.createElement("p");
    p.textContent = `${s.name}: ${m.scores[s.seat]}${s.status !== "ok" ? " (" + s.status + ")" : ""}`;
    text.append(p);
  }
  $("result").hidden = false;
  setStatus("the match is over");
}

function tick() {
  if (state.held && performance.now() >= state.held.until) { state.held = null; render(); } // gather it
  const clock = $("clock");
  if (!state.request) { clock.textContent = ""; clock.className = "clock"; return; }
  const now = performance.now();
  if (now < state.deadline) {
    clock.textContent = `${((state.deadline - now) / 1000).toFixed(1)} s + bank ${((state.bankEnd - state.deadline) / 1000).toFixed(0)} s`;
    clock.className = "clock";
  } else {
    clock.textContent = `bank ${(Math.max(0, state.bankEnd - now) / 1000).toFixed(1)} s`;
    clock.className = "clock bank";
  }
}

document.addEventListener("keydown", (event) => {
  const sorted = sortHand(state.hand);
  if (!state.request || !sorted.length) return;
  if (event.key === "ArrowRight") state.cursor = (state.cursor + 1) % sorted.length;
  else if (event.key === "ArrowLeft") state.cursor = (state.cursor - 1 + sorted.length) % sorted.length;
  else if (event.key === " " && state.request.type === "pass_request") clickCard(sorted[state.cursor], state.cursor);
  else if (event.key === "Enter" && state.request.type === "pass_request") {
    if (state.selected.size === state.request.count) confirmPass(); else clickCard(sorted[state.cursor], state.cursor);
  } else if (event.key === "Enter") clickCard(sorted[state.cursor]);
  else return;
  event.preventDefault();
  render();
});

setInterval(tick, 200);
if (!token()) setStatus("no token in the address: open the address the referee printed");
else connect();
render();
