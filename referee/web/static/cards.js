// What the seat page (app.js) and the watch page (watch.js) share: the card codes of the
// protocol ("QS", "TH": rank then suit) and the page's token, read from the address's fragment
// (never sent to the server in the address, so never in its access log).
"use strict";

const SUITS = { C: "♣", D: "♦", S: "♠", H: "♥" };
const SUIT_ORDER = "CDSH";
const RANKS = "23456789TJQKA";
const $ = (id) => document.getElementById(id);

function token() {
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  return match ? match[1] : "";
}

function suitOf(code) { return code.slice(-1); }
function rankOf(code) { return code.slice(0, -1); }
