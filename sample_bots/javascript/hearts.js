'use strict';
/**
 * Hearts bot kit for Node.js (protocol v1). No npm dependencies; CommonJS; Node 18+.
 *
 * Usage:
 *
 *   const hearts = require('./hearts');
 *   hearts.run({
 *     name: 'my-bot', version: '1.0', author: 'me',
 *     choosePass(state, request) { return request.legal.slice(0, request.count); },
 *     choosePlay(state, request) { return request.legal[0]; },
 *     chooseDeclare(state, request) { return false; },           // optional
 *     chooseMoon(state, request) { return 'add_to_others'; },    // optional
 *     onMessage(state, message) {},                              // optional: every message
 *   });
 *
 * The kit reads one JSON object per line from the referee, keeps the table state current
 * (see `newState`), calls the bot for each decision and writes the reply at once. A choose
 * function may return a value or a Promise of one. If it throws or returns something illegal,
 * the kit logs the problem to stderr and sends a legal fallback instead (the first legal
 * cards), so a buggy bot loses a decision instead of the match.
 *
 * stdout carries the protocol: the kit sends `console.log` to stderr so stray debug output
 * cannot corrupt it. Log with `console.error` (or `hearts.log`).
 *
 * Command line (handled by `run`):
 *   node bot.js                               stdin/stdout (the referee starts the bot)
 *   node bot.js --tcp HOST:PORT --token T     connect to a referee over TCP; the token goes
 *                                             in the hello
 *   --retry-for S                             over TCP: when the referee answers `busy`, refuses
 *                                             the connection or drops it before seating the
 *                                             bot, try again (0.1 s doubling to 5 s, with
 *                                             jitter) for up to S seconds (default 60)
 */

const net = require('net');
const readline = require('readline');

const PROTOCOL_VERSION = 1;
const RETRY_FOR = 60;
const RETRY_FIRST = 0.1;
const RETRY_CAP = 5;
const RANKS = '23456789TJQKA';
const SUITS = 'CDSH';

// ---------------------------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------------------------

/** The suit letter of a card code: "QS" -> "S". */
function suitOf(card) {
  return card.charAt(card.length - 1).toUpperCase();
}

/** The rank of a card code as a number, 2..14 (ace 14): "QS" -> 12, "TD" -> 10, "10D" -> 10. */
function rankOf(card) {
  const text = card.slice(0, -1).toUpperCase();
  if (text === '10') return 10;
  const index = RANKS.indexOf(text);
  return index < 0 ? 0 : index + 2;
}

/** Compare two card codes by suit (C, D, S, H) then rank: the order the referee lists hands in. */
function compareCards(a, b) {
  return SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)) || rankOf(a) - rankOf(b);
}

/** Compare two card codes by rank, then suit (C, D, S, H). */
function compareByRank(a, b) {
  return rankOf(a) - rankOf(b) || SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b));
}

/** What a card is worth under the match's rules (hearts 1, QS 13 in American; 0 if unlisted). */
function cardPoints(state, card) {
  const points = state.rules && state.rules.card_points;
  return points && typeof points[card] === 'number' ? points[card] : 0;
}

/**
 * The index of the card that wins (so far) a trick given as card codes, leader's first:
 * the highest card of the led suit. With two decks (`rules.copies === 2`) identical cards
 * either cancel (`identical_cards: "cancel"`, -1 if every card of the led suit is cancelled)
 * or the later one wins. -1 for an empty trick.
 */
function trickWinner(cards, rules) {
  if (!cards.length) return -1;
  const led = suitOf(cards[0]);
  const cancel = !!rules && rules.copies === 2 && rules.identical_cards !== 'later_wins';
  let best = -1;
  for (let i = 0; i < cards.length; i += 1) {
    const card = cards[i];
    if (suitOf(card) !== led) continue;
    if (cancel && cards.filter((c) => c === card).length > 1) continue;
    // `>=`: only identical cards tie, and those either cancelled above or the later one wins.
    if (best < 0 || rankOf(card) >= rankOf(cards[best])) best = i;
  }
  return best;
}

/** True if `card`, played now to the current trick, would be winning it so far. */
function wouldWin(state, card) {
  const cards = state.trick.concat([card]);
  return trickWinner(cards, state.rules) === cards.length - 1;
}

/** Remove one copy of each of `cards` from the list `hand` (in place). */
function removeCards(hand, cards) {
  for (const card of cards) {
    const index = hand.indexOf(card);
    if (index >= 0) hand.splice(index, 1);
  }
  return hand;
}

// ---------------------------------------------------------------------------------------------
// Table state
// ---------------------------------------------------------------------------------------------

/** A fresh table state. The kit updates it from every message before calling the bot. */
function newState() {
  return {
    // match
    matchId: null,
    seat: -1, // your seat
    players: [], // [{seat, name}]
    numPlayers: 0,
    rules: null, // the complete RuleSet (docs/rules.md), as sent
    time: null, // {per_decision_ms, bank_ms, startup_ms}
    scores: [], // match scores by seat (before the current round, then after each round_end)
    matchPhase: 1,
    // round
    round: -1,
    dealer: -1,
    hand: [], // your cards now, kept current through passing and play
    passDirection: null,
    passCount: 0,
    passTo: null,
    passed: [], // cards you gave this round
    received: [], // cards you got this round
    declarations: [], // per seat: true / false / null (not declared yet)
    pointsTaken: [], // per seat: card points taken in this round so far
    heartsBroken: false,
    trick: [], // cards in the current trick, leader's first
    trickLeader: -1,
    trickNumber: 0,
    tricks: [], // completed tricks of this round: {trick_number, leader, cards, winner, points}
    played: [], // every card played this round, in order
    timeLeft: null, // {decision_ms, bank_ms} of the latest request
    lastRoundEnd: null,
    lastMatchEnd: null,
  };
}

function breaksHearts(state, card) {
  if (suitOf(card) === 'H') return true;
  return card === 'QS' && !!state.rules && state.rules.queen_breaks_hearts === true;
}

/** Update `state` from one referee message (exported so bots and tests can replay logs). */
function update(state, msg) {
  switch (msg.type) {
    case 'match_start':
      Object.assign(state, newState());
      state.matchId = msg.match_id;
      state.seat = msg.seat;
      state.players = msg.players || [];
      state.rules = msg.rules || {};
      state.numPlayers = state.rules.players || state.players.length;
      state.time = msg.time || null;
      state.scores = new Array(state.numPlayers).fill(0);
      break;
    case 'round_start':
      state.round = msg.round;
      state.dealer = msg.dealer;
      state.hand = (msg.hand || []).slice();
      state.passDirection = msg.pass_direction;
      state.passCount = msg.pass_count;
      state.passTo = msg.pass_to;
      state.matchPhase = msg.match_phase;
      if (Array.isArray(msg.scores)) state.scores = msg.scores.slice();
      state.passed = [];
      state.received = [];
      state.declarations = new Array(state.numPlayers).fill(null);
      state.pointsTaken = new Array(state.numPlayers).fill(0);
      state.heartsBroken = !!state.rules && state.rules.hearts_lead === 'any_time';
      state.trick = [];
      state.trickLeader = -1;
      state.trickNumber = 0;
      state.tricks = [];
      state.played = [];
      break;
    case 'passed':
      state.passed = (msg.given || []).slice();
      state.received = (msg.received || []).slice();
      if (Array.isArray(msg.hand)) state.hand = msg.hand.slice();
      else removeCards(state.hand, state.passed).push(...state.received);
      break;
    case 'declared':
      state.declarations[msg.seat] = msg.declared;
      break;
    case 'card_played':
      if (!state.trick.length) state.trickLeader = msg.seat;
      state.trick.push(msg.card);
      state.played.push(msg.card);
      if (typeof msg.trick_number === 'number') state.trickNumber = msg.trick_number;
      if (msg.seat === state.seat) removeCards(state.hand, [msg.card]);
      if (breaksHearts(state, msg.card)) state.heartsBroken = true;
      break;
    case 'trick_end':
      state.tricks.push({
        trick_number: msg.trick_number,
        leader: msg.leader,
        cards: (msg.cards || []).slice(),
        winner: msg.winner,
        points: msg.points,
      });
      if (msg.winner !== null && msg.winner !== undefined) {
        state.pointsTaken[msg.winner] = (state.pointsTaken[msg.winner] || 0) + (msg.points || 0);
        state.trickLeader = msg.winner;
      } else {
        // Every card of the led suit cancelled (double deck): the cards carry over to the next
        // trick's winner, and the same seat leads again.
        state.trickLeader = msg.leader;
      }
      state.trick = [];
      state.trickNumber = msg.trick_number + 1;
      break;
    case 'pass_request':
    case 'declare_request':
    case 'moon_request':
      state.timeLeft = msg.time || null;
      if (msg.type === 'declare_request' && Array.isArray(msg.declarations)) {
        state.declarations = msg.declarations.slice();
      }
      break;
    case 'play_request':
      // The request is authoritative for the trick; the events above keep it current between.
      state.timeLeft = msg.time || null;
      if (Array.isArray(msg.trick)) state.trick = msg.trick.slice();
      if (typeof msg.leader === 'number') state.trickLeader = msg.leader;
      if (typeof msg.trick_number === 'number') state.trickNumber = msg.trick_number;
      if (typeof msg.hearts_broken === 'boolean') state.heartsBroken = msg.hearts_broken;
      break;
    case 'round_end':
      state.lastRoundEnd = msg;
      if (Array.isArray(msg.scores)) state.scores = msg.scores.slice();
      if (Array.isArray(msg.points_taken)) state.pointsTaken = msg.points_taken.slice();
      if (typeof msg.next_match_phase === 'number') state.matchPhase = msg.next_match_phase;
      break;
    case 'match_end':
      state.lastMatchEnd = msg;
      if (Array.isArray(msg.scores)) state.scores = msg.scores.slice();
      break;
    default:
      break; // unknown types are ignored (forward compatibility)
  }
  return state;
}

// ---------------------------------------------------------------------------------------------
// Checking the bot's answers
// ---------------------------------------------------------------------------------------------

/** True if `cards` is `count` cards taken from `legal` (each code at most as often as listed). */
function isLegalPass(cards, request) {
  if (!Array.isArray(cards) || cards.length !== request.count) return false;
  const left = request.legal.slice();
  for (const card of cards) {
    const index = left.indexOf(card);
    if (typeof card !== 'string' || index < 0) return false;
    left.splice(index, 1);
  }
  return true;
}

function log(...args) {
  process.stderr.write(`[hearts.js] ${args.join(' ')}\n`);
}

async function ask(fn, fallback, valid, what, state, request) {
  if (typeof fn !== 'function') return fallback();
  let answer;
  try {
    answer = await fn(state, request);
  } catch (err) {
    log(`${what} threw: ${err && err.stack ? err.stack : err}; sending a fallback`);
    return fallback();
  }
  if (!valid(answer)) {
    log(`${what} returned ${JSON.stringify(answer)}, which is not legal here; sending a fallback`);
    return fallback();
  }
  return answer;
}

// ---------------------------------------------------------------------------------------------
// The conversation
// ---------------------------------------------------------------------------------------------

/** Parse the kit's options: `--tcp HOST:PORT` (or `--tcp=...`), `--token T`, `--retry-for S`. */
function parseArgs(argv) {
  const options = { tcp: null, token: null, 'token-file': null, retryFor: RETRY_FOR };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const key = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : null;
    if (key === '--tcp' || key === '--token' || key === '--token-file' || key === '--retry-for') {
      const value = inline !== null ? inline : argv[(i += 1)];
      if (value === undefined) throw new Error(`${key} needs a value`);
      if (key === '--retry-for') {
        options.retryFor = Number(value);
        if (!Number.isFinite(options.retryFor) || options.retryFor < 0) {
          throw new Error(`--retry-for wants seconds, not ${JSON.stringify(value)}`);
        }
      } else {
        options[key.slice(2)] = value;
      }
    }
  }
  // a token on the command line is readable by every process of the machine: prefer a file
  // (--token-file) or the environment (HEARTS_TOKEN)
  if (options.token === null && options['token-file'] !== null) {
    options.token = require('fs').readFileSync(options['token-file'], 'utf8').split('\n')[0].trim() || null;
  }
  if (options.token === null && process.env.HEARTS_TOKEN) options.token = process.env.HEARTS_TOKEN;
  if (options.tcp !== null) {
    const m = /^\[?(.*?)\]?:(\d+)$/.exec(options.tcp);
    if (!m) throw new Error(`--tcp wants HOST:PORT, not ${JSON.stringify(options.tcp)}`);
    options.host = m[1] || 'localhost';
    options.port = Number(m[2]);
    if (options.port < 1 || options.port > 65535) {
      throw new Error(`--tcp wants a port from 1 to 65535, not ${JSON.stringify(options.tcp)}`);
    }
  }
  return options;
}

/**
 * A connection to the referee: feed it lines, it updates the state, asks the bot and calls
 * `send(object)` with each reply and `exit(code)` at the end. Transport-free, so tests can
 * drive it directly.
 */
class Session {
  constructor(bot, send, exit, token) {
    this.bot = bot;
    this.send = send;
    this.exit = exit;
    this.token = token;
    this.state = newState();
    this.done = false;
    this.queue = Promise.resolve();
  }

  /** Queue one line; lines are handled strictly in order, even if the bot answers async. */
  feed(line) {
    this.queue = this.queue.then(() => this.handleLine(line)).catch((err) => {
      log(`internal error: ${err && err.stack ? err.stack : err}`);
    });
    return this.queue;
  }

  async handleLine(line) {
    if (this.done) return;
    const text = line.trim();
    if (!text) return;
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (err) {
      log(`ignoring a line that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') {
      log(`ignoring a line that is not a message: ${text.slice(0, 200)}`);
      return;
    }
    await this.handle(msg);
  }

  async handle(msg) {
    const { bot, state } = this;
    update(state, msg);
    if (typeof bot.onMessage === 'function') {
      try {
        await bot.onMessage(state, msg);
      } catch (err) {
        log(`onMessage threw: ${err && err.stack ? err.stack : err}`);
      }
    }
    switch (msg.type) {
      case 'hello': {
        const reply = {
          type: 'hello',
          version: PROTOCOL_VERSION,
          name: String(bot.name || 'javascript-bot'),
          bot_version: String(bot.version || ''),
          author: String(bot.author || ''),
        };
        if (Array.isArray(msg.versions) && !msg.versions.includes(PROTOCOL_VERSION)) {
          log(`the referee offers versions ${JSON.stringify(msg.versions)}; this kit speaks ${PROTOCOL_VERSION}`);
        }
        if (this.token !== null && this.token !== undefined) reply.token = this.token;
        this.send(reply);
        break;
      }
      case 'pass_request': {
        const legal = msg.legal || [];
        const cards = await ask(
          bot.choosePass,
          () => legal.slice(0, msg.count),
          (answer) => isLegalPass(answer, msg),
          'choosePass',
          state,
          msg,
        );
        this.send({ type: 'pass', id: msg.id, cards: cards.slice() });
        break;
      }
      case 'play_request': {
        const legal = msg.legal || [];
        const card = await ask(
          bot.choosePlay,
          () => legal[0],
          (answer) => typeof answer === 'string' && legal.includes(answer),
          'choosePlay',
          state,
          msg,
        );
        this.send({ type: 'play', id: msg.id, card });
        break;
      }
      case 'declare_request': {
        const declare = await ask(
          bot.chooseDeclare,
          () => false,
          (answer) => typeof answer === 'boolean',
          'chooseDeclare',
          state,
          msg,
        );
        this.send({ type: 'declare', id: msg.id, declare });
        break;
      }
      case 'moon_request': {
        const options = Array.isArray(msg.options) && msg.options.length ? msg.options : ['add_to_others'];
        const choice = await ask(
          bot.chooseMoon,
          () => (options.includes('add_to_others') ? 'add_to_others' : options[0]),
          (answer) => options.includes(answer),
          'chooseMoon',
          state,
          msg,
        );
        this.send({ type: 'moon', id: msg.id, choice });
        break;
      }
      case 'error':
        log(`referee error ${msg.code}${msg.fatal ? ' (fatal)' : ''}: ${msg.message}`);
        if (msg.fatal === true) this.finish(1);
        break;
      case 'goodbye':
        this.finish(0);
        break;
      default:
        break; // events and unknown types need no answer
    }
  }

  finish(code) {
    if (this.done) return;
    this.done = true;
    this.exit(code);
  }
}

/** Run `bot` against a referee: over stdin/stdout, or over TCP with `--tcp HOST:PORT`. */
function run(bot, argv = process.argv.slice(2)) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (err) {
    log(err.message);
    process.exit(2);
  }
  // stdout is the protocol channel: keep stray console.log output off it.
  console.log = console.error;

  if (options.tcp === null) {
    const send = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
    const exit = (code) => process.stdout.write('', () => process.exit(code));
    const session = new Session(bot, send, exit, options.token);
    const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
    rl.on('line', (line) => session.feed(line));
    rl.on('close', () => session.queue.then(() => session.finish(0)));
    return session;
  }

  return connectTcp(bot, options);
}

/**
 * Play over TCP. Until the referee seats the bot (any message but `hello` or `error`), a
 * `busy` refusal, a refused or reset connection, or a connection closed without an error is
 * tried again after a pause (0.1 s doubling to 5 s, a random half to all of it) for up to
 * `options.retryFor` seconds; other refusals (`bad_token`, `seat_taken`, ...) end the bot.
 */
function connectTcp(bot, options) {
  const deadline = Date.now() + options.retryFor * 1000;
  let delay = RETRY_FIRST;

  const attempt = () => {
    const socket = net.connect({ host: options.host, port: options.port });
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    let seated = false;
    let busy = null;
    let failure = null;
    const send = (obj) => socket.write(`${JSON.stringify(obj)}\n`);
    const exit = (code) => {
      socket.end(() => process.exit(code));
      setTimeout(() => process.exit(code), 1000).unref();
    };
    const session = new Session(bot, send, exit, options.token);
    socket.on('connect', () => log(`connected to ${options.host}:${options.port}`));
    socket.on('error', (err) => {
      failure = err.message;
    });
    const rl = readline.createInterface({ input: socket, crlfDelay: Infinity, terminal: false });
    // readline passes the socket's errors on: without this listener a refused connection would
    // be an unhandled 'error' event (the 'close' below handles it)
    rl.on('error', (err) => {
      failure = err.message;
    });
    rl.on('line', (line) => {
      if (!seated && busy === null) {
        let msg = null;
        try {
          msg = JSON.parse(line);
        } catch (err) {
          msg = null;
        }
        const type = msg !== null && typeof msg === 'object' ? msg.type : undefined;
        if (type === 'error' && msg.code === 'busy') {
          busy = String(msg.message);
          socket.destroy();
          return;
        }
        if (type !== undefined && type !== 'hello' && type !== 'error') seated = true;
      }
      if (busy === null) session.feed(line);
    });
    socket.on('close', () => {
      session.queue.then(() => {
        if (session.done) return;
        if (seated) {
          if (failure !== null) {
            log(`connection error: ${failure}`);
            session.finish(1);
          } else {
            session.finish(0);
          }
          return;
        }
        let why = 'the referee closed the connection';
        if (busy !== null) why = `the referee is busy (${busy})`;
        else if (failure !== null) why = `cannot connect to ${options.host}:${options.port} (${failure})`;
        const left = deadline - Date.now();
        if (left <= 0) {
          log(`${why}; giving up after ${options.retryFor} s`);
          process.exit(1);
        }
        const pause = Math.min(delay * 1000 * (0.5 + 0.5 * Math.random()), left);
        delay = Math.min(delay * 2, RETRY_CAP);
        log(`${why}; trying again in ${(pause / 1000).toFixed(1)} s`);
        setTimeout(attempt, pause);
      });
    });
    return session;
  };
  return attempt();
}

module.exports = {
  PROTOCOL_VERSION,
  RANKS,
  SUITS,
  suitOf,
  rankOf,
  compareCards,
  compareByRank,
  cardPoints,
  trickWinner,
  wouldWin,
  removeCards,
  newState,
  update,
  isLegalPass,
  parseArgs,
  log,
  Session,
  run,
  connectTcp,
};
