'use strict';
// What a reviewer calls on a gate that keeps each approval request in the grants' store
// (the Claude Agent SDK's and Genkit's): keptProposal, pending, approve and decline, each
// on a reference the adapter reads from its framework's own ids.

const { isApprovalGrantError } = require('tool-argument-snapshot');
const { ArrayIsArray, ArrayPrototypePush, isProxy } = require('./primordials');
const { own, readOptions, setData } = require('./read');
const { reviewKept } = require('./pending');
const { grantsMethod, grantOptions: grantOptionsOf, grantOnce } = require('./proposals');

/**
 * The reviewer's functions of a gate (`gate.grants`, and `gate.store` their proposalStore,
 * where its proposals are kept). The adapter's `refs` say how it names a call:
 * `refOf(request, what)`, a reference read from a request (throws for a bad one, `what`
 * naming the function); `scopeOf(gate, ref)`, its grant scope; `keyOf(gate, scope, ref)`,
 * the key its proposal is kept under; `listedOf(ref)`, a new record of the fields `pending`
 * lists it by; and `notPending()`, the TAS_NO_PENDING_PROPOSAL error.
 */
function reviewFunctions(gate, refs) {
  const { grants, store } = gate;
  const { refOf, notPending, listedOf } = refs;
  const scopeOf = (ref) => refs.scopeOf(gate, ref);
  const keyOf = (scope, ref) => refs.keyOf(gate, scope, ref);
  const grantsGrant = grantsMethod(grants, 'grant');

  /** The proposal waiting for approval of this call (sealed with a key ring), or undefined. */
  async function keptProposal(request) {
    const ref = refOf(request, 'keptProposal');
    return store.kept(keyOf(scopeOf(ref), ref));
  }

  /**
   * Of references already read, the calls whose proposals wait: the listed fields with
   * `toolName` and `proposal` for each kept proposal that verifies (read from the store),
   * with `error: { name, code }` (nothing of the record) for one that does not.
   */
  async function pending(read) {
    const listed = [];
    for (let i = 0; i < read.length; i++) {
      const ref = read[i];
      const found = await reviewKept(store.kept, keyOf(scopeOf(ref), ref));
      if (found === undefined) continue;
      const entry = listedOf(ref);
      if (found.error !== undefined) {
        setData(entry, 'error', found.error);
      } else {
        setData(entry, 'toolName', own(found.proposal, 'toolName'));
        setData(entry, 'proposal', found.proposal);
      }
      ArrayPrototypePush(listed, entry);
    }
    return listed;
  }

  /**
   * The reviewer approved this call: grants exactly the proposal the gate kept for it
   * (sealed: verified and granted once) and forgets it, so a second approval rejects with
   * TAS_NO_PENDING_PROPOSAL. Answers the kept record.
   */
  async function approve(request, grantOptions) {
    const ref = refOf(request, 'approve');
    const scope = scopeOf(ref);
    const passed = grantOptionsOf(readOptions(grantOptions, 'approve options'), scope);
    const key = keyOf(scope, ref);
    const record = await store.kept(key);
    if (record === undefined) throw notPending();
    await grantOnce(grantsGrant, grants, record, passed, isApprovalGrantError, notPending);
    await store.forget(key);
    return record;
  }

  /** The reviewer declined this call: its kept proposal is forgotten (no approval can follow). */
  async function decline(request) {
    const ref = refOf(request, 'decline');
    const key = keyOf(scopeOf(ref), ref);
    const record = await store.kept(key);
    if (record === undefined) throw notPending();
    await store.forget(key);
  }

  return { keptProposal, pending, approve, decline };
}

/**
 * The references `pending` is given in `source`, one item or an array (not a Proxy) of
 * items: `addRefs(item, refs)` pushes the references of one item (or throws for a bad one).
 */
function collectRefs(source, addRefs) {
  const refs = [];
  if (ArrayIsArray(source) && !isProxy(source)) for (let i = 0; i < source.length; i++) addRefs(source[i], refs);
  else addRefs(source, refs);
  return refs;
}

module.exports = { reviewFunctions, collectRefs };
