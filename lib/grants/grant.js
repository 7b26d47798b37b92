'use strict';
// Granting a proposal (./index.js holds the rest of the grants): seal and verify with the
// key ring, and grant, which checks what was approved (a sealed proposal that verifies,
// is live and was never granted; without keys, a proposal whose hash is the hash of its
// text), then puts the grant record in the store. The grants' state (its store, methods
// bound once, clock, ring and defaults) is the record createApprovalGrants passes.

const { ApprovalGrantError, invalidArgument } = require('../errors');
const { own, requireInput, optionalInput } = require('../input');
const { verifySnapshot } = require('../snapshot');
const { ours } = require('../promises');
const { sealFields, verifySealed, sealedCopy } = require('./seal');
const { readUses, readTtl, readNonce, readScope, call } = require('./read');
const { GRANT, observed, traceAsync, setField } = require('../events');
const P = require('../primordials');

const { ObjectFreeze } = P;
// Captured when the package loaded (this module loads at first use).
const { NumberIsFinite } = P;

const GRANT_USAGE = 'grant expects a proposal { agentName, toolName, argsCanonicalJson, proposalHash } (sealed, with a key ring)';

/** The four snapshot fields of a proposal, verified (SnapshotDomainError otherwise). */
function verifiedProposal(proposal) {
  return verifySnapshot({
    agentName: own(proposal, 'agentName'),
    toolName: own(proposal, 'toolName'),
    argsCanonicalJson: own(proposal, 'argsCanonicalJson'),
    proposalHash: own(proposal, 'proposalHash'),
  });
}

/**
 * The granting methods of one grants object: seal, verify and grant (its public methods),
 * and sealOf, which seals a proposal as seal does once its options are read.
 */
function createGranting(state) {
  const { ring, clock } = state;

  function requireRing(what) {
    if (ring === undefined) throw invalidArgument(`${what} needs a key ring: createApprovalGrants({ keys: [{ id, secret }] })`);
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
    if (!observed(GRANT)) return await ours(grantNow(state, approved, grantOptions));
    // The context gets the record's fields once they are verified: a refused record's
    // fields are nobody's to report.
    const context = {};
    return await ours(
      traceAsync(
        GRANT,
        context,
        () => grantNow(state, approved, grantOptions),
        'grant',
        (record) => {
          setField(context, 'agentName', record.agentName);
          setField(context, 'toolName', record.toolName);
          setField(context, 'proposalHash', record.proposalHash);
          setField(context, 'scope', record.scope);
          setField(context, 'keyId', record.keyId);
        },
      ),
    );
  }

  return { seal, verify, grant, sealOf };
}

/** grant without its event: the record put in the store, once what was approved checks. */
async function grantNow(state, approved, grantOptions) {
  const { store, storePut, ring, clock, defaultUses, defaultTtl, nonceRetention } = state;
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

module.exports = { createGranting, verifiedProposal };
