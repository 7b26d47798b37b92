'use strict';
// Issue 16, items 2 and 3: sealed proposals and scopes. The signature is checked against
// node:crypto's HMAC over the RFC 8785 form given by the npm `json-canonicalize` package
// (an implementation no one here wrote), not against the package's own output.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const { createHmac } = require('node:crypto');
const { canonicalize: jcs } = require('json-canonicalize');

const { createApprovalGrants, prepareToolCall, evaluateToolCall, authorizeToolCall, proposalHash, isApprovalGrantError, ApprovalGrantError } = require('../..');

const AGENT = 'payments';
const TOOL = 'pay';
const K1 = { id: 'k1', secret: 'k1-secret-of-at-least-thirty-two-bytes!' };
const K2 = { id: 'k2', secret: new Uint8Array(32).fill(7) };
const FIELDS = ['v', 'agentName', 'toolName', 'argsCanonicalJson', 'proposalHash', 'keyId', 'nonce', 'expiresAt', 'scope', 'signature'];

function prepared(raw, agentName = AGENT, toolName = TOOL) {
  return prepareToolCall({ agentName, toolName, rawArguments: raw });
}

async function proposalOf(grants, raw, extra = {}) {
  const outcome = await authorizeToolCall({ prepared: prepared(raw), policy: grants.policy(), execute: () => 'ran', ...extra });
  assert.equal(outcome.decision, 'require_approval');
  return outcome.proposal;
}

/** The signature another implementation computes: HMAC-SHA256 over canonicalize(record without signature). */
function oracleSignature(record, secret) {
  const { signature, ...unsigned } = record;
  return createHmac('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret))
    .update(jcs(unsigned), 'utf8')
    .digest('hex');
}

/** Re-signs a record with a secret (what a holder of the key could do; used to test the other checks). */
function resign(record, secret) {
  return { ...record, signature: oracleSignature(record, secret) };
}

function code(name) {
  return (error) => isApprovalGrantError(error) && error instanceof ApprovalGrantError && error.code === name && !/amount|bob|5000/.test(error.message);
}

describe('seal()', () => {
  test("without a key ring, seal is a TypeError and grant keeps today's behaviour", async () => {
    const grants = createApprovalGrants();
    const proposal = await proposalOf(grants, '{"amount":5}');
    assert.throws(() => grants.seal(proposal), TypeError);
    await grants.grant(proposal);
    assert.equal(grants.sealing, false);
  });

  test("a sealed proposal is a plain JSON object with exactly the format's fields, signed as another implementation signs it", async () => {
    let t = 1_000_000;
    const grants = createApprovalGrants({ keys: [K1, K2], now: () => t });
    const proposal = await proposalOf(grants, '{"to":"bob","amount":5}');
    const sealed = grants.seal(proposal, { ttlMs: 60_000, scope: 'user:alice' });
    assert.deepEqual(Object.keys(sealed).sort(), [...FIELDS].sort());
    assert.equal(Object.getPrototypeOf(sealed), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(sealed)), sealed, 'JSON round trip');
    assert.equal(sealed.v, 1);
    assert.equal(sealed.agentName, AGENT);
    assert.equal(sealed.toolName, TOOL);
    assert.equal(sealed.argsCanonicalJson, '{"amount":5,"to":"bob"}');
    assert.equal(sealed.proposalHash, proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: '{"amount":5,"to":"bob"}' }));
    assert.equal(sealed.keyId, 'k1', 'the first key seals');
    assert.match(sealed.nonce, /^[0-9a-f]{32}$/);
    assert.equal(sealed.expiresAt, 1_060_000);
    assert.equal(sealed.scope, 'user:alice');
    assert.match(sealed.signature, /^[0-9a-f]{64}$/);
    assert.equal(sealed.signature, oracleSignature(sealed, K1.secret));
    const other = grants.seal(proposal);
    assert.notEqual(other.nonce, sealed.nonce, 'a new nonce per seal');
    assert.equal(other.expiresAt, null);
    assert.equal(other.scope, null);
    assert.equal(other.signature, oracleSignature(other, K1.secret));
    // No unsigned field: raw text, views and call ids are not in it.
    for (const field of ['rawArguments', 'parsedArguments', 'requestedArguments', 'toolCallId', 'reason', 'kind']) assert.equal(field in sealed, false, field);
  });

  test('a Uint8Array secret is copied when the grants are made', async () => {
    const bytes = new Uint8Array(32).fill(9);
    const grants = createApprovalGrants({ keys: [{ id: 'kb', secret: bytes }] });
    const proposal = await proposalOf(grants, '{"amount":5}');
    const before = grants.seal(proposal);
    bytes.fill(1);
    const after = grants.seal(proposal);
    assert.equal(after.signature, oracleSignature(after, new Uint8Array(32).fill(9)));
    assert.equal(before.signature, oracleSignature(before, new Uint8Array(32).fill(9)));
  });

  test('key rings are checked: ids non-empty and unique, secrets of at least 32 bytes, strings or bytes', () => {
    for (const keys of [
      [],
      [{ id: '', secret: 'x'.repeat(32) }],
      [{ id: 'a', secret: 'x'.repeat(31) }],
      [{ id: 'a', secret: new Uint8Array(31) }],
      [
        { id: 'a', secret: 'x'.repeat(32) },
        { id: 'a', secret: 'y'.repeat(32) },
      ],
      [{ id: 'a', secret: 42 }],
      [{ id: 1, secret: 'x'.repeat(32) }],
      [{ id: 'a', secret: 'x'.repeat(31) + '\ud800' }],
      'k1',
      {},
    ]) {
      assert.throws(() => createApprovalGrants({ keys }), TypeError, JSON.stringify(keys));
    }
    // An inherited id or secret does not count.
    assert.throws(() => createApprovalGrants({ keys: [Object.create({ id: 'a', secret: 'x'.repeat(32) })] }), TypeError);
  });
});

describe('grant() with a key ring accepts only a sealed proposal that verifies, is live and was never granted', () => {
  async function setup(extra = {}) {
    let t = 5_000;
    const clock = {
      now: () => t,
      advance: (ms) => {
        t += ms;
      },
    };
    const grants = createApprovalGrants({ keys: [K1, K2], now: clock.now, ...extra });
    const proposal = await proposalOf(grants, '{"to":"bob","amount":5}');
    return { grants, proposal, clock };
  }

  test('a verified seal grants exactly its hash, once', async () => {
    const { grants, proposal } = await setup();
    const sealed = grants.seal(proposal);
    const record = await grants.grant(JSON.parse(JSON.stringify(sealed)));
    assert.equal(record.proposalHash, proposal.proposalHash);
    let ran = 0;
    for (let i = 0; i < 3; i++)
      await authorizeToolCall({
        prepared: prepared('{"amount":5,"to":"bob"}'),
        policy: grants.policy(),
        execute: () => {
          ran++;
        },
      });
    assert.equal(ran, 1);
  });

  test('unsealed records: not_sealed (the live proposal, a snapshot, a record missing or with wrong fields)', async () => {
    const { grants, proposal } = await setup();
    const sealed = grants.seal(proposal);
    await assert.rejects(grants.grant(proposal), code('not_sealed'));
    await assert.rejects(grants.grant(prepared('{"amount":5,"to":"bob"}').snapshot), code('not_sealed'));
    for (const [field, value] of [
      ['v', 2],
      ['v', '1'],
      ['nonce', 'short'],
      ['nonce', 'A'.repeat(32)],
      ['keyId', ''],
      ['expiresAt', '1'],
      ['expiresAt', Infinity],
      ['scope', 1],
      ['signature', 7],
      ['proposalHash', 'X'.repeat(64)],
      ['agentName', '\ud800'],
    ]) {
      await assert.rejects(grants.grant({ ...sealed, [field]: value }), code('not_sealed'), `${field}: ${String(value)}`);
    }
    const { signature, ...unsigned } = sealed;
    await assert.rejects(grants.grant(unsigned), code('not_sealed'));
    await assert.rejects(grants.grant(Object.create(sealed)), code('not_sealed'), 'inherited fields do not count');
    assert.equal(await grants.has(proposal), false);
  });

  test('tampered or moved: other arguments, another agent, tool or scope, or a wrong signature: bad_signature', async () => {
    const { grants, proposal } = await setup();
    const sealed = grants.seal(proposal, { scope: 'user:alice' });
    const json = '{"amount":5000000,"to":"bob"}';
    const cases = {
      'other arguments (hash recomputed)': {
        argsCanonicalJson: json,
        proposalHash: proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: json }),
      },
      'another agent': { agentName: 'other', proposalHash: proposalHash({ agentName: 'other', toolName: TOOL, argsCanonicalJson: sealed.argsCanonicalJson }) },
      'another tool': { toolName: 'refund', proposalHash: proposalHash({ agentName: AGENT, toolName: 'refund', argsCanonicalJson: sealed.argsCanonicalJson }) },
      'another scope': { scope: 'user:mallory' },
      'no scope': { scope: null },
      'a later expiry': { expiresAt: 9e15 },
      'another nonce': { nonce: 'f'.repeat(32) },
      'another key id of the ring': { keyId: 'k2' },
      'a wrong signature': { signature: '0'.repeat(64) },
      'an uppercase signature': { signature: sealed.signature.toUpperCase() },
      'a truncated signature': { signature: sealed.signature.slice(0, 63) },
    };
    for (const [label, change] of Object.entries(cases)) {
      await assert.rejects(grants.grant({ ...sealed, ...change }), code('bad_signature'), label);
    }
    // The same change re-signed with a key the ring does not hold.
    const outsider = 'an-outsiders-secret-of-32-bytes-or-more';
    await assert.rejects(grants.grant(resign({ ...sealed, ...cases['other arguments (hash recomputed)'] }, outsider)), code('bad_signature'));
    assert.equal(await grants.has({ ...proposal, scope: 'user:alice' }), false);
  });

  test('an unknown key id: unknown_key', async () => {
    const { grants, proposal } = await setup();
    const sealed = grants.seal(proposal);
    await assert.rejects(grants.grant({ ...sealed, keyId: 'k9' }), code('unknown_key'));
  });

  test('rotation: a seal verifies under every listed key and the first key seals; a removed key is unknown', async () => {
    const { grants, proposal } = await setup();
    const byK1 = grants.seal(proposal);
    const rotated = createApprovalGrants({ keys: [K2, K1] });
    const byK2 = rotated.seal(proposal);
    assert.equal(byK2.keyId, 'k2');
    assert.equal(byK2.signature, oracleSignature(byK2, K2.secret));
    await rotated.grant(byK1);
    await rotated.grant(byK2);
    const retired = createApprovalGrants({ keys: [K2] });
    await assert.rejects(retired.grant(grants.seal(proposal)), code('unknown_key'));
    const sameIdOtherSecret = createApprovalGrants({ keys: [{ id: 'k1', secret: 'a-different-secret-of-32-bytes-or-more' }] });
    await assert.rejects(sameIdOtherSecret.grant(grants.seal(proposal)), code('bad_signature'));
  });

  test('an expired seal: seal_expired (the grants clock decides)', async () => {
    const { grants, proposal, clock } = await setup();
    const sealed = grants.seal(proposal, { ttlMs: 1000 });
    clock.advance(999);
    const live = grants.seal(proposal, { ttlMs: 1000 });
    clock.advance(1);
    await assert.rejects(grants.grant(sealed), code('seal_expired'));
    await grants.grant(live);
  });

  test('a seal granted once is seal_used', async () => {
    const { grants, proposal } = await setup();
    const sealed = grants.seal(proposal);
    await grants.grant(sealed);
    await assert.rejects(grants.grant(sealed), code('seal_used'));
    await assert.rejects(grants.grant(JSON.parse(JSON.stringify(sealed))), code('seal_used'));
    // Two uses come from grant options, never from granting a seal twice.
    let ran = 0;
    for (let i = 0; i < 3; i++)
      await authorizeToolCall({
        prepared: prepared('{"amount":5,"to":"bob"}'),
        policy: grants.policy(),
        execute: () => {
          ran++;
        },
      });
    assert.equal(ran, 1);
  });

  test('the message of every ApprovalGrantError names its code only', () => {
    for (const name of ['not_sealed', 'unknown_key', 'bad_signature', 'seal_expired', 'seal_used']) {
      const error = new ApprovalGrantError(name);
      assert.equal(error.code, name);
      assert.equal(error.name, 'ApprovalGrantError');
      assert.match(error.message, new RegExp(`\\[${name}\\]$`));
    }
  });
});

describe('scopes (item 3)', () => {
  test('a scoped grant allows only evaluations whose policyContext.grantScope equals it', async () => {
    const grants = createApprovalGrants({ keys: [K1] });
    const proposal = await proposalOf(grants, '{"amount":5}');
    await grants.grant(grants.seal(proposal, { scope: 'user:alice' }));
    const attempt = (grantScope) =>
      authorizeToolCall({
        prepared: prepared('{"amount":5}'),
        policy: grants.policy(),
        execute: () => 'ran',
        ...(grantScope === undefined ? {} : { policyContext: { grantScope } }),
      });
    assert.equal((await attempt('user:bob')).decision, 'require_approval', 'another user');
    assert.equal((await attempt(undefined)).decision, 'require_approval', 'no scope');
    assert.equal((await attempt('')).decision, 'require_approval', 'the empty scope is a scope of its own');
    assert.equal((await attempt('user:alice')).result, 'ran');
    assert.equal((await attempt('user:alice')).decision, 'require_approval', 'spent');
  });

  test('grant(sealed, { scope }) scopes an unscoped seal; a scope other than the sealed one is refused', async () => {
    const grants = createApprovalGrants({ keys: [K1] });
    const proposal = await proposalOf(grants, '{"amount":5}');
    await grants.grant(grants.seal(proposal), { scope: 'thread:1' });
    assert.equal(await grants.has({ ...proposal, scope: 'thread:1' }), true);
    assert.equal(await grants.has(proposal), false);
    await assert.rejects(grants.grant(grants.seal(proposal, { scope: 'thread:1' }), { scope: 'thread:2' }), TypeError);
  });

  test('without keys, grant(record, { scope }) scopes too, and revoke takes the scope', async () => {
    const grants = createApprovalGrants();
    const proposal = await proposalOf(grants, '{"amount":5}');
    await grants.grant(proposal, { scope: 'run:9' });
    assert.equal(await grants.has({ ...proposal, scope: 'run:9' }), true);
    await grants.revoke({ ...proposal, scope: 'run:9' });
    assert.equal(await grants.has({ ...proposal, scope: 'run:9' }), false);
  });

  test('policyContext.grantScope must be a well-formed string', async () => {
    const grants = createApprovalGrants();
    for (const grantScope of [1, {}, '\udc00']) {
      await assert.rejects(evaluateToolCall({ prepared: prepared('{}'), policy: grants.policy(), policyContext: { grantScope } }), TypeError);
    }
  });
});

describe('kept proposals (for adapters whose framework has no carrier)', () => {
  test('keep, recall verified, forget; with keys the kept record is sealed', async () => {
    for (const options of [{}, { keys: [K1] }]) {
      const grants = createApprovalGrants(options);
      const proposal = await proposalOf(grants, '{"amount":5}');
      const key = { runId: 'run-1', toolCallId: 'call_1' };
      const kept = await grants.keepProposal(key, proposal);
      const recalled = await grants.keptProposal(key);
      assert.deepEqual(recalled, kept);
      assert.equal(recalled.proposalHash, proposal.proposalHash);
      if (options.keys) await grants.grant(recalled);
      else await grants.grant(recalled);
      assert.equal(await grants.keptProposal({ runId: 'run-1', toolCallId: 'call_2' }), undefined);
      assert.equal(await grants.keptProposal({ runId: 'run-2', toolCallId: 'call_1' }), undefined);
      await grants.forgetProposal(key);
      assert.equal(await grants.keptProposal(key), undefined);
    }
  });

  test('a kept record changed in the store is refused when recalled', async () => {
    let saved;
    const store = {
      put() {
        return true;
      },
      has() {
        return false;
      },
      take() {
        return false;
      },
      putProposal(key, json) {
        saved = json;
      },
      getProposal() {
        return saved;
      },
      deleteProposal() {},
    };
    for (const options of [{ store }, { store, keys: [K1] }]) {
      const grants = createApprovalGrants(options);
      const proposal = await proposalOf(grants, '{"amount":5}');
      await grants.keepProposal({ runId: 'r', toolCallId: 'c' }, proposal);
      saved = saved.replace('{\\"amount\\":5}', '{\\"amount\\":6}');
      await assert.rejects(grants.keptProposal({ runId: 'r', toolCallId: 'c' }), (error) => error.code === 'hash_mismatch' || error.code === 'bad_signature');
    }
  });
});

describe('a kept proposal is granted once, with or without keys (review finding: two approvals racing)', () => {
  test('two grants of one kept record at once: one grant, the other seal_used; nonces outlive the record by the retention margin', async () => {
    for (const options of [{}, { keys: [K1] }]) {
      let t = 10_000;
      const grants = createApprovalGrants({ ...options, now: () => t });
      const proposal = await proposalOf(grants, '{"amount":5}');
      await grants.keepProposal({ runId: 'r', toolCallId: 'c' }, proposal, { ttlMs: 1000 });
      const kept = await grants.keptProposal({ runId: 'r', toolCallId: 'c' });
      assert.match(kept.nonce, /^[0-9a-f]{32}$/);
      const results = await Promise.allSettled([grants.grant(kept), grants.grant(JSON.parse(JSON.stringify(kept)))]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'], JSON.stringify(options));
      assert.equal(results.find((r) => r.status === 'rejected').reason.code, 'seal_used');
      // Past the record's expiry and a prune, the nonce is still remembered (one day by default).
      t += 60_000;
      await grants.prune();
      await assert.rejects(grants.grant(kept), (error) => error.code === 'seal_used' || error.code === 'seal_expired');
      let ran = 0;
      for (let i = 0; i < 2; i++)
        await authorizeToolCall({
          prepared: prepared('{"amount":5}'),
          policy: grants.policy(),
          execute: () => {
            ran++;
          },
        });
      assert.equal(ran, 1);
    }
  });

  test('a proposal granted straight from a decision (no nonce) keeps the behaviour without a nonce', async () => {
    const grants = createApprovalGrants();
    const proposal = await proposalOf(grants, '{"amount":5}');
    await grants.grant(proposal);
    await grants.grant(proposal);
    assert.equal(await grants.has(proposal), true);
    await assert.rejects(grants.grant({ ...proposal, nonce: 'not-hex' }), TypeError);
  });
});

// ---- Clock skew between processes (a review finding) ------------------------------------
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

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createSqliteGrantStore } = require('../..');

const KEYS = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];

test('review: a seal granted once is never granted again, whatever clock the next process has', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-review-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'grants.db');
  const T = 1_800_000_000_000;
  let clockA = T; // the reviewer's host
  const storeA = createSqliteGrantStore({ path: file });
  const storeB = createSqliteGrantStore({ path: file });
  t.after(async () => {
    await storeA.close();
    await storeB.close();
  });
  const a = createApprovalGrants({ store: storeA, keys: KEYS, now: () => clockA });
  // Another host, 3 seconds behind.
  const b = createApprovalGrants({ store: storeB, keys: KEYS, now: () => clockA - 3000 });

  const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"service":"api"}' });
  const asked = await authorizeToolCall({ prepared, policy: a.policy(), execute: () => 'ran' });
  const sealed = a.seal(asked.proposal, { ttlMs: 60_000 });
  await a.grant(sealed); // the reviewer's approval, once

  clockA = T + 61_000; // the seal has expired on A's clock, not on B's (T + 58 s)
  await a.prune(); // the periodic clean-up the docs recommend

  let second;
  try {
    second = await b.grant(sealed);
  } catch (error) {
    second = error;
  }
  assert.equal(second && second.code, 'seal_used', 'the same seal was granted a second time');
});
