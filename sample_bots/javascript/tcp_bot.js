#!/usr/bin/env node
// A bot that connects to the referee over TCP with Node's own `net` module, no kit: what a bot
// in any language does over a socket. It plays the first legal card and passes the first legal
// cards. Usage: HEARTS_TOKEN=... node tcp_bot.js HOST:PORT   (the token from the environment,
// not the command line, which every process of the machine can read)
'use strict';
const net = require('net');

const [host, port] = (process.argv[2] || '127.0.0.1:7000').split(':');
const token = process.env.HEARTS_TOKEN;
const socket = net.connect({ host, port: Number(port) });
let buffer = '';

function send(message) {
  socket.write(JSON.stringify(message) + '\n'); // one JSON object per line
}

function answer(m) {
  switch (m.type) {
    case 'hello': // the referee speaks first; answer with a version it offers and the token
      return send({ type: 'hello', version: 1, name: 'node-tcp', token });
    case 'pass_request':
      return send({ type: 'pass', id: m.id, cards: m.legal.slice(0, m.count) });
    case 'play_request':
      return send({ type: 'play', id: m.id, card: m.legal[0] });
    case 'declare_request':
      return send({ type: 'declare', id: m.id, declare: false });
    case 'moon_request':
      return send({ type: 'moon', id: m.id, choice: 'add_to_others' });
    case 'error':
      console.error(`referee: ${m.code}: ${m.message}`); // logs go to stderr
      if (m.fatal) socket.end();
      return undefined;
    case 'goodbye':
      return socket.end();
    default:
      return undefined; // events and message types this bot does not know: ignore them
  }
}

socket.setEncoding('utf8');
socket.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim()) answer(JSON.parse(line));
  }
});
socket.on('error', (err) => {
  console.error(`connection: ${err.message}`);
  process.exitCode = 1;
});
