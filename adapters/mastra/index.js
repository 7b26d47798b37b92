'use strict';
// tool-argument-snapshot/mastra: RFC-0016 for Mastra agents (@mastra/core 1.x).
// createToolGate assembles the gate by phase: its options (options.js), gated tools whose
// execute decides, runs or suspends for approval (execute.js); gate.model, recording
// provider texts (model.js); approve and decline (approve.js). Built on the gate kernel
// (adapters/gate/). How it works with Mastra: docs/adapters/mastra.md.

const { mastraCreateTool } = require('./framework');
const { ObjectFreeze, ObjectGetOwnPropertyNames } = require('../gate/primordials');
const { own, setData } = require('../gate/read');
const { createTool, wireSchemaOf } = require('./tools');
const { readGate } = require('./options');
const { executorFor } = require('./execute');
const { modelOf } = require('./model');
const { createApproval } = require('./approve');

// The options of Mastra's createTool the gate reads itself or replaces; every other own
// data option is passed to Mastra's createTool as it is.
const REPLACED_OPTIONS = ['inputSchema', 'outputSchema', 'execute', 'requireApproval'];

/** The Mastra tool of a gated entry: its own options, with the gate's schema, execute and no approval of Mastra's. */
function gatedTool(gate, entry) {
  const mastraOptions = {};
  const names = ObjectGetOwnPropertyNames(entry.options);
  for (let j = 0; j < names.length; j++) {
    let replaced = false;
    for (let k = 0; k < REPLACED_OPTIONS.length; k++) if (REPLACED_OPTIONS[k] === names[j]) replaced = true;
    if (!replaced) setData(mastraOptions, names[j], own(entry.options, names[j]));
  }
  if (own(mastraOptions, 'id') === undefined) setData(mastraOptions, 'id', entry.toolName);
  setData(mastraOptions, 'inputSchema', wireSchemaOf(entry.inputSchema));
  setData(mastraOptions, 'execute', executorFor(gate, entry));
  // The policy decides what needs approval: no second approval gate of Mastra's.
  setData(mastraOptions, 'requireApproval', false);
  return mastraCreateTool(mastraOptions);
}

function createToolGate(options) {
  const gate = readGate(options);
  const tools = {};
  for (let i = 0; i < gate.entries.length; i++) setData(tools, gate.entries[i].toolName, gatedTool(gate, gate.entries[i]));
  const { keptProposal, pending, approve, decline } = createApproval(gate);
  return ObjectFreeze({ tools: ObjectFreeze(tools), model: modelOf(gate), keptProposal, pending, approve, decline, grants: gate.grants });
}

module.exports = { createToolGate, createTool };
