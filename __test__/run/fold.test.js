'use strict';
// Issue 35, item 1: authorizeToolCall leaves a grants policy's lookup to the receipt's
// claim (claimReceiptAndTake). Where the fold cannot apply, or the claim does not say
// whether a grant is live, the answer is the one the lookup at the decision gives:
// evaluateToolCall's decision is the oracle. Memory store, wrapped to log its calls.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const diagnostics = require('node:diagnostics_channel');
const { createApprovalGrants, createExecutionReceipts, prepareToolCall, evaluateToolCall, authorizeToolCall } = require('../..');
const { createMemoryStore } = require('../../lib/stores/memory');

function counted(store, override = {}) {
  const log = [];
  const wrapper = {};
  for (const name of Object.keys(store)) {
    if (typeof store[name] !== 'function') continue;
    wrapper[name] = (...args) => {
      log.push(name);
      return Object.hasOwn(override, name) ? override[name](...args) : store[name](...args);
    };
  }
  return { wrapper, log };
}

const make = (toolCallId, cents = 900) =>
  prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: `{"cents":${cents}}`, runId: 'r-fold', toolCallId });
const outcomeOf = (decision) => {
  const outcome = { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
  for (const name of ['policyResult', 'error', 'proposal']) if (Object.hasOwn(decision, name)) outcome[name] = decision[name];
  return outcome;
};

test("a policy that mutates its view: the runtime deny is evaluateToolCall's, with or without a live grant", async () => {
  const { wrapper } = counted(createMemoryStore());
  const grants = createApprovalGrants({ store: wrapper });
  const receipts = createExecutionReceipts({ store: wrapper });
  const policy = grants.policy((input) => {
    input.parsedArguments.cents = 1;
    return { decision: 'require_approval', reason: 'large' };
  });
  for (const granted of [false, true]) {
    if (granted) await grants.grant(make('c-m'), { uses: 1 });
    const expected = outcomeOf(await evaluateToolCall({ prepared: make('c-m'), policy }));
    assert.equal(expected.reason, 'policy_mutated_arguments');
    const outcome = await authorizeToolCall({ prepared: make('c-m'), policy, receipts, execute: () => assert.fail('ran') });
    assert.deepEqual(outcome, expected, granted ? 'with a grant' : 'without');
  }
  assert.equal(await grants.has(make('c-m')), true, 'the grant is kept');
});

test('a store that fails at the claim: grant_store_unavailable, as a failed lookup; nothing runs', async () => {
  const store = createMemoryStore();
  const broken = () => Promise.reject(new Error('down'));
  const { wrapper, log } = counted(store, { claimReceiptAndTake: broken, has: broken });
  const grants = createApprovalGrants({ store: wrapper });
  const receipts = createExecutionReceipts({ store: wrapper });
  const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
  const expected = outcomeOf(await evaluateToolCall({ prepared: make('c-f'), policy }));
  assert.equal(expected.reason, 'grant_store_unavailable');
  log.length = 0;
  const outcome = await authorizeToolCall({ prepared: make('c-f'), policy, receipts, execute: () => assert.fail('ran') });
  assert.deepEqual(outcome, expected);
  assert.deepEqual(log, ['claimReceiptAndTake']);
  assert.equal(await store.getReceipt({ agentName: 'payments', runId: 'r-fold', toolCallId: 'c-f' }, Date.now()), null, 'nothing claimed');
});

test('with a subscriber on the execute channel, the grant is looked up at the decision and the claim and the take are two calls', async () => {
  const { wrapper, log } = counted(createMemoryStore());
  const grants = createApprovalGrants({ store: wrapper });
  const receipts = createExecutionReceipts({ store: wrapper });
  const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
  await grants.grant(make('c-s'), { uses: 1 });
  const seen = [];
  const handlers = { start: () => {}, end: () => {}, asyncStart: () => {}, asyncEnd: (c) => seen.push(c.receipt), error: () => {} };
  const channel = diagnostics.tracingChannel('tool-argument-snapshot.execute');
  channel.subscribe(handlers);
  try {
    log.length = 0;
    const outcome = await authorizeToolCall({ prepared: make('c-s'), policy, receipts, execute: () => 'paid' });
    assert.equal(outcome.result, 'paid');
    assert.deepEqual(log, ['has', 'claimReceipt', 'take', 'completeReceipt']);
    assert.deepEqual(seen, ['claimed']);
  } finally {
    channel.unsubscribe(handlers);
  }
  // Unobserved again: one call before the handler.
  await grants.grant(make('c-t'), { uses: 1 });
  log.length = 0;
  assert.equal((await authorizeToolCall({ prepared: make('c-t'), policy, receipts, execute: () => 'paid' })).result, 'paid');
  assert.deepEqual(log, ['claimReceiptAndTake', 'completeReceipt']);
});

test('a call prepared without a call id: the lookup first, then call_id_required as before; receipts in another store: the lookup at the decision', async () => {
  const { wrapper, log } = counted(createMemoryStore());
  const grants = createApprovalGrants({ store: wrapper });
  const receipts = createExecutionReceipts({ store: wrapper });
  const policy = grants.policy(() => ({ decision: 'require_approval', reason: 'large' }));
  const bare = prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: '{"cents":77}' });
  const asked = await authorizeToolCall({ prepared: bare, policy, receipts, execute: () => assert.fail('ran') });
  assert.deepEqual(asked, outcomeOf(await evaluateToolCall({ prepared: bare, policy })));
  await grants.grant(bare, { uses: 1 });
  log.length = 0;
  const refused = await authorizeToolCall({ prepared: bare, policy, receipts, execute: () => assert.fail('ran') });
  assert.equal(refused.reason, 'call_id_required');
  assert.deepEqual(log, ['has']);
  const other = createExecutionReceipts();
  log.length = 0;
  assert.equal((await authorizeToolCall({ prepared: make('c-o', 78), policy, receipts: other, execute: () => 'paid' })).decision, 'require_approval');
  assert.deepEqual(log, ['has']);
});
