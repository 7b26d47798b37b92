'use strict';
// grants.policy(fallback) asks the application's policy first (issue 33, item 2): its allow
// and its deny are final, and only a well-formed require_approval is answered by a live
// grant. What the fallback does beyond answering (awaiting, throwing, answering something
// malformed) keeps the grant where it was. The store is wrapped to count the grants'
// lookups (has) and spends (take); the conformance suite checks the same over every store.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { AsyncLocalStorage } = require('node:async_hooks');
const { createApprovalGrants, prepareToolCall, evaluateToolCall, authorizeToolCall } = require('../..');
const { createMemoryStore } = require('../../lib/stores/memory');

const prepare = () => prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments: '{"cents":900,"to":"bob"}' });

/** Grants over a memory store whose has and take are counted; one live grant for prepare(). */
async function grantedOnce() {
  const store = createMemoryStore();
  const calls = { has: 0, take: 0 };
  const wrapper = {};
  for (const name of Object.keys(store)) {
    wrapper[name] = (...args) => {
      if (Object.hasOwn(calls, name)) calls[name] += 1;
      return store[name](...args);
    };
  }
  const grants = createApprovalGrants({ store: wrapper });
  await grants.grant(prepare());
  return { grants, calls, live: () => store.has({ agentName: 'billing', toolName: 'pay', proposalHash: prepare().proposalHash, scope: null }, 0) };
}

const attempt = (policy, ran) => authorizeToolCall({ prepared: prepare(), policy, execute: () => ran.push(1) });

test('a fallback that awaits before asking for approval still gets its grant, spent once', async () => {
  const { grants, calls, live } = await grantedOnce();
  const policy = grants.policy(async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    return { decision: 'require_approval', reason: 'large' };
  });
  const ran = [];
  const outcome = await attempt(policy, ran);
  assert.equal(outcome.reason, 'approval_granted');
  assert.deepEqual(ran, [1]);
  assert.deepEqual(calls, { has: 1, take: 1 });
  assert.equal(live(), false);
});

test('a fallback that leaves the asynchronous context (enterWith of another store) still asks for its own evaluation', async () => {
  const { grants, calls } = await grantedOnce();
  const other = new AsyncLocalStorage();
  const policy = grants.policy(() => {
    other.enterWith({ unrelated: true });
    return { decision: 'require_approval', reason: 'large' };
  });
  const ran = [];
  assert.equal((await attempt(policy, ran)).reason, 'approval_granted');
  assert.deepEqual(ran, [1]);
  assert.equal(calls.take, 1);
});

test('a fallback that throws or rejects is a policy_error, as without grants: the grant is not looked up and stays', async () => {
  for (const fallback of [
    () => {
      throw new Error('boom');
    },
    async () => {
      throw new Error('boom');
    },
  ]) {
    const { grants, calls, live } = await grantedOnce();
    const ran = [];
    const outcome = await attempt(grants.policy(fallback), ran);
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'policy_error']);
    assert.deepEqual(ran, []);
    assert.deepEqual(calls, { has: 0, take: 0 });
    assert.equal(live(), true);
  }
});

test('a malformed answer is invalid_policy_result, as without grants; it is read as own data, a getter or a Proxy never runs', async () => {
  let ran = 0;
  const getter = { reason: 'large' };
  Object.defineProperty(getter, 'decision', {
    get() {
      ran++;
      return 'require_approval';
    },
    enumerable: true,
  });
  const inherited = Object.create({ decision: 'require_approval', reason: 'large' });
  // Resolving the helper's promise with the answer looks up its `then`, as for any policy
  // that returns a promise (and as before): that lookup is the only one allowed.
  const proxy = new Proxy(
    { decision: 'require_approval', reason: 'large' },
    {
      get(target, key) {
        if (key !== 'then') ran++;
      },
      getOwnPropertyDescriptor() {
        ran++;
      },
      has() {
        ran++;
      },
    },
  );
  const answers = [
    undefined,
    null,
    'require_approval',
    { decision: 'require_approval' },
    { decision: 'require_approval', reason: '' },
    { decision: 'maybe', reason: 'x' },
    getter,
    inherited,
    proxy,
  ];
  for (const [index, answer] of answers.entries()) {
    const { grants, calls, live } = await grantedOnce();
    const executed = [];
    const outcome = await attempt(
      grants.policy(() => answer),
      executed,
    );
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'invalid_policy_result'], `answer ${index}`);
    assert.deepEqual(executed, []);
    assert.deepEqual(calls, { has: 0, take: 0 }, 'no grants lookup for a malformed answer');
    assert.equal(live(), true);
  }
  assert.equal(ran, 0, 'no getter or trap ran');
});

test("the fallback's own require_approval is the answer when no grant is live; its allow and deny come back as they are", async () => {
  const grants = createApprovalGrants();
  const asks = { decision: 'require_approval', reason: 'large', note: 'kept' };
  const decision = await evaluateToolCall({ prepared: prepare(), policy: grants.policy(() => asks) });
  assert.equal(decision.decision, 'require_approval');
  assert.equal(decision.policyResult, asks, "the fallback's own object");
  for (const answer of [
    { decision: 'allow', reason: 'small' },
    { decision: 'deny', reason: 'frozen' },
  ]) {
    const made = await evaluateToolCall({ prepared: prepare(), policy: grants.policy(() => answer) });
    assert.equal(made.policyResult, answer);
  }
});

test('grants.policy() (the default fallback) still looks first and allows a live grant once', async () => {
  const { grants, calls } = await grantedOnce();
  const ran = [];
  assert.equal((await attempt(grants.policy(), ran)).reason, 'approval_granted');
  assert.equal((await attempt(grants.policy(), ran)).decision, 'require_approval');
  assert.deepEqual(ran, [1]);
  assert.deepEqual(calls, { has: 2, take: 1 });
});
