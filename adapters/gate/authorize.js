'use strict';
// Deciding and running a prepared call in one step: the package's authorizeToolCall, for a
// gate that runs the handler right after an allow and has nothing to do in between (issue
// 35: a call that relies on a grant then makes one store call before its handler, the
// receipt's claim taking the grant's use). What the gate needs afterwards is answered as a
// record: the handler's result or error, a refusal's code, or the decision of a call that
// did not run (require_approval, a deny), with the fields a decision has.

const { authorizeToolCall } = require('tool-argument-snapshot');
const { ObjectFreeze, ReflectApply } = require('./primordials');
const { own } = require('./read');
const { isReceiptCode } = require('./replays');

/** Whether a policy result (own data only) is the grants' allow: the call relied on a grant. */
function grantedAnswer(policyResult) {
  return (
    policyResult !== null && typeof policyResult === 'object' && own(policyResult, 'decision') === 'allow' && own(policyResult, 'reason') === 'approval_granted'
  );
}

/** The code of a runtime deny that refused an allow at its execution (a receipt's, or the grant's), else undefined. */
function executionRefusal(outcome) {
  if (own(outcome, 'decidedBy') !== 'runtime') return undefined;
  const reason = own(outcome, 'reason');
  return reason === 'grant_unavailable' || isReceiptCode(reason) ? reason : undefined;
}

/**
 * The decision of an outcome that did not run, with a decision's fields (prepared's snapshot).
 * @returns {import('tool-argument-snapshot').ToolCallDecision}
 */
function decisionOf(prepared, outcome) {
  /** @type {any} */
  const decision = {
    decision: own(outcome, 'decision'),
    reason: own(outcome, 'reason'),
    decidedBy: own(outcome, 'decidedBy'),
    agentName: own(prepared, 'agentName'),
    toolName: own(prepared, 'toolName'),
    argsCanonicalJson: own(prepared, 'argsCanonicalJson'),
    proposalHash: own(prepared, 'proposalHash'),
  };
  const policyResult = own(outcome, 'policyResult');
  if (policyResult !== undefined) decision.policyResult = policyResult;
  const proposal = own(outcome, 'proposal');
  if (proposal !== undefined) decision.proposal = proposal;
  return ObjectFreeze(decision);
}

/**
 * Decides `prepared` under `policy` and, on allow, runs `handler(view)`, in one call of
 * authorizeToolCall with `options` (`{ receipts, grants? }`). Resolves one of:
 *   { ran: true, result, granted }        the handler answered (or a kept result came back)
 *   { ran: true, error, threw: true, granted }   the handler threw or rejected
 *   { ran: false, code, granted }         an allow refused at its execution (a receipt, the grant)
 *   { ran: false, decision }              not allowed: the decision (require_approval, a deny)
 * `granted`: the allow relied on a grant (the grants' approval_granted answer).
 */
async function authorizeCall(prepared, policy, policyContext, toolCallId, handler, options) {
  const grants = own(options, 'grants');
  let granted = false;
  let called = false;
  // Asked right before the handler, with the allow: what the allow relied on. The gate's
  // grants are asked as executeToolCall would ask them.
  const spend = (decision) => {
    granted = own(decision, 'reason') === 'approval_granted';
    return grants === undefined ? true : ReflectApply(own(grants, 'spend'), grants, [decision]);
  };
  const input = {
    prepared,
    policy,
    policyContext,
    toolCallId,
    execute: (view) => {
      called = true;
      return handler(view);
    },
    receipts: own(options, 'receipts'),
    grants: { spend },
  };
  let outcome;
  try {
    outcome = await authorizeToolCall(input);
  } catch (error) {
    // Only the handler's own error is an outcome; anything before it (a bad argument) is thrown.
    if (!called) throw error;
    return { __proto__: null, ran: true, error, threw: true, granted };
  }
  if (own(outcome, 'decision') === 'allow')
    return { __proto__: null, ran: true, result: own(outcome, 'result'), granted: granted || grantedAnswer(own(outcome, 'policyResult')) };
  const code = executionRefusal(outcome);
  if (code !== undefined) return { __proto__: null, ran: false, code, granted: grantedAnswer(own(outcome, 'policyResult')) };
  return { __proto__: null, ran: false, decision: decisionOf(prepared, outcome) };
}

module.exports = { authorizeCall };
