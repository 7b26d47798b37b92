'use strict';
// Approvals of a gate: what a request names (a tool-approval-request part, a UI tool part,
// or { approvalId, toolCallId }), the kept proposal of a call, approve (grants exactly that
// proposal, once) and decline, each answering the SDK's tool-approval-response part.

const { isApprovalGrantError } = require('tool-argument-snapshot');
const {
  ArrayIsArray,
  ArrayPrototypePush,
  isProxy,
  MapPrototypeGet,
  MapPrototypeSet,
  ReflectApply,
  SafeMap,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
} = require('../gate/primordials');
const { invalidArgument, own, ownArray, setData, readOptions, isWellFormedString, isId } = require('../gate/read');
const { noPendingProposalError, grantOptions: grantOptionsOf, grantOnce, keepOptions } = require('../gate/proposals');
const { reviewKept } = require('../gate/pending');

/** How long the record of an approval given through the gate is kept (without proposalTtlMs): 24 hours. */
const APPROVED_RECORD_MS = 24 * 60 * 60 * 1000;

/** `approve` found no proposal waiting for this call in this run (code TAS_NO_PENDING_PROPOSAL). */
function notPendingError() {
  return noPendingProposalError(
    'no proposal is waiting for approval for this tool call in this run (approved or declined before, expired, or never asked under this runId and grant scope)',
  );
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
  if (
    typeof type === 'string' &&
    (StringPrototypeStartsWith(type, 'tool-') || type === 'dynamic-tool') &&
    approval !== null &&
    typeof approval === 'object' &&
    !isProxy(approval)
  ) {
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

/** Whether a part is an approval request: a `tool-approval-request` part, or a UI tool part asking for approval. */
function isApprovalRequest(part) {
  if (part === null || typeof part !== 'object' || isProxy(part)) return false;
  const type = own(part, 'type');
  if (type === 'tool-approval-request') return true;
  return own(part, 'state') === 'approval-requested' && typeof type === 'string' && (StringPrototypeStartsWith(type, 'tool-') || type === 'dynamic-tool');
}

/**
 * The approval requests of `source`, once per tool call id, in order: parts of an array of
 * content parts (`result.content`), of model messages (`content`) or of UI messages
 * (`parts`); a single message or part is taken as a list of one.
 */
function approvalRequestsOf(source) {
  if (source === null || typeof source !== 'object' || isProxy(source))
    throw invalidArgument('pending expects content parts, model messages or UI messages (an array, or one of them)');
  const items = ArrayIsArray(source) ? source : [source];
  const refs = [];
  const seen = new SafeMap();
  const visit = (part) => {
    if (!isApprovalRequest(part)) return;
    const ref = approvalRef(part, 'pending');
    if (MapPrototypeGet(seen, ref.toolCallId) !== undefined) return;
    MapPrototypeSet(seen, ref.toolCallId, true);
    ref.part = part;
    ArrayPrototypePush(refs, ref);
  };
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (isProxy(item)) throw invalidArgument('pending expects content parts, model messages or UI messages, not a Proxy');
    if (item === null || typeof item !== 'object') continue;
    const parts = own(item, 'parts') !== undefined ? ownArray(item, 'parts') : ownArray(item, 'content');
    if (parts.length === 0) visit(item);
    for (let j = 0; j < parts.length; j++) visit(parts[j]);
  }
  return refs;
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
    if (forget) {
      // Kept apart as the evidence that the package approved this call: its resumed call
      // with other arguments is then `proposal_changed`, and its replay the receipt's code,
      // never `approved_without_grant`. It grants nothing; a failure to keep it only loses
      // that distinction.
      try {
        await store.keep(gate.approvedKeyOf(ref.toolCallId), approved, keepOptions(grantScope, gate.proposalTtlMs ?? APPROVED_RECORD_MS));
      } catch {
        // The grant stands; the waiting proposal is forgotten below all the same.
      }
      await store.forget(keyOf(ref.toolCallId));
    }
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
  /**
   * The approval requests of `source` (a result's content parts, model messages or UI
   * messages, or one of them) whose proposals wait for a reviewer: `{ approvalId,
   * toolCallId, toolName, proposal }` for each that verifies; `{ approvalId, toolCallId,
   * error: { name, code } }`, nothing of the record, for each that does not. A request
   * answered already (approved, declined, expired) or of another run is not listed.
   */
  async function pending(source) {
    const refs = approvalRequestsOf(source);
    const listed = [];
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      let found;
      if (gate.keeps) {
        found = await reviewKept(store.kept, keyOf(ref.toolCallId));
      } else {
        // Grants without kept proposals: the proposal of this gate's own attempt only.
        const proposal = gate.proposalOf(ref.part);
        found = proposal === undefined ? undefined : { proposal };
      }
      if (found === undefined) continue;
      if (found.error !== undefined) {
        ArrayPrototypePush(listed, { approvalId: ref.approvalId, toolCallId: ref.toolCallId, error: found.error });
        continue;
      }
      const toolName = own(found.proposal, 'toolName');
      if (ref.toolName !== undefined && toolName !== ref.toolName) continue;
      ArrayPrototypePush(listed, { approvalId: ref.approvalId, toolCallId: ref.toolCallId, toolName, proposal: found.proposal });
    }
    return listed;
  }

  return { keptProposal: kept, pending, approve, decline };
}

module.exports = { createApproval };
