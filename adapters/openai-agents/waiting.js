'use strict';
// What waits for a reviewer in a RunState: the pending entry of an interruption of the
// gate's tools, live in this process or carried in the state's context, a carried one
// verified (its seal, or its hash) every time it is read.

const { own } = require('../gate/read');
const { MapPrototypeGet, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet } = require('../gate/primordials');
const { sameData } = require('../gate/same-data');
const { api } = require('./common');

const { verifySnapshot, isApprovalGrantError, isSnapshotDomainError } = api;

/** The run context of a RunState (its `_context`), or undefined. */
function contextOf(state) {
  const runContext = own(state, '_context');
  return runContext !== null && typeof runContext === 'object' ? runContext : undefined;
}

/** `pendingOf(runContext, interruption)` of one gate (`g`: its options and per-run state). */
function createWaiting(g) {
  const { agentName, grants, sealing, toolNames, runRecord, carriedEntry } = g;

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

  return pendingOf;
}

module.exports = { contextOf, createWaiting };
