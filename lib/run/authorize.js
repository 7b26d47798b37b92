'use strict';
// evaluateToolCall, then, on an allow, executeToolCall: the whole attempt in one call,
// for run loops that need not record the decision in between.

const { invalidArgument } = require('../errors');
const { own, defineField } = require('../input');
const { decodeView } = require('../snapshot');
const { readEvaluation, conclude, askPolicy, runtimeDeny, NONE } = require('./decide');
const { readGrants, spend, grantsAllow, executionViewOf } = require('./execute');
const P = require('../primordials');

const { ObjectHasOwn } = P;

const AUTHORIZE_USAGE = 'authorizeToolCall expects { prepared, policy, execute, policyContext?, grants? }';

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
  let decision;
  if (read.policy === undefined) {
    decision = runtimeDeny(read.snapshot, 'policy_not_configured', undefined, false, NONE);
  } else {
    const parsedArguments = decodeView(read.snapshot);
    decision = conclude(read, await askPolicy(read, parsedArguments), parsedArguments);
  }
  if (decision.decision !== 'allow') return outcomeOf(decision);
  spend(decision);
  if (!(await grantsAllow(grants, decision))) {
    // The decision was fresh and an allow: only the grant can refuse it.
    const hasResult = ObjectHasOwn(decision, 'policyResult');
    return outcomeOf(runtimeDeny(read.snapshot, 'grant_unavailable', hasResult ? decision.policyResult : undefined, hasResult, NONE));
  }
  const result = await execute(executionViewOf(decision));
  return { decision: 'allow', reason: decision.reason, decidedBy: 'policy', policyResult: decision.policyResult, result };
}

module.exports = { authorizeToolCall };
