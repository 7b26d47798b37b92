'use strict';
// The tools a gate hands the SDK and its approval hook, assembled by phase: validate pairs
// the SDK's value with its provider text and prepares the call once (attempts.js), the
// approval hook decides and keeps what needs a reviewer (hook.js, decide.js), execute runs
// the tool's own execute through the kernel (execute.js).

const sdk = require('./sdk');
const { ObjectFreeze } = require('../gate/primordials');
const { own, setData, ownDataCopy } = require('../gate/read');
const { createAttempts, validate, attemptOf } = require('./attempts');
const { approvalHook } = require('./hook');
const { executorFor } = require('./execute');

/** The gated copy of a guarded tool: the package's validate and execute, no needsApproval. */
function gatedTool(gate, attempts, entry) {
  const copy = ownDataCopy(entry.target);
  const original = entry.inputSchema;
  // The JSON Schema the SDK would have sent for the tool's own schema, computed when the
  // SDK first asks for it; the validate function is the package's pipeline.
  const { jsonSchema, asSchema } = sdk();
  setData(
    copy,
    'inputSchema',
    jsonSchema(() => asSchema(original).jsonSchema, { validate: (value) => validate(attempts, entry, value) }),
  );
  setData(copy, 'execute', executorFor(gate, attempts, entry));
  // The policy decides what needs approval; the tool's own flag would be a second gate.
  delete copy.needsApproval;
  return ObjectFreeze(copy);
}

function createTools(gate) {
  const attempts = createAttempts(gate);
  const tools = {};
  for (let i = 0; i < gate.entries.length; i++) {
    const entry = gate.entries[i];
    setData(tools, entry.toolName, entry.guarded ? gatedTool(gate, attempts, entry) : entry.target);
  }

  /**
   * The SuspendedToolProposal of a `tool-approval-request` part of a result this gate made
   * (same process), or undefined. In another process: `await gate.keptProposal(part)`.
   */
  function proposalOf(part) {
    const toolCall = own(part, 'toolCall');
    const attempt = attemptOf(attempts, own(toolCall, 'input'));
    if (attempt === undefined || attempt.decision === undefined || attempt.decision.decision !== 'require_approval') return undefined;
    if (attempt.resume || attempt.toolCallId !== own(toolCall, 'toolCallId')) return undefined;
    return attempt.decision.proposal;
  }

  return { tools: ObjectFreeze(tools), toolApproval: approvalHook(gate, attempts), proposalOf, attemptOf: (input) => attemptOf(attempts, input) };
}

module.exports = { createTools };
