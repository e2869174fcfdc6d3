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

// A seat's name as every page writes it: the bot's name, with "#seat" when another seat has the
// same name ("random #2"), so three bots called "random" are told apart the same way everywhere.
function seatName(players, seat) {
  const player = players.find((p) => p.seat === seat);
  if (!player) return `seat ${seat}`;
  const twins = players.filter((p) => p.name === player.name).length;
  return twins > 1 ? `${player.name} #${seat}` : player.name;
}
