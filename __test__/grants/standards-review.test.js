'use strict';
// Review findings on lib/grants against the package's standard: built-ins captured at
// load, no live lookup on a prototype the application can reach. Each test fails on main
// (7e7def7).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createApprovalGrants, createSnapshot, createSqliteGrantStore } = require('../..');

const proposalOf = (value) => {
  const s = createSnapshot({ agentName: 'payments', toolName: 'pay', value });
  return { agentName: s.agentName, toolName: s.toolName, argsCanonicalJson: s.argsCanonicalJson, proposalHash: s.proposalHash };
};

test('review: keepProposal stores the proposal it was given, whatever Object.prototype.toJSON says', async () => {
  // lib/grants/index.js:361 `JSONStringify(kept)`: JSON.stringify looks up `toJSON` on the
  // kept object and its prototype. Without a key ring, keptProposal then verifies only
  // that hash and JSON agree, so the adapters' approve (ai.js, mastra.js) would grant a
  // proposal nobody was asked about.
  const grants = createApprovalGrants();
  const asked = proposalOf({ amount: 5, to: 'bob' });
  const other = proposalOf({ amount: 5000000, to: 'mallory' });
  Object.defineProperty(Object.prototype, 'toJSON', {
    configurable: true,
    writable: true,
    value: function toJSON() {
      return this !== null && typeof this === 'object' && this.proposalHash === asked.proposalHash ? other : this;
    },
  });
  try {
    await grants.keepProposal({ runId: 'run-1', toolCallId: 'call-1' }, asked);
  } finally {
    delete Object.prototype.toJSON;
  }
  const kept = await grants.keptProposal({ runId: 'run-1', toolCallId: 'call-1' });
  assert.equal(kept.argsCanonicalJson, asked.argsCanonicalJson, 'the kept proposal is not the one that was asked about');
});

test('review: a durable store call looks nothing up on Promise.prototype (no live species lookup)', async () => {
  // lib/stores/common.js:271 PromiseResolve(start()) and :277/:321
  // PromisePrototypeThen(...) on the addon's (and pg's, node-redis') promises read
  // `constructor` and Symbol.species at call time; lib/promises.js exists to avoid exactly
  // that for every other promise the package receives.
  const store = createSqliteGrantStore({ path: ':memory:' });
  const query = { agentName: 'payments', toolName: 'pay', proposalHash: '0'.repeat(64), scope: null };
  await store.has(query, 0); // opened
  const original = Object.getOwnPropertyDescriptor(Promise.prototype, 'constructor');
  let reads = 0;
  Object.defineProperty(Promise.prototype, 'constructor', {
    configurable: true,
    get() {
      reads++;
      return Promise;
    },
  });
  let pending;
  try {
    pending = store.has(query, 0); // the synchronous part of one call
  } finally {
    Object.defineProperty(Promise.prototype, 'constructor', original);
  }
  await pending;
  await store.close();
  assert.equal(reads, 0, `Promise.prototype.constructor was read ${reads} time(s) by one store call`);
});
