'use strict';
// Listing and approving the pending proposals of a RunState, live or carried in its context.

const { own, setData, readOptions } = require('../gate/read');
const { ArrayPrototypePush, MapPrototypeGet, MapPrototypeSet, ObjectFreeze } = require('../gate/primordials');
const { noPendingProposalError, grantOptions: grantOptionsOf } = require('../gate/proposals');
const { api, ADAPTER, invalidArgument } = require('./common');
const { sdkCanParse } = require('./schemas');
const { contextOf, createWaiting } = require('./waiting');

const { isApprovalGrantError } = api;

/** The payload-free report of a carried proposal that does not verify: its error's class and code. */
function invalidReport(error) {
  return ObjectFreeze({ name: isApprovalGrantError(error) ? 'ApprovalGrantError' : 'SnapshotDomainError', code: own(error, 'code') });
}

/** `proposal`, `pending` and `approve` of one gate (`g`: its options and per-run state). */
function createApproval(g) {
  const { grants, sealing, toolNames, runRecord, forget, carryApproved } = g;
  const pendingOf = createWaiting(g);

  /**
   * The proposal an interruption of `state` carries, if any (same call id, same raw
   * string): `proposal(state, interruption)` (also accepted: `proposal(interruption, state)`).
   */
  function proposal(first, second) {
    const [state, interruption] =
      first !== null && typeof first === 'object' && typeof first.getInterruptions === 'function' ? [first, second] : [second, first];
    const runContext = state !== undefined && state !== null ? contextOf(state) : undefined;
    if (runContext === undefined) return undefined;
    const found = pendingOf(runContext, interruption);
    return found !== undefined ? found.proposal : undefined;
  }

  /**
   * Every interruption of the state of this gate's tools, with the proposal it carries when
   * it verifies; one that does not is reported as `invalid: { name, code }` (the error's
   * class and code, never the record's text) with no proposal.
   */
  function pending(state) {
    const runContext = contextOf(state);
    const interruptions = state.getInterruptions();
    const out = [];
    for (let i = 0; i < interruptions.length; i++) {
      const interruption = interruptions[i];
      const rawItem = own(interruption, 'rawItem');
      if (MapPrototypeGet(toolNames, own(rawItem, 'name')) !== true) continue;
      const found = runContext !== undefined ? pendingOf(runContext, interruption) : undefined;
      const item = { interruption, proposal: found !== undefined ? found.proposal : undefined };
      if (found !== undefined && found.sealed !== undefined) setData(item, 'sealed', found.sealed);
      if (found !== undefined && found.error !== undefined) setData(item, 'invalid', invalidReport(found.error));
      ArrayPrototypePush(out, item);
    }
    return out;
  }

  /**
   * Approves exactly the reviewed proposal: a grant bound to its agent, tool and hash (the
   * seal, with keys), then the SDK's per-call approval (never alwaysApprove). The resumed
   * call executes only if its new attempt hashes the same, and spends the grant when it does.
   * Once granted, the interruption's proposal is no longer pending (forgotten here and in
   * the state's carrier): approving it again rejects with TAS_NO_PENDING_PROPOSAL instead of
   * granting a second use.
   */
  async function approve(state, interruption, reviewed, grantOptions) {
    // A Proxy is refused unread; uses, ttlMs and expiresAt are read as own data properties.
    const gopts = readOptions(grantOptions, 'approve grant options');
    const runContext = contextOf(state);
    const found = runContext !== undefined ? pendingOf(runContext, interruption) : undefined;
    if (found === undefined) {
      // Without a proposal the SDK asked for approval of text it cannot parse at all (it
      // does so for any tool with an approval function): its approval lets the SDK's own
      // invalid-input answer reach the model, and nothing executes.
      if (sdkCanParse(own(own(interruption, 'rawItem'), 'arguments'))) {
        throw noPendingProposalError(
          `tool-argument-snapshot/${ADAPTER}: no proposal is waiting for approval for this interruption in this state (approved before, or never carried)`,
        );
      }
      state.approve(interruption);
      return;
    }
    if (grants === undefined) throw invalidArgument('approve needs a gate created with grants');
    // A carried proposal that does not verify is refused with its own error (nothing is granted).
    if (found.error !== undefined) throw found.error;
    let approved = found.sealed !== undefined ? found.sealed : found.proposal;
    if (reviewed !== undefined) {
      // The reviewer's proposal must be this interruption's (with keys, granted through its seal).
      if (own(reviewed, 'proposalHash') !== own(found.proposal, 'proposalHash')) {
        throw invalidArgument('the proposal given is not the one this interruption carries');
      }
      if (!sealing) approved = reviewed;
    }
    // `uses`, `ttlMs`, `expiresAt` of the options, and the run's scope (with keys, the seal carries it).
    const options = grantOptionsOf(gopts, sealing ? null : (found.scope ?? null));
    await own(grants, 'grant')(approved, options);
    const callId = own(own(interruption, 'rawItem'), 'callId');
    forget(runContext, callId);
    // Approved through the package, for this hash: a later attempt with other arguments is
    // `proposal_changed`, not an approval given the SDK's own way.
    const proposalHash = own(found.proposal, 'proposalHash');
    MapPrototypeSet(runRecord(runContext).approved, callId, { __proto__: null, toolName: found.toolName, proposalHash });
    carryApproved(runContext, callId, found.toolName, proposalHash);
    state.approve(interruption);
  }

  return { proposal, pending, approve };
}

module.exports = { createApproval };
