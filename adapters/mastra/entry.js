'use strict';
// tool-argument-snapshot/mastra as it is required (package.json "exports"): what must run
// at require runs here, the gate itself (index.js and its modules) loads at the first call
// of createToolGate or createTool. At require, in this order: the framework check
// (framework.js: without @mastra/core, requiring this subpath names the package to install),
// the built-ins every gate module uses (../gate/primordials.js), the web streams the gate
// pipes a model's stream through (../gate/streams.js), and the package itself with its own
// checks at load and its randomUUID (../gate/ids.js), all captured now: a gate module loaded
// at a first call takes its built-ins from those records, never from the global object at
// that later time (docs/performance.md, "Loading, fourth round").

require('./framework');
require('../gate/primordials');
require('../gate/streams');
require('../gate/ids');

let gate;

function loaded() {
  if (gate === undefined) gate = require('./index');
  return gate;
}

/** createToolGate of index.js (docs/adapters/mastra.md), loaded at its first call. */
function createToolGate(options) {
  return loaded().createToolGate(options);
}

/** createTool of tools.js (Mastra's createTool, remembered for the gate), loaded at its first call. */
function createTool(options) {
  return loaded().createTool(options);
}

module.exports = { createToolGate, createTool };
