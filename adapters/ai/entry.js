'use strict';
// tool-argument-snapshot/ai as it is required (package.json "exports"): what must run at
// require runs here, the gate itself (index.js and its modules) loads at the first call of
// createToolGate. At require, in this order: the framework check (sdk.js: without the `ai`
// package, requiring this subpath names the package to install), the built-ins every gate
// module uses (../gate/primordials.js), the web streams the gate pipes a model's stream
// through (../gate/streams.js), and the package itself with its own checks at load and its
// randomUUID (../gate/ids.js), all captured now: a gate module loaded at the first call takes
// its built-ins from those records, never from the global object at that later time. Why: a
// process that requires the subpath and never makes a gate loads none of the gate's 23
// files (docs/performance.md, "Loading, fourth round").

require('./sdk');
require('../gate/primordials');
require('../gate/streams');
require('../gate/ids');

let gate;

/** createToolGate of index.js (docs/adapters/ai.md), loaded at its first call. */
function createToolGate(options) {
  if (gate === undefined) gate = require('./index');
  return gate.createToolGate(options);
}

module.exports = { createToolGate };
