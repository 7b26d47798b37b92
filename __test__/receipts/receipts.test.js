'use strict';
// Execution receipts (issue 25, docs/receipts.md): once per tool call, on the package's
// memory store and on SQLite. Every test counts handler runs and reads the receipt back.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const dc = require('node:diagnostics_channel');

const {
  createExecutionReceipts,
  createSqliteGrantStore,
  prepareToolCall,
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  ToolCallNotAllowedError,
} = require('../..');

const allow = () => ({ decision: 'allow', reason: 'ok' });
const SECRET = 'secret-card-4242';

function call(toolCallId, runId, amount = 500) {
  const input = { agentName: 'payer', toolName: 'pay', rawArguments: JSON.stringify({ amount, note: SECRET }) };
  if (toolCallId !== undefined) input.toolCallId = toolCallId;
  if (runId !== undefined) input.runId = runId;
  return prepareToolCall(input);
}

async function decisionOf(prepared, extra = {}) {
  return evaluateToolCall({ prepared, policy: allow, ...extra });
}

const STORES = [
  ['memory', () => ({ store: undefined, close: async () => {} })],
  [
    'sqlite',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-receipts-'));
      const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
      return {
        store,
        close: async () => {
          await store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];

for (const [storeName, makeStore] of STORES) {
  /** A receipts object on a fresh store with a clock the test moves. */
  function setup(t, options = {}) {
    const made = makeStore();
    t.after(made.close);
    const clock = { t: 1_000_000 };
    const receipts = createExecutionReceipts({ store: made.store, now: () => clock.t, ...options });
    return { receipts, clock };
  }

  async function expectRefusal(promise, code) {
    const error = await promise.then(
      () => assert.fail('expected a refusal'),
      (e) => e,
    );
    assert.ok(error instanceof ToolCallNotAllowedError, `${storeName}: ${error}`);
    assert.equal(error.code, code);
    assert.ok(!error.message.includes(SECRET) && !error.message.includes('500'), error.message);
    return error;
  }

  test(`${storeName}: the first attempt runs and records completed; a replay runs nothing (call_already_executed)`, async (t) => {
    const { receipts, clock } = setup(t);
    let runs = 0;
    const handler = (view) => {
      runs += 1;
      return { paid: view.amount };
    };
    const prepared = call('call-1', 'run-1');
    assert.deepEqual(await executeToolCall(await decisionOf(prepared), handler, { receipts }), { paid: 500 });
    assert.equal(runs, 1);
    const key = { agentName: 'payer', runId: 'run-1', toolCallId: 'call-1' };
    const stored = await receipts.get(key);
    assert.equal(stored.status, 'completed');
    assert.equal(stored.proposalHash, prepared.proposalHash);
    assert.equal(stored.completedAt, clock.t);
    assert.equal(JSON.stringify(stored).includes(SECRET), false);

    clock.t += 10;
    const error = await expectRefusal(executeToolCall(await decisionOf(call('call-1', 'run-1')), handler, { receipts }), 'call_already_executed');
    assert.deepEqual({ ...error.receipt }, { status: 'completed', proposalHash: prepared.proposalHash, completedAt: 1_000_000 });
    assert.equal(runs, 1);
    // The same decision again: already_executed, checked first.
    const decision = await decisionOf(call('call-1', 'run-1'));
    await expectRefusal(executeToolCall(decision, handler, { receipts }), 'call_already_executed');
    await expectRefusal(executeToolCall(decision, handler, { receipts }), 'already_executed');
    assert.equal(runs, 1);
  });

  test(`${storeName}: runId is part of the key (null when absent, distinct from every string)`, async (t) => {
    const { receipts } = setup(t);
    let runs = 0;
    const handler = () => {
      runs += 1;
      return 'ok';
    };
    await executeToolCall(await decisionOf(call('c')), handler, { receipts });
    await executeToolCall(await decisionOf(call('c', '')), handler, { receipts });
    await executeToolCall(await decisionOf(call('c', 'null')), handler, { receipts });
    assert.equal(runs, 3);
    await expectRefusal(executeToolCall(await decisionOf(call('c')), handler, { receipts }), 'call_already_executed');
    assert.equal((await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'c' })).status, 'completed');
    assert.equal(await receipts.get({ agentName: 'payer', runId: 'other', toolCallId: 'c' }), null);
    assert.throws(() => call('c', 'x\uD800'), TypeError);
    assert.throws(() => call('c', 7), TypeError);
    const asyncPrepared = await prepareToolCallAsync({
      agentName: 'payer',
      toolName: 'pay',
      rawArguments: '{"amount":500}',
      toolCallId: 'c',
      runId: 'r-async',
    });
    await executeToolCall(await decisionOf(asyncPrepared), handler, { receipts });
    assert.equal((await receipts.get({ agentName: 'payer', runId: 'r-async', toolCallId: 'c' })).status, 'completed');
  });

  test(`${storeName}: keepResults replays a fresh decoding of the RFC 8785 JSON; a non-JSON result is not kept`, async (t) => {
    const { receipts } = setup(t, { keepResults: true });
    let runs = 0;
    const first = await executeToolCall(
      await decisionOf(call('k1')),
      () => {
        runs += 1;
        return { z: 1, a: [1, 'two', null], n: 1e21 };
      },
      { receipts },
    );
    const again = await executeToolCall(
      await decisionOf(call('k1')),
      () => {
        runs += 1;
        return 'never';
      },
      { receipts },
    );
    assert.equal(runs, 1);
    assert.deepEqual(again, JSON.parse(JSON.stringify(first)));
    assert.notEqual(again, first);
    again.a.push('mutated');
    const third = await executeToolCall(
      await decisionOf(call('k1')),
      () => {
        runs += 1;
      },
      { receipts },
    );
    assert.deepEqual(third.a, [1, 'two', null]);
    assert.equal(runs, 1);
    // authorizeToolCall: the allow outcome with replayed: true.
    const outcome = await authorizeToolCall({
      prepared: call('k1'),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
    });
    assert.equal(outcome.decision, 'allow');
    assert.equal(outcome.replayed, true);
    assert.deepEqual(outcome.result, { z: 1, a: [1, 'two', null], n: 1e21 });
    const fresh = await authorizeToolCall({ prepared: call('k-fresh'), policy: allow, execute: () => 3, receipts });
    assert.equal(fresh.replayed, undefined);
    assert.equal(fresh.result, 3);
    // A result that is not JSON data (a Map, undefined, a cycle) is not kept: a replay refuses.
    const cyclic = {};
    cyclic.self = cyclic;
    for (const [id, value] of [
      ['k2', new Map()],
      ['k3', undefined],
      ['k4', cyclic],
      ['k5', NaN],
    ]) {
      await executeToolCall(
        await decisionOf(call(id)),
        () => {
          runs += 1;
          return value;
        },
        { receipts },
      );
      const error = await expectRefusal(
        executeToolCall(
          await decisionOf(call(id)),
          () => {
            runs += 1;
          },
          { receipts },
        ),
        'call_already_executed',
      );
      assert.equal(error.receipt.status, 'completed');
      assert.equal((await receipts.get({ agentName: 'payer', runId: null, toolCallId: id })).hasResult, false);
    }
    assert.equal(runs, 5);
  });

  test(`${storeName}: without keepResults a replay never resolves a result`, async (t) => {
    const { receipts } = setup(t);
    await executeToolCall(await decisionOf(call('n1')), () => ({ ok: true }), { receipts });
    await expectRefusal(
      executeToolCall(await decisionOf(call('n1')), () => ({ ok: true }), { receipts }),
      'call_already_executed',
    );
    const outcome = await authorizeToolCall({ prepared: call('n1'), policy: allow, execute: () => 1, receipts });
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason, outcome.result], ['deny', 'runtime', 'call_already_executed', undefined]);
  });

  test(`${storeName}: same key, another proposal: call_id_conflict, the receipt unchanged`, async (t) => {
    const { receipts } = setup(t);
    const prepared = call('x', 'r');
    await executeToolCall(await decisionOf(prepared), () => 1, { receipts });
    const before = await receipts.get({ agentName: 'payer', runId: 'r', toolCallId: 'x' });
    let runs = 0;
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('x', 'r', 999)),
        () => {
          runs += 1;
        },
        { receipts },
      ),
      'call_id_conflict',
    );
    const outcome = await authorizeToolCall({
      prepared: call('x', 'r', 999),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
    });
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'call_id_conflict']);
    assert.equal(runs, 0);
    assert.deepEqual(await receipts.get({ agentName: 'payer', runId: 'r', toolCallId: 'x' }), before);
    assert.equal(before.proposalHash, prepared.proposalHash);
  });

  test(`${storeName}: a live lease refuses (execution_in_progress); an expired one is outcome_unknown until forget`, async (t) => {
    const { receipts, clock } = setup(t, { leaseMs: 1000 });
    let runs = 0;
    let finish;
    const pending = executeToolCall(
      await decisionOf(call('p')),
      () => {
        runs += 1;
        return new Promise((r) => {
          finish = r;
        });
      },
      { receipts },
    );
    while (finish === undefined) await new Promise((r) => setImmediate(r));
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('p')),
        () => {
          runs += 1;
        },
        { receipts },
      ),
      'execution_in_progress',
    );
    const key = { agentName: 'payer', runId: null, toolCallId: 'p' };
    assert.equal((await receipts.get(key)).status, 'in_progress');
    clock.t += 1000;
    assert.equal((await receipts.get(key)).status, 'outcome_unknown');
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('p')),
        () => {
          runs += 1;
        },
        { receipts },
      ),
      'outcome_unknown',
    );
    const outcome = await authorizeToolCall({
      prepared: call('p'),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
    });
    assert.equal(outcome.reason, 'outcome_unknown');
    assert.equal(runs, 1);
    // A late completion still records (the claim id proves it is the same run).
    finish('late');
    assert.equal(await pending, 'late');
    assert.equal((await receipts.get(key)).status, 'completed');
    // forget: an operator allows a new run explicitly.
    assert.equal(await receipts.forget(key), true);
    assert.equal(await receipts.get(key), null);
    assert.equal(await receipts.forget(key), false);
    await executeToolCall(
      await decisionOf(call('p')),
      () => {
        runs += 1;
      },
      { receipts },
    );
    assert.equal(runs, 2);
  });

  test(`${storeName}: a handler that throws records failed (not run again); retryFailed releases the claim`, async (t) => {
    const { receipts } = setup(t);
    let runs = 0;
    const boom = new Error('handler failed');
    await assert.rejects(
      executeToolCall(
        await decisionOf(call('f')),
        () => {
          runs += 1;
          throw boom;
        },
        { receipts },
      ),
      (e) => e === boom,
    );
    const error = await expectRefusal(
      executeToolCall(
        await decisionOf(call('f')),
        () => {
          runs += 1;
        },
        { receipts },
      ),
      'call_already_executed',
    );
    assert.equal(error.receipt.status, 'failed');
    assert.equal(runs, 1);

    const retrying = setup(t, { retryFailed: true }).receipts;
    await assert.rejects(
      executeToolCall(
        await decisionOf(call('g')),
        async () => {
          runs += 1;
          throw boom;
        },
        { receipts: retrying },
      ),
      (e) => e === boom,
    );
    assert.equal(await retrying.get({ agentName: 'payer', runId: null, toolCallId: 'g' }), null);
    assert.equal(
      await executeToolCall(
        await decisionOf(call('g')),
        () => {
          runs += 1;
          return 'second';
        },
        { receipts: retrying },
      ),
      'second',
    );
    assert.equal(runs, 3);
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('g')),
        () => {
          runs += 1;
        },
        { receipts: retrying },
      ),
      'call_already_executed',
    );
    assert.equal(runs, 3);
  });

  test(`${storeName}: a call without a toolCallId runs nothing (call_id_required); a differing toolCallId is a TypeError`, async (t) => {
    const { receipts } = setup(t);
    let runs = 0;
    await expectRefusal(
      executeToolCall(
        await decisionOf(call(undefined)),
        () => {
          runs += 1;
        },
        { receipts },
      ),
      'call_id_required',
    );
    const outcome = await authorizeToolCall({
      prepared: call(undefined),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
    });
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'call_id_required']);
    // Without receipts the same call runs: the code belongs to receipts only.
    await executeToolCall(await decisionOf(call(undefined)), () => {
      runs += 1;
    });
    assert.equal(runs, 1);

    const decision = await decisionOf(call('a'), { toolCallId: 'b' });
    await assert.rejects(
      executeToolCall(
        decision,
        () => {
          runs += 1;
        },
        { receipts },
      ),
      TypeError,
    );
    let asked = 0;
    await assert.rejects(
      authorizeToolCall({
        prepared: call('a'),
        toolCallId: 'b',
        policy: () => {
          asked += 1;
          return allow();
        },
        execute: () => {
          runs += 1;
        },
        receipts,
      }),
      TypeError,
    );
    assert.equal(asked, 0);
    assert.equal(runs, 1);
    // The same id given again is fine.
    await executeToolCall(
      await decisionOf(call('a'), { toolCallId: 'a' }),
      () => {
        runs += 1;
      },
      { receipts },
    );
    assert.equal(runs, 2);
  });

  test(`${storeName}: a refused receipt never spends a grant; a refused grant leaves no claim`, async (t) => {
    const { receipts } = setup(t);
    let spent = 0;
    const grants = {
      spend: () => {
        spent += 1;
        return true;
      },
    };
    let runs = 0;
    await executeToolCall(
      await decisionOf(call('gr')),
      () => {
        runs += 1;
      },
      { receipts, grants },
    );
    assert.equal(spent, 1);
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('gr')),
        () => {
          runs += 1;
        },
        { receipts, grants },
      ),
      'call_already_executed',
    );
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('gr', undefined, 1)),
        () => {
          runs += 1;
        },
        { receipts, grants },
      ),
      'call_id_conflict',
    );
    await expectRefusal(
      executeToolCall(
        await decisionOf(call(undefined)),
        () => {
          runs += 1;
        },
        { receipts, grants },
      ),
      'call_id_required',
    );
    assert.equal(spent, 1);
    assert.equal(runs, 1);

    const refusing = { spend: () => false };
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('gr2')),
        () => {
          runs += 1;
        },
        { receipts, grants: refusing },
      ),
      'grant_unavailable',
    );
    assert.equal(await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'gr2' }), null);
    const outcome = await authorizeToolCall({
      prepared: call('gr2'),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
      grants: refusing,
    });
    assert.equal(outcome.reason, 'grant_unavailable');
    assert.equal(await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'gr2' }), null);
    const throwing = {
      spend: () => {
        throw new Error('grant store down');
      },
    };
    await expectRefusal(
      executeToolCall(
        await decisionOf(call('gr2')),
        () => {
          runs += 1;
        },
        { receipts, grants: throwing },
      ),
      'grant_unavailable',
    );
    assert.equal(await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'gr2' }), null);
    assert.equal(runs, 1);
    await executeToolCall(
      await decisionOf(call('gr2')),
      () => {
        runs += 1;
      },
      { receipts, grants },
    );
    assert.equal(runs, 2);
    assert.equal(spent, 2);
  });

  test(`${storeName}: prune removes receipts past retentionMs`, async (t) => {
    const { receipts, clock } = setup(t, { retentionMs: 60_000, leaseMs: 1000 });
    await executeToolCall(await decisionOf(call('old')), () => 1, { receipts });
    clock.t += 30_000;
    await executeToolCall(await decisionOf(call('young')), () => 1, { receipts });
    clock.t += 30_000;
    assert.equal(await receipts.prune(), 1);
    assert.equal(await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'old' }), null);
    assert.equal((await receipts.get({ agentName: 'payer', runId: null, toolCallId: 'young' })).status, 'completed');
    assert.equal(await receipts.prune(), 0);
    // Past retention, the key may run again (a new claim).
    let runs = 0;
    clock.t += 30_000;
    await executeToolCall(
      await decisionOf(call('young')),
      () => {
        runs += 1;
      },
      { receipts },
    );
    assert.equal(runs, 1);
  });

  test(`${storeName}: the execute channel says what the receipt did, payload-free`, async (t) => {
    const { receipts } = setup(t, { keepResults: true });
    const seen = [];
    const channel = dc.tracingChannel('tool-argument-snapshot.execute');
    const handlers = { asyncEnd: (ctx) => seen.push({ ...ctx }) };
    channel.subscribe(handlers);
    t.after(() => channel.unsubscribe(handlers));
    await executeToolCall(await decisionOf(call('e1')), () => ({ note: SECRET }), { receipts });
    await executeToolCall(await decisionOf(call('e1')), () => 0, { receipts });
    await executeToolCall(await decisionOf(call('e1', undefined, 7)), () => 0, { receipts }).catch(() => {});
    await authorizeToolCall({ prepared: call('e1', undefined, 7), policy: allow, execute: () => 0, receipts });
    assert.deepEqual(
      seen.map((c) => [c.receipt, c.receiptCode]),
      [
        ['claimed', undefined],
        ['replayed', undefined],
        ['refused', 'call_id_conflict'],
        ['refused', 'call_id_conflict'],
      ],
    );
    assert.equal(seen[2].code, 'call_id_conflict');
    for (const context of seen) {
      assert.equal(context.toolCallId, 'e1');
      assert.equal(JSON.stringify(context).includes(SECRET), false);
      assert.equal('result' in context, false);
    }
  });
}

/** A custom store with the six methods, each replaced by `impl`. */
function brokenStore(impl) {
  const store = {};
  for (const name of ['claimReceipt', 'completeReceipt', 'releaseReceipt', 'getReceipt', 'deleteReceipt', 'pruneReceipts']) store[name] = impl;
  return store;
}

test('a store that throws, rejects or never settles at claim: receipt_store_unavailable, nothing runs, no grant spent', async () => {
  let runs = 0;
  let spent = 0;
  const grants = {
    spend: () => {
      spent += 1;
      return true;
    },
  };
  const stores = [
    brokenStore(() => {
      throw new Error(`down ${SECRET}`);
    }),
    brokenStore(() => Promise.reject(new Error('down'))),
    brokenStore(() => new Promise(() => {})),
    brokenStore(() => ({ not: 'a record' })),
  ];
  for (const store of stores) {
    const receipts = createExecutionReceipts({ store, timeoutMs: 50 });
    const error = await executeToolCall(
      await decisionOf(call('d')),
      () => {
        runs += 1;
      },
      { receipts, grants },
    ).then(
      () => assert.fail('ran'),
      (e) => e,
    );
    assert.ok(error instanceof ToolCallNotAllowedError);
    assert.equal(error.code, 'receipt_store_unavailable');
    assert.equal(error.message.includes(SECRET), false);
    const outcome = await authorizeToolCall({
      prepared: call('d'),
      policy: allow,
      execute: () => {
        runs += 1;
      },
      receipts,
      grants,
    });
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'receipt_store_unavailable']);
  }
  assert.equal(runs, 0);
  assert.equal(spent, 0);
});

test('createExecutionReceipts reads its options as own data and refuses a Proxy unread', () => {
  assert.throws(() => createExecutionReceipts(new Proxy({}, { get: () => assert.fail('read') })), TypeError);
  assert.throws(
    () =>
      createExecutionReceipts({
        store: new Proxy(
          brokenStore(() => null),
          {},
        ),
      }),
    TypeError,
  );
  assert.throws(() => createExecutionReceipts({ store: {} }), /claimReceipt/);
  const { pruneReceipts, ...missing } = brokenStore(() => null);
  void pruneReceipts;
  assert.throws(() => createExecutionReceipts({ store: missing }), /pruneReceipts/);
  assert.throws(() => createExecutionReceipts({ leaseMs: -1 }), TypeError);
  assert.throws(() => createExecutionReceipts({ leaseMs: 1.5 }), TypeError);
  assert.throws(() => createExecutionReceipts({ keepResults: 'yes' }), TypeError);
  assert.throws(() => createExecutionReceipts({ now: 5 }), TypeError);
  // An accessor or an inherited option is absent (no getter runs): the defaults apply.
  const options = Object.create({ keepResults: 'not a boolean' });
  Object.defineProperty(options, 'leaseMs', { get: () => assert.fail('getter ran'), enumerable: true });
  options.store = brokenStore(() => null);
  createExecutionReceipts(options);
});

test('executeToolCall refuses a receipts option createExecutionReceipts did not make', async () => {
  const decision = await decisionOf(call('z'));
  await assert.rejects(
    executeToolCall(decision, () => {}, { receipts: { get() {}, forget() {}, prune() {} } }),
    TypeError,
  );
  await assert.rejects(authorizeToolCall({ prepared: call('z'), policy: allow, execute: () => {}, receipts: {} }), TypeError);
});
