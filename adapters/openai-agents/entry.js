'use strict';
// tool-argument-snapshot/openai-agents as it is required (package.json "exports"): what
// must run at require runs here, the gate itself (index.js and its modules) loads at the
// first call of createOpenAIAgentsGate. At require, in this order: the framework check
// (common.js: without @openai/agents, requiring this subpath names the package to install;
// it then loads the package itself, with its own checks at load), the built-ins every gate
// module uses (../gate/primordials.js) and the package's randomUUID (../gate/ids.js),
// captured now: a gate module loaded at the first call takes its built-ins from that record,
// never from the global object at that later time (docs/performance.md, "Loading, fourth
// round").

const { CARRIER_KEY } = require('./common');
require('../gate/primordials');
require('../gate/ids');

let gate;

/** createOpenAIAgentsGate of gate.js (docs/adapters/openai-agents.md), loaded at its first call. */
function createOpenAIAgentsGate(options) {
  if (gate === undefined) gate = require('./index');
  return gate.createOpenAIAgentsGate(options);
}

module.exports = { createOpenAIAgentsGate, CARRIER_KEY };
