'use strict';
// Issue 19 items 1 and 2: the TracingChannels and the contract of their contexts. Every
// context any subscriber sees is checked for its exact fields and for payload: a sentinel
// string is in the arguments, the schema's messages and the policy's view, and must never
// appear in anything published.

const { test, describe, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const diagnostics = require('node:diagnostics_channel');
const { AsyncLocalStorage } = require('node:async_hooks');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { inspect } = require('node:util');
const { z } = require('zod');

const { prepareToolCall, prepareToolCallAsync, evaluateToolCall, executeToolCall, authorizeToolCall, createApprovalGrants } = require('../..');

const NAMES = ['prepare', 'evaluate', 'execute', 'grant', 'spend'];
const SUBS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];
const SECRET = 'sentinel-4f1c9e';
const RAW = `{"to":"${SECRET}","amount":5}`;
const schema = z.object({ to: z.string().refine((v) => !v.includes('reject'), { message: `bad ${SECRET}` }), amount: z.number() });

/** Everything published since the last reset: [channel, sub-channel, a deep copy of the context]. */
const events = [];
const contexts = new Set();
for (const name of NAMES) {
  diagnostics.tracingChannel(`tool-argument-snapshot.${name}`).subscribe(
    Object.fromEntries(
      SUBS.map((sub) => [
        sub,
        (context) => {
          contexts.add(context);
          events.push([name, sub, { ...context }]);
        },
      ]),
    ),
  );
}
beforeEach(() => {
  events.length = 0;
  contexts.clear();
});

function assertNoPayload() {
  for (const context of contexts) {
    const text = `${JSON.stringify(context)} ${inspect(context, { depth: 10, showHidden: true })}`;
    assert.ok(!text.includes(SECRET), `payload in a context: ${text}`);
    for (const key of Object.keys(context)) {
      const value = context[key];
      assert.ok(value === null || ['string', 'boolean', 'number'].includes(typeof value), `${key} is ${typeof value}: contexts hold no objects`);
    }
    assert.equal('result' in context, false, 'no result on a context');
    assert.equal('error' in context, false, 'no error object on a context');
  }
}

const seq = (name) => events.filter((e) => e[0] === name).map((e) => e[1]);
const last = (name, sub) => events.filter((e) => e[0] === name && e[1] === sub).at(-1)?.[2];
const prepare = (extra = {}) => prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: RAW, schema, toolCallId: 'call_1', ...extra });

describe('prepare', () => {
  test('a prepared call: start and end with attemptId, agentName, toolName, toolCallId, then proposalHash', () => {
    const prepared = prepare();
    assert.deepEqual(seq('prepare'), ['start', 'end']);
    const end = last('prepare', 'end');
    assert.deepEqual(Object.keys(end).sort(), ['agentName', 'attemptId', 'proposalHash', 'toolCallId', 'toolName']);
    assert.equal(end.proposalHash, prepared.proposalHash);
    assert.equal(end.toolCallId, 'call_1');
    assert.match(end.attemptId, /^[0-9a-z]{8}-[0-9a-z]+$/);
    assertNoPayload();
  });

  test('without a toolCallId there is no toolCallId field; it is never hashed', () => {
    const a = prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: RAW, schema });
    const b = prepare({ toolCallId: 'another' });
    assert.equal(a.proposalHash, b.proposalHash);
    assert.equal('toolCallId' in last('prepare', 'start'), true);
    assert.equal('toolCallId' in events[0][2], false);
  });

  for (const [label, raw, stage, code] of [
    ['JSON failure', `{"to":"${SECRET}","to":"x","amount":5}`, 'json', 'duplicate_key'],
    ['schema failure', `{"to":"reject ${SECRET}","amount":5}`, 'schema', 'schema_error'],
  ]) {
    test(`${label}: start, error, end with stage ${stage} and code ${code}, no error object`, () => {
      assert.throws(() => prepare({ rawArguments: raw }));
      assert.deepEqual(seq('prepare'), ['start', 'error', 'end']);
      const error = last('prepare', 'error');
      assert.equal(error.stage, stage);
      assert.equal(error.code, code);
      assertNoPayload();
    });
  }

  test('snapshot failure (schema output outside the domain): stage snapshot', () => {
    assert.throws(() => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: RAW, schema: () => ({ when: new Date(), note: SECRET }) }));
    assert.deepEqual([last('prepare', 'error').stage, last('prepare', 'error').code], ['snapshot', 'non_plain_object']);
    assertNoPayload();
  });

  test('prepareToolCallAsync publishes on prepare: start, end, asyncStart, asyncEnd', async () => {
    const prepared = await prepareToolCallAsync({ agentName: 'payments', toolName: 'pay', rawArguments: RAW, schema, toolCallId: 'c' });
    assert.deepEqual(seq('prepare'), ['start', 'end', 'asyncStart', 'asyncEnd']);
    assert.equal(last('prepare', 'asyncEnd').proposalHash, prepared.proposalHash);
    assertNoPayload();
  });
});

describe('evaluate and execute', () => {
  const decisions = [
    ['allow', () => ({ decision: 'allow', reason: 'ok' }), ['allow', 'ok', 'policy']],
    ['deny', () => ({ decision: 'deny', reason: 'no' }), ['deny', 'no', 'policy']],
    ['approval', () => ({ decision: 'require_approval', reason: 'ask' }), ['require_approval', 'ask', 'policy']],
    [
      'policy mutation',
      (input) => {
        input.parsedArguments.amount = 9;
        return { decision: 'allow', reason: 'ok' };
      },
      ['deny', 'policy_mutated_arguments', 'runtime'],
    ],
    [
      'policy error',
      () => {
        throw new Error(SECRET);
      },
      ['deny', 'policy_error', 'runtime'],
    ],
  ];
  for (const [label, policy, [decision, reason, decidedBy]] of decisions) {
    test(`evaluateToolCall, ${label}: decision, reason and decidedBy at asyncEnd; the attempt id of the prepare`, async () => {
      const prepared = prepare();
      const attemptId = last('prepare', 'end').attemptId;
      await evaluateToolCall({ prepared, policy });
      assert.deepEqual(seq('evaluate'), ['start', 'end', 'asyncStart', 'asyncEnd']);
      const end = last('evaluate', 'asyncEnd');
      assert.deepEqual(Object.keys(end).sort(), ['agentName', 'attemptId', 'decidedBy', 'decision', 'proposalHash', 'reason', 'toolCallId', 'toolName']);
      assert.deepEqual([end.decision, end.reason, end.decidedBy], [decision, reason, decidedBy]);
      assert.equal(end.attemptId, attemptId);
      assert.equal(end.proposalHash, prepared.proposalHash);
      assertNoPayload();
    });

    test(`authorizeToolCall, ${label}: evaluate, then execute only on an allow`, async () => {
      const prepared = prepare();
      const outcome = await authorizeToolCall({ prepared, policy, execute: (args) => `paid ${args.to}` });
      assert.equal(outcome.decision, decision);
      assert.deepEqual(seq('evaluate'), ['start', 'end', 'asyncStart', 'asyncEnd']);
      assert.deepEqual(seq('execute'), decision === 'allow' ? ['start', 'end', 'asyncStart', 'asyncEnd'] : []);
      assertNoPayload();
    });
  }

  test('a toolCallId given to evaluateToolCall is the one its events carry', async () => {
    const prepared = prepare();
    await evaluateToolCall({ prepared, policy: () => ({ decision: 'deny', reason: 'no' }), toolCallId: 'call_9' });
    assert.equal(last('evaluate', 'asyncEnd').toolCallId, 'call_9');
  });

  test('executeToolCall: the decision fields; a refusal is an error with stage execute and its code; a handler error is handler_error', async () => {
    const prepared = prepare();
    const allow = await evaluateToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    events.length = 0;
    await executeToolCall(allow, () => 'done');
    assert.deepEqual(seq('execute'), ['start', 'end', 'asyncStart', 'asyncEnd']);
    assert.deepEqual(Object.keys(last('execute', 'asyncEnd')).sort(), [
      'agentName',
      'attemptId',
      'decidedBy',
      'decision',
      'proposalHash',
      'reason',
      'toolCallId',
      'toolName',
    ]);
    events.length = 0;
    await assert.rejects(
      executeToolCall(allow, () => 'again'),
      (e) => e.code === 'already_executed',
    );
    assert.deepEqual(seq('execute'), ['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    assert.deepEqual([last('execute', 'error').stage, last('execute', 'error').code], ['execute', 'already_executed']);
    const second = await evaluateToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    events.length = 0;
    const thrown = Object.assign(new Error(SECRET), { code: SECRET, stage: SECRET });
    await assert.rejects(
      executeToolCall(second, () => {
        throw thrown;
      }),
      (e) => e === thrown,
    );
    assert.deepEqual([last('execute', 'error').stage, last('execute', 'error').code], ['execute', 'handler_error']);
    assertNoPayload();
  });
});

describe('grant and spend', () => {
  test('grant: keyId and scope once verified; spend once per take with taken true, then false', async () => {
    const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'x'.repeat(32) }] });
    const asked = await authorizeToolCall({ prepared: prepare(), policy: grants.policy(), execute: () => 'ran' });
    events.length = 0;
    await grants.grant(grants.seal(asked.proposal, { scope: 'user:a' }));
    assert.deepEqual(seq('grant'), ['start', 'end', 'asyncStart', 'asyncEnd']);
    const granted = last('grant', 'asyncEnd');
    assert.deepEqual(Object.keys(granted).sort(), ['agentName', 'keyId', 'proposalHash', 'scope', 'toolName']);
    assert.deepEqual([granted.keyId, granted.scope], ['k1', 'user:a']);
    events.length = 0;
    const attempt = () => authorizeToolCall({ prepared: prepare(), policy: grants.policy(), policyContext: { grantScope: 'user:a' }, execute: () => 'ran' });
    const [first, second] = await Promise.all([attempt(), attempt()]);
    const spends = events.filter((e) => e[0] === 'spend' && e[1] === 'asyncEnd').map((e) => e[2]);
    assert.equal(spends.length, 2, 'two attempts relied on the grant: two takes');
    assert.deepEqual(spends.map((s) => s.taken).sort(), [false, true]);
    assert.deepEqual([first.decision, second.decision].sort(), ['allow', 'deny']);
    assert.deepEqual(Object.keys(spends[0]).sort(), ['agentName', 'attemptId', 'proposalHash', 'scope', 'taken', 'toolCallId', 'toolName']);
    assertNoPayload();
  });

  test("a refused grant: error with stage grant and the ApprovalGrantError code, and none of the record's fields", async () => {
    const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'x'.repeat(32) }] });
    const sealed = grants.seal(prepare());
    await assert.rejects(grants.grant({ ...sealed, agentName: SECRET }), (e) => e.code === 'bad_signature');
    const error = last('grant', 'error');
    assert.deepEqual(error, { stage: 'grant', code: 'bad_signature' });
    assertNoPayload();
  });

  test('an allow that never consulted grants publishes no spend', async () => {
    await authorizeToolCall({ prepared: prepare(), policy: () => ({ decision: 'allow', reason: 'ok' }), execute: () => 'ran' });
    assert.deepEqual(seq('spend'), []);
  });
});

test('a subscriber of asyncEnd alone sees its events (every sub-channel counts as a subscriber)', async () => {
  const seen = [];
  const only = diagnostics.tracingChannel('tool-argument-snapshot.execute');
  const handlers = { asyncEnd: (context) => seen.push(context.decision) };
  // The file-wide subscriber listens on every sub-channel: unsubscribe it from execute's to test a lone one.
  only.subscribe(handlers);
  try {
    await authorizeToolCall({ prepared: prepare(), policy: () => ({ decision: 'allow', reason: 'ok' }), execute: () => 'ran' });
    assert.deepEqual(seen, ['allow']);
  } finally {
    only.unsubscribe(handlers);
  }
});

test('in a process where only asyncEnd is subscribed, a step still publishes it', () => {
  const script = `
    const dc = require('node:diagnostics_channel');
    const t = require(${JSON.stringify(path.join(__dirname, '..', '..'))});
    const seen = [];
    dc.tracingChannel('tool-argument-snapshot.evaluate').subscribe({ asyncEnd: (c) => seen.push(c.decision + ' ' + c.reason) });
    t.evaluateToolCall({ prepared: t.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}' }), policy: () => ({ decision: 'deny', reason: 'no' }) })
      .then(() => console.log(seen.join()));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'deny no');
});

describe('subscribers change no outcome', () => {
  test('a subscriber that calls the package again and edits the context changes nothing', async () => {
    const channel = diagnostics.tracingChannel('tool-argument-snapshot.evaluate');
    const handlers = {
      start(context) {
        prepareToolCall({ agentName: 'x', toolName: 'y', rawArguments: '{}' });
        context.decision = 'allow';
        Object.defineProperty(context, 'reason', {
          set() {
            throw new Error('trap');
          },
          configurable: false,
        });
      },
    };
    channel.subscribe(handlers);
    try {
      const decision = await evaluateToolCall({ prepared: prepare(), policy: () => ({ decision: 'deny', reason: 'no' }) });
      assert.equal(decision.decision, 'deny');
      assert.equal(decision.reason, 'no');
    } finally {
      channel.unsubscribe(handlers);
    }
  });

  test('a subscriber that throws: the step returns as it would have (the throw is reported by the runtime, not to the caller)', () => {
    const script = `
      const dc = require('node:diagnostics_channel');
      const t = require(${JSON.stringify(path.join(__dirname, '..', '..'))});
      let reported = 0;
      process.on('uncaughtException', () => { reported++; });
      dc.tracingChannel('tool-argument-snapshot.prepare').subscribe({ start() { throw new Error('subscriber'); }, end() { throw new Error('subscriber'); } });
      const p = t.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"x":1}' });
      setTimeout(() => { console.log(p.argsCanonicalJson, reported); }, 20);
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), '{"x":1} 2');
  });

  test('stores bound to start see the attempt during the policy and the handler (APM context propagation)', async () => {
    const als = new AsyncLocalStorage();
    const evaluate = diagnostics.tracingChannel('tool-argument-snapshot.evaluate');
    const execute = diagnostics.tracingChannel('tool-argument-snapshot.execute');
    evaluate.start.bindStore(als, (context) => `evaluate ${context.attemptId}`);
    execute.start.bindStore(als, (context) => `execute ${context.attemptId}`);
    try {
      let inPolicy;
      let inHandler;
      const prepared = prepare();
      const attemptId = last('prepare', 'end').attemptId;
      await authorizeToolCall({
        prepared,
        policy: async () => {
          await null;
          inPolicy = als.getStore();
          return { decision: 'allow', reason: 'ok' };
        },
        execute: async () => {
          await null;
          inHandler = als.getStore();
        },
      });
      assert.equal(inPolicy, `evaluate ${attemptId}`);
      assert.equal(inHandler, `execute ${attemptId}`);
    } finally {
      evaluate.start.unbindStore(als);
      execute.start.unbindStore(als);
    }
  });
});
