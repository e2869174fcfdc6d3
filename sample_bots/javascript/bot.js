#!/usr/bin/env node
'use strict';
/**
 * A sample Hearts bot built on the kit in hearts.js.
 *
 * Play: the lowest-ranked legal card that does not win the trick (so far), if there is one;
 * otherwise the lowest-ranked legal card. Pass: the highest-ranked cards.
 *
 *   node sample_bots/javascript/bot.js                           # the referee starts it
 *   node sample_bots/javascript/bot.js --tcp HOST:PORT --token T # or it connects over TCP
 */

const path = require('path');
const hearts = require(path.join(__dirname, 'hearts.js'));

const bot = {
  name: 'javascript-ducker',
  version: '1.0',
  author: 'hearts-referee sample bots',

  choosePass(state, request) {
    const byRankHighFirst = request.legal.slice().sort((a, b) => hearts.compareByRank(b, a));
    return byRankHighFirst.slice(0, request.count);
  },

  choosePlay(state, request) {
    const byRank = request.legal.slice().sort(hearts.compareByRank);
    const ducks = byRank.filter((card) => !hearts.wouldWin(state, card));
    return ducks.length ? ducks[0] : byRank[0];
  },

  chooseDeclare() {
    return false;
  },

  chooseMoon(state, request) {
    return request.options.includes('add_to_others') ? 'add_to_others' : request.options[0];
  },
};

if (require.main === module) {
  hearts.run(bot);
}

module.exports = bot;
