'use strict';
// The SDK's approval hook (`toolApproval`): a guarded call is decided (decide.js), a call
// that needs a reviewer kept with the package so its approval can come back to any process;
// a tool the gate does not guard gets the application's hook or its own needsApproval.

const { ReflectApply, SafeTypeError } = require('../gate/primordials');
const { own } = require('../gate/read');
const { keepOptions } = require('../gate/proposals');
const { attemptFor, DUPLICATE_CALL_ID } = require('./attempts');
const { decide, resumeRefusal } = require('./decide');

/** Approval for tools the gate does not guard: the application's, or the tool's own needsApproval. */
async function unguardedApproval(gate, args) {
  if (gate.fallbackApproval !== undefined) return gate.fallbackApproval(args);
  const toolCall = own(args, 'toolCall');
  const tool = own(own(args, 'tools'), own(toolCall, 'toolName'));
  const needsApproval = own(tool, 'needsApproval');
  if (needsApproval === undefined || needsApproval === null) return undefined;
  const needed =
    typeof needsApproval === 'function'
      ? await ReflectApply(needsApproval, tool, [
          own(toolCall, 'input'),
          { toolCallId: own(toolCall, 'toolCallId'), messages: own(args, 'messages'), context: own(own(args, 'toolsContext'), own(toolCall, 'toolName')) },
        ])
      : needsApproval;
  return needed ? 'user-approval' : undefined;
}

/**
 * Keeps the proposal of a call that needs a reviewer with the package, so the approval can
 * come back to any process: undefined when kept (or the store keeps none), else the reason
 * the call is denied. First wins: a proposal already waiting under this run and call id
 * (the id reused by a later response) is never replaced by another, which the request
 * shown for the first would then approve; the later call is refused instead.
 */
async function keepWaiting(gate, attempt, decision) {
  try {
    const key = gate.keyOf(attempt.toolCallId);
    const waiting = await gate.store.kept(key);
    if (waiting !== undefined && own(waiting, 'proposalHash') !== decision.proposalHash) return DUPLICATE_CALL_ID;
    if (waiting === undefined) await gate.store.keep(key, decision.proposal, keepOptions(gate.grantScope, gate.proposalTtlMs));
  } catch (error) {
    // A store without kept proposals: approvals in this gate only (proposalOf).
    if (error instanceof SafeTypeError) gate.keeps = false;
    // A store that failed: asking a reviewer who could never grant it is refused instead
    // (fails closed).
    else return 'grant_store_unavailable';
  }
  return undefined;
}

async function guardedApproval(gate, attempts, args, toolCall, toolName) {
  const toolCallId = own(toolCall, 'toolCallId');
  const attempt = attemptFor(attempts, toolName, toolCallId, own(toolCall, 'input'));
  if (attempt === undefined) return { type: 'denied', reason: 'not_prepared' };
  if (attempt.refusal !== undefined) return { type: 'denied', reason: attempt.refusal };
  const decision = await decide(gate, attempt, own(args, 'runtimeContext'));
  if (decision.decision === 'allow') return undefined;
  if (decision.decision === 'deny') return { type: 'denied', reason: decision.reason };
  if (attempt.resume) {
    // The SDK replays only approved calls, and executes every one that is not denied: no
    // grant allows this exact hash (edited, replayed, or approved the SDK's own way).
    return { type: 'denied', reason: await resumeRefusal(gate, attempt, decision) };
  }
  if (gate.keeps) {
    const refused = await keepWaiting(gate, attempt, decision);
    if (refused !== undefined) return { type: 'denied', reason: refused };
  }
  return { type: 'user-approval', reason: decision.reason };
}

/** The gate's `toolApproval` hook for the SDK. */
function approvalHook(gate, attempts) {
  return async function toolApproval(args) {
    const toolCall = own(args, 'toolCall');
    const toolName = own(toolCall, 'toolName');
    if (gate.guardedEntry(toolName) === undefined) return unguardedApproval(gate, args);
    const answer = await guardedApproval(gate, attempts, args, toolCall, toolName);
    // A resumed approval denied: its reason, for the UI message stream (denials.js).
    if (answer !== undefined && answer.type === 'denied') gate.denials.record(args, own(toolCall, 'toolCallId'), answer.reason);
    return answer;
  };
}

module.exports = { approvalHook };
