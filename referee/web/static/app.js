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

function freshState() {
  return {
    ws: null, seat: 0, players: [], rules: null, hand: [], request: null, selected: new Set(),
    cursor: 0, trick: [], leader: 0, taken: [], scores: [], lastTrick: null, deadline: 0, bankEnd: 0,
    sheet: [], matchId: null, received: [], passedRound: null, passInfo: null, held: null, declarations: [],
    ended: false, round: -1, roundStart: null, phase: 1, tricks: [], summary: null, note: "", result: null,
    elsewhere: null, dropped: false, closed: false, retelling: false,
  };
}
let state = freshState();

// A page that opens the seat while another page holds it is told so (seat_taken) and may take
// the seat over (takeover=1): the other page is then told, and this one is sent the whole table.
function connect(takeover = false) {
  if (state.ws) { state.ws.onclose = null; state.ws.close(); }
  state = freshState();
  render();
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws?token=${encodeURIComponent(token())}${takeover ? "&takeover=1" : ""}`);
  state.ws = ws;
  ws.onmessage = (event) => {
    if (typeof event.data !== "string") return;
    let message;
    try { message = JSON.parse(event.data); } catch (err) { return; }
    if (message && typeof message.type === "string") handle(message);
  };
  ws.onclose = () => { state.closed = true; render(); };
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

// The status line, from the table's state (a reload rebuilds the state, so the line follows).
function statusText() {
  if (!token()) return "no token in the address: open the address the referee printed";
  if (state.elsewhere) return state.elsewhere;
  if (state.dropped) return "dropped: the referee plays your seat until the match ends";
  if (state.ended) return "the match is over";
  if (state.closed) return "disconnected: reload the page to take your seat again";
  if (!state.players.length) return state.ws && state.ws.readyState === WebSocket.OPEN ? "connected: waiting for the match" : "connecting…";
  if (state.round < 0) return "match started";
  const number = state.round + 1;
  if (state.summary && state.summary.round === state.round) return `round ${number} over`;
  const r = state.roundStart;
  if (r && r.pass_count && state.passedRound !== state.round && !state.tricks.length && !state.trick.length)
    return `round ${number}: pass ${r.pass_count} ${direction(r.pass_to)} to ${nameOf(r.pass_to)}`;
  return `round ${number}: trick ${state.tricks.length + (state.trick.length || !state.tricks.length ? 1 : 0)}`;
}
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
// A seat's name, with its number when another seat has the same name ("random #2"): the same
// rule on every page (cards.js), in the prompts, the table, the logs, the sheet and the result.
function nameOf(seat) { return seatName(state.players, seat); }

// Where a pass goes, in words (the rules' offset clockwise: left 1, right n-1, across n/2).
function direction(toSeat) {
  const n = state.players.length || 4;
  const offset = (toSeat - state.seat + n) % n;
  if (offset === 1) return "left";
  if (offset === n - 1) return "right";
  if (2 * offset === n) return "across";
  return offset < n / 2 ? `${offset} seats left` : `${n - offset} seats right`;
}

// Whether a double deck's twin cards cancel each other in a trick.
function cancels() { return Boolean(state.rules && state.rules.copies > 1 && state.rules.identical_cards === "cancel"); }

function handle(m) {
  switch (m.type) {
    case "hello":
      send({ type: "hello", version: 1, name: "person", bot_version: "web" });
      break;
    case "match_start": matchStart(m); break;
    case "round_start": roundStart(m); break;
    case "pass_request":
      ask(m, `Choose ${m.count} cards to pass ${direction(m.to_seat)}, to ${nameOf(m.to_seat)}`);
      break;
    case "passed":
      state.hand = m.hand; state.selected.clear();
      // the cards received stay marked until each is played
      state.received = [...m.received]; state.passedRound = state.round; state.passInfo = m;
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
    case "card_played": cardPlayed(m); break;
    case "trick_end": trickEnd(m); break;
    case "round_end":
      state.toAct = null; state.scores = m.scores;
      state.sheet.push(m);
      state.summary = { ...m, pass: state.roundStart, tricks: state.tricks };
      break;
    case "match_end":
      state.ended = true; state.result = m; state.summary = null;
      afterMatch(m.match_id);
      break;
    case "error":
      if (m.code === "seat_taken") { // another page holds the seat, or took it from this one
        state.elsewhere = m.message.includes("now played") ? "This seat is now played in another tab or device."
          : "This seat is open in another tab or device.";
        state.request = null;
        break;
      }
      say(`The referee says (${m.code}${m.rule ? ", " + m.rule : ""}): ${m.message}`, true);
      if (m.fatal) { state.request = null; state.dropped = true; }
      break;
    case "goodbye":
      state.ended = true;
      break;
    default:
      return; // protocol v1: unknown messages are ignored
  }
  render();
}

function matchStart(m) {
  if (m.match_id === state.matchId) { state.retelling = true; return; } // told again after a reconnection
  const seat = state.seat;
  Object.assign(state, freshState(), { ws: state.ws, seat }); // a new match at the same table
  state.seat = m.seat; state.players = m.players; state.rules = m.rules; state.matchId = m.match_id;
  $("variant").textContent = m.rules.name || "";
  $("my-name").textContent = `${nameOf(m.seat)} (seat ${m.seat})`;
  state.scores = m.players.map(() => 0);
  $("result").hidden = true;
}

function roundStart(m) {
  const retold = state.retelling && m.round === state.round;
  state.retelling = false;
  state.hand = m.hand; state.scores = m.scores; state.phase = m.match_phase;
  state.selected.clear(); state.request = null;
  if (retold) return; // the same round told again: the page keeps what it saw of it
  state.toAct = null; // passing is everyone's at once; the first lead is not known yet
  state.round = m.round; state.roundStart = m;
  state.taken = state.players.map(() => 0); state.trick = []; state.lastTrick = null; state.tricks = [];
  state.declarations = []; state.received = []; state.passInfo = null; state.note = ""; state.held = null;
}

function cardPlayed(m) {
  state.held = null; // the next trick has begun: the last one is gathered at once
  if (!state.trick.length) state.leader = m.seat;
  if (state.summary && state.summary.round !== state.round) state.summary = null; // the next round is in play
  const twin = cancels() ? state.trick.find((p) => p.card === m.card) : null;
  state.note = twin ? `${label(m.card)} of ${nameOf(m.seat)} cancels ${label(twin.card)} of ${nameOf(twin.seat)}: two identical cards, neither can take the trick.` : "";
  state.trick.push({ seat: m.seat, card: m.card });
  if (m.seat === state.seat) { // a double deck holds two of a card: one goes
    removeOne(m.card);
    const at = state.received.indexOf(m.card);
    if (at >= 0) state.received.splice(at, 1); // a received card is marked until it is played
  }
  state.toAct = (m.seat + 1) % (state.players.length || 4); // clockwise, until the trick ends
}

function trickEnd(m) {
  // the whole trick stays on the table a moment, its winner marked, before it is gathered
  const plays = m.cards.map((card, i) => ({ seat: (m.leader + i) % state.players.length, card }));
  const done = { number: m.trick_number, leader: m.leader, plays, winner: m.winner ?? null, points: m.points };
  state.held = { trick: plays, winner: done.winner, until: performance.now() + HOLD_MS };
  state.tricks = [...state.tricks.filter((t) => t.number !== done.number), done];
  state.lastTrick = done; state.trick = [];
  if (done.winner !== null) {
    say(`${nameOf(done.winner)} takes the trick (${m.points} points).`);
    state.taken[done.winner] = state.tricks.filter((t) => t.winner === done.winner).reduce((sum, t) => sum + t.points, 0);
  } else {
    say("Every card of the led suit was cancelled by its twin: the trick's cards go to the winner of the next trick.");
  }
  state.note = "";
  state.toAct = done.winner ?? m.leader; // the winner leads the next trick
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
  state.request = null; state.selected.clear(); say(""); // the selection held places, not cards
  render();
}

function choose(reply) {
  const r = state.request;
  if (!r) return;
  send({ ...reply, id: r.id });
  state.request = null;
  render();
}

// Where each seat sits, in % of the table, from your seat (bottom) clockwise.
function spots(n) {
  return n === 3 ? [[50, 86], [16, 28], [84, 28]] : n === 5 ? [[50, 88], [12, 58], [24, 12], [76, 12], [88, 58]]
    : n === 6 ? [[50, 88], [12, 66], [12, 24], [50, 10], [88, 24], [88, 66]] : [[50, 86], [14, 50], [50, 12], [86, 50]];
}

// Where each seat's card of the trick lies: halfway from the table's middle to the seat; on a
// phone nearer the middle (the seat boxes take more of the narrow table), six seats placed by hand.
const PHONE = window.matchMedia("(max-width: 600px)");
// A phone turned, or a window narrowed or widened, across that width: the table is drawn again
// at once for its new shape (the cards of a trick in play moved to their new spots), not at the
// next card, which may be a minute away.
PHONE.addEventListener("change", () => render());

function trickSpots(n) {
  if (!PHONE.matches) return spots(n).map(([x, y]) => [50 + (x - 50) * 0.5, 50 + (y - 50) * 0.52]);
  if (n === 6) return [[50, 68], [32, 63], [32, 33], [50, 28], [68, 33], [68, 63]];
  return spots(n).map(([x, y]) => [50 + (x - 50) * 0.36, 50 + (y - 50) * 0.52]);
}

function render() {
  $("status").textContent = statusText();
  renderSeats();
  renderTrick();
  renderHand();
  renderChoices();
  renderSheet();
  renderLog();
  renderSummary();
  renderResult();
}

function renderSeats() {
  const n = state.players.length || 4;
  const seats = $("seats");
  seats.textContent = "";
  const at = spots(n);
  // half a seat box (px), so a box never leaves the table's edge (a phone's boxes are narrower)
  const half = Number.parseFloat(getComputedStyle($("table")).getPropertyValue(n >= 5 ? "--seat-many" : "--seat")) / 2 || (n >= 5 ? 80 : 105);
  const turn = state.request ? state.seat : state.toAct ?? null; // whoever is to act, not only you
  $("table").dataset.players = String(n);
  state.players.forEach((p, i) => {
    const rel = (p.seat - state.seat + n) % n;
    const node = document.createElement("div");
    node.className = "seat" + (p.seat === state.seat ? " me" : "") + (turn === p.seat ? " turn" : "");
    node.dataset.seat = String(p.seat);
    const [x, y] = at[rel] || [50, 50];
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
}

function renderTrick() {
  const n = state.players.length || 4;
  const trick = $("trick");
  trick.textContent = "";
  // each card in front of the seat that played it: halfway from the table's middle to the seat
  const at = trickSpots(n);
  const held = !state.trick.length && state.held && performance.now() < state.held.until ? state.held : null;
  const plays = held ? held.trick : state.trick;
  for (const { seat, card } of plays) {
    const rel = (seat - state.seat + n) % n;
    const spot = document.createElement("div");
    const twin = cancels() && plays.filter((p) => p.card === card).length > 1;
    spot.className = "played" + (held && seat === held.winner ? " won" : "") + (twin ? " cancelled" : "");
    spot.dataset.seat = String(seat);
    const [x, y] = at[rel] || [50, 50];
    spot.style.left = `${x}%`; spot.style.top = `${y}%`;
    const by = document.createElement("span");
    by.className = "by"; by.textContent = nameOf(seat);
    spot.append(cardNode(card), by);
    trick.append(spot);
  }
  $("note").textContent = state.note;
}

function renderHand() {
  if (!state.request) $("prompt").textContent = state.ended || state.elsewhere ? "" : "waiting for the others…";
  const hand = $("hand");
  hand.textContent = "";
  const legal = legalCards();
  const passing = state.request && state.request.type === "pass_request";
  const sorted = sortHand(state.hand);
  hand.classList.toggle("many", sorted.length > 13); // 16 or 17 cards (3 players) on one row
  const receivedLeft = {}; // a double deck may pass you a copy of a card you hold: mark one
  for (const code of state.received || []) receivedLeft[code] = (receivedLeft[code] || 0) + 1;
  if (state.cursor >= sorted.length) state.cursor = Math.max(0, sorted.length - 1);
  sorted.forEach((code, i) => {
    const node = cardNode(code);
    if (legal.has(code)) node.classList.add("legal");
    if (passing && state.selected.has(i)) node.classList.add("selected");
    if (receivedLeft[code] > 0) { node.classList.add("received"); receivedLeft[code] -= 1; node.title = "received"; }
    if (i === state.cursor && state.request) node.classList.add("cursor");
    if (i > 0 && suitOf(sorted[i - 1]) !== suitOf(code)) node.classList.add("gap");
    node.setAttribute("role", "option");
    node.addEventListener("click", () => { state.cursor = i; clickCard(code, i); });
    hand.append(node);
  });
  const p = state.passInfo;
  $("passed").textContent = p ? `You passed ${p.given.map(label).join(" ")} to ${nameOf(p.to_seat)}` +
    ` and received ${p.received.map(label).join(" ")} from ${nameOf(p.from_seat)}.` : "";
  $("declarations").textContent = state.declarations.length ? "Declarations: " + state.declarations
    .map((d) => `${d.seat === state.seat ? "you" : nameOf(d.seat)} ${d.declared ? "declared" : "did not declare"}`).join(", ") + "." : "";
  const banner = $("elsewhere");
  banner.hidden = !state.elsewhere;
  $("elsewhere-text").textContent = state.elsewhere || "";
}

function renderChoices() {
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
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A trick as a line of the log: its number, who led, the cards by seat, who took it.
function trickLine(t) {
  const line = el("li", "trick-line");
  line.dataset.trick = String(t.number);
  line.append(el("span", "num", `${t.number + 1}.`));
  const cards = el("span", "cards");
  for (const { seat, card } of t.plays) {
    const play = el("span", "play" + (seat === t.winner ? " won" : ""));
    play.title = nameOf(seat);
    play.append(cardNode(card), el("span", "by", nameOf(seat)));
    cards.append(play);
  }
  line.append(cards);
  line.append(el("span", "what", `led by ${nameOf(t.leader)} · ` + (t.winner === null
    ? "cancelled: carried to the next trick" : `${nameOf(t.winner)} took it` + (t.points ? ` (${t.points})` : ""))));
  return line;
}

function renderLog() {
  const last = $("last-trick");
  last.textContent = "";
  if (state.lastTrick) last.append(trickLine(state.lastTrick));
  const log = $("tricks");
  log.textContent = "";
  for (const t of state.tricks) log.append(trickLine(t));
  $("tricks-title").textContent = state.round >= 0 ? `Round ${state.round + 1}: tricks (${state.tricks.length})` : "Tricks";
}

function renderSheet() {
  const head = document.querySelector("#scores thead");
  head.textContent = "";
  const row = document.createElement("tr");
  const many = state.players.length > 4; // six names and the round fit the sheet's width
  $("scores").classList.toggle("many", many);
  for (const text of [many ? "#" : "round", ...state.players.map((p) => nameOf(p.seat))]) row.append(el("th", "", text));
  row.firstElementChild.title = "round";
  head.append(row);
  const body = document.querySelector("#scores tbody");
  body.textContent = "";
  let phase = 1;
  for (const m of state.sheet) {
    const line = document.createElement("tr");
    if (m.match_phase !== phase) line.className = "phase";
    phase = m.match_phase;
    line.dataset.phase = String(m.match_phase);
    const cells = [`${m.round + 1}${m.match_phase === 2 ? " (phase 2)" : ""}${m.moon !== null ? " 🌙" : ""}`, ...m.scores.map(String)];
    cells.forEach((text, i) => {
      const td = el("td", "", text);
      if (i > 0) { // the round's change under the score: six seats still fit the sheet's width
        const change = m.score_changes[i - 1];
        td.append(el("span", "change", `${change >= 0 ? "+" : ""}${change}`));
      }
      line.append(td);
    });
    body.append(line);
  }
}

function passWords(r) {
  if (!r || !r.pass_count) return "no passing";
  return `${r.pass_count} passed ${direction(r.pass_to)}` + (state.seat !== r.pass_to ? ` (you to ${nameOf(r.pass_to)})` : "");
}

// The round's score before the next: points taken, the change, the totals, the moon, the pass.
function renderSummary() {
  const box = $("summary");
  const m = state.summary;
  box.hidden = !m;
  if (!m) return;
  $("summary-title").textContent = `Round ${m.round + 1} over` + (m.next_match_phase !== m.match_phase ? ` · phase ${m.next_match_phase} next` : "");
  const lines = [`Pass: ${passWords(m.pass)}.`];
  if (m.moon !== null) lines.push(`🌙 ${nameOf(m.moon)} shot the moon` + (m.moon_scoring ? ` (${m.moon_scoring.replaceAll("_", " ")})` : "") + ".");
  if (m.revoke !== null) lines.push(`Revoke: ${nameOf(m.revoke)} takes the penalty.`);
  const cancelled = m.tricks.filter((t) => t.winner === null).length;
  if (cancelled) lines.push(`${cancelled} trick${cancelled > 1 ? "s" : ""} cancelled by twin cards, carried to the next.`);
  $("summary-text").textContent = lines.join(" ");
  const table = $("summary-table");
  table.textContent = "";
  const head = el("tr");
  for (const text of ["", "took", "change", "total"]) head.append(el("th", "", text));
  table.append(head);
  state.players.forEach((p) => {
    const row = el("tr");
    row.dataset.seat = String(p.seat);
    const change = m.score_changes[p.seat];
    for (const text of [nameOf(p.seat), String(m.points_taken[p.seat]), `${change >= 0 ? "+" : ""}${change}`, String(m.scores[p.seat])])
      row.append(el("td", "", text));
    table.append(row);
  });
}

function renderResult() {
  const m = state.result;
  if (!m) { $("result").hidden = true; return; }
  if (!state.resultShown) { state.resultShown = true; $("result").hidden = false; }
  const text = $("result-text");
  text.textContent = "";
  const winners = m.winners.map(nameOf).join(", ") || "nobody";
  text.append(el("p", "", `${m.winners.includes(state.seat) ? "You win!" : "Winner: " + winners} (${m.reason.replaceAll("_", " ")}, ${m.rounds} rounds)`));
  const list = el("ol");
  [...m.seats].sort((a, b) => m.scores[a.seat] - m.scores[b.seat]).forEach((s) => {
    const item = el("li", "", `${nameOf(s.seat)}: ${m.scores[s.seat]}${s.status !== "ok" ? " (" + s.status + ")" : ""}`);
    item.dataset.seat = String(s.seat);
    list.append(item);
  });
  text.append(list);
  $("show-result").hidden = false;
}

// Once the match is over: its replay (fetched with the seat's token in a header, opened from
// this page), the analysis of this seat's play (asked for, then followed until done) and,
// while `referee play` offers one, a rematch at the same table.
async function afterMatch(matchId) {
  const headers = { "X-Seat-Token": token() };
  for (let tries = 0; tries < 120 && state.matchId === matchId; tries++) {
    let offer = null;
    try { offer = await (await fetch("after", { headers, cache: "no-store" })).json(); } catch { offer = null; }
    if (offer && offer.replay) {
      let link = null;
      try {
        const answer = await fetch("replay", { headers, cache: "no-store" });
        if (answer.ok) link = URL.createObjectURL(new Blob([await answer.text()], { type: "text/html" }));
      } catch { link = null; }
      if (state.matchId === matchId) offerAfter(link, offer.rematch);
      return;
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

function offerAfter(replay, rematch) {
  const actions = $("result-actions");
  actions.textContent = "";
  if (replay) {
    const a = el("a", "", "Replay");
    a.href = replay; a.target = "_blank"; a.rel = "noopener"; a.id = "replay-link";
    actions.append(a);
    actions.append(analyseButton());
  }
  if (rematch) {
    const b = el("button", "", "Rematch");
    b.id = "rematch";
    b.addEventListener("click", async () => {
      b.disabled = true;
      try {
        const answer = await fetch("rematch", { method: "POST", headers: { "X-Seat-Token": token() } });
        if (!answer.ok) { b.textContent = "no rematch now"; return; }
      } catch { b.textContent = "no rematch now"; return; }
      connect(); // the next match at the same table, with the same address
    });
    actions.append(b);
  }
}

// "Where did I lose points?": the referee analyses this seat's play in the finished match (from
// the seat's own information, about a minute), the button shows how far, then a link opens the
// replay viewer with the analysis.
function analyseButton() {
  const b = el("button", "", "Analyse my play");
  b.id = "analyse";
  const headers = { "X-Seat-Token": token() };
  const matchId = state.matchId;
  b.addEventListener("click", async () => {
    b.disabled = true;
    b.textContent = "being analysed…";
    try {
      const asked = await fetch("analysis", { method: "POST", headers });
      if (!asked.ok) { b.textContent = asked.status === 409 ? "another analysis is running" : "no analysis now"; return; }
      for (;;) {
        await new Promise((done) => setTimeout(done, 1000));
        if (state.matchId !== matchId) return;
        const now = await (await fetch("analysis", { headers, cache: "no-store" })).json();
        if (now.state === "running") {
          b.textContent = now.total ? `being analysed: ${now.done}/${now.total}` : "being analysed…";
        } else if (now.state === "done") {
          const page = await fetch("analysed", { headers, cache: "no-store" });
          if (!page.ok) { b.textContent = "no analysis now"; return; }
          const a = el("a", "", "Your analysis");
          a.href = URL.createObjectURL(new Blob([await page.text()], { type: "text/html" }));
          a.target = "_blank"; a.rel = "noopener"; a.id = "analysis-link";
          b.replaceWith(a);
          return;
        } else {
          b.textContent = "the analysis failed"; b.title = now.error || ""; return;
        }
      }
    } catch { b.textContent = "no analysis now"; }
  });
  return b;
}

function tick() {
  if (state.held && performance.now() >= state.held.until) { state.held = null; renderTrick(); } // gather it
  const clock = $("clock");
  const now = performance.now();
  let text = "", kind = "clock";
  if (state.request && now < state.deadline) {
    text = `${((state.deadline - now) / 1000).toFixed(1)} s + bank ${((state.bankEnd - state.deadline) / 1000).toFixed(0)} s`;
  } else if (state.request) {
    text = `bank ${(Math.max(0, state.bankEnd - now) / 1000).toFixed(1)} s`; kind = "clock bank";
  }
  // written only when it changes: five times a second the same text still costs a phone a relayout
  if (clock.textContent !== text) clock.textContent = text;
  if (clock.className !== kind) clock.className = kind;
}

document.addEventListener("keydown", (event) => {
  const sorted = sortHand(state.hand);
  if (event.key === "Escape") { $("result").hidden = true; state.summary = null; render(); return; }
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

$("take-seat").addEventListener("click", () => connect(true));
$("summary-close").addEventListener("click", () => { state.summary = null; render(); });
$("result-close").addEventListener("click", () => { $("result").hidden = true; });
$("show-result").addEventListener("click", () => { $("result").hidden = false; });
setInterval(tick, 200);
if (token()) connect();
render();
