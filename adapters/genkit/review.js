'use strict';
// What the reviewer of a Genkit gate names a call by, an interrupt Genkit lists or
// `{ runId?, toolCallId, grantScope? }`, for keptProposal, pending, approve and decline (the
// gate kernel's, adapters/gate/review.js).

const { ArrayIsArray, ArrayPrototypePush, isProxy, ObjectFreeze } = require('../gate/primordials');
const { invalidArgument, own, isWellFormedString, isId } = require('../gate/read');
const { noPendingProposalError } = require('../gate/proposals');
const { reviewFunctions, collectRefs } = require('../gate/review');
const { keyOf, scopeOfRequest } = require('./options');
const { META_KEY } = require('./call');

function notPendingError() {
  return noPendingProposalError(
    'no proposal is waiting for approval for this tool call of this run (approved, declined, expired, or never asked under this agent and grant scope)',
  );
}

/**
 * The approval reference of `request`: `{ runId?, toolCallId, grantScope? }`, or an interrupt
 * Genkit lists (`response.interrupts[i]`: the tool request's `ref`, and the run id and grant
 * scope the gate put in its interrupt metadata). Read as own data.
 */
function approvalRef(request, what) {
  const usage = `${what} expects an interrupt of the gate (response.interrupts[i]) or { runId?, toolCallId, grantScope? }`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  let runId = own(request, 'runId');
  let toolCallId = own(request, 'toolCallId');
  let grantScope = own(request, 'grantScope');
  const toolRequest = own(request, 'toolRequest');
  if (toolCallId === undefined && toolRequest !== undefined) {
    toolCallId = own(toolRequest, 'ref');
    const said = own(own(own(request, 'metadata'), 'interrupt'), META_KEY);
    if (runId === undefined) runId = own(said, 'runId');
    if (grantScope === undefined && said !== undefined && own(said, 'grantScope') !== undefined) grantScope = own(said, 'grantScope');
  }
  if (runId === null) runId = undefined;
  if ((runId !== undefined && !isId(runId)) || !isId(toolCallId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope))
    throw invalidArgument(`${what}: grantScope must be a well-formed string or null`);
  return { runId, toolCallId, grantScope };
}

/**
 * The references of one item of `pending`'s source: a generate response (`interrupts`), an
 * interrupt, or a reference; the source is one item or an array of these.
 */
function addPendingRefs(item, refs) {
  if (item === null || typeof item !== 'object' || isProxy(item))
    throw invalidArgument(
      'pending expects the interrupts of a generate response (response.interrupts), one of them, { runId?, toolCallId }, or an array of these',
    );
  const interrupts = own(item, 'interrupts');
  if (ArrayIsArray(interrupts) && !isProxy(interrupts)) {
    for (let i = 0; i < interrupts.length; i++) ArrayPrototypePush(refs, approvalRef(interrupts[i], 'pending'));
    return;
  }
  ArrayPrototypePush(refs, approvalRef(item, 'pending'));
}

/** How the gate's reviewer names a call (reviewFunctions' refs). */
const REFS = ObjectFreeze({
  refOf: approvalRef,
  scopeOf: scopeOfRequest,
  keyOf: (gate, scope, ref) => keyOf(gate, scope, ref.runId, ref.toolCallId),
  listedOf: (ref) => ({ runId: ref.runId ?? null, toolCallId: ref.toolCallId }),
  notPending: notPendingError,
});

/**
 * keptProposal, pending, approve and decline of the gate. `pending(source)`: `{ runId,
 * toolCallId, toolName, proposal }` for each kept proposal that verifies (read from the
 * store, never from the interrupt), `{ runId, toolCallId, error: { name, code } }` for one
 * that does not. `approve` grants exactly the proposal the gate kept for the call (not what
 * the interrupt says), once; then restart the tool (`tool.restart(interrupt)` in
 * `resume.restart`), here or in another process sharing the grants' store: the restart
 * runs only if its arguments have that hash. `decline` forgets the kept proposal (answer
 * the interrupt with `tool.respond`).
 */
function createReview(gate) {
  const review = reviewFunctions(gate, REFS);
  const pending = async (source) => review.pending(collectRefs(source, addPendingRefs));
  return { keptProposal: review.keptProposal, pending, approve: review.approve, decline: review.decline };
}

module.exports = { createReview };
