'use strict';
// What the reviewer of a Claude Agent SDK gate names a call by, `{ sessionId, toolUseId,
// grantScope? }` or an SDK result message, for keptProposal, pending, approve and decline
// (the gate kernel's, adapters/gate/review.js).

const { ArrayIsArray, ArrayPrototypePush, isProxy, ObjectFreeze } = require('../gate/primordials');
const { invalidArgument, own, readOptions, isWellFormedString, isId } = require('../gate/read');
const { noPendingProposalError } = require('../gate/proposals');
const { reviewFunctions, collectRefs } = require('../gate/review');
const { keyOf, scopeOfRequest } = require('./options');

/** The approval references `approve`, `decline`, `keptProposal` take: `{ sessionId, toolUseId, grantScope? }`. */
function approvalRef(request, what) {
  const usage = `${what} expects { sessionId, toolUseId, grantScope? } (the SDK's session id and the tool_use id)`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const sessionId = own(request, 'sessionId');
  const toolUseId = own(request, 'toolUseId');
  const grantScope = own(request, 'grantScope');
  if (!isId(sessionId) || !isId(toolUseId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope))
    throw invalidArgument(`${what}: grantScope must be a well-formed string or null`);
  return { sessionId, toolUseId, grantScope };
}

function notPendingError() {
  return noPendingProposalError(
    'no proposal is waiting for approval for this tool call of this session (approved, declined, expired, or never asked under this agent and grant scope)',
  );
}

/**
 * The references of one item of `pending`'s source: `{ sessionId, toolUseId }`, or an SDK
 * result message (`{ session_id, permission_denials: [{ tool_use_id }] }`); the source is
 * one item or an array of these.
 */
function addPendingRefs(item, refs) {
  if (item === null || typeof item !== 'object' || isProxy(item))
    throw invalidArgument('pending expects { sessionId, toolUseId }, an SDK result message, or an array of these');
  const denials = own(item, 'permission_denials');
  if (ArrayIsArray(denials) && !isProxy(denials)) {
    const sessionId = own(item, 'session_id');
    if (!isId(sessionId)) return;
    for (let i = 0; i < denials.length; i++) {
      const toolUseId = own(denials[i], 'tool_use_id');
      if (isId(toolUseId)) ArrayPrototypePush(refs, { sessionId, toolUseId, grantScope: undefined });
    }
    return;
  }
  ArrayPrototypePush(refs, approvalRef(item, 'pending'));
}

/** How the gate's reviewer names a call (reviewFunctions' refs). */
const REFS = ObjectFreeze({
  refOf: approvalRef,
  scopeOf: scopeOfRequest,
  keyOf: (gate, scope, ref) => keyOf(gate, scope, ref.sessionId, ref.toolUseId),
  listedOf: (ref) => ({ sessionId: ref.sessionId, toolUseId: ref.toolUseId }),
  notPending: notPendingError,
});

/** keptProposal, pending, approve and decline of the gate. */
function createReview(gate) {
  const review = reviewFunctions(gate, REFS);

  /**
   * The calls of `source` whose proposals wait for a reviewer: `{ sessionId, toolUseId,
   * toolName, proposal }` for each kept proposal that verifies, `{ sessionId, toolUseId,
   * error: { name, code } }` (nothing of the record) for one that does not. `options.grantScope`
   * is the scope of references that name none.
   */
  async function pending(source, options) {
    const popts = readOptions(options, 'pending options');
    const optionScope = popts === null ? undefined : own(popts, 'grantScope');
    if (optionScope !== undefined && optionScope !== null && !isWellFormedString(optionScope))
      throw invalidArgument('pending: options.grantScope must be a well-formed string or null');
    const refs = collectRefs(source, addPendingRefs);
    for (let i = 0; i < refs.length; i++) if (refs[i].grantScope === undefined && optionScope !== undefined) refs[i].grantScope = optionScope;
    return review.pending(refs);
  }

  // approve: grants exactly the proposal the gate kept (sealed: verified and granted once)
  // and forgets it. The session then resumes (`query({ options: { resume } })`, here or in
  // another process sharing the grants' store): the model's next call with the same
  // arguments (the same hash) runs, once; any other arguments ask again.
  return { keptProposal: review.keptProposal, pending, approve: review.approve, decline: review.decline };
}

module.exports = { createReview };
