// The JavaScript kit's state probe (tests/sample_bots/kits/javascript.py): HEARTS_JS is the kit's path.
const hearts = require(HEARTS_JS);
let events = null;  // the state as the events left it, before the request synced it
hearts.run({
  name: 'state-probe',
  onMessage(state, msg) {
    if (msg.type !== 'play_request') {
      events = { trick: state.trick.slice(), heartsBroken: state.heartsBroken, trickNumber: state.trickNumber };
    }
  },
  choosePass(state, request) { return request.legal.slice(-request.count); },
  choosePlay(state, request) {
    const seen = { hand: state.hand, pointsTaken: state.pointsTaken, scores: state.scores, seat: state.seat, events };
    process.stderr.write('STATE ' + JSON.stringify(seen) + '\n');
    return request.legal[request.legal.length - 1];
  },
});
