'use strict';
// One conformance suite for the ApprovalGrantStore interface (docs/stores.md), run by
// stores-*.test.js against every store: the memory store, SQLite, PostgreSQL through pg,
// Redis through node-redis and through ioredis. Every store must give the same answers.
//
// `open(t)` returns null when the store's server is not configured (helpers/services.js has
// already skipped the test), else `{ store, second, dispose }`: a store over a fresh, empty
// namespace (file, table or prefix); `second()` (absent for the memory store) opens
// another store over the same data through another connection or client; `dispose()`
// closes both and removes the namespace.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { randomBytes } = require('node:crypto');
const { createApprovalGrants, createExecutionReceipts, prepareToolCall, evaluateToolCall, executeToolCall, authorizeToolCall } = require('../..');

function hash() {
  return randomBytes(32).toString('hex');
}

function query(agentName, toolName, proposalHash, scope = null) {
  return Object.freeze({ agentName, toolName, proposalHash, scope });
}

/** A frozen GrantRecord as the grants object makes it. */
function record(q, { uses = 1, expiresAt = null, nonce = null, nonceExpiresAt = null, args = '{"amount":5}' } = {}) {
  return Object.freeze({ ...q, argsCanonicalJson: args, expiresAt, uses, nonce, nonceExpiresAt });
}

/** Runs `body` with a fresh store of `open`, disposing of it whatever happens. */
/** A receipt claim of call `call-<i>` in run `runId` at `now` (claim id `claim-<i>`). */
function receiptClaim(runId, i, now) {
  return {
    agentName: 'agent',
    runId,
    toolCallId: `call-${i}`,
    proposalHash: hash(),
    claimId: `claim-${i}`,
    claimedAt: now,
    leaseExpiresAt: now + 10_000,
    expiresAt: now + 60_000,
  };
}

/** The completed outcome of receiptClaim(runId, i, now), one millisecond later, with result `{"n":<i>}`. */
function receiptOutcome(runId, i, now) {
  return {
    agentName: 'agent',
    runId,
    toolCallId: `call-${i}`,
    claimId: `claim-${i}`,
    status: 'completed',
    completedAt: now + 1,
    resultJson: `{"n":${i}}`,
    expiresAt: now + 60_000,
  };
}

async function withStore(t, open, body) {
  const opened = await open(t);
  if (opened === null) return;
  try {
    await body(opened);
  } finally {
    await opened.dispose();
  }
}

/** Takes `count` uses one after the other and returns how many succeeded. */
async function takeAll(store, q, now, count) {
  let won = 0;
  for (let i = 0; i < count; i++) if ((await store.take(q, now)) === true) won++;
  return won;
}

/**
 * Defines the suite. `options`: node:test options of the describe (a skip), plus `shared`
 * (one in-process store: no second connection) and `checksArguments: false` (a store that
 * trusts the grants object to check what it passes), and `todo`: { [test title]: reason }
 * for a known difference that the store's owner is to fix (the test runs; it cannot fail
 * the run).
 */
function conformance(name, open, options = {}) {
  const { shared, checksArguments, todo = {}, ...describeOptions } = options;
  describe(`grant store conformance: ${name}`, describeOptions, () => {
    const it = (title, body) => test(title, { todo: Object.hasOwn(todo, title) ? todo[title] : false }, (t) => withStore(t, open, body));

    it('a single-use grant is live until its use is taken, then gone', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      assert.equal(await store.has(q, 0), false, 'nothing before put');
      assert.equal(await store.take(q, 0), false, 'nothing to take before put');
      assert.equal(await store.put(record(q), 0), true);
      assert.equal(await store.has(q, 0), true);
      assert.equal(await store.has(q, 0), true, 'has does not spend');
      assert.equal(await store.take(q, 0), true);
      assert.equal(await store.has(q, 0), false);
      assert.equal(await store.take(q, 0), false);
    });

    it('a grant of two uses is taken exactly twice', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      assert.equal(await store.put(record(q, { uses: 2 }), 0), true);
      assert.equal(await takeAll(store, q, 0, 5), 2);
      assert.equal(await store.has(q, 0), false);
    });

    it('several records under one key keep their own uses', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      await store.put(record(q, { uses: 1 }), 0);
      await store.put(record(q, { uses: 2 }), 0);
      assert.equal(await takeAll(store, q, 0, 6), 3);
    });

    it('expiry is decided by the now each call is given (live while now < expiresAt)', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      await store.put(record(q, { expiresAt: 1_000_000.5 }), 0);
      assert.equal(await store.has(q, 1_000_000.25), true);
      assert.equal(await store.has(q, 1_000_000.5), false, 'expired exactly at expiresAt');
      assert.equal(await store.has(q, -1e12), true, 'any earlier clock, even before the epoch');
      // A clock far from the server's own: a store that used its server's clock would differ.
      const far = query('agent', 'tool', hash());
      await store.put(record(far, { expiresAt: 4e12 }), 3.9e12);
      assert.equal(await store.has(far, 3.99e12), true);
      assert.equal(await store.take(far, 3.99e12), true);
      const past = query('agent', 'tool', hash());
      await store.put(record(past, { expiresAt: 1000 }), 0);
      assert.equal(await store.has(past, 999), true, 'live on the grants clock though long past on any server clock');
    });

    it('a use is never taken from an expired record, and take removes the expired records it meets', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      await store.put(record(q, { expiresAt: 1000 }), 0);
      assert.equal(await store.take(q, 1000), false);
      assert.equal(await store.has(q, 0), false, 'the expired record is gone: an earlier clock no longer finds it');
      const kept = query('agent', 'tool', hash());
      await store.put(record(kept, { expiresAt: 1000 }), 0);
      assert.equal(await store.has(kept, 1000), false, 'has removes nothing it need not');
      assert.equal(await store.take(kept, 999), true);
    });

    it('the live record that expires first is used first, a never-expiring one last', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      await store.put(record(q, { expiresAt: null }), 0);
      await store.put(record(q, { expiresAt: 50 }), 0);
      await store.put(record(q, { expiresAt: 10 }), 0);
      assert.equal(await store.take(q, 0), true, 'uses the record expiring at 10');
      assert.equal(await store.has(q, 20), true);
      assert.equal(await store.take(q, 20), true, 'uses the record expiring at 50');
      assert.equal(await store.has(q, 1e15), true, 'the never-expiring record is left');
      assert.equal(await store.take(q, 1e15), true);
      assert.equal(await store.has(q, 0), false);
    });

    it('a nonce is granted once while its record lives; the refused put stores nothing', async ({ store }) => {
      const first = query('agent', 'tool', hash());
      const again = query('agent', 'tool', hash());
      assert.equal(await store.put(record(first, { nonce: 'nonce-1', nonceExpiresAt: 100 }), 0), true);
      assert.equal(await store.put(record(again, { nonce: 'nonce-1', nonceExpiresAt: 100 }), 99), false);
      assert.equal(await store.has(again, 0), false, 'the refused record was not inserted');
      assert.equal(await store.put(record(first, { nonce: 'nonce-1', nonceExpiresAt: 100 }), 50), false, 'not even for the same record');
      assert.equal(await takeAll(store, first, 0, 3), 1, 'the refused put added no use');
      assert.equal(await store.put(record(again, { nonce: 'nonce-1', nonceExpiresAt: 300 }), 100), true, 'a nonce record that expired no longer counts');
      assert.equal(await store.put(record(again, { nonce: 'nonce-1', nonceExpiresAt: 300 }), 200), false, 'and the renewed one counts again');
      assert.equal(await store.put(record(again, { nonce: 'nonce-2' }), 0), true, 'another nonce is another grant');
    });

    it('a nonce kept forever (nonceExpiresAt null) refuses every later put', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      assert.equal(await store.put(record(q, { nonce: 'forever' }), 0), true);
      assert.equal(await store.put(record(q, { nonce: 'forever' }), 8.64e15), false);
      assert.equal(await store.prune(8.64e15), 0, 'prune keeps it');
      assert.equal(await store.put(record(q, { nonce: 'forever' }), 8.64e15), false);
    });

    it('scope null, the empty string and a string are three different keys', async ({ store }) => {
      const h = hash();
      const none = query('agent', 'tool', h, null);
      const empty = query('agent', 'tool', h, '');
      const x = query('agent', 'tool', h, 'x');
      await store.put(record(empty), 0);
      assert.equal(await store.has(none, 0), false);
      assert.equal(await store.has(x, 0), false);
      assert.equal(await store.take(none, 0), false);
      await store.delete(none);
      await store.delete(x);
      assert.equal(await store.has(empty, 0), true, 'deleting the other scopes left it');
      await store.put(record(none), 0);
      await store.put(record(x), 0);
      assert.equal(await store.take(empty, 0), true);
      assert.equal(await store.has(empty, 0), false);
      assert.equal(await store.has(none, 0), true);
      assert.equal(await store.has(x, 0), true);
    });

    it('names and scopes that a joined key would confuse stay apart', async ({ store }) => {
      const h = hash();
      const pairs = [
        [query('a:b', 'c', h), query('a', 'b:c', h)],
        [query('1:a', 'b', h), query('1', 'a1:b', h)],
        [query('ab', '', h), query('a', 'b', h)],
        [query('a', 'b', h, ':'), query('a', 'b', h, '')],
        [query('a', 'b', h, '-'), query('a', 'b', h, null)],
        [query('a', 'b-', h, null), query('a', 'b', h, '-')],
        [query('a\u0000b', 't', h), query('a\u0001b', 't', h)],
        [query('a\u00010b', 't', h), query('a\u0000b', 't', h)],
        [query('\u{1F600}', 't', h), query('\uFFFD', 't', h)],
        [query('e\u0301', 't', h), query('\u00e9', 't', h)],
        [query('\u202Eevil', '\u2028', h), query('evil', '', h)],
        [query('agent', 'tool', h, '\uFFFF'), query('agent', 'tool', h, '\uFFFE')],
      ];
      for (const [a, b] of pairs) {
        const label = JSON.stringify([a.agentName, a.toolName, a.scope]) + ' vs ' + JSON.stringify([b.agentName, b.toolName, b.scope]);
        await store.put(record(a), 0);
        assert.equal(await store.has(a, 0), true, `${label}: the stored key is found`);
        assert.equal(await store.has(b, 0), false, label);
        assert.equal(await store.take(b, 0), false, label);
        await store.delete(b);
        assert.equal(await store.take(a, 0), true, label);
      }
    });

    it('delete removes every record of its key and nothing else', async ({ store }) => {
      const h = hash();
      const q = query('agent', 'tool', h);
      const otherTool = query('agent', 'tool2', h);
      const otherHash = query('agent', 'tool', hash());
      await store.put(record(q, { uses: 3 }), 0);
      await store.put(record(q, { expiresAt: 5000 }), 0);
      await store.put(record(otherTool), 0);
      await store.put(record(otherHash), 0);
      assert.equal(await store.delete(q), undefined);
      assert.equal(await store.has(q, 0), false);
      assert.equal(await store.take(q, 0), false);
      assert.equal(await store.has(otherTool, 0), true);
      assert.equal(await store.has(otherHash, 0), true);
      await store.delete(q);
    });

    it('prune removes expired grants, expired nonces and expired proposals, counts them, and keeps the live', async ({ store }) => {
      const live = query('agent', 'tool', hash());
      const mixed = query('agent', 'tool', hash());
      await store.put(record(live), 0);
      await store.put(record(mixed, { expiresAt: 10 }), 0);
      await store.put(record(mixed, { expiresAt: 10_000 }), 0);
      await store.put(record(query('agent', 'tool', hash()), { expiresAt: 20, nonce: 'n-expiring', nonceExpiresAt: 30 }), 0);
      await store.put(record(query('agent', 'tool', hash()), { nonce: 'n-kept', nonceExpiresAt: 9_999 }), 0);
      await store.putProposal('p-expiring', '{}', 40);
      await store.putProposal('p-kept', '{}', null);
      // Removed at 100: the grants expiring at 10 and 20, the nonce expiring at 30, the proposal expiring at 40.
      assert.equal(await store.prune(100), 4);
      assert.equal(await store.prune(100), 0, 'nothing left to remove');
      assert.equal(await store.has(live, 100), true);
      assert.equal(await store.has(mixed, 100), true, 'the record of the key that lives on is kept');
      assert.equal(await store.take(mixed, 100), true);
      assert.equal(await store.take(mixed, 100), false, 'the expired record of that key was removed');
      assert.equal(await store.getProposal('p-kept', 100), '{}');
      assert.equal(await store.put(record(live, { nonce: 'n-kept', nonceExpiresAt: 9_999 }), 100), false, 'the live nonce is kept');
      assert.equal(await store.put(record(live, { nonce: 'n-expiring', nonceExpiresAt: 9_999 }), 100), true, 'the pruned nonce is free');
      // Used-up records went at their last take: prune has nothing of them to count.
      const spent = query('agent', 'tool', hash());
      await store.put(record(spent, { uses: 2, expiresAt: 150 }), 100);
      await takeAll(store, spent, 100, 2);
      assert.equal(await store.prune(200), 0);
    });

    it('kept proposals are put, overwritten, read, expired and deleted by their key', async ({ store }) => {
      const keys = ['run-1/call-1', 'run-1/call-2', 'r\u0000k', 'r\u0001k', 'r\ud800k', 'r\udc00k', '\u{1F600}\u2028', ''];
      for (const key of keys) {
        const label = JSON.stringify(key);
        assert.equal(await store.getProposal(key, 0), null, `${label}: missing`);
        await store.putProposal(key, `{"k":${JSON.stringify(key)}}`, 100);
        await store.putProposal(key, `{"v":2,"k":${JSON.stringify(key)},"raw":"\u0000\u0001\ud800"}`, 200);
        assert.equal(await store.getProposal(key, 150), `{"v":2,"k":${JSON.stringify(key)},"raw":"\u0000\u0001\ud800"}`, `${label}: overwritten, text exact`);
        assert.equal(await store.getProposal(key, 200), null, `${label}: expired at expiresAt`);
        assert.equal(await store.getProposal(key, 199), `{"v":2,"k":${JSON.stringify(key)},"raw":"\u0000\u0001\ud800"}`);
      }
      assert.equal(await store.getProposal('r\ufffdk', 0), null, 'a lone surrogate is not its replacement character');
      await store.putProposal('forever', 'x'.repeat(100_000), null);
      assert.equal(await store.getProposal('forever', 8.64e15), 'x'.repeat(100_000));
      assert.equal(await store.deleteProposal('forever'), undefined);
      assert.equal(await store.getProposal('forever', 0), null);
      await store.deleteProposal('forever');
      for (const key of keys) await store.deleteProposal(key);
      for (const key of keys) assert.equal(await store.getProposal(key, 0), null);
    });

    it('kept proposals are listed by pages: each live one once with its text, expired and deleted ones never', async ({ store }) => {
      const keys = ['run-1/call-1', 'run-1/call-2', 'r\u0000k', 'r\u0001k', 'r\ud800k', 'r\udc00k', '\u{1F600}\u2028', '\uffff', '', 'a', 'b', 'c'];
      const expected = new Map();
      for (const [i, key] of keys.entries()) {
        const json = `{"i":${i},"raw":"\u0000\u0001\ud800"}`;
        await store.putProposal(key, json, i % 2 === 0 ? null : 1000);
        expected.set(key, json);
      }
      await store.putProposal('expired', '{}', 50);
      await store.putProposal('deleted', '{}', null);
      await store.deleteProposal('deleted');
      await store.putProposal('a', '{"overwritten":true}', null);
      expected.set('a', '{"overwritten":true}');
      for (const limit of [1, 3, 5, 1000]) {
        const seen = new Map();
        let after = null;
        let pages = 0;
        do {
          const page = await store.listProposals(after, limit, 100);
          assert.deepEqual(Object.keys(page).sort(), ['next', 'proposals']);
          assert.ok(Array.isArray(page.proposals) && page.proposals.length <= limit, `a page holds at most ${limit}`);
          for (const entry of page.proposals) {
            assert.deepEqual(Object.keys(entry).sort(), ['json', 'key']);
            assert.ok(!seen.has(entry.key), `${JSON.stringify(entry.key)} listed once (limit ${limit})`);
            seen.set(entry.key, entry.json);
          }
          assert.ok(page.next === null || typeof page.next === 'string');
          after = page.next;
          assert.ok(++pages <= keys.length + 2, 'the listing ends');
        } while (after !== null);
        assert.deepEqual(new Map([...seen].sort()), new Map([...expected].sort()), `limit ${limit}: every live proposal, text exact`);
        if (limit === 1000) assert.equal(pages, 1, 'one page when everything fits');
      }
      // At 1000 the odd ones have expired; the cursor of a page of the earlier listing still works.
      const late = await store.listProposals(null, 1000, 1000);
      assert.deepEqual(
        late.proposals.map((e) => e.key).sort(),
        keys.filter((key, i) => i % 2 === 0 || key === 'a').sort(),
        'the overwritten one never expires',
      );
      assert.equal(late.next, null);
      const first = await store.listProposals(null, 2, 100);
      await store.deleteProposal(first.proposals[1].key);
      const rest = await store.listProposals(first.next, 1000, 100);
      const listed = [...first.proposals, ...rest.proposals].map((e) => e.key);
      assert.equal(new Set(listed).size, listed.length, 'a deleted cursor key does not repeat entries');
      assert.deepEqual(listed.sort(), [...expected.keys()].sort(), 'the listing goes on after a key deleted since');
      for (const key of [...keys, 'expired']) await store.deleteProposal(key);
      assert.deepEqual(await store.listProposals(null, 10, 0), { proposals: [], next: null });
    });

    it('pruned proposals leave the listing', async ({ store }) => {
      await store.putProposal('p-expiring', '{}', 40);
      await store.putProposal('p-kept', '{"k":1}', null);
      assert.equal(await store.prune(100), 1);
      assert.deepEqual(
        await store.listProposals(null, 10, 0),
        { proposals: [{ key: 'p-kept', json: '{"k":1}' }], next: null },
        'live at 0 had it been kept: pruned',
      );
    });

    it('arguments and names of any size are stored', async ({ store }) => {
      // Random text: a database cannot compress it below an index's row size limit.
      const q = query(randomBytes(4000).toString('hex'), `\u{1F600}${randomBytes(2000).toString('base64')}`, hash(), randomBytes(3000).toString('hex'));
      assert.equal(await store.put(record(q, { args: `{"big":"${'y'.repeat(1 << 20)}"}` }), 0), true);
      assert.equal(await store.take(q, 0), true);
    });

    it('concurrent takes in one process: a grant of three uses gives exactly three', async ({ store }) => {
      const q = query('agent', 'tool', hash());
      await store.put(record(q, { uses: 3 }), 0);
      const results = await Promise.all(Array.from({ length: 12 }, () => store.take(q, 0)));
      assert.equal(results.filter((r) => r === true).length, 3);
      assert.ok(results.every((r) => r === true || r === false));
    });

    // Receipts (issue 25, docs/stores.md "Receipt operations"): claim, complete, release,
    // get, delete, prune; one semantics in every store.
    const rkey = (agentName = 'agent', runId = 'run-1', toolCallId = 'call-1') => Object.freeze({ agentName, runId, toolCallId });
    const claimOf = (key, { claimId = randomBytes(16).toString('hex'), proposalHash = hash(), claimedAt = 1000, leaseMs = 100, retentionMs = 10_000 } = {}) =>
      Object.freeze({ ...key, proposalHash, claimId, claimedAt, leaseExpiresAt: claimedAt + leaseMs, expiresAt: claimedAt + retentionMs });
    const outcomeOf = (claim, { status = 'completed', completedAt = claim.claimedAt + 10, resultJson = null, expiresAt = claim.expiresAt + 5 } = {}) =>
      Object.freeze({
        agentName: claim.agentName,
        runId: claim.runId,
        toolCallId: claim.toolCallId,
        claimId: claim.claimId,
        status,
        completedAt,
        resultJson,
        expiresAt,
      });
    const releaseOf = (claim, claimId = claim.claimId) =>
      Object.freeze({ agentName: claim.agentName, runId: claim.runId, toolCallId: claim.toolCallId, claimId });
    const RECORD_FIELDS = [
      'agentName',
      'runId',
      'toolCallId',
      'proposalHash',
      'claimId',
      'status',
      'claimedAt',
      'leaseExpiresAt',
      'completedAt',
      'resultJson',
      'expiresAt',
    ].sort();
    /** The record a claim stores, written out by hand from the contract (not by the store). */
    const inProgress = (c) => ({
      agentName: c.agentName,
      runId: c.runId,
      toolCallId: c.toolCallId,
      proposalHash: c.proposalHash,
      claimId: c.claimId,
      status: 'in_progress',
      claimedAt: c.claimedAt,
      leaseExpiresAt: c.leaseExpiresAt,
      completedAt: null,
      resultJson: null,
      expiresAt: c.expiresAt,
    });
    const assertRecord = (actual, expected, label) => {
      assert.ok(actual !== null && typeof actual === 'object', `${label}: a record`);
      assert.deepEqual(Object.keys(actual).sort(), RECORD_FIELDS, `${label}: exactly the record fields`);
      assert.deepEqual({ ...actual }, expected, label);
    };

    it('receipts: the first claim wins, a second answers the stored record', async ({ store }) => {
      const key = rkey();
      const first = claimOf(key);
      assert.equal(await store.getReceipt(key, 1000), null, 'nothing before the claim');
      assert.equal(await store.claimReceipt(first, 1000), null, 'claimed');
      const again = claimOf(key, { claimedAt: 1050 });
      assertRecord(await store.claimReceipt(again, 1050), inProgress(first), 'a claim of a held key answers the record');
      // Another hash, a lease past, a completed record: still the stored record, unchanged.
      assertRecord(await store.claimReceipt(claimOf(key, { claimedAt: 5000 }), 5000), inProgress(first), 'past the lease, within retention');
      assertRecord(await store.getReceipt(key, 1000), inProgress(first), 'get reads it');
      assert.equal(await store.completeReceipt(outcomeOf(first, { resultJson: '{"ok":true}' }), 1010), true);
      const done = { ...inProgress(first), status: 'completed', completedAt: 1010, resultJson: '{"ok":true}', expiresAt: first.expiresAt + 5 };
      assertRecord(await store.claimReceipt(claimOf(key, { claimedAt: 2000 }), 2000), done, 'a completed record is answered');
      assertRecord(await store.getReceipt(key, 2000), done, 'get after complete');
    });

    it("receipts: a claim past an outcome's retention replaces the record; get answers null from its expiresAt on", async ({ store }) => {
      const key = rkey();
      const first = claimOf(key, { retentionMs: 500 });
      assert.equal(await store.claimReceipt(first, 1000), null);
      assert.equal(await store.completeReceipt(outcomeOf(first, { expiresAt: 1500 }), 1010), true);
      const done = { ...inProgress(first), status: 'completed', completedAt: 1010, expiresAt: 1500 };
      assertRecord(await store.getReceipt(key, 1499), done, 'one ms before expiresAt');
      assert.equal(await store.getReceipt(key, 1500), null, 'at expiresAt');
      assertRecord(await store.claimReceipt(claimOf(key, { claimedAt: 1499 }), 1499), done, 'not yet replaced at 1499');
      const second = claimOf(key, { claimedAt: 1500 });
      assert.equal(await store.claimReceipt(second, 1500), null, 'replaced at expiresAt');
      assertRecord(await store.getReceipt(key, 1500), inProgress(second), 'the new record');
      assert.equal(await store.completeReceipt(outcomeOf(first), 1600), false, 'the old claimId no longer completes');
    });

    // Issue 33: an unfinished claim may have run; only an operator's delete (forget) ends it.
    it('receipts: an unfinished claim (in_progress) is kept past its retention: get reads it, a claim is answered it, prune leaves it, until delete', async ({
      store,
    }) => {
      const key = rkey('agent', 'run-u', 'call-u');
      const first = claimOf(key, { retentionMs: 500 });
      assert.equal(await store.claimReceipt(first, 1000), null);
      for (const t of [1500, 1501, 1_000_000_000]) {
        assertRecord(await store.getReceipt(key, t), inProgress(first), `get at ${t}`);
        assertRecord(await store.claimReceipt(claimOf(key, { claimedAt: t }), t), inProgress(first), `a claim at ${t} is answered the unfinished claim`);
        assert.equal(await store.pruneReceipts(t), 0, `prune at ${t} leaves it`);
      }
      assertRecord(await store.getReceipt(key, 0), inProgress(first), 'still there after every prune');
      // A late outcome still records, and from then on its own retention counts.
      assert.equal(
        await store.completeReceipt(outcomeOf(first, { completedAt: 1_000_000_000, expiresAt: 1_000_000_100 }), 1_000_000_000),
        true,
        'late completion records',
      );
      assert.equal(await store.pruneReceipts(1_000_000_099), 0);
      assert.equal(await store.pruneReceipts(1_000_000_100), 1, 'the outcome is pruned at its expiresAt');
      assert.equal(await store.getReceipt(key, 0), null);
      // An unfinished claim that an operator deletes may be claimed again.
      const second = claimOf(key, { claimedAt: 2000, retentionMs: 100 });
      assert.equal(await store.claimReceipt(second, 2000), null);
      assertRecord(await store.claimReceipt(claimOf(key, { claimedAt: 9000 }), 9000), inProgress(second), 'held past its retention');
      assert.equal(await store.deleteReceipt(key), true);
      assert.equal(await store.claimReceipt(claimOf(key, { claimedAt: 9001 }), 9001), null, 'claimable after delete');
    });

    it('receipts: complete needs the right claimId and an in_progress record', async ({ store }) => {
      const key = rkey('a', null, 'c');
      const c = claimOf(key);
      assert.equal(await store.completeReceipt(outcomeOf(c), 1010), false, 'no record');
      assert.equal(await store.claimReceipt(c, 1000), null);
      assert.equal(await store.completeReceipt({ ...outcomeOf(c), claimId: 'f'.repeat(32) }, 1010), false, 'another claimId');
      assertRecord(await store.getReceipt(key, 1010), inProgress(c), 'unchanged by a wrong claimId');
      // Late: past the lease, the claimId still proves the run.
      assert.equal(
        await store.completeReceipt(outcomeOf(c, { status: 'failed', completedAt: 1200, expiresAt: 20_000 }), 1200),
        true,
        'late completion records',
      );
      const failed = { ...inProgress(c), status: 'failed', completedAt: 1200, expiresAt: 20_000 };
      assertRecord(await store.getReceipt(key, 1200), failed, 'failed recorded');
      assert.equal(await store.completeReceipt(outcomeOf(c), 1300), false, 'only once: no longer in_progress');
      assertRecord(await store.getReceipt(key, 1300), failed, 'unchanged');
      assertRecord(await store.getReceipt(key, 19_999), failed, "the outcome's expiresAt replaced the claim's");
      assert.equal(await store.getReceipt(key, 20_000), null);
    });

    it('receipts: release deletes only an in_progress record with its claimId', async ({ store }) => {
      const key = rkey();
      const c = claimOf(key);
      assert.equal(await store.releaseReceipt(releaseOf(c), 1000), false, 'nothing to release');
      assert.equal(await store.claimReceipt(c, 1000), null);
      assert.equal(await store.releaseReceipt(releaseOf(c, 'e'.repeat(32)), 1001), false, 'another claimId');
      assertRecord(await store.getReceipt(key, 1001), inProgress(c), 'kept');
      assert.equal(await store.releaseReceipt(releaseOf(c), 1002), true);
      assert.equal(await store.getReceipt(key, 1002), null, 'released');
      assert.equal(await store.releaseReceipt(releaseOf(c), 1003), false, 'only once');
      const d = claimOf(key, { claimedAt: 1003 });
      assert.equal(await store.claimReceipt(d, 1003), null, 'claimable again');
      assert.equal(await store.completeReceipt(outcomeOf(d), 1004), true);
      assert.equal(await store.releaseReceipt(releaseOf(d), 1005), false, 'a completed record is not released');
      assert.equal((await store.getReceipt(key, 1005)).status, 'completed');
    });

    it('receipts: delete removes any record; prune removes the outcomes at or past expiresAt, never an unfinished claim', async ({ store }) => {
      assert.equal(await store.deleteReceipt(rkey()), false, 'nothing to delete');
      const a = claimOf(rkey('a'), { retentionMs: 100 });
      const b = claimOf(rkey('b'), { retentionMs: 200 });
      const c = claimOf(rkey('c'), { retentionMs: 300 });
      for (const x of [a, b, c]) assert.equal(await store.claimReceipt(x, 1000), null);
      assert.equal(await store.completeReceipt(outcomeOf(a, { status: 'failed', expiresAt: 1100 }), 1005), true);
      assert.equal(await store.completeReceipt(outcomeOf(b, { expiresAt: 1200 }), 1010), true);
      assert.equal(await store.deleteReceipt(rkey('c')), true, 'an in_progress record is deleted');
      assert.equal(await store.getReceipt(rkey('c'), 1000), null);
      assert.equal(await store.deleteReceipt(rkey('c')), false);
      assert.equal(await store.claimReceipt(c, 1000), null, 'claimable after delete');
      assert.equal(await store.pruneReceipts(1099), 0);
      assert.equal(await store.pruneReceipts(1100), 1, 'a at its expiresAt');
      assert.equal(await store.getReceipt(rkey('a'), 0), null, 'pruned: gone even for an earlier clock');
      assertRecord(await store.getReceipt(rkey('b'), 0), { ...inProgress(b), status: 'completed', completedAt: b.claimedAt + 10, expiresAt: 1200 }, 'b kept');
      assert.equal(await store.pruneReceipts(5000), 1, 'b; c is unfinished');
      assert.equal(await store.pruneReceipts(5000), 0);
      assert.equal(await store.getReceipt(rkey('b'), 0), null);
      assertRecord(await store.getReceipt(rkey('c'), 5000), inProgress(c), 'c kept past its retention');
      assert.equal(await store.deleteReceipt(rkey('c')), true);
      assert.equal(await store.getReceipt(rkey('c'), 0), null);
    });

    it("receipts: runId null, '' and every string are distinct keys; agentName and toolCallId boundaries too", async ({ store }) => {
      const keys = [
        rkey('a', null, 'c'),
        rkey('a', '', 'c'),
        rkey('a', 'null', 'c'),
        rkey('a', '-', 'c'),
        rkey('a', '+', 'c'),
        rkey('ab', null, 'c'),
        rkey('a', null, 'bc'),
        rkey('a:b', null, 'c'),
        rkey('a', 'b:', 'c'),
        rkey('a', 'b', ':c'),
      ];
      const claims = keys.map((k) => claimOf(k));
      for (const c of claims) assert.equal(await store.claimReceipt(c, 1000), null, JSON.stringify([c.agentName, c.runId, c.toolCallId]));
      for (const c of claims) assertRecord(await store.getReceipt(c, 1000), inProgress(c), JSON.stringify([c.agentName, c.runId, c.toolCallId]));
      assertRecord(await store.getReceipt(Object.freeze({ agentName: 'a', toolCallId: 'c' }), 1000), inProgress(claims[0]), 'an absent runId reads as null');
      assert.equal(await store.deleteReceipt(keys[0]), true);
      assertRecord(await store.getReceipt(keys[1], 1000), inProgress(claims[1]), "deleting null left ''");
    });

    it('receipts: text is stored one to one (U+0000, U+0001, lone surrogates, astral)', async ({ store }) => {
      const texts = ['\u0000', '\u0001', '\u00010', '\ud800', '\udc00', '\ufffd', '\u{1F600}', 'a\u0000b', '\u0001u d800', '\ud83d', '\ude00', 'é'];
      const claims = [];
      for (const t of texts) {
        claims.push(claimOf(rkey(`ag${t}`, `run${t}`, `call${t}`)));
        claims.push(claimOf(rkey('ag', t, 'call')));
        claims.push(claimOf(rkey('ag', null, t)));
      }
      for (const c of claims) assert.equal(await store.claimReceipt(c, 1000), null, `claimed ${JSON.stringify([c.agentName, c.runId, c.toolCallId])}`);
      for (const c of claims) {
        const got = await store.getReceipt(c, 1000);
        assertRecord(got, inProgress(c), JSON.stringify([c.agentName, c.runId, c.toolCallId]));
      }
      const result = '{"s":"\u0000\u0001\ud800 \u{1F600}"}';
      assert.equal(await store.completeReceipt(outcomeOf(claims[0], { resultJson: result }), 1010), true);
      assert.equal((await store.getReceipt(claims[0], 1010)).resultJson, result, 'resultJson exact');
      assert.equal((await store.getReceipt(rkey('ag', '\ufffd', 'call'), 0)) !== null, true, 'U+FFFD has its own record');
      assert.equal(
        (await store.getReceipt(rkey('ag', '\ufffd', 'call'), 0)).claimId,
        claims[claims.findIndex((c) => c.runId === '\ufffd')].claimId,
        "not the lone surrogate's",
      );
    });

    it('receipts: every receipt method refuses bad arguments (TypeError), a Proxy unread, a getter never called', async ({ store }) => {
      const key = rkey();
      const c = claimOf(key);
      let trapped = 0;
      const proxy = new Proxy(
        { ...c },
        {
          get() {
            trapped++;
          },
          getOwnPropertyDescriptor() {
            trapped++;
          },
          has() {
            trapped++;
          },
          ownKeys() {
            trapped++;
            return [];
          },
        },
      );
      const accessor = { ...key };
      Object.defineProperty(accessor, 'toolCallId', {
        get() {
          trapped++;
          return 'call-1';
        },
        enumerable: true,
      });
      const attempts = [
        () => store.claimReceipt(proxy, 1000),
        () => store.getReceipt(proxy, 1000),
        () => store.deleteReceipt(proxy),
        () => store.getReceipt(accessor, 1000),
        () => store.claimReceipt({ ...c, proposalHash: 'A'.repeat(64) }, 1000),
        () => store.claimReceipt({ ...c, runId: 5 }, 1000),
        () => store.claimReceipt({ ...c, claimedAt: 1.5 }, 1000),
        () => store.claimReceipt({ ...c, expiresAt: Number.POSITIVE_INFINITY }, 1000),
        () => store.claimReceipt(c, Number.NaN),
        () => store.completeReceipt({ ...outcomeOf(c), status: 'in_progress' }, 1000),
        () => store.completeReceipt({ ...outcomeOf(c), resultJson: 5 }, 1000),
        () => store.releaseReceipt({ ...key }, 1000),
        () => store.getReceipt({ agentName: 1, runId: null, toolCallId: 'c' }, 1000),
        () => store.pruneReceipts('0'),
      ];
      for (const attempt of attempts) await assert.rejects(async () => attempt(), TypeError, String(attempt));
      assert.equal(trapped, 0, 'no trap or getter ran');
      assert.equal(await store.claimReceipt(c, 1000), null, 'the store still works: nothing was stored by a refused call');
    });

    it('receipts: concurrent claims in one process, exactly one wins', async ({ store }) => {
      for (let round = 0; round < 5; round++) {
        const key = rkey('agent', `run-${round}`, 'call');
        const claims = Array.from({ length: 10 }, () => claimOf(key));
        const answers = await Promise.all(claims.map((c) => store.claimReceipt(c, 1000)));
        assert.equal(answers.filter((a) => a === null).length, 1, `round ${round}`);
        const winner = claims[answers.indexOf(null)];
        for (const a of answers) if (a !== null) assertRecord(a, inProgress(winner), 'the losers see the winner');
      }
    });

    // Issue 33: through createExecutionReceipts, on the receipts' own clock (no sleep: no
    // store gives a receipt a server-side TTL).
    it('receipts: a call claimed and never finished is refused (outcome_unknown) past retentionMs; prune leaves it; forget lets it run', async ({ store }) => {
      let clock = 1_000_000;
      const receipts = createExecutionReceipts({ store, leaseMs: 100, retentionMs: 1000, now: () => clock });
      const key = { agentName: 'ops', runId: 'run-9', toolCallId: 'call-9' };
      const attempt = async (handler) => {
        const prepared = prepareToolCall({ agentName: 'ops', toolName: 'restart', rawArguments: '{"host":"a"}', runId: 'run-9', toolCallId: 'call-9' });
        const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'ok' }) });
        return executeToolCall(decision, handler, { receipts });
      };
      let started;
      const running = new Promise((resolve) => {
        started = resolve;
      });
      // The handler starts (so its claim is stored) and never finishes: its process hangs or died.
      attempt(() => {
        started();
        return new Promise(() => {});
      });
      await running;
      let runs = 0;
      for (const step of [1000, 1, 1_000_000_000]) {
        clock += step;
        assert.equal((await receipts.get(key)).status, 'outcome_unknown', `read at +${clock - 1_000_000}`);
        await assert.rejects(
          attempt(() => {
            runs += 1;
          }),
          (error) => error.code === 'outcome_unknown',
          `refused at +${clock - 1_000_000}`,
        );
        assert.equal(await receipts.prune(), 0, `prune at +${clock - 1_000_000} leaves it`);
      }
      assert.equal(runs, 0, 'never claimed and run again');
      assert.equal(await receipts.forget(key), true);
      assert.equal(
        await attempt(() => {
          runs += 1;
          return 'restarted';
        }),
        'restarted',
      );
      assert.equal(runs, 1);
    });

    // Issue 33: the application's policy decides first. The store is wrapped to count the
    // grants' lookups (has) and spends (take).
    const counted = (store) => {
      const calls = { has: 0, take: 0 };
      const wrapper = {};
      for (const name of Object.keys(store)) {
        if (typeof store[name] !== 'function') continue;
        wrapper[name] = (...args) => {
          if (Object.hasOwn(calls, name)) calls[name] += 1;
          return store[name](...args);
        };
      }
      return { wrapper, calls };
    };
    const proposalOf = (rawArguments) => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments });

    it('grants over this store: a policy allow makes no has or take call, and a live grant stays unspent', async ({ store }) => {
      const { wrapper, calls } = counted(store);
      const grants = createApprovalGrants({ store: wrapper });
      await grants.grant(proposalOf('{"cents":5}'));
      const ran = [];
      const policy = grants.policy(() => ({ decision: 'allow', reason: 'small' }));
      const outcome = await authorizeToolCall({ prepared: proposalOf('{"cents":5}'), policy, execute: (args) => ran.push(args.cents), grants });
      assert.equal(outcome.decision, 'allow');
      assert.equal(outcome.reason, 'small');
      const decision = await evaluateToolCall({ prepared: proposalOf('{"cents":5}'), policy });
      await executeToolCall(decision, (args) => ran.push(args.cents), { grants });
      assert.deepEqual(ran, [5, 5]);
      assert.deepEqual(calls, { has: 0, take: 0 }, 'no grants lookup or spend for an allow');
      assert.equal(await grants.has(proposalOf('{"cents":5}')), true, 'the grant is unspent');
    });

    it('grants over this store: a policy that denies after a grant was given is final, the grant unspent', async ({ store }) => {
      const { wrapper, calls } = counted(store);
      const grants = createApprovalGrants({ store: wrapper });
      const prepared = proposalOf('{"cents":900}');
      const asked = await evaluateToolCall({ prepared, policy: grants.policy() });
      assert.equal(asked.decision, 'require_approval');
      await grants.grant(asked.proposal);
      let blocked = false;
      const policy = grants.policy(() => (blocked ? { decision: 'deny', reason: 'account_frozen' } : { decision: 'require_approval', reason: 'large' }));
      blocked = true;
      calls.has = 0;
      const ran = [];
      const outcome = await authorizeToolCall({ prepared: proposalOf('{"cents":900}'), policy, execute: () => ran.push(1), grants });
      assert.equal(outcome.decision, 'deny');
      assert.equal(outcome.decidedBy, 'policy');
      assert.equal(outcome.reason, 'account_frozen');
      assert.deepEqual(ran, []);
      assert.deepEqual(calls, { has: 0, take: 0 }, 'no grants lookup or spend for a deny');
      assert.equal(await grants.has(proposalOf('{"cents":900}')), true, 'the grant is unspent');
      // Once the policy asks for approval again, the same grant allows, once.
      blocked = false;
      const granted = await authorizeToolCall({ prepared: proposalOf('{"cents":900}'), policy, execute: () => ran.push(1), grants });
      assert.equal(granted.reason, 'approval_granted');
      assert.deepEqual(ran, [1]);
      assert.equal(calls.take, 1, 'spent once');
      assert.equal(
        (await authorizeToolCall({ prepared: proposalOf('{"cents":900}'), policy, execute: () => ran.push(1), grants })).decision,
        'require_approval',
      );
    });

    // Issue 35: round trips. A store wrapped to count every call per operation, and the
    // calls made after the decision and before the handler ran.
    const tripCounter = (store) => {
      const all = {};
      let log = null;
      const wrapper = {};
      for (const name of Object.keys(store)) {
        if (typeof store[name] !== 'function') continue;
        wrapper[name] = (...args) => {
          all[name] = (all[name] ?? 0) + 1;
          if (log !== null) log.push(name);
          return store[name](...args);
        };
      }
      return {
        wrapper,
        all,
        watch: () => {
          log = [];
          return log;
        },
        stop: () => {
          const seen = log;
          log = null;
          return seen;
        },
      };
    };

    it('round trips (issue 35): an allowed call relying on no grant makes one store call before its handler, its claim', async ({ store }) => {
      const { wrapper, all, watch, stop } = tripCounter(store);
      const grants = createApprovalGrants({ store: wrapper });
      const receipts = createExecutionReceipts({ store: wrapper, keepResults: true });
      const policy = grants.policy(() => ({ decision: 'allow', reason: 'small' }));
      const prepared = prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":5}', runId: 'r-35', toolCallId: 'c-plain' });
      const seen = watch();
      const decision = await evaluateToolCall({ prepared, policy });
      let before;
      const result = await executeToolCall(
        decision,
        () => {
          before = [...seen];
          return { paid: 5 };
        },
        { receipts, grants },
      );
      stop();
      assert.deepEqual(result, { paid: 5 });
      assert.deepEqual(before, ['claimReceipt'], 'one store call before the handler');
      assert.equal(all.completeReceipt, 1, 'the completion is sent before the answer');
      assert.equal(
        (await receipts.get({ agentName: 'payments', runId: 'r-35', toolCallId: 'c-plain' })).status,
        'completed',
        'read in this process, after its completion',
      );
      const replay = await executeToolCall(
        await evaluateToolCall({
          prepared: prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":5}', runId: 'r-35', toolCallId: 'c-plain' }),
          policy,
        }),
        () => assert.fail('ran twice'),
        { receipts, grants },
      );
      assert.deepEqual(replay, { paid: 5 }, 'a replay gets the kept result');
    });

    it('round trips (issue 35): an allowed call relying on a grant makes one store call after its decision and before its handler, the claim and the take together', async ({
      store,
    }) => {
      const { wrapper, all, watch, stop } = tripCounter(store);
      const grants = createApprovalGrants({ store: wrapper });
      const receipts = createExecutionReceipts({ store: wrapper });
      const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
      const make = (toolCallId) => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":900}', runId: 'r-35', toolCallId });
      await grants.grant(make('c-granted'), { uses: 1 });
      const seen = watch();
      const decision = await evaluateToolCall({ prepared: make('c-granted'), policy });
      assert.equal(decision.reason, 'approval_granted');
      assert.deepEqual(seen, ['has'], 'the decision looks the grant up');
      seen.length = 0;
      let before;
      await executeToolCall(
        decision,
        () => {
          before = [...seen];
          return 'paid';
        },
        { receipts, grants },
      );
      stop();
      assert.deepEqual(before, ['claimReceiptAndTake'], 'one store call between the decision and the handler');
      assert.equal(all.take ?? 0, 0, 'no separate take');
      assert.equal(all.claimReceipt ?? 0, 0, 'no separate claim');
      assert.equal(await grants.has(make('c-granted')), false, 'the single use is spent');
      assert.equal((await receipts.get({ agentName: 'payments', runId: 'r-35', toolCallId: 'c-granted' })).status, 'completed');
    });

    // Issue 35, item 1: authorizeToolCall knows that execution follows its decision, so a
    // grant-relying call looks its grant up with the receipt's claim (one store call).
    it('round trips (issue 35): authorizeToolCall relying on a grant makes one store call before its handler, the claim and the take together', async ({
      store,
    }) => {
      const { wrapper, all, watch, stop } = tripCounter(store);
      const grants = createApprovalGrants({ store: wrapper });
      const receipts = createExecutionReceipts({ store: wrapper });
      const make = (toolCallId) => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":900}', runId: 'r-35a', toolCallId });
      await grants.grant(make('c-a'), { uses: 2 });
      // The application's policy first, and the default one (no fallback).
      for (const [id, policy] of [
        ['c-a', grants.policy(() => ({ decision: 'require_approval', reason: 'large' }))],
        ['c-b', grants.policy()],
      ]) {
        const seen = watch();
        let before;
        const outcome = await authorizeToolCall({
          prepared: make(id),
          policy,
          receipts,
          execute: () => {
            before = [...seen];
            return 'paid';
          },
        });
        stop();
        assert.equal(outcome.decision, 'allow');
        assert.equal(outcome.reason, 'approval_granted');
        assert.equal(outcome.result, 'paid');
        assert.deepEqual(before, ['claimReceiptAndTake'], `${id}: one store call before the handler`);
        assert.deepEqual(seen, ['claimReceiptAndTake', 'completeReceipt'], `${id}: then the completion`);
        assert.equal((await receipts.get({ agentName: 'payments', runId: 'r-35a', toolCallId: id })).status, 'completed');
      }
      assert.equal(all.has ?? 0, 0, 'no separate lookup');
      assert.equal(all.take ?? 0, 0, 'no separate take');
      assert.equal(all.claimReceipt ?? 0, 0, 'no separate claim');
      assert.equal(await grants.has(make('c-c')), false, 'both uses are spent');
    });

    it('round trips (issue 35): authorizeToolCall without a live grant answers require_approval as evaluateToolCall does, claiming nothing; granted, the call then runs', async ({
      store,
    }) => {
      const { wrapper, watch, stop } = tripCounter(store);
      const grants = createApprovalGrants({ store: wrapper });
      const receipts = createExecutionReceipts({ store: wrapper, keepResults: true });
      const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
      const make = () => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":901}', runId: 'r-35b', toolCallId: 'c-1' });
      const key = { agentName: 'payments', runId: 'r-35b', toolCallId: 'c-1' };
      const expected = await evaluateToolCall({ prepared: make(), policy });
      const ran = [];
      const seen = watch();
      const outcome = await authorizeToolCall({ prepared: make(), policy, receipts, execute: () => ran.push(1) });
      stop();
      assert.deepEqual(ran, [], 'nothing ran');
      assert.deepEqual(Object.keys(outcome), ['decision', 'reason', 'decidedBy', 'policyResult', 'proposal']);
      assert.equal(outcome.decision, 'require_approval');
      assert.equal(outcome.reason, expected.reason);
      assert.equal(outcome.decidedBy, 'policy');
      assert.deepEqual(outcome.policyResult, expected.policyResult);
      assert.deepEqual(outcome.proposal, expected.proposal);
      assert.ok(Object.isFrozen(outcome.proposal));
      assert.equal(outcome.proposal.proposalHash, make().proposalHash);
      assert.equal(seen.length, 1, 'one store call');
      assert.equal(await receipts.get(key), null, 'nothing claimed');
      // Granted now, the same call runs (its receipt was never claimed).
      await grants.grant(outcome.proposal, { uses: 2 });
      const granted = await authorizeToolCall({ prepared: make(), policy, receipts, execute: () => ran.push(2) && 'paid' });
      assert.equal(granted.reason, 'approval_granted');
      assert.deepEqual(ran, [2]);
      // A retry with a use left: the kept result, and no use taken.
      const replay = await authorizeToolCall({ prepared: make(), policy, receipts, execute: () => assert.fail('ran twice') });
      assert.equal(replay.replayed, true);
      assert.equal(replay.result, 'paid');
      assert.equal(await grants.has(make()), true, 'the refused claim took no use');
      // With no use left, a retry is asked for approval, as evaluateToolCall would decide.
      await grants.revoke(make());
      const asked = await authorizeToolCall({ prepared: make(), policy, receipts, execute: () => assert.fail('ran twice') });
      assert.equal(asked.decision, 'require_approval');
      assert.equal((await receipts.get(key)).status, 'completed');
    });

    it("round trips (issue 35): a grant's last use goes to exactly one of two concurrent authorizeToolCall calls; the other claims nothing", async ({
      store,
    }) => {
      const grants = createApprovalGrants({ store });
      const receipts = createExecutionReceipts({ store });
      const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
      const make = (toolCallId) => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":902}', runId: 'r-35c', toolCallId });
      await grants.grant(make('c-0'), { uses: 1 });
      const ran = [];
      const outcomes = await Promise.all(['c-1', 'c-2'].map((id) => authorizeToolCall({ prepared: make(id), policy, receipts, execute: () => ran.push(id) })));
      assert.equal(ran.length, 1, 'one ran');
      assert.deepEqual(outcomes.map((o) => o.decision).sort(), ['allow', 'require_approval']);
      const loser = outcomes[0].decision === 'allow' ? 'c-2' : 'c-1';
      assert.equal(await receipts.get({ agentName: 'payments', runId: 'r-35c', toolCallId: loser }), null, 'the other claimed nothing');
      assert.equal((await receipts.get({ agentName: 'payments', runId: 'r-35c', toolCallId: ran[0] })).status, 'completed');
    });

    it('round trips (issue 35): evaluateToolCall still looks the grant up (has), and a store without claimReceiptAndTake is used in steps by authorizeToolCall', async ({
      store,
    }) => {
      const { wrapper, watch, stop } = tripCounter(store);
      const grants = createApprovalGrants({ store: wrapper });
      const receipts = createExecutionReceipts({ store: wrapper });
      const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
      const make = (toolCallId, cents = 903) =>
        prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: `{"cents":${cents}}`, runId: 'r-35d', toolCallId });
      let seen = watch();
      assert.equal((await evaluateToolCall({ prepared: make('c-1'), policy })).decision, 'require_approval');
      assert.deepEqual(stop(), ['has'], 'the separate evaluation looks up');
      await grants.grant(make('c-1'), { uses: 1 });
      seen = watch();
      const decision = await evaluateToolCall({ prepared: make('c-1'), policy });
      assert.equal(decision.reason, 'approval_granted');
      assert.equal(await executeToolCall(decision, () => 'paid', { receipts }), 'paid');
      assert.deepEqual(stop(), ['has', 'claimReceiptAndTake', 'completeReceipt']);
      // An older or an application's store without the joint operation: the lookup, the claim, the take.
      const { claimReceiptAndTake, ...older } = wrapper;
      assert.equal(typeof claimReceiptAndTake, 'function');
      const olderGrants = createApprovalGrants({ store: older });
      const olderReceipts = createExecutionReceipts({ store: older });
      const olderPolicy = olderGrants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
      seen = watch();
      const asked = await authorizeToolCall({ prepared: make('c-2', 904), policy: olderPolicy, receipts: olderReceipts, execute: () => assert.fail('ran') });
      assert.equal(asked.decision, 'require_approval');
      assert.deepEqual(stop(), ['has']);
      await olderGrants.grant(asked.proposal, { uses: 1 });
      seen = watch();
      const outcome = await authorizeToolCall({ prepared: make('c-2', 904), policy: olderPolicy, receipts: olderReceipts, execute: () => 'paid' });
      assert.equal(outcome.result, 'paid');
      assert.deepEqual(stop(), ['has', 'claimReceipt', 'take', 'completeReceipt']);
      // A policy that wraps the grants' one is not the grants' answer: the lookup comes first.
      seen = watch();
      await grants.grant(make('c-3', 905), { uses: 1 });
      stop();
      seen = watch();
      const wrapped = await authorizeToolCall({ prepared: make('c-3', 905), policy: async (input) => policy(input), receipts, execute: () => 'paid' });
      assert.equal(wrapped.result, 'paid');
      assert.deepEqual(stop(), ['has', 'claimReceiptAndTake', 'completeReceipt']);
      assert.ok(seen);
    });

    it('claimReceiptAndTake (issue 35): a refused receipt takes no use, a missing grant leaves no claim, the last use goes to one call', async ({ store }) => {
      if (typeof store.claimReceiptAndTake !== 'function') return;
      const q = query('agent', 'tool', hash());
      const key = rkey('agent', 'run-j', 'call-j');
      const first = claimOf(key);
      assert.equal(await store.claimReceiptAndTake(first, 1000, q, 1000), false, 'no grant: false');
      assert.equal(await store.getReceipt(key, 1000), null, 'no grant: nothing claimed');
      assert.equal(await store.put(record(q, { uses: 2 }), 1000), true);
      assert.equal(await store.claimReceiptAndTake(first, 1000, q, 1000), null, 'claimed and taken');
      assertRecord(await store.getReceipt(key, 1000), inProgress(first), 'the claim is stored');
      assertRecord(await store.claimReceiptAndTake(claimOf(key, { claimedAt: 1001 }), 1001, q, 1001), inProgress(first), 'a held key answers the record');
      assert.equal(await store.take(q, 1002), true, 'the refused claim took no use: one is left');
      assert.equal(await store.take(q, 1002), false);
      // A completed receipt and no grant left: the receipt's refusal, not the grant's.
      assert.equal(await store.completeReceipt(outcomeOf(first), 1010), true);
      const done = await store.claimReceiptAndTake(claimOf(key, { claimedAt: 1020 }), 1020, q, 1020);
      assert.equal(done.status, 'completed', 'the receipt refuses first');
      // N calls of other keys race for the last use: exactly one claims.
      const last = query('agent', 'tool', hash());
      assert.equal(await store.put(record(last, { uses: 1 }), 1000), true);
      const claims = Array.from({ length: 8 }, (_, i) => claimOf(rkey('agent', 'run-race', `call-${i}`)));
      const answers = await Promise.all(claims.map((c) => store.claimReceiptAndTake(c, 1000, last, 1000)));
      assert.equal(answers.filter((a) => a === null).length, 1, 'one winner');
      assert.equal(answers.filter((a) => a === false).length, 7, 'the others find no grant');
      for (let i = 0; i < claims.length; i++) {
        const stored = await store.getReceipt(claims[i], 1000);
        assert.equal(stored === null, answers[i] !== null, 'only the winner holds a claim');
      }
      // N attempts of one key with many uses: one claims, one use taken.
      const many = query('agent', 'tool', hash());
      assert.equal(await store.put(record(many, { uses: 20 }), 1000), true);
      const same = Array.from({ length: 8 }, () => claimOf(rkey('agent', 'run-same', 'call')));
      const got = await Promise.all(same.map((c) => store.claimReceiptAndTake(c, 1000, many, 1000)));
      assert.equal(got.filter((a) => a === null).length, 1, 'one claim of one key');
      assert.equal(await takeAll(store, many, 1000, 25), 19, 'one use taken');
    });

    const checks = checksArguments === false ? 'this store trusts the grants object, which checks every argument' : false;

    it('concurrent claims and completions (issue 35: sent together, a store may batch them): each answers as if alone', async ({ store }) => {
      // Claimed first, one at a time: a, b, c, d (in_progress).
      const k = (name) => rkey('agent', 'run-batch', name);
      const a = claimOf(k('a'));
      const b = claimOf(k('b'));
      const c = claimOf(k('c'));
      const d = claimOf(k('d'), { retentionMs: 20 });
      for (const claim of [a, b, c, d]) assert.equal(await store.claimReceipt(claim, 1000), null);
      assert.equal(await store.completeReceipt(outcomeOf(d, { completedAt: 1005, expiresAt: 1020 }), 1005), true);
      // Then at once: new keys twice over, completions (one with a wrong claimId), claims of
      // keys being completed or held, and a claim of d past its retention.
      const fresh = [claimOf(k('e'), { claimedAt: 1100 }), claimOf(k('f'), { claimedAt: 1100 })];
      const twice = claimOf(k('e'), { claimedAt: 1100 });
      const dAgain = claimOf(k('d'), { claimedAt: 1100 });
      const sent = [
        store.claimReceipt(fresh[0], 1100),
        store.completeReceipt(outcomeOf(a, { completedAt: 1100, resultJson: '{"a":1}' }), 1100),
        Promise.resolve(store.completeReceipt(outcomeOf(b, { completedAt: 1100 }), 1100)),
        store.completeReceipt({ ...outcomeOf(c, { completedAt: 1100 }), claimId: 'f'.repeat(32) }, 1100),
        store.claimReceipt(fresh[1], 1100),
        store.claimReceipt(twice, 1100),
        store.claimReceipt(claimOf(k('c'), { claimedAt: 1100 }), 1100),
        store.claimReceipt(dAgain, 1100),
      ];
      const [e1, aDone, , cWrong, f1, e2, cHeld, dNew] = await Promise.all(sent);
      assert.equal(e1, null, 'a new key is claimed');
      assert.equal(f1, null, 'another new key is claimed');
      assertRecord(e2, inProgress(fresh[0]), 'the second claim of one key answers the first');
      assert.equal(aDone, true, 'a completion with its claimId records');
      assert.equal(cWrong, false, 'a completion with another claimId records nothing');
      assertRecord(cHeld, inProgress(c), 'a claim of a held key answers its record');
      assert.equal(dNew, null, "a claim past the outcome's retention replaces it");
      const aStored = await store.getReceipt(k('a'), 1100);
      assert.equal(aStored.status, 'completed');
      assert.equal(aStored.resultJson, '{"a":1}');
      assertRecord(await store.getReceipt(k('c'), 1100), inProgress(c), 'c is still held');
      assertRecord(await store.getReceipt(k('d'), 1100), inProgress(dAgain), 'd is claimed anew');
      // A claim sent with the completion of its key reads either the held claim or the outcome, never a second claim.
      const g = claimOf(k('g'));
      assert.equal(await store.claimReceipt(g, 1000), null);
      const [gDone, gClaim] = await Promise.all([store.completeReceipt(outcomeOf(g), 1010), store.claimReceipt(claimOf(k('g'), { claimedAt: 1010 }), 1010)]);
      assert.equal(gDone, true);
      assert.notEqual(gClaim, null, 'not claimed twice');
      assert.ok(gClaim.status === 'completed' || gClaim.status === 'in_progress');
      assert.equal(gClaim.claimId, g.claimId);
    });
    test('every method refuses bad arguments before any I/O, a Proxy unread', { skip: checks }, (t) =>
      withStore(t, open, async ({ store }) => {
        const good = query('agent', 'tool', hash());
        let trapped = 0;
        const proxy = new Proxy(
          { ...good },
          {
            get() {
              trapped++;
            },
            getOwnPropertyDescriptor() {
              trapped++;
            },
            has() {
              trapped++;
            },
            ownKeys() {
              trapped++;
              return [];
            },
          },
        );
        const attempts = [
          () => store.has(proxy, 0),
          () => store.take(proxy, 0),
          () => store.delete(proxy),
          () => store.put(proxy, 0),
          () => store.has({ ...good, proposalHash: 'A'.repeat(64) }, 0),
          () => store.has({ ...good, proposalHash: 'a'.repeat(63) }, 0),
          () => store.has({ ...good, agentName: 1 }, 0),
          () => store.has(good, Number.NaN),
          () => store.take(good, '0'),
          () => store.put(record(good, { uses: 0 }), 0),
          () => store.put(record(good, { uses: 1.5 }), 0),
          () => store.put(record(good, { expiresAt: Number.POSITIVE_INFINITY }), 0),
          () => store.putProposal(1, '{}', null),
          () => store.putProposal('k', 1, null),
          () => store.getProposal('k', undefined),
          () => store.listProposals(null, 0, 0),
          () => store.listProposals(null, 1001, 0),
          () => store.listProposals(null, 1.5, 0),
          () => store.listProposals(1, 10, 0),
          () => store.listProposals(null, 10, Number.NaN),
          () => store.prune(),
        ];
        for (const attempt of attempts) {
          await assert.rejects(async () => attempt(), TypeError, String(attempt));
        }
        assert.equal(trapped, 0, 'no trap of the Proxy ran');
        // A getter is never called: an accessor field reads as absent.
        const accessor = { ...good };
        Object.defineProperty(accessor, 'agentName', {
          get() {
            trapped++;
            return 'agent';
          },
          enumerable: true,
        });
        await assert.rejects(async () => store.has(accessor, 0), TypeError);
        assert.equal(trapped, 0);
        assert.equal(await store.has(good, 0), false, 'the store still works');
      }),
    );

    test('a grant outlives the connection that made it', { skip: shared ? 'one process-memory store has no second connection' : false }, (t) =>
      withStore(t, open, async ({ store, second }) => {
        const q = query('agent', 'tool', hash(), 'user-1');
        await store.put(record(q, { uses: 2, nonce: 'outlives', nonceExpiresAt: null }), 0);
        await store.putProposal('kept', '{"a":1}', null);
        await store.close();
        const other = await second();
        assert.equal(await other.has(q, 0), true);
        assert.equal(await other.take(q, 0), true);
        assert.equal(await other.put(record(q, { nonce: 'outlives' }), 0), false, 'the nonce was recorded with the grant');
        assert.equal(await other.getProposal('kept', 0), '{"a":1}');
        assert.deepEqual(await other.listProposals(null, 10, 0), { proposals: [{ key: 'kept', json: '{"a":1}' }], next: null });
        assert.equal(await other.take(q, 0), true);
        assert.equal(await other.take(q, 0), false);
      }),
    );
  });
}

/**
 * Asserts that a store failure is the package's payload-free error: a GrantStoreError with
 * one of the codes, whose message and fields hold none of `secrets`.
 */
function assertStoreError(error, codes, secrets) {
  assert.ok(error instanceof Error, `an Error, not ${String(error)}`);
  assert.equal(error.name, 'GrantStoreError', error.stack);
  assert.ok(codes.includes(error.code), `code ${error.code} is one of ${codes.join(', ')}: ${error.message}`);
  const shown = `${error.message}\n${error.stack}\n${JSON.stringify(error)}\n${require('node:util').inspect(error)}`;
  for (const secret of secrets) assert.ok(!shown.includes(secret), `the error shows ${JSON.stringify(secret)}: ${shown}`);
  assert.equal(error.cause, undefined, 'no cause: a driver error can quote a value');
}

/**
 * The six receipt operations called with secret-looking keys and values, each checking
 * that its rejection names the operation (for the dead-store tests of each store). The
 * secrets the message must not show: SECRET_RECEIPT_TEXTS.
 */
const SECRET_RECEIPT_TEXTS = ['secret-agent', 'secret-run', 'secret-call', 'secret-claim', 'secret-result'];
function receiptCalls(store) {
  const key = Object.freeze({ agentName: 'secret-agent', runId: 'secret-run', toolCallId: 'secret-call' });
  const claimId = `secret-claim-${'0'.repeat(19)}`;
  const named = (operation, start) => {
    const call = () =>
      start().catch((error) => {
        assert.equal(error.operation, operation, `the error of ${operation} names it`);
        throw error;
      });
    call.toString = () => operation;
    return call;
  };
  return [
    named('claimReceipt', () =>
      store.claimReceipt(Object.freeze({ ...key, proposalHash: 'a'.repeat(64), claimId, claimedAt: 1, leaseExpiresAt: 2, expiresAt: 3 }), 1),
    ),
    named('completeReceipt', () =>
      store.completeReceipt(Object.freeze({ ...key, claimId, status: 'completed', completedAt: 2, resultJson: '{"secret-result":1}', expiresAt: 3 }), 2),
    ),
    named('releaseReceipt', () => store.releaseReceipt(Object.freeze({ ...key, claimId }), 2)),
    named('getReceipt', () => store.getReceipt(key, 2)),
    named('deleteReceipt', () => store.deleteReceipt(key)),
    named('pruneReceipts', () => store.pruneReceipts(2)),
  ];
}

module.exports = { conformance, assertStoreError, hash, query, record, receiptCalls, receiptClaim, receiptOutcome, SECRET_RECEIPT_TEXTS };
