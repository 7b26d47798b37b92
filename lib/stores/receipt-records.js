'use strict';
// The receipt records of the stores (issue 25, docs/stores.md): reading the frozen plain
// objects the receipts core passes (own data only, the strings unencoded: each durable store
// encodes what it writes), the id a durable store indexes a key by, and a record read back.

const { invalidArgument } = require('../errors');
const { decodeText, encodeText, isHash, own, readNullableString, readObject, readString } = require('./common');
const { binding } = require('../native');
const P = require('../primordials');

// Captured when the package loaded (this module loads at first use). SHA-256 is the
// addon's: node:crypto is not loaded for it.
const { NumberIsSafeInteger } = P;
const sha256Hex = binding.sha256Hex;

/** A whole number of milliseconds (a receipt time). */
function readReceiptTime(value, what) {
  if (!NumberIsSafeInteger(value)) throw invalidArgument(`${what} must be a safe integer (ms)`);
  return value;
}

/** A ReceiptKey: { agentName, runId (string or null, absent reads as null), toolCallId }. */
function readReceiptKey(key) {
  const source = readObject(key, 'key');
  return {
    agentName: readString(own(source, 'agentName'), 'key.agentName'),
    runId: readNullableString(own(source, 'runId'), 'key.runId'),
    toolCallId: readString(own(source, 'toolCallId'), 'key.toolCallId'),
  };
}

function readClaimId(source, what) {
  const claimId = readString(own(source, 'claimId'), `${what}.claimId`);
  if (claimId.length === 0 || claimId.length > 128) throw invalidArgument(`${what}.claimId must be 1 to 128 characters`);
  return claimId;
}

/** A ReceiptClaim: the key, proposalHash, claimId, claimedAt, leaseExpiresAt, expiresAt. */
function readReceiptClaim(claim) {
  const out = readReceiptKey(claim);
  const proposalHash = own(claim, 'proposalHash');
  if (!isHash(proposalHash)) throw invalidArgument('claim.proposalHash must be 64 lowercase hex digits');
  out.proposalHash = proposalHash;
  out.claimId = readClaimId(claim, 'claim');
  out.claimedAt = readReceiptTime(own(claim, 'claimedAt'), 'claim.claimedAt');
  out.leaseExpiresAt = readReceiptTime(own(claim, 'leaseExpiresAt'), 'claim.leaseExpiresAt');
  out.expiresAt = readReceiptTime(own(claim, 'expiresAt'), 'claim.expiresAt');
  return out;
}

/** A ReceiptOutcome: the key, claimId, status, completedAt, resultJson (string or null), expiresAt. */
function readReceiptOutcome(outcome) {
  const out = readReceiptKey(outcome);
  out.claimId = readClaimId(outcome, 'outcome');
  const status = own(outcome, 'status');
  if (status !== 'completed' && status !== 'failed') throw invalidArgument("outcome.status must be 'completed' or 'failed'");
  out.status = status;
  out.completedAt = readReceiptTime(own(outcome, 'completedAt'), 'outcome.completedAt');
  out.resultJson = readNullableString(own(outcome, 'resultJson'), 'outcome.resultJson');
  out.expiresAt = readReceiptTime(own(outcome, 'expiresAt'), 'outcome.expiresAt');
  return out;
}

/** A release: the key and the claimId. */
function readReceiptRelease(release) {
  const out = readReceiptKey(release);
  out.claimId = readClaimId(release, 'release');
  return out;
}

/**
 * The id of a receipt key as the durable stores index it: SHA-256 (hex) of the encoded
 * agentName and toolCallId, length-prefixed, then `-` for a null runId or `+` and the
 * encoded runId. Encoded text is well-formed, so its UTF-8 is one to one with it, and the
 * index entry stays 64 characters whatever the names' size.
 */
function receiptId(key) {
  const a = encodeText(key.agentName);
  const c = encodeText(key.toolCallId);
  const run = key.runId === null ? '-' : `+${encodeText(key.runId)}`;
  return sha256Hex(`${a.length}:${a}${c.length}:${c}${run}`);
}

/** A receipt clock reading (the receipts' own clock, an integer). */
function readReceiptNow(now) {
  if (!NumberIsSafeInteger(now)) throw invalidArgument('now must be a safe integer (milliseconds)');
  return now;
}

/**
 * A ReceiptRecord from what a durable store read back: a fresh plain object with exactly
 * the record fields, its text decoded (decodeText), an absent or null field null.
 */
function receiptFromRow(row) {
  const text = (value) => (value === undefined || value === null ? null : decodeText(value));
  const time = (value) => (value === undefined || value === null ? null : +value);
  return {
    agentName: decodeText(row.agentName),
    runId: text(row.runId),
    toolCallId: decodeText(row.toolCallId),
    proposalHash: row.proposalHash,
    claimId: row.claimId,
    status: row.status,
    claimedAt: +row.claimedAt,
    leaseExpiresAt: +row.leaseExpiresAt,
    completedAt: time(row.completedAt),
    resultJson: text(row.resultJson),
    expiresAt: +row.expiresAt,
  };
}

module.exports = { readReceiptClaim, readReceiptKey, readReceiptNow, readReceiptOutcome, readReceiptRelease, receiptFromRow, receiptId };
