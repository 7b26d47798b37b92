'use strict';
// The execute of a gated Mastra tool: the call read from Mastra's context, then a first
// attempt (its provider text recorded by gate.model, decided now, run, refused or suspended
// for approval) or a resumed one (Mastra's stored arguments checked against the kept
// proposal and decided again); an allow runs the tool's own execute through the kernel
// (decided and run in one step, authorizeToolCall, when no onDecision observer waits between).

const { prepareToolCallAsync, canonicalize, isToolArgumentsValidationError, isSnapshotDomainError, isApprovalGrantError } = require('tool-argument-snapshot');
const { ReflectApply } = require('../gate/primordials');
const { own, setData, isId } = require('../gate/read');
const { decideCall } = require('../gate/decide');
const { authorizeCall } = require('../gate/authorize');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { receiptKey } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode, replayCode } = require('../gate/replays');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const { validateToolOutput } = require('./framework');
const { withoutUndefined } = require('./nulls');
const { DUPLICATE, UNPAIRED } = require('./texts');
const { callError } = require('./requests');
const { scopeOfRun } = require('./options');

const MISSING_CALL_ID = 'missing_call_id';
const NO_PROVIDER_TEXT = 'no_provider_text';

function notExecuted(gate, decision, reason, decidedBy) {
  return gate.notExecutedOutput({ decision, reason, decidedBy });
}

function policyContextOf(call, argumentsSource, resume) {
  const policyContext = { toolCallId: call.toolCallId, runId: call.runId, argumentsSource, resume, requestContext: call.requestContext };
  // Defined, not assigned: a setter planted on Object.prototype cannot swallow them.
  if (call.threadId !== undefined) setData(policyContext, 'threadId', call.threadId);
  if (call.resourceId !== undefined) setData(policyContext, 'resourceId', call.resourceId);
  if (call.scope !== null) setData(policyContext, 'grantScope', call.scope);
  return policyContext;
}

function decide(gate, entry, prepared, call, argumentsSource, resume) {
  const policyContext = policyContextOf(call, argumentsSource, resume);
  return decideCall(prepared, entry.policy, policyContext, call.toolCallId, gate.onDecision, {
    toolCallId: call.toolCallId,
    runId: call.runId,
    argumentsSource,
    resume,
  });
}

/** The code of a call's receipt: the agent, Mastra's run and the provider's call id (undefined: none). */
function replayOf(gate, call, prepared) {
  return replayCode(gate.receipts, receiptKey(gate.agentName, call.runId, call.toolCallId), prepared.proposalHash);
}

/**
 * Runs the handler for an allow: the app's execute on a new execution view, at most once
 * per call with receipts (a replay answers the model with the receipt's code, or with the
 * kept result when the receipts keep results).
 */
/** The handler of an allowed call: the app's execute on its execution view, then Mastra's own output check. */
function handlerOf(entry, context) {
  return async (view) => {
    const output = await ReflectApply(entry.execute, undefined, [view, context]);
    if (entry.outputSchema === undefined || entry.outputSchema === null) return output;
    // Mastra's own output check (the gated tool has none of its own, so a refusal
    // answered to the model is never checked as the tool's output).
    const checked = validateToolOutput(entry.outputSchema, output, entry.toolName);
    return own(checked, 'error') !== undefined ? own(checked, 'error') : own(checked, 'data');
  };
}

/**
 * The decision of a call and, on allow, its run: `{ answer }` (what ran, or its refusal) or
 * `{ decision }` (not allowed). Without an onDecision observer nothing happens between the
 * two, and they are one step (authorizeToolCall): a call relying on a grant makes one store
 * call before its handler (issue 35, the receipt's claim taking the use).
 * @returns {Promise<any>} `{ answer }` or `{ decision }`
 */
async function decideAndRun(gate, entry, prepared, call, argumentsSource, resume, context) {
  if (gate.onDecision !== undefined) {
    const decision = await decide(gate, entry, prepared, call, argumentsSource, resume);
    return decision.decision === 'allow' ? { __proto__: null, answer: await runAllowed(gate, entry, decision, context) } : { __proto__: null, decision };
  }
  const policyContext = policyContextOf(call, argumentsSource, resume);
  const settled = await authorizeCall(prepared, entry.policy, policyContext, call.toolCallId, handlerOf(entry, context), executeOptions(gate.receipts));
  if (settled.decision !== undefined) return { __proto__: null, decision: settled.decision };
  // Not run: the grant could not be spent, or the call's receipt refused it.
  if (!settled.ran) return { __proto__: null, answer: notExecuted(gate, 'deny', settled.code, 'runtime') };
  if (settled.threw === true) throw settled.error;
  return { __proto__: null, answer: settled.result };
}

async function runAllowed(gate, entry, decision, context) {
  try {
    return await executeDecision(decision, handlerOf(entry, context), executeOptions(gate.receipts));
  } catch (error) {
    // The grant the allow relied on could not be spent (used up, store down): not run.
    if (isGrantUnavailable(error)) return notExecuted(gate, 'deny', 'grant_unavailable', 'runtime');
    // The call's receipt refused it (ran already, running, unknown outcome, other arguments).
    const code = receiptRefusalCode(error);
    if (code !== undefined) return notExecuted(gate, 'deny', code, 'runtime');
    throw error;
  }
}

function prepare(gate, entry, rawArguments, call) {
  return prepareToolCallAsync({
    agentName: gate.agentName,
    toolName: entry.toolName,
    rawArguments,
    schema: entry.schema,
    includePath: gate.includePath,
    toolCallId: call.toolCallId,
    runId: call.runId,
  });
}

/** A call Mastra runs for the first time: its text recorded, its decision made now. */
async function firstAttempt(gate, entry, recorded, call, context) {
  let prepared;
  try {
    prepared = await prepare(gate, entry, recorded.text, call);
  } catch (error) {
    if (isToolArgumentsValidationError(error)) return gate.invalidInputOutput(error);
    throw error;
  }
  const { answer, decision } = await decideAndRun(gate, entry, prepared, call, 'provider_text', false, context);
  if (decision === undefined) return answer;
  if (decision.decision === 'deny') return gate.notExecutedOutput({ decision: 'deny', reason: decision.reason, decidedBy: decision.decidedBy });
  const suspend = own(call.agent, 'suspend');
  if (typeof suspend !== 'function') return gate.notExecutedOutput({ decision: 'require_approval', reason: decision.reason, decidedBy: decision.decidedBy });
  try {
    await ReflectApply(gate.keepProposal, gate.grants, [
      gate.keyOf(call.scope, call.runId, call.toolCallId),
      decision.proposal,
      gate.keepOptionsOf(call.scope),
    ]);
  } catch {
    // Asking a reviewer who could never grant it is refused instead (fails closed).
    return notExecuted(gate, 'deny', 'grant_store_unavailable', 'runtime');
  }
  // Mastra's approval flow: a tool-call-approval chunk, the run suspended, resumed by
  // approveToolCall / declineToolCall. (Run eagerly, Mastra's suspend throws so that the
  // step raises the suspension itself: that error is Mastra's and passes through.)
  await ReflectApply(suspend, call.agent, [{ toolName: entry.toolName }, { requireToolApproval: true }]);
  return undefined;
}

async function forget(gate, key) {
  try {
    await ReflectApply(gate.forgetProposal, gate.grants, [key]);
  } catch {
    // A kept proposal left behind expires (proposalTtlMs) or is pruned; it grants nothing.
  }
}

/**
 * The proposal kept for a resumed call: `{ key, approved, kept }`, approved through the
 * gate (moved by approve) first, else still waiting (approved the Mastra way only, or a
 * stale resume); `{ refusal }` when the store fails or a record does not verify.
 */
async function keptForResume(gate, call) {
  let key = gate.approvedKeyOf(call.scope, call.runId, call.toolCallId);
  let approved = true;
  try {
    let kept = await ReflectApply(gate.keptProposal, gate.grants, [key]);
    if (kept === undefined) {
      key = gate.keyOf(call.scope, call.runId, call.toolCallId);
      approved = false;
      kept = await ReflectApply(gate.keptProposal, gate.grants, [key]);
    }
    return { key, approved, kept, refusal: undefined };
  } catch (error) {
    // A kept record that does not verify (changed in the store, a bad seal) runs nothing.
    if (isApprovalGrantError(error) || isSnapshotDomainError(error)) {
      await forget(gate, key);
      return { refusal: notExecuted(gate, 'deny', 'proposal_changed', 'runtime') };
    }
    return { refusal: notExecuted(gate, 'deny', 'grant_store_unavailable', 'runtime') };
  }
}

/** The decision of a resumed call whose stored arguments are the kept proposal's, and what it answers. */
async function decideResumed(gate, entry, prepared, call, context, approved) {
  const { answer, decision } = await decideAndRun(gate, entry, prepared, call, 'history', true, context);
  if (decision === undefined) return answer;
  if (decision.decision === 'deny') return gate.notExecutedOutput({ decision: 'deny', reason: decision.reason, decidedBy: decision.decidedBy });
  // Nothing allows this hash now. A call that ran already: its receipt's code.
  const code = await replayOf(gate, call, prepared);
  if (code !== undefined) return notExecuted(gate, 'deny', code, 'runtime');
  // Approved through the gate, its grant used or expired.
  if (approved) return notExecuted(gate, 'deny', 'grant_unavailable', 'runtime');
  // Resumed by Mastra (approveToolCall) while no grant allows this exact hash.
  gate.notice();
  return notExecuted(gate, 'deny', APPROVED_WITHOUT_GRANT, 'runtime');
}

/**
 * A call without a recorded text: Mastra resuming an approval (its stored arguments), or
 * a call whose text never passed `gate.model` (refused: `no_provider_text`).
 */
async function resumedAttempt(gate, entry, args, call, context) {
  const { key, approved, kept, refusal } = await keptForResume(gate, call);
  if (refusal !== undefined) return refusal;
  let prepared;
  try {
    // Mastra stored only its parsed object: its RFC 8785 form is what is prepared. A
    // provider's compat layer may have set fields to undefined in it (absent in storage).
    const rawArguments = canonicalize(withoutUndefined(args, 0), { includePath: gate.includePath });
    // Without a kept proposal and without receipts there is nothing to check it against.
    if (kept === undefined && gate.receipts === undefined) return gate.invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
    prepared = await prepare(gate, entry, rawArguments, call);
  } catch (error) {
    if (!isToolArgumentsValidationError(error) && !isSnapshotDomainError(error)) throw error;
    if (kept === undefined) return gate.invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
    await forget(gate, key);
    return notExecuted(gate, 'deny', 'proposal_changed', 'runtime');
  }
  if (kept === undefined) {
    // Nothing waits for this call: a replay of a call that already ran (its receipt says
    // so), else a call that never passed gate.model.
    const code = await replayOf(gate, call, prepared);
    if (code !== undefined) return notExecuted(gate, 'deny', code, 'runtime');
    return gate.invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
  }
  if (prepared.proposalHash !== own(kept, 'proposalHash') || own(kept, 'toolName') !== entry.toolName || own(kept, 'agentName') !== gate.agentName) {
    // The stored arguments are not the ones the reviewer was asked about.
    await forget(gate, key);
    return notExecuted(gate, 'deny', 'proposal_changed', 'runtime');
  }
  // The kept record stays until this call is settled: a resume of the same run at the
  // same time (a redelivered job, a second worker) still finds it, and is refused by the
  // call's receipt, or by its grant.
  try {
    return await decideResumed(gate, entry, prepared, call, context, approved);
  } finally {
    await forget(gate, key);
  }
}

/** The call of Mastra's execute context: its agent, ids, run and request context. */
function callOf(context) {
  const agent = own(context, 'agent');
  const call = {
    agent,
    toolCallId: own(agent, 'toolCallId'),
    runId: own(context, 'runId'),
    threadId: own(agent, 'threadId'),
    resourceId: own(agent, 'resourceId'),
    requestContext: own(context, 'requestContext'),
    scope: null,
  };
  if (typeof call.threadId !== 'string') call.threadId = undefined;
  if (typeof call.resourceId !== 'string') call.resourceId = undefined;
  return call;
}

function executorFor(gate, entry) {
  return async function execute(inputData, context) {
    const call = callOf(context);
    if (!isId(call.toolCallId)) return gate.invalidInputOutput(callError(entry.toolName, MISSING_CALL_ID));
    // Outside an agent run (a workflow step, a direct execute) there is no provider text.
    if (!isId(call.runId)) return gate.invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
    try {
      call.scope = await scopeOfRun(gate, call);
    } catch {
      return notExecuted(gate, 'deny', 'invalid_grant_scope', 'runtime');
    }
    const recorded = gate.texts.take(call.toolCallId, entry.toolName, inputData);
    if (recorded === DUPLICATE || recorded === UNPAIRED) return gate.invalidInputOutput(callError(entry.toolName, recorded.code));
    if (recorded !== undefined) return firstAttempt(gate, entry, recorded, call, context);
    return resumedAttempt(gate, entry, inputData, call, context);
  };
}

module.exports = { executorFor };
