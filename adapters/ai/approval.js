'use strict';
// Approvals of a gate: what a request names (a tool-approval-request part, a UI tool part,
// or { approvalId, toolCallId }), the kept proposal of a call, approve (grants exactly that
// proposal, once) and decline, each answering the SDK's tool-approval-response part.

const { isApprovalGrantError } = require('tool-argument-snapshot');
const { isProxy, ReflectApply, StringPrototypeSlice, StringPrototypeStartsWith } = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions, isWellFormedString, isId } = require('../gate/read');
const { noPendingProposalError, grantOptions: grantOptionsOf, grantOnce } = require('../gate/proposals');

/** `approve` found no proposal waiting for this call in this run (code TAS_NO_PENDING_PROPOSAL). */
function notPendingError() {
  return noPendingProposalError('no proposal is waiting for approval for this tool call in this run (approved or declined before, expired, or never asked under this runId and grant scope)');
}

/**
 * What an approval request names: `{ approvalId, toolCallId, toolName? }` from a
 * `tool-approval-request` part of a result (its `toolCall`), the same part as stored in
 * model messages (`toolCallId`), a UI message tool part with its `approval`, or a plain
 * `{ approvalId, toolCallId }`. Every field is read as an own data property.
 */
function approvalRef(request, what) {
  const usage = `${what} expects a tool-approval-request part, a UI tool part with an approval, or { approvalId, toolCallId }`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const type = own(request, 'type');
  let approvalId;
  let toolCallId;
  let toolName;
  const approval = own(request, 'approval');
  if (typeof type === 'string' && (StringPrototypeStartsWith(type, 'tool-') || type === 'dynamic-tool') && approval !== null && typeof approval === 'object' && !isProxy(approval)) {
    // A UI message tool part (useChat): `tool-NAME` or `dynamic-tool` with `toolName`.
    approvalId = own(approval, 'id');
    toolCallId = own(request, 'toolCallId');
    toolName = type === 'dynamic-tool' ? own(request, 'toolName') : StringPrototypeSlice(type, 5);
  } else {
    approvalId = own(request, 'approvalId');
    const toolCall = own(request, 'toolCall');
    if (toolCall !== null && typeof toolCall === 'object' && !isProxy(toolCall)) {
      toolCallId = own(toolCall, 'toolCallId');
      toolName = own(toolCall, 'toolName');
    } else {
      toolCallId = own(request, 'toolCallId');
      toolName = own(request, 'toolName');
    }
  }
  if (!isId(approvalId) || !isId(toolCallId)) throw invalidArgument(usage);
  if (toolName !== undefined && !isWellFormedString(toolName)) throw invalidArgument(usage);
  return { approvalId, toolCallId, toolName };
}

function createApproval(gate) {
  const { grants, grantScope, store, keyOf } = gate;

  /** The proposal waiting for approval of this call in this run (sealed with a key ring), or undefined. */
  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    if (!gate.keeps) return undefined;
    const record = await store.kept(keyOf(ref.toolCallId));
    if (record === undefined || (ref.toolName !== undefined && own(record, 'toolName') !== ref.toolName)) return undefined;
    return record;
  }

  /**
   * The reviewer approved this request: grants exactly the proposal the gate kept for the
   * call (sealed with a key ring: verified and granted once), forgets it, and returns the
   * `tool-approval-response` part for the next call's messages.
   */
  async function approve(request, grantOptions) {
    const ref = approvalRef(request, 'approve');
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = grantOptionsOf(gopts, grantScope);
    let approved;
    let forget = false;
    if (gate.keeps) {
      // A store without kept proposals that this gate has not met yet rejects here, saying
      // which methods it needs.
      approved = await store.kept(keyOf(ref.toolCallId));
      forget = approved !== undefined;
    } else {
      // Grants without kept proposals (a store without putProposal): only the proposal of
      // this gate's own attempt (a result part made in this process), once.
      const proposal = gate.proposalOf(request);
      const attempt = proposal === undefined ? undefined : gate.attemptOf(own(own(request, 'toolCall'), 'input'));
      if (attempt !== undefined && attempt.approved !== true) {
        attempt.approved = true;
        approved = gate.sealing ? ReflectApply(gate.grantsSeal, grants, [proposal, { scope: grantScope }]) : proposal;
      }
    }
    if (approved === undefined || (ref.toolName !== undefined && own(approved, 'toolName') !== ref.toolName)) throw notPendingError();
    // Another approval of the same kept record granted it first (seal_used): not pending.
    await grantOnce(gate.grantsGrant, grants, approved, passed, isApprovalGrantError, notPendingError);
    if (forget) await store.forget(keyOf(ref.toolCallId));
    return { type: 'tool-approval-response', approvalId: ref.approvalId, approved: true };
  }

  /**
   * The reviewer declined this request: forgets the kept proposal and returns the
   * `tool-approval-response` part (approved: false) for the next call's messages.
   */
  async function decline(request, reason) {
    const ref = approvalRef(request, 'decline');
    if (reason !== undefined && !isWellFormedString(reason)) throw invalidArgument('decline reason must be a well-formed string');
    if (gate.keeps) await store.forget(keyOf(ref.toolCallId));
    const response = { type: 'tool-approval-response', approvalId: ref.approvalId, approved: false };
    if (reason !== undefined) setData(response, 'reason', reason);
    return response;
  }
  return { keptProposal: kept, approve, decline };
}

module.exports = { createApproval };
