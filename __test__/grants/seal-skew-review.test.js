'use strict';
// Review finding: a sealed proposal's nonce is kept exactly until the seal's expiresAt
// (lib/grants/index.js:224-225 nonceExpiresAt = sealed.expiresAt; every store's prune
// deletes it once its caller's clock passes that time). Each process has its own clock
// ("the grants' clock", default Date.now). A process whose clock runs ahead prunes the
// nonce while a process whose clock runs behind still finds the seal live, and grants it
// a second time: one reviewer approval, two uses. Seconds of skew between hosts suffice.
//
// Fails on main (7e7def7), SQLite store (what several processes on one host share).
// Suggested fix: keep a nonce record for a margin past the seal's expiry (for example
// nonceExpiresAt = expiresAt + max(ttl, an hour), or a `nonceRetentionMs` option), so no
// prune by a clock within that margin forgets a nonce another clock still accepts.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createApprovalGrants, createSqliteGrantStore, prepareToolCall, authorizeToolCall } = require('../..');

const KEYS = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];

test('review: a seal granted once is never granted again, whatever clock the next process has', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-review-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'grants.db');
  const T = 1_800_000_000_000;
  let clockA = T; // the reviewer's host
  const storeA = createSqliteGrantStore({ path: file });
  const storeB = createSqliteGrantStore({ path: file });
  t.after(async () => { await storeA.close(); await storeB.close(); });
  const a = createApprovalGrants({ store: storeA, keys: KEYS, now: () => clockA });
  // Another host, 3 seconds behind.
  const b = createApprovalGrants({ store: storeB, keys: KEYS, now: () => clockA - 3000 });

  const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"service":"api"}' });
  const asked = await authorizeToolCall({ prepared, policy: a.policy(), execute: () => 'ran' });
  const sealed = a.seal(asked.proposal, { ttlMs: 60_000 });
  await a.grant(sealed); // the reviewer's approval, once

  clockA = T + 61_000; // the seal has expired on A's clock, not on B's (T + 58 s)
  await a.prune();     // the periodic clean-up the docs recommend

  let second;
  try {
    second = await b.grant(sealed);
  } catch (error) {
    second = error;
  }
  assert.equal(second && second.code, 'seal_used', 'the same seal was granted a second time');
});
