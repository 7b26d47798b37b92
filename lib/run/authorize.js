'use strict';
// evaluateToolCall, then, on an allow, executeToolCall: the whole attempt in one call,
// for run loops that need not record the decision in between.

const { invalidArgument } = require('../errors');
const { own, defineField } = require('../input');
const { readEvaluation, decide, evaluationContext, decisionFields, runtimeDeny, approvalDecision, DecisionState, NONE } = require('./decide');
const {
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
} = require('./execute');
const { ours } = require('../promises');
const { EVALUATE, EXECUTE, SPEND, observed, traceAsync } = require('../events');
const P = require('../primordials');

const { ObjectHasOwn } = P;

const AUTHORIZE_USAGE = 'authorizeToolCall expects { prepared, policy, execute, policyContext?, grants?, receipts? }';

/** The outcome of a decision: its decision, reason and decidedBy, and what it carries. */
function outcomeOf(decision) {
  const outcome = { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
  if (ObjectHasOwn(decision, 'policyResult')) defineField(outcome, 'policyResult', decision.policyResult);
  if (ObjectHasOwn(decision, 'error')) defineField(outcome, 'error', decision.error);
  if (ObjectHasOwn(decision, 'proposal')) defineField(outcome, 'proposal', decision.proposal);
  return outcome;
}

/** evaluateToolCall, then, on allow, executeToolCall: one call for the whole attempt. */
async function authorizeToolCall(input) {
  const read = readEvaluation(input, AUTHORIZE_USAGE);
  const execute = own(input, 'execute');
  if (typeof execute !== 'function') throw invalidArgument('execute must be a function');
  const grants = readGrants(input);
  const rstate = readReceipts(input);
  // The call id is given once: to prepareToolCall, or here for a call prepared without one.
  if (rstate !== undefined && read.attempt.toolCallId !== undefined && read.toolCallId !== read.attempt.toolCallId) {
    throw invalidArgument("with receipts, the toolCallId given to authorizeToolCall must be the prepared call's");
  }
  let decision;
  // Execution follows this decision at once: with receipts and nobody observing, a grants
  // policy may leave its lookup to the receipt's claim (issue 35: the claim takes the use
  // in the same store call, or finds no live grant and claims nothing).
  if (rstate !== undefined && !observed(EVALUATE) && !observed(EXECUTE) && !observed(SPEND)) read.foldStore = rstate.store;
  if (observed(EVALUATE)) {
    const context = evaluationContext(read);
    decision = await ours(
      traceAsync(
        EVALUATE,
        context,
        () => decide(read),
        'evaluate',
        (made) => decisionFields(context, made),
      ),
    );
  } else {
    decision = await ours(decide(read));
  }
  if (decision.decision !== 'allow') {
    // A runtime deny of an answer whose grant was never looked up: as it would have been.
    if (read.evaluation !== undefined && typeof read.evaluation.deferred === 'function' && read.evaluation.deferred() !== undefined) {
      return outcomeOf(await ours(deferredDeny(read, decision)));
    }
    return outcomeOf(decision);
  }
  // An allow on a grant not looked up: the claim takes its use, or the call is answered
  // as it would have been without a live grant.
  let claimedBefore;
  const folded = DecisionState.of(decision).otherwise !== null;
  if (folded) {
    const settled = await ours(foldedClaim(read, decision, rstate));
    if (settled.outcome !== undefined) return settled.outcome;
    claimedBefore = settled.claimed;
  }
  // The decision is fresh and an allow: only the grant can refuse it.
  /** @type {ReturnType<typeof grantRefused> | undefined} the ToolCallNotAllowedError that refused the call */
  let refused;
  let replayed = false;
  const run =
    rstate !== undefined
      ? async (context) => {
          spend(decision);
          return await ours(
            runWithReceipts(
              rstate,
              decision,
              grants,
              execute,
              context,
              (error) => {
                refused = error;
              },
              () => {
                replayed = true;
              },
              claimedBefore,
            ),
          );
        }
      : async () => {
          spend(decision);
          if (!(await ours(grantsAllow(grants, decision)))) {
            refused = grantRefused(decision);
            throw refused;
          }
          return execute(executionViewOf(decision));
        };
  let result;
  try {
    // A joint claim made already was made unobserved: its execution goes on so.
    if (claimedBefore === undefined && observed(EXECUTE)) {
      const context = executeContext(decision);
      result = await ours(traceAsync(EXECUTE, context, () => run(context), 'execute', ignore, 'handler_error'));
    } else {
      result = await ours(run(undefined));
    }
  } catch (error) {
    if (refused === undefined || error !== refused) throw error;
    const hasResult = ObjectHasOwn(decision, 'policyResult');
    return outcomeOf(runtimeDeny(read, refused.code, hasResult ? decision.policyResult : undefined, hasResult, NONE));
  }
  if (replayed) return { decision: 'allow', reason: decision.reason, decidedBy: 'policy', policyResult: decision.policyResult, result, replayed: true };
  return { decision: 'allow', reason: decision.reason, decidedBy: 'policy', policyResult: decision.policyResult, result };
}

function ignore() {}

/** The outcome of a deferred grant use that found no live grant: the policy's own answer. */
function otherwiseOutcome(read, state) {
  if (state.otherwiseReason === null) return outcomeOf(runtimeDeny(read, 'invalid_policy_result', state.otherwise, true, NONE));
  return outcomeOf(approvalDecision(read, state.otherwise, state.otherwiseReason));
}

/** The runtime deny of the grants' store failing, as the decision would have been. */
function storeDown(read) {
  return outcomeOf(runtimeDeny(read, 'grant_store_unavailable', undefined, false, NONE));
}

/**
 * The claim of an allow whose grant the policy left to it (issue 35): `{ claimed }`, the
 * joint claim's answer (claimed and taken, or the receipt's refusal of a call whose grant is
 * live) for runWithReceipts; `{ claimed: undefined }` when the grant was looked up now and
 * is live (the ordinary two-step path follows); or `{ outcome }`: the answer without a live
 * grant (require_approval, its proposal), or the store's failure (grant_store_unavailable),
 * with nothing claimed and nothing run.
 */
async function foldedClaim(read, decision, rstate) {
  const state = DecisionState.of(decision);
  const evaluation = state.evaluation;
  let answer;
  // Observed since (a subscriber sees each step on its own), or without a call id: the
  // lookup first, then the ordinary path.
  if (!observed(EXECUTE) && !observed(SPEND) && state.toolCallId !== undefined) {
    const key = receiptKeyOf(decision);
    const { proposalHash, toolName } = state.snapshot;
    answer = await ours(receiptsCore().claimWithGrant(rstate, key, proposalHash, toolName, state.decision, evaluation));
    if (answer !== undefined) {
      if (answer.claimed === true) return { __proto__: null, claimed: answer };
      if (answer.how === 'none') return { __proto__: null, outcome: otherwiseOutcome(read, state) };
      // A store that failed (or timed out) while the grant was still to be found.
      if (answer.how !== 'receipt') return { __proto__: null, outcome: storeDown(read) };
    }
  }
  // The receipt refused the claim (no use taken): whether the grant is live decides between
  // its refusal and the approval; or the joint claim could not be made here.
  const found = await ours(evaluation.resolve());
  if (found === 'none') return { __proto__: null, outcome: otherwiseOutcome(read, state) };
  if (found !== 'live') return { __proto__: null, outcome: storeDown(read) };
  return { __proto__: null, claimed: answer };
}

/** A runtime deny of a policy answer whose grant was never looked up: what it would have been. */
async function deferredDeny(read, decision) {
  const evaluation = read.evaluation;
  const otherwise = evaluation.deferred();
  const found = await ours(evaluation.resolve());
  if (found === 'failed') return runtimeDeny(read, 'grant_store_unavailable', undefined, false, NONE);
  if (found === 'none') return runtimeDeny(read, decision.reason, otherwise, true, NONE);
  return decision;
}

module.exports = { authorizeToolCall };
