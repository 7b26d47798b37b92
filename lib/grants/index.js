'use strict';
// Approval grants bound to the proposal hash (RFC-0016 "Resume approval matches only an
// identical strict snapshot hash"), and optionally to a scope (a user, a thread, a run).
// A grant is looked at by the policy helper and spent right before the handler runs by
// the evaluation that relied on it (../run/registry.js), so an attempt that policy allows
// but the runtime then denies (a mutated view, a bad result) keeps it, and no copy or
// decoration of the helper's result spends it twice. With a key ring, only sealed
// proposals (./seal.js) are granted, each once. Stores: ../stores/memory.js (default),
// SQLite, PostgreSQL, Redis (../stores/), all through one interface (docs/stores.md).
// Granting is ./grant.js; the policy helper, its lookup and the spend hook ./policy.js:
// each gets the grants' state below, passed explicitly.

const { invalidArgument } = require('../errors');
const { own, requireInput, optionalInput } = require('../input');
const { ours } = require('../promises');
const { grantsInUse } = require('../run/registry');
const { readKeyRing } = require('./seal');
const { readUses, readTtl, readRetention, readFunction, queryOf, storeMethod, call } = require('./read');
const { createGranting, verifiedProposal } = require('./grant');
const { createGrantLookup, createGrantPolicy } = require('./policy');
const { createKeptProposals } = require('./kept');
const { createMemoryStore } = require('../stores/memory');
const { receiptsOfStore } = require('../receipts');
const P = require('../primordials');

const { ObjectFreeze } = P;
// Captured when the package loaded (this module loads at first use).
const { DateNow } = P;
/** How long a granted seal's nonce outlives the seal by default: one day, for clocks that disagree. */
const NONCE_RETENTION_MS = 86_400_000;

function createApprovalGrants(options) {
  const opts = optionalInput(options, 'createApprovalGrants options must be an object');
  const field = (name) => (opts === null ? undefined : own(opts, name));
  const now = readFunction(field('now'), 'options.now') ?? DateNow;
  const defaultUses = readUses(field('uses'), 'options.uses') ?? 1;
  const defaultTtl = readTtl(field('ttlMs'), 'options.ttlMs');
  const ring = readKeyRing(field('keys'));
  const nonceRetention = readRetention(field('nonceRetentionMs'), 'options.nonceRetentionMs') ?? NONCE_RETENTION_MS;
  const storeOption = field('store');
  const store = storeOption === undefined ? createMemoryStore() : requireInput(storeOption, 'options.store must be an object');
  // The application's store (not this process's memory) keeps receipts too when it has the
  // six receipt operations: every gate over these grants uses them by default (docs/receipts.md).
  const durable = storeOption !== undefined;
  const storeReceipts = durable ? receiptsOfStore(store) : undefined;
  // Bound once: a store whose methods are replaced later keeps the ones it had.
  const storePut = storeMethod(store, 'put');
  const storeHas = storeMethod(store, 'has');
  const storeTake = storeMethod(store, 'take');
  const storeDelete = storeMethod(store, 'delete', true);
  const storePrune = storeMethod(store, 'prune', true);
  const storePutProposal = storeMethod(store, 'putProposal', true);
  const storeGetProposal = storeMethod(store, 'getProposal', true);
  const storeDeleteProposal = storeMethod(store, 'deleteProposal', true);
  const storeListProposals = storeMethod(store, 'listProposals', true);
  // Optional (docs/stores.md): a receipt's claim and one use's take in one call.
  const storeClaimAndTake = storeMethod(store, 'claimReceiptAndTake', true);
  // From now on, policies run inside their evaluation (./registry.js).
  grantsInUse();
  /** What identifies this grants object among the uses an evaluation relied on. */
  const owner = ObjectFreeze({ __proto__: null });

  function clock() {
    const t = now();
    if (typeof t !== 'number' || t !== t) throw invalidArgument('options.now must return a number');
    return t;
  }

  /** What ./grant.js and ./policy.js are given of this grants object (frozen: read as it was made). */
  const state = ObjectFreeze({
    __proto__: null,
    store,
    storePut,
    storeHas,
    storeTake,
    storeClaimAndTake,
    ring,
    clock,
    defaultUses,
    defaultTtl,
    nonceRetention,
    owner,
  });
  const { grant, seal, verify, sealOf } = createGranting(state);
  const { lookup, lookupIn, lookupFor } = createGrantLookup(state);
  const { policy, spend } = createGrantPolicy(lookup, lookupIn, lookupFor);

  async function has(source) {
    requireInput(source, 'has expects { agentName, toolName, proposalHash, scope? }');
    const query = queryOf(source);
    if (query === null) return false;
    const answer = await ours(call(storeHas, store, [query, clock()]));
    if (!answer.ok) throw answer.value;
    return answer.value === true;
  }

  async function revoke(source) {
    requireInput(source, 'revoke expects { agentName, toolName, proposalHash, scope? }');
    const query = queryOf(source);
    if (query === null) throw invalidArgument('revoke expects { agentName, toolName, proposalHash, scope? }');
    if (storeDelete === undefined) throw invalidArgument('store.delete must be an own function property');
    const done = await ours(call(storeDelete, store, [query]));
    if (!done.ok) throw done.value;
  }

  async function prune() {
    if (storePrune === undefined) throw invalidArgument('store.prune must be an own function property');
    const done = await ours(call(storePrune, store, [clock()]));
    if (!done.ok) throw done.value;
    return typeof done.value === 'number' ? done.value : 0;
  }

  const kept = createKeptProposals({
    store,
    storePutProposal,
    storeGetProposal,
    storeDeleteProposal,
    storeListProposals,
    ring,
    clock,
    verifiedProposal,
    sealOf,
  });

  /**
   * The execution receipts kept in the grants' own store (one object per store, shared by
   * every grants object over it), or null: the grants live in this process's memory, or
   * the store lacks the six receipt operations.
   */
  function executionReceipts() {
    return storeReceipts === undefined ? null : storeReceipts;
  }

  return ObjectFreeze({
    grant,
    seal,
    verify,
    has,
    revoke,
    prune,
    policy,
    spend,
    keepProposal: kept.keepProposal,
    keptProposal: kept.keptProposal,
    forgetProposal: kept.forgetProposal,
    listProposals: kept.listProposals,
    executionReceipts,
    sealing: ring !== undefined,
    durable,
  });
}

module.exports = { createApprovalGrants };
