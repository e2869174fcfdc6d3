// The operator's view of a running match: `referee watch`. The server replays the log as it
// grows into a MatchRecord (referee/replay/record.py) and pushes it here with the new entries;
// the table is drawn from the record as the replay viewer (referee/replay/viewer.html) draws a
// step. The viewer is one self-contained file with its data embedded at build time, so the
// drawing (seat positions, cards, the score sheet) is copied here rather than shared.
// Every text from the log (names, faults, bots' lines) is set with textContent, never as HTML.
"use strict";
// cards.js, loaded first: SUITS, SUIT_ORDER, RANKS, $, token, suitOf, rankOf.

const view = { record: null, entries: 0, bad: [], badCount: 0, log: "", waiting: false, error: null, closed: false, held: null, heldKey: "" };

// How long a finished trick stays on the table with its winner (ms), as on the seat page, even
// when the next lead comes at once (bots do not wait for spectators); #hold=MS changes it.
const HOLD_MS = (() => {
  const match = /(?:^|[#&])hold=([0-9]{1,5})/.exec(location.hash);
  return match ? Number(match[1]) : 1500;
})();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function sortHand(cards) {
  return [...cards].sort((a, b) =>
    SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(b)) - RANKS.indexOf(rankOf(a)));
}
function label(code) { return (rankOf(code) === "T" ? "10" : rankOf(code)) + (SUITS[suitOf(code)] || suitOf(code)); }

function cardNode(code, extra) {
  const record = view.record;
  const points = (record && record.rules && record.rules.card_points) || {};
  const classes = ["card"];
  if ("DH".includes(suitOf(code))) classes.push("red");
  if (points[code] > 0) classes.push("points");
  if (extra) classes.push(...extra);
  return el("span", { class: classes.join(" "), "data-card": code, title: code },
    el("span", { text: rankOf(code) === "T" ? "10" : rankOf(code) }),
    el("span", { class: "suit", text: SUITS[suitOf(code)] || suitOf(code) }));
}

function without(hand, cards) {
  const rest = hand.slice();
  for (const card of cards) {
    const at = rest.indexOf(card);
    if (at >= 0) rest.splice(at, 1);
  }
  return rest;
}

function position(seat, n) {
  const angle = Math.PI / 2 + (2 * Math.PI * seat) / n;  // seat 0 at the bottom, then clockwise
  return { x: Math.cos(angle), y: Math.sin(angle) };
}

function connect() {
  // beside the page: /ws for `referee watch`, /table/KEY/ws for a ladder's table
  const address = new URL(`ws?token=${encodeURIComponent(token())}`, location.href);
  address.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(address.href);
  ws.onmessage = (event) => {
    if (typeof event.data !== "string") return;
    let message;
    try { message = JSON.parse(event.data); } catch (err) { return; }
    if (message && (message.type === "snapshot" || message.type === "update")) receive(message);
  };
  ws.onclose = () => {
    view.closed = true;
    status();
  };
}

function receive(m) {
  if (m.type === "snapshot") { view.entries = 0; view.bad = []; }
  view.entries += Array.isArray(m.entries) ? m.entries.length : 0;
  if (Array.isArray(m.bad)) view.bad.push(...m.bad);
  view.badCount = Number(m.bad_count) || 0;
  view.log = String(m.log || "");
  view.waiting = Boolean(m.waiting);
  view.error = m.error ? String(m.error) : null;
  view.record = m.record && typeof m.record === "object" ? m.record : null;
  try { draw(); } catch (err) { $("caption").textContent = `cannot draw this log: ${err}`; }
}

function status() {
  const parts = [];
  if (view.closed) parts.push("disconnected: reload the page");
  else if (view.waiting) parts.push(`waiting for ${view.log}`);
  else parts.push(`following ${view.log}: ${view.entries} entries`);
  if (view.badCount) parts.push(`${view.badCount} bad line${view.badCount === 1 ? "" : "s"} skipped`);
  $("status").textContent = parts.join(" · ");
}

// What the table looks like now: the last round of the record, as far as the log goes.
function current(record) {
  const n = record.rules.players;
  const round = record.rounds.length ? record.rounds[record.rounds.length - 1] : null;
  const state = { round, hands: [], trick: [], winner: null, turn: null, taken: new Array(n).fill(0), last: null, caption: "" };
  if (!round) {
    state.caption = record.result ? "" : "Waiting for the first deal";
    return state;
  }
  const names = record.seats.map((s) => seatName(record.seats, s.seat));
  const base = round.hands_after_passing || round.hands;
  const played = base.map(() => []);
  round.tricks.forEach((trick) => {
    trick.plays.forEach((play) => played[play.seat].push(play.card));
    if (trick.complete && trick.winner !== null) state.taken[trick.winner] += trick.points;
  });
  state.hands = base.map((hand, seat) => without(hand, played[seat]));
  const trick = round.tricks.length ? round.tricks[round.tricks.length - 1] : null;
  const completed = round.tricks.filter((t) => t.complete);
  if (trick) {
    state.trick = trick.plays;
    if (trick.complete) {
      state.winner = trick.winner;
      if (completed.length > 1) state.last = completed[completed.length - 2];
    } else {
      if (completed.length) state.last = completed[completed.length - 1];
      const last = trick.plays[trick.plays.length - 1];
      state.turn = last ? (last.seat + 1) % n : trick.leader;
    }
  }
  const number = round.round + 1;
  hold(round, completed);
  const held = view.held && performance.now() < view.held.until ? view.held : null;
  if (held) {
    const t = held.trick;
    state.trick = t.plays; state.winner = t.winner; state.turn = null;
    const before = completed.filter((c) => c.number < t.number);
    state.last = before.length ? before[before.length - 1] : null;
    state.caption = t.winner === null ? `Round ${held.round + 1}, trick ${t.number + 1}: every card of the led suit cancelled`
      : `Round ${held.round + 1}, trick ${t.number + 1}: ${names[t.winner]} takes it` + (t.points ? ` (${t.points})` : "");
    return state;
  }
  if (round.result) {
    const r = round.result;
    state.taken = r.points_taken.slice();
    let text = `Round ${number} scored`;
    if (r.moon !== null && r.moon !== undefined) text += ` · ${names[r.moon]} shot the moon`;
    if (r.revoke !== null && r.revoke !== undefined) text += ` · revoke: ${names[r.revoke]} takes the penalty, the hand is dealt again`;
    state.caption = text;
  } else if (trick) {
    const play = trick.plays[trick.plays.length - 1];
    if (trick.complete) {
      state.caption = trick.winner === null ? `Round ${number}, trick ${trick.number + 1}: cancelled` : `Round ${number}, trick ${trick.number + 1}: ${names[trick.winner]} takes it` + (trick.points ? ` (${trick.points})` : "");
    } else if (play) {
      state.caption = `Round ${number}, trick ${trick.number + 1}: ${names[play.seat]} plays ${label(play.card)}` + (play.fallback ? " (the referee's move)" : "");
    }
  } else {
    state.caption = `Round ${number}: dealt by ${names[round.dealer]}` + (round.pass_direction === "hold" ? ", no passing" : round.passes.length ? `, passed ${round.pass_direction}` : `, passing ${round.pass_direction}`);
  }
  return state;
}

// A trick that finished since the last drawing is held on the table with its winner for
// HOLD_MS (or until a later trick finishes), whatever came after it in the log.
function hold(round, completed) {
  const last = completed.length ? completed[completed.length - 1] : null;
  if (!last) return;
  const key = `${view.record.match_id}:${round.round}:${last.number}`;
  if (key === view.heldKey) return;
  view.heldKey = key;
  view.held = { round: round.round, trick: last, until: performance.now() + HOLD_MS };
  setTimeout(() => { try { draw(); } catch (err) { /* drawn at the next update */ } }, HOLD_MS + 20);
}

function draw() {
  status();
  const record = view.record;
  const notes = $("notes");
  notes.replaceChildren();
  if (view.error) notes.append(el("div", { class: "note bad", text: view.error }));
  for (const bad of view.bad.slice(-5)) notes.append(el("div", { class: "note bad", "data-line": String(bad.line), text: `line ${bad.line} skipped: ${bad.error}` }));
  if (!record) {
    $("caption").textContent = view.waiting ? "Waiting for the log to appear…" : "Waiting for the match's header…";
    return;
  }
  const n = record.rules.players;
  const names = record.seats.map((s) => seatName(record.seats, s.seat)); // as every page names them
  $("variant").textContent = `${record.rules.name} · match ${record.match_id} · seed ${record.seed}`;
  const badge = $("badge");
  const v = record.verification;
  badge.className = "badge" + (v ? ` ${v.status}` : "");
  badge.textContent = !v ? "" : v.status === "verified" ? "verified ✓" : v.status === "truncated" ? "in play" : "mismatch";
  badge.title = v && v.difference ? String(v.difference.what) : "";
  const state = current(record);
  $("caption").textContent = state.caption;
  const round = state.round;
  const scores = round && round.result && round.scores ? round.scores : scoresBefore(record);
  const dropped = new Map();
  for (const f of record.faults) if (f.action === "forfeit" && !dropped.has(f.seat)) dropped.set(f.seat, f.reason);
  const seats = $("seats");
  seats.replaceChildren();
  for (let seat = 0; seat < n; seat++) {
    const { x, y } = position(seat, n);
    const node = el("div", { class: "seat", "data-seat": String(seat), title: record.seats[seat].name });
    node.style.left = `${50 + x * 34}%`;
    node.style.top = `${50 + y * 37}%`;
    if (state.turn === seat) node.classList.add("turn");
    if (dropped.has(seat)) node.classList.add("dropped");
    const name = el("span", { class: "name", text: names[seat] });
    if (round && round.dealer === seat) name.append(el("span", { class: "tag", text: "D" }));
    if (dropped.has(seat)) name.append(el("span", { class: "tag fault", text: dropped.get(seat) }));
    node.append(el("div", { class: "who" }, name, el("span", { class: "stats", text: `score ${scores[seat]} · taken ${state.taken[seat]}` })));
    const hand = el("div", { class: "hand" });
    for (const card of sortHand(state.hands[seat] || [])) hand.append(cardNode(card));
    node.append(hand);
    seats.append(node);
  }
  const trick = $("trick");
  trick.replaceChildren();
  for (const play of state.trick) {
    const { x, y } = position(play.seat, n);
    const holder = el("div", { class: "played", "data-seat": String(play.seat) });
    holder.style.left = `${50 + x * 36}%`;
    holder.style.top = `${50 + y * 30}%`;
    holder.append(cardNode(play.card, state.winner === play.seat ? ["winner"] : []), el("span", { class: "by", text: names[play.seat] }));
    trick.append(holder);
  }
  $("last-trick").replaceChildren(...(state.last ? state.last.plays.map((p) => cardNode(p.card, state.last.winner === p.seat ? ["winner"] : [])) : []));
  for (const f of record.faults.slice(-8)) {
    const where = f.round === null ? "handshake" : `round ${f.round + 1}` + (f.trick !== null ? `, trick ${f.trick + 1}` : "");
    const note = el("div", { class: "note", "data-seat": String(f.seat) });
    note.append(`Seat ${f.seat} ${names[f.seat]} (${where}): ${f.reason}${f.rule ? " (" + f.rule + ")" : ""}: ${f.message} → ${f.action}`);
    notes.append(note);
  }
  drawSheet(record, names);
  drawResult(record, names);
}

function scoresBefore(record) {
  for (let i = record.rounds.length - 1; i >= 0; i--) if (record.rounds[i].scores) return record.rounds[i].scores;
  return new Array(record.rules.players).fill(0);
}

function drawSheet(record, names) {
  const head = el("tr", {}, el("th", { text: "Round" }), ...names.map((name, s) => el("th", { title: name }, `seat ${s}`, el("span", { class: "who", text: name }))));
  $("scores").tHead.replaceChildren(head);
  const body = $("scores").tBodies[0];
  body.replaceChildren();
  let phase = 1;
  record.rounds.forEach((round) => {
    if (!round.scores || !round.result) return;
    const label = el("td", { text: String(round.round + 1) });
    const row = el("tr", { "data-round": String(round.round) }, label);
    if (round.match_phase !== phase) {
      row.classList.add("phase");
      row.title = `phase ${round.match_phase} starts`;
      label.append(el("span", { class: "change", text: `phase ${round.match_phase}` }));
      phase = round.match_phase;
    }
    round.scores.forEach((score, s) => {
      const change = round.result.score_changes[s];
      row.append(el("td", {}, String(score), el("span", { class: "change", text: `${change >= 0 ? "+" : ""}${change}` })));
    });
    body.append(row);
  });
  const foot = $("scores").tFoot;
  foot.replaceChildren();
  if (record.result) {
    const row = el("tr", {}, el("td", { text: "Final" }));
    record.result.scores.forEach((score, s) => row.append(el("td", { class: record.result.winners.includes(s) ? "winner-cell" : "", text: String(score) })));
    foot.append(row);
  }
}

let resultShown = false;
function drawResult(record, names) {
  const box = $("result");
  if (!record.result) { box.hidden = true; resultShown = false; return; }
  const r = record.result;
  const won = r.winners.map((w) => names[w]).join(", ") || "nobody";
  const list = el("ol");
  r.scores.map((score, seat) => ({ score, seat })).sort((a, b) => a.score - b.score)
    .forEach(({ score, seat }) => list.append(el("li", { "data-seat": String(seat), text: `${names[seat]}: ${score}${r.winners.includes(seat) ? " (won)" : ""}` })));
  $("result-text").replaceChildren(el("p", { text: `${won} won (${r.reason}) after ${r.rounds} round${r.rounds === 1 ? "" : "s"}` }), list);
  if (!resultShown) { box.hidden = false; resultShown = true; }
}

$("result-close").addEventListener("click", () => { $("result").hidden = true; });
connect();
