'use strict';
// Listing proposals that wait for a reviewer: each kept record is read back through the
// grants, which verify it (the key ring's signature when sealed, else the hash recomputed
// from its canonical JSON). One that does not verify is reported by its error's name and
// code only: no field of the record reaches a review screen.

const { isApprovalGrantError, isSnapshotDomainError } = require('tool-argument-snapshot');
const { ObjectFreeze } = require('./primordials');
const { own } = require('./read');

/**
 * The kept proposal of `key` for a review screen: `{ proposal }` when it verifies,
 * `{ error: { name, code } }` when it does not, undefined when none waits. A store that
 * fails rejects as it does for `kept`.
 */
async function reviewKept(kept, key) {
  let proposal;
  try {
    proposal = await kept(key);
  } catch (error) {
    if (isApprovalGrantError(error)) return { error: ObjectFreeze({ name: 'ApprovalGrantError', code: own(error, 'code') }) };
    if (isSnapshotDomainError(error)) return { error: ObjectFreeze({ name: 'SnapshotDomainError', code: own(error, 'code') }) };
    throw error;
  }
  return proposal === undefined ? undefined : { proposal };
}

module.exports = { reviewKept };
