'use strict';
// Deciding an attempt: one decision per attempt however many hooks ask, the call's id given
// to it at the evaluation (it was prepared without one, in validate), and why a resumed
// call that nothing allows any more is denied.

const { isApprovalGrantError, isSnapshotDomainError } = require('tool-argument-snapshot');
const { own, setData } = require('../gate/read');
const { decideCall } = require('../gate/decide');
const { receiptKey } = require('../gate/receipts');
const { replayCode } = require('../gate/replays');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');

async function evaluate(gate, attempt, runtimeContext) {
  // The call's id, given once: the evaluation gives it to the call validate prepared without one.
  const toolCallId = attempt.toolCallId;
  const { argumentsSource, resume } = attempt;
  const policyContext = { toolCallId, argumentsSource, runtimeContext };
  if (gate.grantScope !== null) setData(policyContext, 'grantScope', gate.grantScope);
  const decision = await decideCall(attempt.prepared, attempt.entry.policy, policyContext, toolCallId, gate.onDecision, {
    toolCallId,
    argumentsSource,
    resume,
  });
  attempt.decision = decision;
  return decision;
}

/** One decision per attempt, however many hooks ask (the first one evaluates). */
function decide(gate, attempt, runtimeContext) {
  if (attempt.deciding === undefined) attempt.deciding = evaluate(gate, attempt, runtimeContext);
  return attempt.deciding;
}

/**
 * Why a resumed call that its decision does not allow is denied. Approved through the
 * package (the record approve kept apart): another hash is `proposal_changed`; the same
 * hash is what its receipt says (`call_already_executed` for a replay of a call that ran),
 * else `grant_unavailable` (the grant was used or expired). Not approved through the
 * package: the receipt's code if the call ran, else `approved_without_grant` (approved the
 * SDK's own way), with the gate's one warning.
 */
async function resumeRefusal(gate, attempt, decision) {
  let approved;
  if (gate.keeps) {
    try {
      approved = await gate.store.kept(gate.approvedKeyOf(attempt.toolCallId));
    } catch (error) {
      // A record that does not verify (changed in the store) is not the approved proposal.
      if (isApprovalGrantError(error) || isSnapshotDomainError(error)) return 'proposal_changed';
      return 'grant_store_unavailable';
    }
  }
  if (approved !== undefined && own(approved, 'proposalHash') !== decision.proposalHash) return 'proposal_changed';
  const { receipts, receiptRunId } = gate;
  const code =
    receiptRunId === undefined ? undefined : await replayCode(receipts, receiptKey(gate.agentName, receiptRunId, attempt.toolCallId), decision.proposalHash);
  if (code !== undefined) return code;
  if (approved !== undefined) return 'grant_unavailable';
  gate.notice();
  return APPROVED_WITHOUT_GRANT;
}

module.exports = { decide, resumeRefusal };
