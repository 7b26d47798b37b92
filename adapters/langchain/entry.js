'use strict';
// tool-argument-snapshot/langchain as it is required (package.json "exports"): what must
// run at require runs here, the gate itself (index.js: gate/ and agent/) loads at the first
// call of its export. At require, in this order: the framework check (gate/core.js: without
// @langchain/core, requiring this subpath names the package to install; it then loads the
// package itself, with its own checks at load), the built-ins every gate module uses
// (../gate/primordials.js) and the package's randomUUID (../gate/ids.js), captured now: a
// gate module loaded at a first call takes its built-ins from that record, never from the
// global object at that later time (docs/performance.md, "Loading, fourth round").

require('./gate/core');
require('../gate/primordials');
require('../gate/ids');

let gate;

function loaded() {
  if (gate === undefined) gate = require('./index');
  return gate;
}

/** createToolGate of gate/tool-gate.js (docs/adapters/langchain.md), loaded at its first call. */
function createToolGate(options) {
  return loaded().createToolGate(options);
}

/** toolGateMiddleware of agent/middleware.js, loaded at its first call (it loads langchain and @langchain/langgraph). */
function toolGateMiddleware(options) {
  return loaded().toolGateMiddleware(options);
}

module.exports = { createToolGate, toolGateMiddleware };
