'use strict';
// Deciding a prepared call: the package's evaluateToolCall with the gate's policy and
// policy context, then the application's onDecision with what the gate knows of the call.

const { evaluateToolCall } = require('tool-argument-snapshot');

/**
 * The decision for `prepared` under `policy`; `onDecision(decision, info)` is awaited
 * before it is returned (an observer that throws rejects the call).
 */
async function decideCall(prepared, policy, policyContext, toolCallId, onDecision, info) {
  const decision = await evaluateToolCall({ prepared, policy, policyContext, toolCallId });
  if (onDecision !== undefined) await onDecision(decision, info);
  return decision;
}

module.exports = { decideCall };
