'use strict';
// createToolGate: a gate for an agent loop of your own, run on each model message (run.js);
// its pending proposals are listed, approved once and declined (review.js).

const { ObjectFreeze, SafeWeakMap, SafeWeakSet } = require('../../gate/primordials');
const { readGateOptions } = require('./options');
const { run } = require('./run');
const { pending, approve, decline } = require('./review');

function createToolGate(options) {
  const s = {
    gate: readGateOptions(options, 'createToolGate'),
    // The proposals this gate handed out with the key they are kept under (run had a runId,
    // or pending), and those it approved: by the proposal object, never by call id.
    keptKeys: new SafeWeakMap(),
    approvedProposals: new SafeWeakSet(),
  };
  return ObjectFreeze({
    agentName: s.gate.agentName,
    run: (message, runOptions) => run(s, message, runOptions),
    pending: (message, pendingOptions) => pending(s, message, pendingOptions),
    approve: (proposal, grantOptions) => approve(s, proposal, grantOptions),
    decline,
  });
}

module.exports = { createToolGate };
