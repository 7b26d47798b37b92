'use strict';
// tool-argument-snapshot/ai: RFC-0016 for the Vercel AI SDK (the `ai` package, 7.x).
// createToolGate reads the options and assembles the gate: gated tools (tools.js), the
// model middleware that records provider texts (model.js), approvals (approval.js). How
// the gate works with the SDK: docs/adapters/ai.md, "How it works".

// The framework first: without it, requiring this subpath names the package to install.
require('./sdk');
const { ObjectFreeze, MapPrototypeGet, randomUUID } = require('../gate/primordials');
const { invalidArgument, own, ownOption, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');
const { BoundedLists } = require('../gate/texts');
const { proposalStore, grantsMethod, keptRunId } = require('../gate/proposals');
const { approvedWithoutGrantNotice } = require('../gate/warnings');
const { readTools } = require('./schema');
const { createTools } = require('./tools');
const { createModel } = require('./model');
const { createApproval } = require('./approval');
const { createDenials } = require('./denials');

const HOW_TO_APPROVE =
  "grant the reviewer's approval with `await gate.approve(part)` (it returns the tool-approval-response), in this process or in any other that shares the grants' store and the gate's runId.";

function createToolGate(options) {
  const opts = readOptions(options, 'createToolGate options');
  if (opts === null) throw invalidArgument('createToolGate expects { agentName, tools, policy?, grants? }');
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const { grants, given: grantsGiven } = readGrants(opts);
  const fallbackApproval = own(opts, 'toolApproval');
  if (fallbackApproval !== undefined && typeof fallbackApproval !== 'function')
    throw invalidArgument('options.toolApproval must be a function (for the tools the gate does not guard)');
  const onDecision = readOnDecision(opts);
  const includePath = own(opts, 'includePath') === true;
  const runIdOption = ownOption(
    opts,
    'runId',
    'options.runId must be a non-empty well-formed string (the conversation, for example the chat id), an own data property',
  );
  if (runIdOption !== undefined && !isId(runIdOption))
    throw invalidArgument('options.runId must be a non-empty well-formed string (the conversation, for example the chat id)');
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption))
    throw invalidArgument('options.grantScope must be a well-formed string');
  const grantScope = scopeOption ?? null;
  const proposalTtlMs = readProposalTtl(opts);
  // Execution receipts are keyed by the conversation (the runId option, the chat id) and the
  // SDK's tool call id. Without a runId the gate knows no conversation: by default it then
  // executes without receipts, as before; receipts given explicitly need the runId.
  let receipts = readReceipts(opts, grants, 'ai');
  if (runIdOption === undefined && receipts !== undefined) {
    if (own(opts, 'receipts') !== undefined)
      throw invalidArgument('options.receipts needs options.runId (the conversation, for example the chat id): a receipt is keyed by it and the tool call id');
    receipts = undefined;
  }

  // Whether the grants keep proposals (their store has putProposal, getProposal and
  // deleteProposal): grants answer a TypeError otherwise, met when the first is kept.
  const store = proposalStore(grants);
  // Kept proposals are namespaced by agent and grant scope; without a runId, the run is
  // this gate (approvals then work in this gate only).
  const runId = runIdOption ?? randomUUID();
  const keptRun = keptRunId('ai', agentName, grantScope, runId);
  const approvedRun = keptRunId('ai-approved', agentName, grantScope, runId);

  const jsonSchemaOptions = readJsonSchemaOptions(opts);
  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, grantsGiven);

  const gate = {
    agentName,
    grants,
    grantScope,
    proposalTtlMs,
    includePath,
    onDecision,
    fallbackApproval,
    store,
    keeps: store.present,
    grantsGrant: own(grants, 'grant'),
    grantsSeal: grantsMethod(grants, 'seal'),
    sealing: own(grants, 'sealing') === true,
    keyOf: (toolCallId) => ({ runId: keptRun, toolCallId }),
    // Where a proposal granted by approve is kept apart (approve and decline never look
    // there): the evidence that the package approved the call, read when its replay is refused.
    approvedKeyOf: (toolCallId) => ({ runId: approvedRun, toolCallId }),
    receipts,
    // The receipt key's run: the conversation the application named (undefined: no receipts).
    receiptRunId: runIdOption,
    notice: approvedWithoutGrantNotice('ai', HOW_TO_APPROVE),
    // Resumed approvals the gate denied, for uiMessageStream.
    denials: createDenials(),
    entries,
    // Provider texts recorded by the middleware: by tool name (to pair with the SDK's
    // value in validate) and by tool call id (to check the pairing in the approval hook).
    texts: new BoundedLists(),
    textsById: new BoundedLists(),
    guardedEntry(toolName) {
      const entry = typeof toolName === 'string' ? MapPrototypeGet(byName, toolName) : undefined;
      return entry !== undefined && entry.guarded ? entry : undefined;
    },
  };

  const { tools, toolApproval, proposalOf, attemptOf } = createTools(gate);
  gate.proposalOf = proposalOf;
  gate.attemptOf = attemptOf;
  const { middleware, model } = createModel(gate);
  const { keptProposal, pending, approve, decline } = createApproval(gate);

  const { uiMessageStream } = gate.denials;

  return ObjectFreeze({ tools, toolApproval, middleware, model, proposalOf, keptProposal, pending, approve, decline, uiMessageStream, grants, runId });
}

module.exports = { createToolGate };
