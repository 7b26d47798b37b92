'use strict';
// Approval grants bound to the proposal hash (issue 11): looked at by the policy helper,
// spent by executeToolCall's grants hook right before the handler, once.

const test = require('node:test');
const assert = require('node:assert/strict');
const {
  createApprovalGrants,
  prepareToolCall,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  SnapshotDomainError,
  ToolCallNotAllowedError,
} = require('../..');

const AGENT = 'payments';
const TOOL = 'transfer';

function schema(value) {
  if (value === null || typeof value !== 'object' || typeof value.amount !== 'number' || typeof value.to !== 'string') {
    throw new TypeError('bad transfer');
  }
  return { amount: value.amount, to: value.to };
}

function prepare(rawArguments, names = {}) {
  return prepareToolCall({ agentName: names.agentName ?? AGENT, toolName: names.toolName ?? TOOL, rawArguments, schema });
}

/** A handler that records what it was given. */
function recorder() {
  const calls = [];
  const handler = (args) => {
    calls.push(JSON.stringify(args));
    return 'done';
  };
  return { calls, handler };
}

/** First attempt: the grants policy asks for approval; returns the suspended proposal. */
async function proposalFor(grants, rawArguments) {
  const decision = await evaluateToolCall({ prepared: prepare(rawArguments), policy: grants.policy() });
  assert.equal(decision.decision, 'require_approval');
  assert.equal(decision.reason, 'approval_required');
  assert.ok(decision.proposal, 'a require_approval decision carries its proposal');
  return decision.proposal;
}

async function resume(grants, rawArguments, handler, policy = grants.policy()) {
  const decision = await evaluateToolCall({ prepared: prepare(rawArguments), policy });
  if (decision.decision !== 'allow') return { decision, ran: false };
  try {
    await executeToolCall(decision, handler, { grants });
    return { decision, ran: true };
  } catch (error) {
    return { decision, ran: false, error };
  }
}

test('a granted proposal resumes and executes once; the handler sees the approved JSON', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"to":"bob","amount":500}');
  await grants.grant(proposal);
  const { calls, handler } = recorder();
  const first = await resume(grants, '{"to":"bob","amount":500}', handler);
  assert.equal(first.decision.decision, 'allow');
  assert.equal(first.decision.reason, 'approval_granted');
  assert.equal(first.ran, true);
  assert.deepEqual(calls, [JSON.stringify({ amount: 500, to: 'bob' })]);
  assert.equal(await grants.has(proposal), false, 'a single-use grant is gone after the execution');
});

test('single use: the same approval replayed executes nothing and asks again', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal);
  const { calls, handler } = recorder();
  assert.equal((await resume(grants, '{"amount":500,"to":"bob"}', handler)).ran, true);
  const replay = await resume(grants, '{"amount":500,"to":"bob"}', handler);
  assert.equal(replay.ran, false);
  assert.equal(replay.decision.decision, 'require_approval');
  assert.equal(calls.length, 1);
});

test('uses: n allows n executions, then asks again', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":1,"to":"bob"}');
  await grants.grant(proposal, { uses: 3 });
  const { calls, handler } = recorder();
  for (let i = 0; i < 4; i++) await resume(grants, '{"amount":1,"to":"bob"}', handler);
  assert.equal(calls.length, 3);
});

test('expiry follows the injected clock: live before expiresAt, refused at it', async () => {
  let now = 1_000_000;
  const grants = createApprovalGrants({ now: () => now });
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal, { ttlMs: 1000 });
  const { calls, handler } = recorder();

  now += 1000; // exactly at expiresAt: expired
  const late = await resume(grants, '{"amount":500,"to":"bob"}', handler);
  assert.equal(late.decision.decision, 'require_approval');

  await grants.grant(proposal, { expiresAt: now + 10 });
  now += 9;
  const inTime = await resume(grants, '{"amount":500,"to":"bob"}', handler);
  assert.equal(inTime.ran, true);
  assert.equal(calls.length, 1);
});

test('a grant that expires between the policy and the execution is not spent: grant_unavailable', async () => {
  let now = 0;
  const grants = createApprovalGrants({ now: () => now, ttlMs: 50 });
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal);
  const decision = await evaluateToolCall({ prepared: prepare('{"amount":500,"to":"bob"}'), policy: grants.policy() });
  assert.equal(decision.decision, 'allow');
  now = 50;
  const { calls, handler } = recorder();
  await assert.rejects(executeToolCall(decision, handler, { grants }), (error) => {
    assert.ok(error instanceof ToolCallNotAllowedError);
    assert.equal(error.code, 'grant_unavailable');
    return true;
  });
  assert.equal(calls.length, 0);
});

test('concurrent attempts on one single-use grant execute once (executeToolCall and authorizeToolCall)', async () => {
  const grants = createApprovalGrants();
  const raw = '{"amount":500,"to":"bob"}';
  const proposal = await proposalFor(grants, raw);
  await grants.grant(proposal);
  const { calls, handler } = recorder();
  // Every attempt is evaluated (and allowed) before any of them executes.
  const decisions = await Promise.all([1, 2, 3, 4].map(() => evaluateToolCall({ prepared: prepare(raw), policy: grants.policy() })));
  assert.deepEqual(
    decisions.map((d) => d.decision),
    ['allow', 'allow', 'allow', 'allow'],
  );
  const settled = await Promise.allSettled(decisions.map((d) => executeToolCall(d, handler, { grants })));
  assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 1);
  for (const s of settled.filter((x) => x.status === 'rejected')) {
    assert.ok(s.reason instanceof ToolCallNotAllowedError);
    assert.equal(s.reason.code, 'grant_unavailable');
  }
  assert.equal(calls.length, 1);

  // The one-call path reports the lost race as a runtime deny with its own reason.
  await grants.grant(proposal);
  const outcomes = await Promise.all([1, 2].map(() => authorizeToolCall({ prepared: prepare(raw), policy: grants.policy(), execute: handler, grants })));
  const denied = outcomes.filter((o) => o.decision === 'deny');
  assert.equal(outcomes.filter((o) => o.decision === 'allow').length, 1);
  assert.equal(denied.length, 1);
  assert.equal(denied[0].decidedBy, 'runtime');
  assert.equal(denied[0].reason, 'grant_unavailable');
  assert.equal(calls.length, 2);
});

test('a mutated or denied attempt does not burn the grant', async () => {
  const grants = createApprovalGrants();
  const raw = '{"amount":500,"to":"bob"}';
  const proposal = await proposalFor(grants, raw);
  await grants.grant(proposal);
  const { calls, handler } = recorder();

  // The grant allowed, then the same policy changed its view: the runtime denies.
  const allowThenMutate = grants.policy();
  const mutating = async (input) => {
    const result = await allowThenMutate(input);
    input.parsedArguments.amount = 9999900;
    return result;
  };
  const mutated = await authorizeToolCall({ prepared: prepare(raw), policy: mutating, execute: handler, grants });
  assert.equal(mutated.decision, 'deny');
  assert.equal(mutated.reason, 'policy_mutated_arguments');

  // A policy that denies on its own terms before the grant is consulted.
  const denying = grants.policy();
  const denied = await authorizeToolCall({
    prepared: prepare(raw),
    policy: (input) => (input.turn > 3 ? { decision: 'deny', reason: 'too_many_turns' } : denying(input)),
    policyContext: { turn: 4 },
    execute: handler,
    grants,
  });
  assert.equal(denied.decision, 'deny');

  // An allowed decision that is copied (and so refused) spends nothing either.
  const allowed = await evaluateToolCall({ prepared: prepare(raw), policy: grants.policy() });
  await assert.rejects(executeToolCall({ ...allowed }, handler, { grants }), (error) => error.code === 'not_a_decision');

  assert.equal(calls.length, 0);
  assert.equal(await grants.has(proposal), true, 'the grant is still there');
  const clean = await resume(grants, raw, handler);
  assert.equal(clean.ran, true);
  assert.deepEqual(calls, [JSON.stringify({ amount: 500, to: 'bob' })]);
});

test('the same action respelled by the model matches the grant; a different value does not', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal);
  const { calls, handler } = recorder();

  const other = await resume(grants, '{"amount":5000000,"to":"bob"}', handler);
  assert.equal(other.ran, false);
  assert.equal(other.decision.decision, 'require_approval', 'a hash mismatch is a new approval request');
  assert.notEqual(other.decision.proposalHash, proposal.proposalHash);
  const otherAgent = await evaluateToolCall({ prepared: prepare('{"amount":500,"to":"bob"}', { agentName: 'intern' }), policy: grants.policy() });
  assert.equal(otherAgent.decision, 'require_approval', 'the grant names its agent');
  const otherTool = await evaluateToolCall({ prepared: prepare('{"amount":500,"to":"bob"}', { toolName: 'refund' }), policy: grants.policy() });
  assert.equal(otherTool.decision, 'require_approval', 'the grant names its tool');

  const respelled = await resume(grants, ' { "to" : "bob", "amount" : 5e2 } ', handler);
  assert.equal(respelled.ran, true);
  assert.deepEqual(calls, [JSON.stringify({ amount: 500, to: 'bob' })]);
});

test('with a denying fallback, a hash mismatch on resume is a deny', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal);
  const policy = grants.policy(() => ({ decision: 'deny', reason: 'not_approved' }));
  const { calls, handler } = recorder();
  const outcome = await authorizeToolCall({ prepared: prepare('{"amount":50000,"to":"bob"}'), policy, execute: handler, grants });
  assert.equal(outcome.decision, 'deny');
  assert.equal(outcome.reason, 'not_approved');
  assert.equal(outcome.decidedBy, 'policy');
  assert.equal(calls.length, 0);
});

test('an allow that no grant made spends nothing', async () => {
  const grants = createApprovalGrants();
  const raw = '{"amount":500,"to":"bob"}';
  const proposal = await proposalFor(grants, raw);
  await grants.grant(proposal);
  const { calls, handler } = recorder();
  const own = await authorizeToolCall({ prepared: prepare(raw), policy: () => ({ decision: 'allow', reason: 'small' }), execute: handler, grants });
  assert.equal(own.decision, 'allow');
  assert.equal(calls.length, 1);
  assert.equal(await grants.has(proposal), true);
});

test("a grant's allow answer handed to another evaluation is refused: that evaluation never consulted the grant", async () => {
  // The answer is marked with the evaluation it was made for (a memoizing policy would
  // otherwise run a single-use grant without limit): another evaluation that returns it
  // is a runtime deny, and the grant is not spent.
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal);
  const grantPolicy = grants.policy();
  let kept;
  const { calls, handler } = recorder();
  await evaluateToolCall({ prepared: prepare('{"amount":500,"to":"bob"}'), policy: async (input) => (kept = await grantPolicy(input)) });
  assert.equal(kept.decision, 'allow');
  const outcome = await authorizeToolCall({ prepared: prepare('{"amount":9999900,"to":"bob"}'), policy: () => kept, execute: handler, grants });
  assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'invalid_policy_result']);
  assert.equal(calls.length, 0);
  assert.equal(await grants.has(proposal), true, 'the grant was not spent');
  // A copy of the answer is the other policy's own allow, as any allow it returns.
  const copied = await authorizeToolCall({ prepared: prepare('{"amount":7,"to":"bob"}'), policy: () => ({ ...kept }), execute: handler });
  assert.equal(copied.decision, 'allow');
  assert.equal(await grants.has(proposal), true);
});

test('grant() checks the hash against the text the approver saw', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  const tampered = { ...proposal, argsCanonicalJson: '{"amount":5,"to":"bob"}' };
  await assert.rejects(grants.grant(tampered), (error) => error instanceof SnapshotDomainError && error.code === 'hash_mismatch');
  const notCanonical = { ...proposal, argsCanonicalJson: '{"to":"bob","amount":500}' };
  await assert.rejects(grants.grant(notCanonical), (error) => error instanceof SnapshotDomainError && error.code === 'not_canonical');
  await assert.rejects(grants.grant({ agentName: AGENT, toolName: TOOL, proposalHash: proposal.proposalHash }), (error) => error.code === 'not_a_snapshot');
  assert.equal(await grants.has(proposal), false);
  // A stored record loaded back (JSON round trip) grants.
  await grants.grant(JSON.parse(JSON.stringify(proposal)));
  assert.equal(await grants.has(proposal), true);
});

test('revoke removes the grant', async () => {
  const grants = createApprovalGrants();
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  await grants.grant(proposal, { uses: 2 });
  await grants.grant(proposal);
  await grants.revoke(proposal);
  assert.equal(await grants.has(proposal), false);
});

test('options and grant options are read as own data properties only', async () => {
  const inherited = Object.create({ uses: 5, ttlMs: 1, now: () => 0 });
  const grants = createApprovalGrants(inherited);
  const proposal = await proposalFor(grants, '{"amount":500,"to":"bob"}');
  let getterRan = false;
  const options = {};
  Object.defineProperty(options, 'uses', {
    enumerable: true,
    get() {
      getterRan = true;
      return 5;
    },
  });
  const record = await grants.grant(proposal, options);
  assert.equal(getterRan, false);
  assert.equal(record.uses, 1, 'inherited and accessor uses do not count');
  assert.equal(record.expiresAt, null, 'an inherited ttlMs does not count');

  Object.prototype.store = { put() {}, has: () => true, take: () => true };
  try {
    const clean = createApprovalGrants();
    assert.equal(await clean.has(proposal), false, 'a store on Object.prototype is not used');
  } finally {
    delete Object.prototype.store;
  }
  assert.throws(() => createApprovalGrants({ uses: 0 }), TypeError);
  assert.throws(() => createApprovalGrants({ store: { put() {}, has() {} } }), TypeError);
  assert.throws(() => createApprovalGrants({ now: 5 }), TypeError);
});

/**
 * A store shaped like a database table: every call crosses an await (the network), and
 * `take` is one conditional update (the row changes only while uses > 0 and it is live).
 */
function databaseStore() {
  const rows = [];
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const matches = (row, q) => row.agentName === q.agentName && row.toolName === q.toolName && row.proposalHash === q.proposalHash;
  const isLive = (row, now) => row.uses > 0 && (row.expiresAt === null || now < row.expiresAt);
  const calls = { put: 0, has: 0, take: 0, delete: 0 };
  return {
    rows,
    calls,
    async put(record) {
      calls.put++;
      await tick();
      rows.push({ ...record });
    },
    async has(query, now) {
      calls.has++;
      await tick();
      return rows.some((row) => matches(row, query) && isLive(row, now));
    },
    async take(query, now) {
      calls.take++;
      await tick();
      // UPDATE grants SET uses = uses - 1 WHERE <query> AND uses > 0 AND <live> LIMIT 1
      const row = rows.find((r) => matches(r, query) && isLive(r, now));
      if (row === undefined) return false;
      row.uses -= 1;
      await tick();
      return true;
    },
    async delete(query) {
      calls.delete++;
      await tick();
      for (let i = rows.length - 1; i >= 0; i--) if (matches(rows[i], query)) rows.splice(i, 1);
    },
  };
}

test('an async store: looked at by the policy, spent once by concurrent executions', async () => {
  const store = databaseStore();
  const grants = createApprovalGrants({ store });
  const raw = '{"amount":500,"to":"bob"}';
  const proposal = await proposalFor(grants, raw);
  await grants.grant(proposal);
  assert.equal(store.rows.length, 1);
  assert.equal(store.rows[0].argsCanonicalJson, '{"amount":500,"to":"bob"}');
  const { calls, handler } = recorder();
  const decisions = await Promise.all([1, 2, 3].map(() => evaluateToolCall({ prepared: prepare(raw), policy: grants.policy() })));
  assert.equal(store.calls.take, 0, 'looking is not spending');
  const settled = await Promise.allSettled(decisions.map((d) => executeToolCall(d, handler, { grants })));
  assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 1);
  assert.equal(calls.length, 1);
  assert.equal(store.rows[0].uses, 0);
  await grants.revoke(proposal);
  assert.equal(store.rows.length, 0);
});

test('a store answer other than true counts as no grant', async () => {
  for (const answer of [1, 'true', {}, undefined]) {
    const grants = createApprovalGrants({ store: { put() {}, has: () => answer, take: () => answer } });
    const decision = await evaluateToolCall({ prepared: prepare('{"amount":1,"to":"bob"}'), policy: grants.policy() });
    assert.equal(decision.decision, 'require_approval', `has() answered ${typeof answer}`);
  }
  const lying = createApprovalGrants({ store: { put() {}, has: () => true, take: () => 1 } });
  const { calls, handler } = recorder();
  const outcome = await authorizeToolCall({ prepared: prepare('{"amount":1,"to":"bob"}'), policy: lying.policy(), execute: handler, grants: lying });
  assert.equal(outcome.reason, 'grant_unavailable');
  assert.equal(calls.length, 0);
});

test('grant, policy and spend keep working after the built-ins they use are replaced', () => {
  // In a child process: replacing Array.prototype.push and friends would break the test
  // runner of this one.
  const { spawnSync } = require('node:child_process');
  const script = `
    const { createApprovalGrants, prepareToolCall, evaluateToolCall, executeToolCall } = require(${JSON.stringify(require.resolve('../..'))});
    const gopd = Object.getOwnPropertyDescriptor, define = Object.defineProperty, stringify = JSON.stringify, log = console.log;
    const saved = [];
    const trap = () => { throw new Error('a replaced built-in was called'); };
    const targets = [[Map.prototype, 'get'], [Map.prototype, 'set'], [Map.prototype, 'delete'], [Array.prototype, 'push'],
      [Array.prototype, 'splice'], [Reflect, 'apply'], [RegExp.prototype, 'test'], [RegExp.prototype, 'exec'],
      [Number, 'isSafeInteger'], [Number, 'isFinite'], [Date, 'now'], [String.prototype, 'isWellFormed'],
      [String.prototype, 'charCodeAt'], [Function.prototype, 'call'], [Function.prototype, 'apply'],
      [WeakMap.prototype, 'get'], [WeakMap.prototype, 'set'], [Object, 'getOwnPropertyDescriptor'], [Object, 'hasOwn'], [Object, 'freeze']];
    (async () => {
      const grants = createApprovalGrants({ now: () => 1000 });
      const prepared = () => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"x":1}' });
      const asked = await evaluateToolCall({ prepared: prepared(), policy: grants.policy() });
      for (let i = 0; i < targets.length; i++) {
        saved[i] = gopd(targets[i][0], targets[i][1]);
        define(targets[i][0], targets[i][1], { value: trap, configurable: true, writable: true });
      }
      let out;
      try {
        await grants.grant(asked.proposal, { uses: 2, ttlMs: 10 });
        const allowed = await evaluateToolCall({ prepared: prepared(), policy: grants.policy() });
        const result = await executeToolCall(allowed, (view) => view.x, { grants });
        out = [asked.decision, allowed.decision, allowed.reason, result, await grants.has(asked.proposal)];
      } catch (error) {
        out = ['threw', String(error && error.message)];
      }
      for (let i = 0; i < targets.length; i++) define(targets[i][0], targets[i][1], saved[i]);
      log(stringify(out));
    })();`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), ['require_approval', 'allow', 'approval_granted', 1, true]);
});

test('a grant is spent even when executeToolCall or authorizeToolCall is called without the grants option', async () => {
  const pkg = require('../..');
  const grants = pkg.createApprovalGrants();
  const prepare = () => pkg.prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":5}' });
  await grants.grant(prepare());
  const policy = grants.policy();
  let runs = 0;
  const first = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  await pkg.executeToolCall(first, () => runs++);
  const second = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  assert.equal(second.decision, 'require_approval', 'the single-use grant is gone after the first execution');
  assert.equal(runs, 1);

  await grants.grant(prepare());
  const a = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  const b = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  await pkg.executeToolCall(a, () => runs++);
  await assert.rejects(
    pkg.executeToolCall(b, () => runs++),
    (error) => error.code === 'grant_unavailable',
  );
  assert.equal(runs, 2, 'two allows of one grant, no grants option: one execution');

  await grants.grant(prepare());
  const outcomes = await Promise.all([0, 1, 2].map(() => pkg.authorizeToolCall({ prepared: prepare(), policy, execute: () => runs++ })));
  assert.equal(runs, 3, 'authorizeToolCall without the grants option executes one grant once');
  assert.deepEqual(outcomes.map((o) => o.decision).sort(), ['allow', 'deny', 'deny']);
  for (const o of outcomes) if (o.decision === 'deny') assert.equal(o.reason, 'grant_unavailable');
});

test("passing another grants object does not skip spending the issuing object's grant", async () => {
  const pkg = require('../..');
  const issuing = pkg.createApprovalGrants();
  const other = pkg.createApprovalGrants();
  const prepare = () => pkg.prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":7}' });
  await issuing.grant(prepare());
  const policy = issuing.policy();
  const a = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  const b = await pkg.evaluateToolCall({ prepared: prepare(), policy });
  let runs = 0;
  await pkg.executeToolCall(a, () => runs++, { grants: other });
  await assert.rejects(
    pkg.executeToolCall(b, () => runs++, { grants: other }),
    (error) => error.code === 'grant_unavailable',
  );
  assert.equal(runs, 1);
});

// ---- Kept proposals an edited store or a custom store hands back (red team round 4) -----

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createSqliteGrantStore, isSnapshotDomainError } = require('../..');

async function keptProposalOf(rawArguments) {
  const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments });
  const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'payments' }) });
  return decision.proposal;
}

/** A kept unsealed proposal whose nonce was changed in the store (the arguments untouched). */
async function keptWithTamperedNonce(store) {
  const grants = createApprovalGrants({ store });
  await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await keptProposalOf('{"cents":987654321}'));
  const storeKey = '8:thread-1call_1';
  const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
  assert.equal(typeof record.nonce, 'string');
  record.nonce = 7;
  await store.putProposal(storeKey, JSON.stringify(record), null);
  return grants;
}

test('a kept record whose nonce was changed is a record that does not verify (SnapshotDomainError), in keptProposal and listProposals', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  try {
    const grants = await keptWithTamperedNonce(store);
    // Before: a TypeError (ERR_INVALID_ARG_TYPE), which every adapter's pending rethrew,
    // so one edited record stopped the whole review listing.
    await assert.rejects(
      grants.keptProposal({ runId: 'thread-1', toolCallId: 'call_1' }),
      (error) => isSnapshotDomainError(error) && error.code === 'not_a_snapshot',
    );
    const page = await grants.listProposals();
    assert.equal(page.proposals.length, 1);
    assert.equal(isSnapshotDomainError(page.proposals[0].error), true);
    assert.equal(page.proposals[0].proposal, undefined);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("listProposals: a custom store's cursor that is not a well-formed string is refused (it was handed on, and the next page's listProposals then refused it as input)", async () => {
  const { createMemoryStore } = require('../../lib/stores/memory');
  const memory = createMemoryStore();
  const store = {};
  for (const name of Object.getOwnPropertyNames(memory)) if (typeof memory[name] === 'function') store[name] = memory[name].bind(memory);
  store.listProposals = () => ({ proposals: [], next: 'page-\ud800' });
  const grants = createApprovalGrants({ store });
  await assert.rejects(grants.listProposals(), (error) => error instanceof TypeError && /listProposals must answer/.test(error.message));
  store.listProposals = () => ({ proposals: [], next: 'page-2' });
  assert.deepEqual(await createApprovalGrants({ store }).listProposals(), { proposals: [], cursor: 'page-2' });
});

// ---- The standard: built-ins captured at load (review findings) -------------------------
// Review findings on lib/grants against the package's standard: built-ins captured at
// load, no live lookup on a prototype the application can reach. Each test fails on main
// (7e7def7).

const { createSnapshot } = require('../..');

const snapshotProposalOf = (value) => {
  const s = createSnapshot({ agentName: 'payments', toolName: 'pay', value });
  return { agentName: s.agentName, toolName: s.toolName, argsCanonicalJson: s.argsCanonicalJson, proposalHash: s.proposalHash };
};

test('review: keepProposal stores the proposal it was given, whatever Object.prototype.toJSON says', async () => {
  // lib/grants/index.js:361 `JSONStringify(kept)`: JSON.stringify looks up `toJSON` on the
  // kept object and its prototype. Without a key ring, keptProposal then verifies only
  // that hash and JSON agree, so the adapters' approve (ai.js, mastra.js) would grant a
  // proposal nobody was asked about.
  const grants = createApprovalGrants();
  const asked = snapshotProposalOf({ amount: 5, to: 'bob' });
  const other = snapshotProposalOf({ amount: 5000000, to: 'mallory' });
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
