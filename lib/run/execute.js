'use strict';
// Step three of the run loop: executeToolCall. The handler runs with a new execution
// view only for an allow decision evaluateToolCall made, at most once per decision, and
// only when the grant the decision relied on (if any) is spent right before it runs.

const { ToolCallNotAllowedError, invalidArgument } = require('../errors');
const { own, requireInput } = require('../input');
const { executionView } = require('../snapshot');
const { DecisionState } = require('./decide');
const { EXECUTE, observed, traceAsync, attemptIdOf } = require('../events');
const { settle, settleNative, thenIsHookFree, ours, isPromise } = require('../promises');
const { lazy } = require('../lazy');
// Receipts are loaded at the first call that gives options.receipts.
const receiptsCore = lazy(() => require('../receipts'));
const { setField } = require('../events');

const P = require('../primordials');

const { isProxy } = P;

/** Reads `options.grants`: undefined, or an object with a spend method. */
function readGrants(options) {
  if (options === undefined || options === null) return undefined;
  requireInput(options, 'options must be an object');
  const grants = own(options, 'grants');
  if (grants === undefined || grants === null) return undefined;
  // `spend` is a method of the grants object, called by design: it may be inherited (a
  // class's hook). A Proxy is refused unread.
  if ((typeof grants !== 'object' && typeof grants !== 'function') || isProxy(grants) || typeof grants.spend !== 'function') {
    throw invalidArgument('options.grants must be an object with a spend(decision) method');
  }
  return grants;
}

/** Reads `options.receipts`: undefined, or the state of an object createExecutionReceipts made. */
function readReceipts(options) {
  if (options === undefined || options === null) return undefined;
  requireInput(options, 'options must be an object');
  const receipts = own(options, 'receipts');
  if (receipts === undefined || receipts === null) return undefined;
  return receiptsCore().receiptsState(receipts);
}

/**
 * The receipt key of a decision, or a ToolCallNotAllowedError (call_id_required) when the
 * call has no id. The call id is given once: to prepareToolCall, or, for a call prepared
 * before its id was known, to the evaluation. A call id given to the evaluation that
 * differs from the prepared one is a TypeError: the key is the prepared call's.
 */
function receiptKeyOf(decision) {
  const state = DecisionState.of(decision);
  const attempt = state.attempt;
  if (attempt.toolCallId !== undefined && state.toolCallId !== attempt.toolCallId) {
    throw invalidArgument("with receipts, the toolCallId given to the evaluation must be the prepared call's");
  }
  if (state.toolCallId === undefined) return new ToolCallNotAllowedError('call_id_required', state.snapshot.toolName, state.decision);
  return { agentName: state.snapshot.agentName, runId: attempt.runId === undefined ? null : attempt.runId, toolCallId: state.toolCallId };
}

/** Records in an execute event's context what the receipt did (no payload). */
function receiptFields(context, what, code) {
  if (context === undefined) return;
  setField(context, 'receipt', what);
  if (code !== undefined) setField(context, 'receiptCode', code);
}

/**
 * The receipt steps of an execution, after the decision is spent: key, claim, grants,
 * handler, outcome. `replayed(value)` is called when a kept result comes back instead.
 */
async function runWithReceipts(rstate, decision, grants, handler, context, onRefused, onReplay, claimedBefore) {
  const state = DecisionState.of(decision);
  let claimed = claimedBefore;
  // claimedBefore: what authorizeToolCall's joint claim answered already (issue 35).
  let key;
  if (claimed === undefined) {
    key = receiptKeyOf(decision);
    if (key instanceof ToolCallNotAllowedError) {
      receiptFields(context, 'refused', key.code);
      if (onRefused !== undefined) onRefused(key);
      throw key;
    }
    // One store call for the claim and the grant's use when the evaluation relied on one grant
    // kept in this receipts' store and nobody observes the execution (its events then say
    // what they said with two steps); otherwise the claim, then the spend.
    const evaluation = context === undefined && needsGrants(undefined, decision) ? state.evaluation : undefined;
    claimed =
      evaluation === undefined
        ? undefined
        : await ours(receiptsCore().claimWithGrant(rstate, key, state.snapshot.proposalHash, state.snapshot.toolName, state.decision, evaluation));
  }
  const jointClaim = claimed !== undefined;
  if (!jointClaim) claimed = await ours(receiptsCore().claim(rstate, key, state.snapshot.proposalHash, state.snapshot.toolName, state.decision));
  if (!claimed.claimed) {
    if (claimed.replay === true) {
      receiptFields(context, 'replayed', undefined);
      if (onReplay !== undefined) onReplay();
      return claimed.value;
    }
    receiptFields(context, 'refused', claimed.error.code);
    if (onRefused !== undefined) onRefused(claimed.error);
    throw claimed.error;
  }
  receiptFields(context, 'claimed', undefined);
  let allowed;
  try {
    // After a joint claim the evaluation's use is spent: only the grants option is asked
    // (a package grants object answers with that same spend).
    allowed = jointClaim
      ? grants === undefined || (await ours(grantAvailable(grants, decision)))
      : !needsGrants(grants, decision) || (await ours(grantsAllow(grants, decision)));
  } catch (error) {
    await ours(receiptsCore().release(rstate, claimed.claim));
    throw error;
  }
  if (!allowed) {
    await ours(receiptsCore().release(rstate, claimed.claim));
    const refused = grantRefused(decision);
    if (onRefused !== undefined) onRefused(refused);
    throw refused;
  }
  let result;
  try {
    result = handler(executionViewOf(decision));
    // A native promise is settled running none of its code (as a policy's is), anything
    // else awaited as it is.
    if (!isPromise(result)) {
      result = await result;
    } else if (thenIsHookFree(result)) {
      result = await result;
    } else {
      const settled = await settleNative(result);
      if (!settled.ok) throw settled.value;
      result = settled.value;
    }
  } catch (error) {
    await ours(receiptsCore().record(rstate, claimed.claim, false, undefined));
    throw error;
  }
  await ours(receiptsCore().record(rstate, claimed.claim, true, result));
  return result;
}

/**
 * Spends a decision: a ToolCallNotAllowedError when it may not run (nothing runs), else
 * undefined. Spent before anything else can run, so a second call, even a concurrent
 * one, is refused.
 */
function spend(decision) {
  const state = DecisionState.of(decision);
  if (state.executed) return new ToolCallNotAllowedError('already_executed', state.snapshot.toolName, state.decision);
  if (state.decision !== 'allow') return new ToolCallNotAllowedError('not_allowed', state.snapshot.toolName, state.decision);
  state.executed = true;
  return undefined;
}

/** Whether the grants object lets the decision run: only `true` (or a promise of it) does. */
async function grantAvailable(grants, decision) {
  // `spend` is the grants object's own method, called by design.
  let settled = settle((d) => grants.spend(d), decision);
  if (isPromise(settled)) settled = await settled;
  return settled.ok && settled.value === true;
}

/** The execution view of a spent decision: the one its evaluation left (once), else a fresh one. */
function executionViewOf(decision) {
  const state = DecisionState.of(decision);
  const made = state.view;
  if (made !== null) {
    state.view = null;
    return made;
  }
  return executionView(state.snapshot);
}

function checkDecision(decision) {
  if (DecisionState.of(decision) === undefined) {
    throw new ToolCallNotAllowedError('not_a_decision', undefined, undefined);
  }
}

function grantRefused(decision) {
  const state = DecisionState.of(decision);
  return new ToolCallNotAllowedError('grant_unavailable', state.snapshot.toolName, state.decision);
}

/**
 * Runs `handler` with a new execution view, only for an allow decision evaluateToolCall
 * made, and at most once per decision; otherwise rejects with ToolCallNotAllowedError and
 * runs nothing. `options.grants.spend(decision)` is asked right before the handler.
 */
async function executeToolCall(decision, handler, options) {
  checkDecision(decision);
  if (typeof handler !== 'function') throw invalidArgument('handler must be a function');
  const grants = readGrants(options);
  const rstate = readReceipts(options);
  if (rstate !== undefined) {
    if (!observed(EXECUTE)) {
      const refused = spend(decision);
      if (refused !== undefined) throw refused;
      return await ours(runWithReceipts(rstate, decision, grants, handler, undefined, undefined, undefined));
    }
    const context = executeContext(decision);
    const run = async () => {
      const refused = spend(decision);
      if (refused !== undefined) throw refused;
      return await ours(runWithReceipts(rstate, decision, grants, handler, context, undefined, undefined));
    };
    return await ours(traceAsync(EXECUTE, context, run, 'execute', ignore, 'handler_error'));
  }
  if (!observed(EXECUTE)) {
    // The same steps as run() below, in this async function: no second promise to adopt.
    const refused = spend(decision);
    if (refused !== undefined) throw refused;
    if (needsGrants(grants, decision) && !(await ours(grantsAllow(grants, decision)))) throw grantRefused(decision);
    return handler(executionViewOf(decision));
  }
  const run = async () => {
    const refused = spend(decision);
    if (refused !== undefined) throw refused;
    if (needsGrants(grants, decision) && !(await ours(grantsAllow(grants, decision)))) throw grantRefused(decision);
    return handler(executionViewOf(decision));
  };
  return await ours(traceAsync(EXECUTE, executeContext(decision), run, 'execute', ignore, 'handler_error'));
}

/** Whether grantsAllow has anything to ask: uses the evaluation relied on, or a grants option. */
function needsGrants(grants, decision) {
  if (grants !== undefined) return true;
  const evaluation = DecisionState.of(decision).evaluation;
  return evaluation !== undefined && evaluation.hasUses();
}

function ignore() {}

/**
 * The context of an execute event (docs/events.md): the attempt, what the decision was
 * made for, and the decision itself; no payload.
 */
function executeContext(decision) {
  const state = DecisionState.of(decision);
  const attemptId = attemptIdOf(state.attempt);
  const { agentName, toolName, proposalHash } = state.snapshot;
  const toolCallId = state.toolCallId;
  const { reason, decidedBy } = decision;
  return toolCallId === undefined
    ? { attemptId, agentName, toolName, proposalHash, decision: state.decision, reason, decidedBy }
    : { attemptId, agentName, toolName, toolCallId, proposalHash, decision: state.decision, reason, decidedBy };
}

/**
 * Whether the grants let an allow decision run: every grant its evaluation relied on is
 * spent (whether or not the caller passed a grants object, whichever it passed), then the
 * `grants` option, if any, is asked too (a package grants object answers with the same
 * spend, made once).
 */
async function grantsAllow(grants, decision) {
  const evaluation = DecisionState.of(decision).evaluation;
  if (evaluation !== undefined && evaluation.hasUses() && (await ours(evaluation.spend())) !== true) return false;
  if (grants !== undefined && !(await ours(grantAvailable(grants, decision)))) return false;
  return true;
}

module.exports = {
  executeToolCall,
  executeContext,
  readGrants,
  readReceipts,
  runWithReceipts,
  receiptKeyOf,
  receiptsCore,
  spend,
  grantsAllow,
  grantRefused,
  executionViewOf,
};
