'use strict';
// Kept proposals: a proposal kept with the grants for a run and a call, for adapters whose
// framework has no place to carry it. Sealed with a key ring; without one, its verified
// snapshot fields and a nonce, so it is granted once (./grant.js records the nonce with
// the grant). Read back, it is verified again: a store is not trusted with the arguments.

const { SnapshotDomainError, invalidArgument } = require('../errors');
const { own, requireInput, optionalInput } = require('../input');
const { canonicalize } = require('../snapshot');
const { verifySealed, sealedCopy, randomNonce } = require('./seal');
const { readTtl, readScope, readNonce, call } = require('./read');
const P = require('../primordials');
const { ours } = require('../promises');

const { JSONParse, StringPrototypeIsWellFormed, StringPrototypeCharCodeAt, StringPrototypeSlice, ArrayIsArray, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { NumberIsFinite, NumberIsSafeInteger, StringPrototypeIndexOf, ArrayPrototypePush } = P;

/** A page of listProposals: 100 by default, 1000 at most (a store's own bound). */
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

const PROPOSAL_KEY_USAGE = 'expects { runId, toolCallId }, two non-empty well-formed strings';

function isId(value) {
  return typeof value === 'string' && value !== '' && StringPrototypeIsWellFormed(value);
}

/** The store key of a kept proposal: the run id, length-prefixed, then the call id. */
function proposalKeyOf(key, what) {
  requireInput(key, `${what} ${PROPOSAL_KEY_USAGE}`);
  const runId = own(key, 'runId');
  const toolCallId = own(key, 'toolCallId');
  if (!isId(runId) || !isId(toolCallId)) throw invalidArgument(`${what} ${PROPOSAL_KEY_USAGE}`);
  return `${runId.length}:${runId}${toolCallId}`;
}

/** The run and call ids of a store key made by proposalKeyOf, or undefined for another key. */
function idsOf(storeKey) {
  const colon = StringPrototypeIndexOf(storeKey, ':');
  if (colon < 1 || colon > 15) return undefined;
  let length = 0;
  for (let i = 0; i < colon; i++) {
    const c = StringPrototypeCharCodeAt(storeKey, i);
    if (c < 0x30 || c > 0x39 || (i === 0 && c === 0x30)) return undefined;
    length = length * 10 + (c - 0x30);
  }
  const runId = StringPrototypeSlice(storeKey, colon + 1, colon + 1 + length);
  const toolCallId = StringPrototypeSlice(storeKey, colon + 1 + length);
  return isId(runId) && runId.length === length && isId(toolCallId) ? { runId, toolCallId } : undefined;
}

/**
 * A kept record's text verified as keptProposal answers it (throws its code otherwise),
 * with the grants' key ring (or undefined) and verifiedProposal.
 */
function verifiedKept(text, t, ring, verifiedProposal) {
  if (typeof text !== 'string') throw new SnapshotDomainError('not_a_snapshot', undefined);
  let record;
  try {
    record = JSONParse(text);
  } catch {
    throw new SnapshotDomainError('not_a_snapshot', undefined);
  }
  if (record === null || typeof record !== 'object') throw new SnapshotDomainError('not_a_snapshot', undefined);
  if (ring !== undefined) {
    const fields = verifySealed(record, ring, t);
    verifiedProposal(fields);
    return sealedCopy(fields);
  }
  const snapshot = verifiedProposal(record);
  // A nonce changed in the store is a record that does not verify, reported by its code
  // like any other (never a TypeError that would stop a whole listing).
  let nonce;
  try {
    nonce = readNonce(own(record, 'nonce'));
  } catch {
    throw new SnapshotDomainError('not_a_snapshot', undefined);
  }
  const keptUntil = own(record, 'expiresAt');
  return {
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
    nonce,
    expiresAt: typeof keptUntil === 'number' && NumberIsFinite(keptUntil) ? keptUntil : null,
  };
}

/** listProposals' options, checked: the page's limit and the cursor it continues (null: from the start). */
function readListOptions(listOptions) {
  const lopts = optionalInput(listOptions, 'listProposals options must be an object');
  const limit = lopts === null ? undefined : own(lopts, 'limit');
  const cursor = lopts === null ? undefined : own(lopts, 'cursor');
  if (limit !== undefined && (!NumberIsSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)) {
    throw invalidArgument(`listProposals limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  if (!(cursor === undefined || cursor === null || (typeof cursor === 'string' && StringPrototypeIsWellFormed(cursor)))) {
    throw invalidArgument('listProposals cursor must be the cursor of a previous page (a string), or null');
  }
  return { limit: limit ?? DEFAULT_LIST_LIMIT, cursor: cursor ?? null };
}

/** The rows and the next cursor of a store's listProposals answer, checked (a TypeError otherwise). */
function pageOf(page) {
  if (page === null || typeof page !== 'object' || isProxy(page)) throw invalidArgument('store.listProposals must answer { proposals, next }');
  const rows = own(page, 'proposals');
  const next = own(page, 'next');
  // The cursor goes back to the store as listProposals reads a cursor: a well-formed string.
  if (!ArrayIsArray(rows) || isProxy(rows) || !(next === null || (typeof next === 'string' && StringPrototypeIsWellFormed(next)))) {
    throw invalidArgument('store.listProposals must answer { proposals: [{ key, json }], next: string | null }');
  }
  return { rows, next };
}

/**
 * The kept-proposal methods of one grants object: its store with putProposal, getProposal
 * and deleteProposal bound once (undefined when the store has none), the key ring (or
 * undefined), the grants' clock, and its verifiedProposal and sealOf.
 */
function createKeptProposals({ store, storePutProposal, storeGetProposal, storeDeleteProposal, storeListProposals, ring, clock, verifiedProposal, sealOf }) {
  function requireProposals(what) {
    if (storePutProposal === undefined || storeGetProposal === undefined || storeDeleteProposal === undefined) {
      throw invalidArgument(`${what} needs a store with own putProposal, getProposal and deleteProposal functions`);
    }
  }

  /**
   * Keeps a proposal for a run and a call (for adapters whose framework has no place to
   * carry it): sealed with a key ring, else its verified snapshot fields. Returns what was
   * kept.
   */
  async function keepProposal(key, proposal, keepOptions) {
    const storeKey = proposalKeyOf(key, 'keepProposal');
    requireInput(proposal, 'keepProposal expects a proposal { agentName, toolName, argsCanonicalJson, proposalHash }');
    const kopts = optionalInput(keepOptions, 'keepProposal options must be an object');
    const ttlMs = kopts === null ? undefined : readTtl(own(kopts, 'ttlMs'), 'ttlMs');
    const scope = kopts === null ? null : readScope(own(kopts, 'scope'), 'scope');
    requireProposals('keepProposal');
    let kept;
    const expiresAt = ttlMs === undefined ? null : clock() + ttlMs;
    if (ring !== undefined) {
      kept = sealOf(proposal, ttlMs, scope);
    } else {
      // Unsigned (the store is trusted with it), with a nonce: granted once.
      const snapshot = verifiedProposal(proposal);
      kept = {
        agentName: snapshot.agentName,
        toolName: snapshot.toolName,
        argsCanonicalJson: snapshot.argsCanonicalJson,
        proposalHash: snapshot.proposalHash,
        nonce: randomNonce(),
        expiresAt,
      };
    }
    // The package's own RFC 8785 form: JSON.stringify would look up toJSON on the prototype chain.
    const done = await ours(call(storePutProposal, store, [storeKey, canonicalize(kept), expiresAt]));
    if (!done.ok) throw done.value;
    return kept;
  }

  /**
   * The proposal kept for a run and a call, verified again (a store is not trusted with
   * the arguments: a changed record throws), or undefined when none is kept or it expired.
   */
  async function keptProposal(key) {
    const storeKey = proposalKeyOf(key, 'keptProposal');
    requireProposals('keptProposal');
    const t = clock();
    const found = await ours(call(storeGetProposal, store, [storeKey, t]));
    if (!found.ok) throw found.value;
    if (found.value === null || found.value === undefined) return undefined;
    return verifiedKept(found.value, t, ring, verifiedProposal);
  }

  /**
   * One page of the kept proposals, each verified as keptProposal verifies it: `{ runId,
   * toolCallId, proposal }`, or `{ runId, toolCallId, error }` for one that does not verify
   * (the error names its code, never a field of the record). `cursor` continues a listing
   * (the `cursor` of the previous page; null when done); `limit` (1 to 1000, default 100)
   * bounds the page, which may hold fewer (even none) while the cursor is not null.
   */
  async function listProposals(listOptions) {
    const { limit, cursor } = readListOptions(listOptions);
    if (storeListProposals === undefined) throw invalidArgument('listProposals needs a store with an own listProposals function');
    const t = clock();
    const found = await ours(call(storeListProposals, store, [cursor, limit, t]));
    if (!found.ok) throw found.value;
    const { rows, next } = pageOf(found.value);
    const length = own(rows, 'length');
    const proposals = [];
    for (let i = 0; i < length; i++) {
      const row = own(rows, i);
      if (row === null || typeof row !== 'object' || isProxy(row))
        throw invalidArgument('store.listProposals must answer { proposals: [{ key, json }], next: string | null }');
      const storeKey = own(row, 'key');
      const ids = typeof storeKey === 'string' ? idsOf(storeKey) : undefined;
      const entry = ids === undefined ? { runId: null, toolCallId: null } : { runId: ids.runId, toolCallId: ids.toolCallId };
      try {
        if (ids === undefined) throw new SnapshotDomainError('not_a_snapshot', undefined);
        entry.proposal = verifiedKept(own(row, 'json'), t, ring, verifiedProposal);
      } catch (error) {
        entry.error = error;
      }
      ArrayPrototypePush(proposals, entry);
    }
    return { proposals, cursor: next };
  }

  async function forgetProposal(key) {
    const storeKey = proposalKeyOf(key, 'forgetProposal');
    requireProposals('forgetProposal');
    const done = await ours(call(storeDeleteProposal, store, [storeKey]));
    if (!done.ok) throw done.value;
  }

  return { keepProposal, keptProposal, forgetProposal, listProposals };
}

module.exports = { createKeptProposals };
