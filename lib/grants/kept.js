'use strict';
// Kept proposals: a proposal kept with the grants for a run and a call, for adapters whose
// framework has no place to carry it. Sealed with a key ring; without one, its verified
// snapshot fields and a nonce, so it is granted once (lib/grants/index.js records the nonce
// with the grant). Read back, it is verified again: a store is not trusted with the
// arguments.

const { SnapshotDomainError, invalidArgument } = require('../errors');
const { own, requireInput, optionalInput } = require('../input');
const { canonicalize } = require('../snapshot');
const { verifySealed, sealedCopy, randomNonce } = require('./seal');
const { readTtl, readScope, readNonce, call } = require('./read');
const P = require('../primordials');

const { JSONParse, StringPrototypeIsWellFormed } = P;
const NumberIsFinite = Number.isFinite;

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

/**
 * The kept-proposal methods of one grants object: its store with putProposal, getProposal
 * and deleteProposal bound once (undefined when the store has none), the key ring (or
 * undefined), the grants' clock, and its verifiedProposal and sealOf.
 */
function createKeptProposals({ store, storePutProposal, storeGetProposal, storeDeleteProposal, ring, clock, verifiedProposal, sealOf }) {
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
        agentName: snapshot.agentName, toolName: snapshot.toolName, argsCanonicalJson: snapshot.argsCanonicalJson,
        proposalHash: snapshot.proposalHash, nonce: randomNonce(), expiresAt,
      };
    }
    // The package's own RFC 8785 form: JSON.stringify would look up toJSON on the prototype chain.
    const done = await call(storePutProposal, store, [storeKey, canonicalize(kept), expiresAt]);
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
    const found = await call(storeGetProposal, store, [storeKey, t]);
    if (!found.ok) throw found.value;
    if (found.value === null || found.value === undefined) return undefined;
    if (typeof found.value !== 'string') throw new SnapshotDomainError('not_a_snapshot', undefined);
    let record;
    try {
      record = JSONParse(found.value);
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
    const nonce = readNonce(own(record, 'nonce'));
    const keptUntil = own(record, 'expiresAt');
    return {
      agentName: snapshot.agentName, toolName: snapshot.toolName, argsCanonicalJson: snapshot.argsCanonicalJson,
      proposalHash: snapshot.proposalHash, nonce, expiresAt: typeof keptUntil === 'number' && NumberIsFinite(keptUntil) ? keptUntil : null,
    };
  }

  async function forgetProposal(key) {
    const storeKey = proposalKeyOf(key, 'forgetProposal');
    requireProposals('forgetProposal');
    const done = await call(storeDeleteProposal, store, [storeKey]);
    if (!done.ok) throw done.value;
  }

  return { keepProposal, keptProposal, forgetProposal };
}

module.exports = { createKeptProposals };
