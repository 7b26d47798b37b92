'use strict';
// Listing and approving the pending proposals of a RunState, live or carried in its context.

const { own, setData, readOptions, noPendingProposalError } = require('../shared');
const {
  ArrayPrototypePush, MapPrototypeGet,
} = require('../gate/primordials');
const { ADAPTER, invalidArgument } = require('./common');
const { sdkCanParse, GRANT_OPTION_FIELDS } = require('./schemas');

/** `proposal`, `pending` and `approve` of one gate (`g`: its options and per-run state). */
function createApproval(g) {
  const { agentName, grants, sealing, toolNames, runRecord, carriedEntry, forget } = g;

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
    const proposal = entry.proposal;
    if (own(proposal, 'agentName') !== agentName || own(proposal, 'toolName') !== name) return undefined;
    const sealed = typeof own(proposal, 'signature') === 'string' ? proposal : undefined;
    return { __proto__: null, toolName: name, rawArguments, proposal, sealed, reason: entry.reason, scope: entry.scope };
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

  /** Every interruption of the state of this gate's tools, with the proposal it carries. */
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
    forget(runContext, own(own(interruption, 'rawItem'), 'callId'));
    state.approve(interruption);
  }

  return { proposal, pending, approve };
}

module.exports = { createApproval };
