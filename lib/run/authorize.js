'use strict';
// evaluateToolCall, then, on an allow, executeToolCall: the whole attempt in one call,
// for run loops that need not record the decision in between.

const { invalidArgument } = require('../errors');
const { own, defineField } = require('../input');
const { readEvaluation, decide, evaluationContext, decisionFields, runtimeDeny, NONE } = require('./decide');
const { executeContext, readGrants, readReceipts, runWithReceipts, spend, grantsAllow, grantRefused, executionViewOf } = require('./execute');
const { ours } = require('../promises');
const { EVALUATE, EXECUTE, observed, traceAsync } = require('../events');
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
  if (decision.decision !== 'allow') return outcomeOf(decision);
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
    if (observed(EXECUTE)) {
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

module.exports = { authorizeToolCall };
