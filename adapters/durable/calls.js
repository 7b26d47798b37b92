'use strict';
// What the durable-engine helpers (tool-argument-snapshot/restate, /temporal) share: the
// tools, policies, grants and receipts of a gate, read as every gate reads them, and one
// attempt of a call inside the engine's step (a Restate `ctx.run`, a Temporal activity):
// the receipt first, then the policy on its own view, then the handler on a fresh view
// through executeToolCall. An attempt answers a plain JSON outcome the engine can record:
//
//   { status: 'executed', result, replayed? }          the handler ran (or its kept result)
//   { status: 'denied', reason, decidedBy }            the policy (or the package) denied it
//   { status: 'approval_required', reason, proposal }  sealed with a key ring, else its fields
//   { status: 'refused', code }                        a receipt or grant says it must not run
//   { status: 'retry', code }                          not now: the engine retries the step
//
// A handler that throws rejects the attempt with its own error (the engine's retry policy
// decides; with receipts the next attempt finds the receipt `failed` unless the receipts
// were made with `retryFailed: true`).

const {
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  isToolCallNotAllowedError,
  isApprovalGrantError,
  isSnapshotDomainError,
} = require('tool-argument-snapshot');
const { ObjectFreeze, ReflectApply, MapPrototypeGet, SafeError, ObjectDefineProperty } = require('../gate/primordials');
const { invalidArgument, own, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode } = require('../gate/replays');
const { warnOncePerProcess } = require('../gate/warnings');

/**
 * The code of the warning, once per process (not with NODE_ENV=production), for a
 * durable-engine gate whose receipts live in process memory: the engine retries a step in
 * another process (or after this one died), where those receipts are gone, so the tool
 * would run again.
 */
const MEMORY_RECEIPTS_WARNING = 'TAS_DURABLE_MEMORY_RECEIPTS';

function warnMemoryReceipts(adapter) {
  warnOncePerProcess(
    MEMORY_RECEIPTS_WARNING,
    adapter,
    "the gate's execution receipts live in this process's memory; " +
      'a step the engine retries after the process died runs its tool again. Give the grants a durable store (SQLite, PostgreSQL, Redis): the receipts default to it.',
  );
}
/** An Error of the helpers: a stable `code`, a message that names the code and never a payload. */
function durableError(adapter, code, what) {
  const error = new SafeError(`tool-argument-snapshot/${adapter}: ${what} (${code})`);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: code, enumerable: true, writable: false, configurable: true });
  return error;
}

/**
 * Reads a helper's options: `{ agentName, tools, policy?, grants?, receipts?, grantScope?,
 * onDecision?, jsonSchemaOptions? }`. `readTools` is the AI SDK gate's reader of tools
 * (loaded by the helper once its peers are known to be installed).
 */
function readDurableOptions(options, adapter, readTools) {
  const opts = readOptions(options, `tool-argument-snapshot/${adapter} options`);
  if (opts === null) throw invalidArgument(`tool-argument-snapshot/${adapter} expects { agentName, tools, policy?, grants?, receipts? }`);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const { grants, given } = readGrants(opts);
  const onDecision = readOnDecision(opts);
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption))
    throw invalidArgument('options.grantScope must be a well-formed string');
  // The receipts of the grants' own store by default (a durable grants store keeps them).
  const receipts = readReceipts(opts, grants, adapter);
  if (receipts !== undefined && own(receipts, 'durable') !== true) warnMemoryReceipts(adapter);
  const entries = readTools(own(opts, 'tools'), readJsonSchemaOptions(opts));
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, given);
  return { opts, agentName, grants, receipts, onDecision, grantScope: scopeOption ?? null, entries, byName };
}

/** The guarded entry of a tool name (a tool with its own execute), or undefined. */
function guardedEntry(byName, toolName) {
  const entry = typeof toolName === 'string' ? MapPrototypeGet(byName, toolName) : undefined;
  return entry !== undefined && entry.guarded ? entry : undefined;
}

/** The proposal as the engine records it: sealed with a key ring, else the four hashed fields. */
function recordedProposal(gate, proposal) {
  if (own(gate.grants, 'sealing') === true) {
    const options = gate.grantScope === null ? {} : { scope: gate.grantScope };
    return ReflectApply(own(gate.grants, 'seal'), gate.grants, [proposal, options]);
  }
  return {
    agentName: own(proposal, 'agentName'),
    toolName: own(proposal, 'toolName'),
    argsCanonicalJson: own(proposal, 'argsCanonicalJson'),
    proposalHash: own(proposal, 'proposalHash'),
  };
}

/**
 * Prepares a call from its provider text (strict decoding, the tool's schema once, the
 * snapshot) under `key`, its receipt's key (receiptKey of the gate's agent, the run, the call).
 */
function prepareCall(gate, entry, rawArguments, key) {
  return prepareToolCallAsync({
    agentName: gate.agentName,
    toolName: entry.toolName,
    rawArguments,
    schema: entry.schema,
    runId: key.runId,
    toolCallId: key.toolCallId,
  });
}

/**
 * One attempt of a prepared call, inside the engine's step. `key` is the receipt key it
 * was prepared under (prepareCall); `handlerArgs(view)` gives the arguments of the tool's
 * own execute; `policyContext` reaches the policy.
 */
async function attemptCall(gate, entry, prepared, key, policyContext, handlerArgs) {
  const { receipts } = gate;
  let kept = false;
  if (receipts !== undefined) {
    // A receipt of this key: an earlier attempt of this very step claimed it (its process
    // died before the engine recorded the step). Nothing is decided again, so a grant that
    // attempt spent never turns into a second request to the reviewer.
    let receipt;
    try {
      receipt = await ReflectApply(own(receipts, 'get'), receipts, [key]);
    } catch {
      return { status: 'retry', code: 'receipt_store_unavailable' };
    }
    if (receipt !== null && receipt !== undefined) {
      if (own(receipt, 'proposalHash') !== prepared.proposalHash) return { status: 'refused', code: 'call_id_conflict' };
      const status = own(receipt, 'status');
      // A claim with no outcome. Restate runs one attempt of an invocation at a time, so the
      // claim a new attempt finds is a dead attempt's: its outcome is unknown now. Temporal
      // may retry an activity whose attempt still runs (a timeout): wait for its lease.
      if (status === 'in_progress')
        return gate.claimOfDeadAttempt ? { status: 'refused', code: 'outcome_unknown' } : { status: 'retry', code: 'execution_in_progress' };
      if (status === 'outcome_unknown') return { status: 'refused', code: 'outcome_unknown' };
      // completed or failed: only a kept result may still answer (executeToolCall gives it).
      if (own(receipt, 'hasResult') !== true) return { status: 'refused', code: 'call_already_executed' };
      kept = true;
    }
  }
  const context = { ...policyContext, argumentsSource: 'provider_text' };
  if (gate.grantScope !== null) context.grantScope = gate.grantScope;
  const decision = await evaluateToolCall({ prepared, policy: entry.policy, policyContext: context, toolCallId: key.toolCallId });
  if (gate.onDecision !== undefined) await gate.onDecision(decision, { toolCallId: key.toolCallId });
  // A call that ran already never asks again: only an allow may answer its kept result.
  if (kept && decision.decision !== 'allow') return { status: 'refused', code: 'call_already_executed' };
  if (decision.decision === 'deny') return { status: 'denied', reason: decision.reason, decidedBy: decision.decidedBy };
  if (decision.decision === 'require_approval') {
    return { status: 'approval_required', reason: decision.reason, proposal: recordedProposal(gate, decision.proposal) };
  }
  let result;
  try {
    const options = executeOptions(receipts);
    const handler = (view) => ReflectApply(entry.execute, entry.target, handlerArgs(view));
    if (options === undefined) {
      result = await executeToolCall(decision, handler);
    } else {
      result = await executeToolCall(decision, handler, options);
    }
  } catch (error) {
    const code = receiptRefusalCode(error);
    if (code === 'execution_in_progress' || code === 'receipt_store_unavailable') return { status: 'retry', code };
    if (code !== undefined) return { status: 'refused', code };
    if (isToolCallNotAllowedError(error)) return { status: 'refused', code: own(error, 'code') };
    throw error;
  }
  return kept ? { status: 'executed', result, replayed: true } : { status: 'executed', result };
}

/**
 * The reviewer's answer to an approval request: `{ approved: true, proposal }` with the
 * proposal the request carried (sealed with a key ring), or `{ approved: false, reason? }`.
 * Grants it when it is the very proposal asked (its hash) and the grants accept it (with a
 * key ring: the seal verifies, is live and was never granted). Answers `{ granted: true }`
 * or `{ refused: code }`.
 */
async function grantAnswer(gate, answer, asked) {
  if (answer === null || typeof answer !== 'object' || own(answer, 'approved') !== true) return { refused: 'approval_declined' };
  const proposal = own(answer, 'proposal');
  if (
    proposal === null ||
    typeof proposal !== 'object' ||
    own(proposal, 'proposalHash') !== own(asked, 'proposalHash') ||
    own(proposal, 'agentName') !== gate.agentName ||
    own(proposal, 'toolName') !== own(asked, 'toolName')
  ) {
    return { refused: 'proposal_changed' };
  }
  try {
    const options = gate.grantScope === null ? undefined : { scope: gate.grantScope };
    await ReflectApply(own(gate.grants, 'grant'), gate.grants, options === undefined ? [proposal] : [proposal, options]);
  } catch (error) {
    if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used' && (await liveGrant(gate, proposal))) {
      // The engine attempted this grant step again (the attempt that granted died before
      // the engine recorded it): the seal was granted, and its grant is still there.
      return { granted: true };
    }
    if (isApprovalGrantError(error) || isSnapshotDomainError(error)) return { refused: own(error, 'code') };
    if (error instanceof TypeError) return { refused: 'not_a_proposal' };
    throw error;
  }
  return { granted: true };
}

/** Whether a live grant exists for the proposal's hash in the gate's scope (a read). */
async function liveGrant(gate, proposal) {
  const query = { agentName: gate.agentName, toolName: own(proposal, 'toolName'), proposalHash: own(proposal, 'proposalHash') };
  if (gate.grantScope !== null) query.scope = gate.grantScope;
  try {
    return (await ReflectApply(own(gate.grants, 'has'), gate.grants, [query])) === true;
  } catch {
    return false;
  }
}

/** Whether `value` is a non-empty well-formed id (a run or call id). */
function isKeyPart(value) {
  return isId(value);
}

module.exports = ObjectFreeze({
  MEMORY_RECEIPTS_WARNING,
  durableError,
  readDurableOptions,
  guardedEntry,
  prepareCall,
  attemptCall,
  grantAnswer,
  isKeyPart,
});
