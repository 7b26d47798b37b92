'use strict';
// The hooks of a gated SDK function tool (`t`: the gate `g`, the tool's name, schema step,
// handler and errorFunction): `needsApproval` decides on the captured text, `execute` on
// the exact text it is given and runs an allow through the kernel, `errorFunction` answers
// invalid input.

const { own } = require('../gate/read');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const { MapPrototypeGet, MapPrototypeSet, MapPrototypeDelete } = require('../gate/primordials');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { pruneShared, receiptKey } = require('../gate/receipts');
const { receiptRefusalCode, replayCode } = require('../gate/replays');
const { api, ADAPTER } = require('./common');
const { SDK_DEFAULT_ERROR_OUTPUT } = require('./schemas');

const { ToolArgumentsValidationError, isToolArgumentsValidationError: isValidationError } = api;

function runtimeDeny(g, reason) {
  return g.notExecutedOutput({ decision: 'deny', decidedBy: 'runtime', reason });
}

/**
 * Why an approved call whose new attempt still requires approval does not run: a call
 * that already ran (or runs, or ran with other arguments) answers with its receipt's code;
 * a call approved through the package for other arguments is `proposal_changed`, for the
 * same ones with its grant gone `grant_unavailable`; only an approval given the SDK's own
 * way (state.approve without a grant) is `approved_without_grant`, with its warning.
 */
async function approvedButNotAllowed(g, decision, callId, runId, approvedHash) {
  const proposalHash = own(decision, 'proposalHash');
  const code = await replayCode(g.receipts, receiptKey(g.agentName, runId, callId), proposalHash);
  if (code !== undefined) return runtimeDeny(g, code);
  if (approvedHash !== undefined) return runtimeDeny(g, approvedHash === proposalHash ? 'grant_unavailable' : 'proposal_changed');
  g.notice();
  return runtimeDeny(g, APPROVED_WITHOUT_GRANT);
}

/**
 * The hash this call was approved for through the package: by gate.approve (recorded in
 * this process and carried in the state), or by granting the carried proposal (the
 * documented `grants.grant(sealed)` before `state.approve`): a live grant for it.
 */
async function approvedHashOf(g, runContext, callId, toolName, waiting) {
  const run = g.runRecord(runContext);
  const live = MapPrototypeGet(run.approved, callId);
  if (live !== undefined && live.toolName === toolName) return live.proposalHash;
  const carried = g.carriedApproved(runContext, callId);
  if (carried !== undefined && carried.toolName === toolName) return carried.proposalHash;
  if (waiting === undefined || g.grants === undefined) return undefined;
  const hash = own(waiting.proposal, 'proposalHash');
  if (typeof hash !== 'string') return undefined;
  try {
    const has = await own(g.grants, 'has')({ agentName: g.agentName, toolName, proposalHash: hash, scope: waiting.scope ?? null });
    return has === true ? hash : undefined;
  } catch {
    return undefined;
  }
}

/** needsApproval: the captured call decided now; one that requires approval waits (kept, carried in the state). */
async function needsApproval(t, runContext, callId) {
  const { g, toolName } = t;
  // A call the SDK already approved (a resume) is decided in execute, on its raw string.
  if (typeof callId !== 'string' || callId === '') return false; // execute answers it as invalid input
  if (runContext.isToolApproved({ toolName, callId }) === true) return true;
  const run = g.runRecord(runContext);
  const call = g.takeCaptured(callId);
  if (call === undefined) {
    // A call of a resumed run: not from this turn's model response. If it was waiting
    // for approval (this process, or carried in the restored state), it keeps waiting.
    if (MapPrototypeGet(run.pending, callId) !== undefined || g.carriedEntry(runContext, callId) !== undefined) return true;
    throw new Error(`tool-argument-snapshot/${ADAPTER}: no raw arguments were captured for this call; give the agent gate.model(model)`);
  }
  if (call.name !== toolName) {
    throw new Error(`tool-argument-snapshot/${ADAPTER}: the captured call does not name this tool`);
  }
  const result = await g.attempt(toolName, t.schemaStep, call.rawArguments, runContext, callId);
  MapPrototypeSet(run.attempts, callId, result);
  if (result.decision !== undefined && result.decision.decision === 'require_approval') {
    const proposal = result.decision.proposal;
    const sealed = g.sealing ? own(g.grants, 'seal')(proposal, result.scope !== null ? { scope: result.scope } : undefined) : undefined;
    MapPrototypeSet(run.pending, callId, { __proto__: null, toolName, rawArguments: call.rawArguments, proposal, sealed, scope: result.scope });
    g.carry(runContext, callId, {
      toolName,
      rawArguments: call.rawArguments,
      reason: proposal.reason,
      scope: result.scope,
      proposal: g.carriedProposal(proposal, sealed),
    });
    return true;
  }
  return false;
}

/** Runs an allow through the kernel: the gate's grants and receipts; a refusal before the handler ran is a runtime deny. */
async function runAllowed(t, decision, runContext, details) {
  const { g } = t;
  try {
    return await executeDecision(decision, (args) => t.handler(args, runContext, details), g.executeOptions);
  } catch (error) {
    if (isGrantUnavailable(error)) return runtimeDeny(g, 'grant_unavailable');
    // A call that already ran, runs elsewhere, ran with other arguments, or whose
    // outcome is unknown: refused by its receipt, answered as every other refusal.
    const code = receiptRefusalCode(error);
    if (code !== undefined) return runtimeDeny(g, code);
    throw error;
  } finally {
    pruneShared(g.receipts);
  }
}

/** execute: the exact text the SDK gives, decided (again, unless needsApproval decided this very text). */
async function execute(t, runContext, details) {
  const { g, toolName } = t;
  const toolCall = own(details, 'toolCall');
  const rawArguments = own(toolCall, 'arguments');
  const callId = own(toolCall, 'callId');
  if (typeof rawArguments !== 'string') {
    throw new Error(`tool-argument-snapshot/${ADAPTER}: the SDK gave execute no raw arguments`);
  }
  if (typeof callId !== 'string' || callId === '') {
    // Receipts the app gave key every call by its id: without one nothing runs.
    if (g.receiptsGiven) return runtimeDeny(g, 'call_id_required');
    throw new ToolArgumentsValidationError('json', toolName, 'missing_call_id');
  }
  const run = g.runRecord(runContext);
  let result = MapPrototypeGet(run.attempts, callId);
  MapPrototypeDelete(run.attempts, callId);
  // What waited for approval, read before it is forgotten (a grant of it counts as a package approval).
  const live = MapPrototypeGet(run.pending, callId);
  const waiting = live !== undefined ? live : g.carriedEntry(runContext, callId);
  g.forget(runContext, callId);
  // The decision of needsApproval counts only for the very string it was made for, and
  // an approval request never executes: anything else is a new attempt.
  if (result === undefined || result.rawArguments !== rawArguments || (result.decision !== undefined && result.decision.decision === 'require_approval')) {
    result = await g.attempt(toolName, t.schemaStep, rawArguments, runContext, callId);
  }
  if (result.error !== undefined) throw result.error;
  const decision = result.decision;
  // The package approval of this call, if any, is settled by this attempt.
  const approvedInSdk = decision.decision === 'require_approval' && runContext.isToolApproved({ toolName, callId }) === true;
  const approvedHash = approvedInSdk ? await approvedHashOf(g, runContext, callId, toolName, waiting) : undefined;
  MapPrototypeDelete(run.approved, callId);
  g.forgetApproved(runContext, callId);
  // Approved in the SDK, with no grant for what would execute.
  if (approvedInSdk) return approvedButNotAllowed(g, decision, callId, result.runId, approvedHash);
  if (decision.decision !== 'allow') return g.notExecutedOutput(decision);
  return runAllowed(t, decision, runContext, details);
}

/** errorFunction: invalid input answered as the gate's; anything else as the tool's own errorFunction would. */
function errorOutput(t, runContext, error, details) {
  if (isValidationError(error)) return t.g.invalidInputOutput(error);
  if (t.errorFunction === null) throw error;
  if (t.errorFunction === undefined) return SDK_DEFAULT_ERROR_OUTPUT;
  return t.errorFunction(runContext, error, details);
}

module.exports = { needsApproval, execute, errorOutput };
