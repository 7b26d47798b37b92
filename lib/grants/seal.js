'use strict';
// Sealed proposals: an approval request that can leave the server (to a browser, a queue,
// a checkpoint) and come back without being trusted. The seal is an HMAC-SHA256 under a
// key of the grants' key ring over the RFC 8785 form of the record without its signature
// (docs/approvals.md gives the format for other languages). Only signed fields are in it,
// so a reviewer shown a verified seal is never shown unsigned text.

const { binding } = require('../native');
const { ApprovalGrantError, invalidArgument } = require('../errors');
const { own, requireInput } = require('../input');
const { canonicalize } = require('../snapshot');
const P = require('../primordials');

const { ObjectFreeze, ArrayIsArray, StringPrototypeIsWellFormed, StringPrototypeCharCodeAt, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { NumberIsFinite, SafeMap, MapPrototypeGet, MapPrototypeSet, MapPrototypeHas } = P;
const { TextEncoderPrototypeEncode, TypedArrayPrototypeGetLength, TypedArrayPrototypeSlice, isUint8Array } = P;
const sealSignature = binding.sealSignature;
const sealVerify = binding.sealVerify;
// Random bytes from the operating system through the addon (node:crypto is not loaded).
const randomHex = binding.randomHex;
const ENCODER = new P.SafeTextEncoder();

/** The version of the sealed-proposal format. */
const SEAL_VERSION = 1;
/** The least number of bytes a key's secret must have. */
const MIN_SECRET_BYTES = 32;

const NONCE_BYTES = 16;

/** 128 random bits as 32 lowercase hex digits. */
function randomNonce() {
  return randomHex(NONCE_BYTES);
}

function isLowerHex(text, length) {
  if (text.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * The key ring of `keys`: `[{ id, secret }, ...]`, each id a non-empty well-formed string
 * (unique), each secret a string (its UTF-8 bytes) or a Uint8Array of at least 32 bytes,
 * copied now (later changes to the caller's array or bytes change nothing). The first key
 * seals; every key verifies. Undefined: no key ring.
 */
function readKeyRing(keys) {
  if (keys === undefined) return undefined;
  if (!ArrayIsArray(keys) || isProxy(keys)) throw invalidArgument('options.keys must be an array of { id, secret }');
  const length = own(keys, 'length');
  if (length === 0) throw invalidArgument('options.keys must hold at least one key');
  const byId = new SafeMap();
  let first;
  for (let i = 0; i < length; i++) {
    const key = requireInput(own(keys, i), 'each key must be an object { id, secret }');
    const id = own(key, 'id');
    if (typeof id !== 'string' || id === '' || !StringPrototypeIsWellFormed(id)) throw invalidArgument('a key id must be a non-empty well-formed string');
    if (MapPrototypeHas(byId, id)) throw invalidArgument('key ids must be unique');
    const secret = own(key, 'secret');
    let bytes;
    if (typeof secret === 'string') {
      if (!StringPrototypeIsWellFormed(secret)) throw invalidArgument('a key secret string must be well-formed');
      bytes = TextEncoderPrototypeEncode(ENCODER, secret);
    } else if (isUint8Array(secret) && !isProxy(secret)) {
      bytes = TypedArrayPrototypeSlice(secret, 0, TypedArrayPrototypeGetLength(secret));
    } else {
      throw invalidArgument('a key secret must be a string or a Uint8Array');
    }
    if (TypedArrayPrototypeGetLength(bytes) < MIN_SECRET_BYTES) throw invalidArgument(`a key secret must have at least ${MIN_SECRET_BYTES} bytes`);
    const entry = ObjectFreeze({ __proto__: null, id, bytes });
    MapPrototypeSet(byId, id, entry);
    if (first === undefined) first = entry;
  }
  return ObjectFreeze({ __proto__: null, first, byId });
}

/** The RFC 8785 text a seal signs: the record's fields without the signature. */
function signedText(fields) {
  return canonicalize({
    v: SEAL_VERSION,
    agentName: fields.agentName,
    toolName: fields.toolName,
    argsCanonicalJson: fields.argsCanonicalJson,
    proposalHash: fields.proposalHash,
    keyId: fields.keyId,
    nonce: fields.nonce,
    expiresAt: fields.expiresAt,
    scope: fields.scope,
  });
}

/**
 * A sealed proposal of verified snapshot fields: a plain JSON object with exactly the
 * format's fields, signed with the first key of the ring.
 */
function sealFields(ring, snapshot, expiresAt, scope) {
  const fields = {
    v: SEAL_VERSION,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
    keyId: ring.first.id,
    nonce: randomNonce(),
    expiresAt,
    scope,
    signature: '',
  };
  fields.signature = sealSignature(ring.first.bytes, signedText(fields));
  return fields;
}

/**
 * The fields of a sealed proposal that verifies under the ring: own data properties of
 * the right types (else not_sealed), a key of the ring (unknown_key), a signature that
 * matches in constant time (bad_signature), and, when `now` is given, not expired
 * (seal_expired). The snapshot fields are not verified here (the caller does).
 */
function verifySealed(record, ring, now) {
  const v = own(record, 'v');
  const agentName = own(record, 'agentName');
  const toolName = own(record, 'toolName');
  const argsCanonicalJson = own(record, 'argsCanonicalJson');
  const proposalHash = own(record, 'proposalHash');
  const keyId = own(record, 'keyId');
  const nonce = own(record, 'nonce');
  const expiresAt = own(record, 'expiresAt');
  const scope = own(record, 'scope');
  const signature = own(record, 'signature');
  if (
    v !== SEAL_VERSION ||
    typeof agentName !== 'string' ||
    !StringPrototypeIsWellFormed(agentName) ||
    typeof toolName !== 'string' ||
    !StringPrototypeIsWellFormed(toolName) ||
    typeof argsCanonicalJson !== 'string' ||
    !StringPrototypeIsWellFormed(argsCanonicalJson) ||
    typeof proposalHash !== 'string' ||
    !isLowerHex(proposalHash, 64) ||
    typeof keyId !== 'string' ||
    keyId === '' ||
    !StringPrototypeIsWellFormed(keyId) ||
    typeof nonce !== 'string' ||
    !isLowerHex(nonce, 32) ||
    !(expiresAt === null || (typeof expiresAt === 'number' && NumberIsFinite(expiresAt))) ||
    !(scope === null || (typeof scope === 'string' && StringPrototypeIsWellFormed(scope))) ||
    typeof signature !== 'string'
  ) {
    throw new ApprovalGrantError('not_sealed');
  }
  const key = MapPrototypeGet(ring.byId, keyId);
  if (key === undefined) throw new ApprovalGrantError('unknown_key');
  const fields = { __proto__: null, agentName, toolName, argsCanonicalJson, proposalHash, keyId, nonce, expiresAt, scope, signature };
  if (!sealVerify(key.bytes, signedText(fields), signature)) throw new ApprovalGrantError('bad_signature');
  if (now !== undefined && expiresAt !== null && !(now < expiresAt)) throw new ApprovalGrantError('seal_expired');
  return fields;
}

/** A fresh plain copy of verified seal fields. */
function sealedCopy(fields) {
  return {
    v: SEAL_VERSION,
    agentName: fields.agentName,
    toolName: fields.toolName,
    argsCanonicalJson: fields.argsCanonicalJson,
    proposalHash: fields.proposalHash,
    keyId: fields.keyId,
    nonce: fields.nonce,
    expiresAt: fields.expiresAt,
    scope: fields.scope,
    signature: fields.signature,
  };
}

module.exports = { readKeyRing, sealFields, verifySealed, sealedCopy, randomNonce, isLowerHex, SEAL_VERSION };
