'use strict';
// Listing and approving the pending proposals of a RunState, live or carried in its context.

const { own, setData, readOptions } = require('../gate/read');
const { noPendingProposalError } = require('../gate/proposals');
const {
  ArrayPrototypePush, MapPrototypeGet, MapPrototypeSet, ObjectFreeze, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet,
} = require('../gate/primordials');
const { sameData } = require('../gate/same-data');
const { api, ADAPTER, invalidArgument } = require('./common');
const { sdkCanParse, GRANT_OPTION_FIELDS } = require('./schemas');

const { verifySnapshot, isApprovalGrantError, isSnapshotDomainError } = api;

/** The payload-free report of a carried proposal that does not verify: its error's class and code. */
function invalidReport(error) {
  return ObjectFreeze({ name: isApprovalGrantError(error) ? 'ApprovalGrantError' : 'SnapshotDomainError', code: own(error, 'code') });
}

/** `proposal`, `pending` and `approve` of one gate (`g`: its options and per-run state). */
function createApproval(g) {
  const { agentName, grants, sealing, toolNames, runRecord, carriedEntry, forget, carryApproved } = g;

  /**
   * A carried proposal verified as a reviewer may be shown it: with a key ring, the seal
   * (signature, expiry and hash) by `grants.verify`; without, the hash recomputed from the
   * canonical JSON by `verifySnapshot`. Returns `{ proposal, sealed }` (fresh copies), or
   * `{ error }` with the package's error (ApprovalGrantError or SnapshotDomainError).
   */
  function verifyCarried(carried) {
    const verified = verifyCarriedNow(carried);
    if (verified.error !== undefined) return verified;
    // Verified every time it is read; the same carried record, unchanged, gives the same copy.
    const previous = WeakMapPrototypeGet(verifiedCopies, carried);
    if (previous !== undefined && sameData(previous.proposal, verified.proposal)) return previous;
    WeakMapPrototypeSet(verifiedCopies, carried, verified);
    return verified;
  }

  /** carried record -> its last verified copy. */
  const verifiedCopies = new SafeWeakMap();

  function verifyCarriedNow(carried) {
    try {
      if (sealing) {
        const sealed = own(grants, 'verify')(carried);
        return { __proto__: null, proposal: sealed, sealed };
      }
      const snapshot = verifySnapshot(carried);
      const proposal = {
        agentName: snapshot.agentName,
        toolName: snapshot.toolName,
        argsCanonicalJson: snapshot.argsCanonicalJson,
        proposalHash: snapshot.proposalHash,
      };
      return { __proto__: null, proposal, sealed: undefined };
    } catch (error) {
      if (isApprovalGrantError(error) || isSnapshotDomainError(error)) return { __proto__: null, error };
      throw error;
    }
  }

  /** The pending entry of an interruption of this gate's tools: live in this process, else carried. */
  function pendingOf(runContext, interruption) {
    const rawItem = own(interruption, 'rawItem');
    const callId = own(rawItem, 'callId');
    const name = own(rawItem, 'name');
    const rawArguments = own(rawItem, 'arguments');
    if (typeof callId !== 'string' || MapPrototypeGet(toolNames, name) !== true) return undefined;
    const live = runContext !== undefined ? MapPrototypeGet(runRecord(runContext).pending, callId) : undefined;
    if (live !== undefined) {
      return live.rawArguments === rawArguments && live.toolName === name ? live : undefined;
    }
    const entry = runContext !== undefined ? carriedEntry(runContext, callId) : undefined;
    if (entry === undefined || entry.rawArguments !== rawArguments || entry.toolName !== name) return undefined;
    // Carried in a state that was stored somewhere: shown and granted only once it verifies.
    const verified = verifyCarried(entry.proposal);
    if (verified.error !== undefined) {
      return { __proto__: null, toolName: name, rawArguments, proposal: undefined, sealed: undefined, error: verified.error, scope: entry.scope };
    }
    const proposal = verified.proposal;
    if (own(proposal, 'agentName') !== agentName || own(proposal, 'toolName') !== name) return undefined;
    return { __proto__: null, toolName: name, rawArguments, proposal, sealed: verified.sealed, reason: entry.reason, scope: entry.scope };
  }

  function contextOf(state) {
    const runContext = own(state, '_context');
    return runContext !== null && typeof runContext === 'object' ? runContext : undefined;
  }

  /**
   * The proposal an interruption of `state` carries, if any (same call id, same raw
   * string): `proposal(state, interruption)` (also accepted: `proposal(interruption, state)`).
   */
  function proposal(first, second) {
    const [state, interruption] = first !== null && typeof first === 'object' && typeof first.getInterruptions === 'function'
      ? [first, second] : [second, first];
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
        throw noPendingProposalError(`tool-argument-snapshot/${ADAPTER}: no proposal is waiting for approval for this interruption in this state (approved before, or never carried)`);
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
    const options = {};
    if (gopts !== null) {
      for (let i = 0; i < GRANT_OPTION_FIELDS.length; i++) {
        const value = own(gopts, GRANT_OPTION_FIELDS[i]);
        if (value !== undefined) setData(options, GRANT_OPTION_FIELDS[i], value);
      }
    }
    // The run's scope (with keys, the seal carries it).
    if (!sealing && found.scope !== undefined && found.scope !== null) setData(options, 'scope', found.scope);
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
