'use strict';
// Approval grants bound to the proposal hash (RFC-0016 "Resume approval matches only an
// identical strict snapshot hash"), and optionally to a scope (a user, a thread, a run).
// A grant is looked at by the policy helper and spent right before the handler runs by
// the evaluation that relied on it (./registry.js), so an attempt that policy allows but
// the runtime then denies (a mutated view, a bad result) keeps it, and no copy or
// decoration of the helper's result spends it twice. With a key ring, only sealed
// proposals (./seal.js) are granted, each once. Stores: ./memory.js (default) and
// ./stores/ (SQLite, PostgreSQL, Redis), all through one interface (docs/stores.md).

const { ApprovalGrantError, invalidArgument } = require('../errors');
const { own, requireInput, optionalInput } = require('../input');
const { verifySnapshot } = require('../snapshot');
const { ours, settle, isPromise } = require('../promises');
const { grantsInUse, evaluationToAnswer, markAnswer, evaluationOfDecision } = require('../run/registry');
const { readKeyRing, sealFields, verifySealed, sealedCopy } = require('./seal');
const { readUses, readTtl, readRetention, readNonce, readFunction, readScope, grantQuery, queryOf, storeMethod, call } = require('./read');
const { createKeptProposals } = require('./kept');
const { createMemoryStore } = require('../stores/memory');
const { cedarDeciderOf } = require('../cedar/shared');
const { receiptsOfStore } = require('../receipts');
const { GRANT, SPEND, observed, traceAsync, setField } = require('../events');
const P = require('../primordials');

const { ObjectFreeze, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { NumberIsFinite, DateNow } = P;
/** How long a granted seal's nonce outlives the seal by default: one day, for clocks that disagree. */
const NONCE_RETENTION_MS = 86_400_000;

const DEFAULT_FALLBACK = ObjectFreeze(function requireApproval() {
  return { decision: 'require_approval', reason: 'approval_required' };
});

/**
 * Whether a policy's answer is a well-formed require_approval (own data fields, no Proxy
 * asked): only then may a grant answer instead. Anything else is returned as it is, for
 * the runtime to judge (a malformed answer stays invalid_policy_result).
 */
function asksForApproval(value) {
  if (value === null || typeof value !== 'object' || isProxy(value)) return false;
  if (own(value, 'decision') !== 'require_approval') return false;
  const reason = own(value, 'reason');
  return typeof reason === 'string' && reason !== '';
}

const GRANT_USAGE = 'grant expects a proposal { agentName, toolName, argsCanonicalJson, proposalHash } (sealed, with a key ring)';
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
  // From now on, policies run inside their evaluation (./registry.js).
  grantsInUse();
  /** What identifies this grants object among the uses an evaluation relied on. */
  const owner = ObjectFreeze({ __proto__: null });

  function clock() {
    const t = now();
    if (typeof t !== 'number' || t !== t) throw invalidArgument('options.now must return a number');
    return t;
  }

  function requireRing(what) {
    if (ring === undefined) throw invalidArgument(`${what} needs a key ring: createApprovalGrants({ keys: [{ id, secret }] })`);
  }

  /** The four snapshot fields of a proposal, verified (SnapshotDomainError otherwise). */
  function verifiedProposal(proposal) {
    return verifySnapshot({
      agentName: own(proposal, 'agentName'),
      toolName: own(proposal, 'toolName'),
      argsCanonicalJson: own(proposal, 'argsCanonicalJson'),
      proposalHash: own(proposal, 'proposalHash'),
    });
  }

  function sealOf(proposal, ttlMs, scope) {
    const snapshot = verifiedProposal(proposal);
    return sealFields(ring, snapshot, ttlMs === undefined ? null : clock() + ttlMs, scope);
  }

  function seal(proposal, sealOptions) {
    requireRing('seal');
    requireInput(proposal, 'seal expects a proposal { agentName, toolName, argsCanonicalJson, proposalHash }');
    const sopts = optionalInput(sealOptions, 'seal options must be an object');
    const ttlMs = sopts === null ? undefined : readTtl(own(sopts, 'ttlMs'), 'ttlMs');
    const scope = sopts === null ? null : readScope(own(sopts, 'scope'), 'scope');
    return sealOf(proposal, ttlMs, scope);
  }

  /**
   * Verifies a sealed proposal without granting it (for a reviewer's display or a
   * command line): its signature, its expiry on the grants' clock and its hash. Returns a
   * fresh copy of its fields. Synchronous; a TypeError without keys.
   */
  function verify(sealed) {
    requireRing('verify');
    requireInput(sealed, 'verify expects a sealed proposal');
    const fields = verifySealed(sealed, ring, clock());
    verifiedProposal(fields);
    return sealedCopy(fields);
  }

  async function grant(approved, grantOptions) {
    if (!observed(GRANT)) return await ours(grantNow(approved, grantOptions));
    // The context gets the record's fields once they are verified: a refused record's
    // fields are nobody's to report.
    const context = {};
    return await ours(traceAsync(GRANT, context, () => grantNow(approved, grantOptions), 'grant', (record) => {
      setField(context, 'agentName', record.agentName);
      setField(context, 'toolName', record.toolName);
      setField(context, 'proposalHash', record.proposalHash);
      setField(context, 'scope', record.scope);
      setField(context, 'keyId', record.keyId);
    }));
  }

  async function grantNow(approved, grantOptions) {
    requireInput(approved, GRANT_USAGE);
    const gopts = optionalInput(grantOptions, 'grant options must be an object');
    const gfield = (name) => (gopts === null ? undefined : own(gopts, name));
    const uses = readUses(gfield('uses'), 'uses') ?? defaultUses;
    const ttl = readTtl(gfield('ttlMs'), 'ttlMs');
    let expiresAt = gfield('expiresAt');
    if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !NumberIsFinite(expiresAt))) {
      throw invalidArgument('expiresAt must be a finite number (milliseconds since the epoch)');
    }
    if (expiresAt !== undefined && ttl !== undefined) throw invalidArgument('give expiresAt or ttlMs, not both');
    let scope = readScope(gfield('scope'), 'scope');
    const t = clock();
    let nonce = null;
    let nonceExpiresAt = null;
    let keyId = null;
    let sealed;
    if (ring !== undefined) {
      // Only a sealed proposal that verifies, is live and was never granted: what the
      // reviewer saw came from this server, unchanged, and is approved once.
      sealed = verifySealed(approved, ring, t);
      if (sealed.scope !== null) {
        if (scope !== null && scope !== sealed.scope) throw invalidArgument('scope differs from the scope the proposal was sealed with');
        scope = sealed.scope;
      }
      nonce = sealed.nonce;
      nonceExpiresAt = sealed.expiresAt;
      keyId = sealed.keyId;
    } else {
      // Without keys, a proposal kept with the grants (keepProposal) carries a nonce too,
      // so the same kept proposal is granted once however many approvals race for it.
      nonce = readNonce(own(approved, 'nonce'));
      const keptUntil = own(approved, 'expiresAt');
      nonceExpiresAt = nonce !== null && typeof keptUntil === 'number' && NumberIsFinite(keptUntil) ? keptUntil : null;
    }
    // The nonce outlives the seal by a margin: a process whose clock runs ahead may prune it
    // while one whose clock runs behind still finds the seal live.
    if (nonceExpiresAt !== null) nonceExpiresAt += nonceRetention;
    // What the approver saw is argsCanonicalJson: the hash is granted only if it is the
    // hash of that text (a tampered record throws SnapshotDomainError hash_mismatch).
    const snapshot = verifiedProposal(sealed ?? approved);
    if (expiresAt === undefined) {
      const lifetime = ttl ?? defaultTtl;
      expiresAt = lifetime === undefined ? null : t + lifetime;
    }
    const record = ObjectFreeze({
      agentName: snapshot.agentName,
      toolName: snapshot.toolName,
      proposalHash: snapshot.proposalHash,
      scope,
      argsCanonicalJson: snapshot.argsCanonicalJson,
      expiresAt,
      uses,
      nonce,
      nonceExpiresAt,
      keyId,
    });
    const put = await ours(call(storePut, store, [record, t]));
    if (!put.ok) throw put.value;
    if (nonce !== null) {
      if (put.value === false) throw new ApprovalGrantError('seal_used');
      if (put.value !== true) throw invalidArgument('store.put must answer true (stored) or false (nonce already used) for a sealed grant');
    }
    return record;
  }

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

  /** Takes one use of the grant `query` names: true only when the store took one. */
  async function takeNow(query) {
    const taken = await ours(call(storeTake, store, [query, clock()]));
    return taken.ok && taken.value === true;
  }

  /** takeNow, published on the spend channel with the evaluation's attempt (docs/events.md). */
  async function take(query, evaluation) {
    if (!observed(SPEND)) return await ours(takeNow(query));
    const attemptId = evaluation.attemptId();
    const { agentName, toolName, proposalHash, scope } = query;
    const toolCallId = evaluation.toolCallId;
    const context = toolCallId === undefined
      ? { attemptId, agentName, toolName, proposalHash, scope }
      : { attemptId, agentName, toolName, toolCallId, proposalHash, scope };
    return await ours(traceAsync(SPEND, context, () => takeNow(query), 'spend', (taken) => setField(context, 'taken', taken)));
  }

  /**
   * The grant this evaluation may rely on: the marked allow, a deny when the store failed,
   * or undefined (no live grant, or an input outside its own evaluation).
   */
  async function lookup(input) {
    // The evaluation this input belongs to (by the input's identity, never its fields),
    // and only while the policy runs in that same evaluation: a copied or made-up input,
    // another evaluation's input, or a call outside any evaluation finds no grant.
    return lookupIn(evaluationToAnswer(input));
  }

  /** lookup, for an evaluation found before (undefined: none, so no grant). */
  async function lookupIn(evaluation) {
    if (evaluation === undefined || !evaluation.isOpen()) return undefined;
    const query = grantQuery(evaluation.agentName, evaluation.toolName, evaluation.proposalHash, evaluation.scope);
    const answer = await ours(call(storeHas, store, [query, clock()]));
    if (!answer.ok) {
      // The runtime turns the evaluation into deny / grant_store_unavailable, whatever
      // the policy answers after this.
      evaluation.fail();
      return { decision: 'deny', reason: 'grant_store_unavailable' };
    }
    if (answer.value === true && evaluation.isOpen()) {
      evaluation.addUse(owner, () => take(query, evaluation));
      // Marked: handed to another evaluation (a memoized answer), it is a runtime deny.
      const allow = ObjectFreeze({ decision: 'allow', reason: 'approval_granted' });
      markAnswer(allow, evaluation);
      return allow;
    }
    return undefined;
  }

  function policy(fallback) {
    const next = readFunction(fallback, 'fallback policy') ?? DEFAULT_FALLBACK;
    // A Cedar policy (createCedarPolicy, known by identity) decides first and asks the
    // grants only for the approval its set requires: its forbids win over a live grant.
    const cedar = cedarDeciderOf(next);
    if (cedar !== undefined) {
      return async function grantPolicy(input) {
        return cedar(input, lookup);
      };
    }
    if (next === DEFAULT_FALLBACK) {
      // It always asks for approval: the grants answer, when one is live.
      return async function grantPolicy(input) {
        const granted = await ours(lookup(input));
        return granted === undefined ? next(input) : granted;
      };
    }
    // The application's policy decides first: its allow and its deny are final (no grant
    // is looked up, none is spent, and a live grant never turns a deny into an allow). The
    // grants are asked only when it answers require_approval.
    return async function grantPolicy(input) {
      // Found before the fallback runs: whatever it does to the asynchronous context, the
      // lookup is for the evaluation this call was made in.
      const evaluation = evaluationToAnswer(input);
      const settled = settle(next, input);
      const answer = isPromise(settled) ? await settled : settled;
      // A throw or a rejection is the policy's, as it was.
      if (!answer.ok) throw answer.value;
      const value = answer.value;
      if (!asksForApproval(value)) return value;
      const granted = await ours(lookupIn(evaluation));
      return granted === undefined ? value : granted;
    };
  }

  /**
   * The grants hook of executeToolCall and authorizeToolCall: whether an allow may run.
   * An allow whose evaluation relied on grants spends them (once, whoever asks first);
   * any other allow spends nothing. The pipeline spends without this hook too.
   */
  async function spend(decision) {
    if (decision === null || typeof decision !== 'object' || isProxy(decision)) return false;
    if (own(decision, 'decision') !== 'allow') return false;
    const evaluation = evaluationOfDecision(decision);
    if (evaluation === undefined) return true;
    return (await ours(evaluation.spend())) === true;
  }

  const kept = createKeptProposals({ store, storePutProposal, storeGetProposal, storeDeleteProposal, storeListProposals, ring, clock, verifiedProposal, sealOf });

  /**
   * The execution receipts kept in the grants' own store (one object per store, shared by
   * every grants object over it), or null: the grants live in this process's memory, or
   * the store lacks the six receipt operations.
   */
  function executionReceipts() {
    return storeReceipts === undefined ? null : storeReceipts;
  }

  return ObjectFreeze({
    grant, seal, verify, has, revoke, prune, policy, spend,
    keepProposal: kept.keepProposal, keptProposal: kept.keptProposal, forgetProposal: kept.forgetProposal, listProposals: kept.listProposals,
    executionReceipts,
    sealing: ring !== undefined,
    durable,
  });
}

module.exports = { createApprovalGrants };
