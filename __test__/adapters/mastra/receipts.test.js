'use strict';
// tool-argument-snapshot/mastra with execution receipts (issue 25 item 5) and what a
// reviewer and a refused resume see (issue 26 item 1). Real Mastra agents (@mastra/core
// 1.x) on Mastra's own mock model and in-memory storage; Mastra needs Node >= 22.13 (the
// tests skip below it, with the reason).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, canonicalize } = require('tool-argument-snapshot');
const { MASTRA_SKIP, mastra, scriptedModel, drain, resultsOf, createFileStandInGrantStore } = require('./mastra-support');
const { spawnSync } = require('node:child_process');
const { KINDS, durableStore, dropDurable } = require('../../helpers/durable-stores');

const skip = MASTRA_SKIP;
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes!' }];
const call = (id, input) => ({ id, name: 'pay', input });

/**
 * A gated billing app whose run can be resumed by two workers at once: one gate, two Mastra
 * instances on one storage (two workers of a queue). The handler of a resumed call waits
 * until the second worker's resume has been decided too (or 3 s), so both are in flight.
 */
function twoWorkers({ steps, grants, gateOptions = {} }) {
  const { Agent, Mastra, InMemoryStore } = mastra();
  const { createToolGate } = require('tool-argument-snapshot/mastra');
  const executed = [];
  let resumeDecisions = 0;
  let bothDecided;
  const decided = new Promise((resolve) => {
    bothDecided = resolve;
  });
  const gate = createToolGate({
    agentName: 'billing',
    grants,
    tools: {
      pay: {
        id: 'pay',
        description: 'Pays an amount in cents',
        inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }),
        execute: async (args) => {
          executed.push(canonicalize(args));
          await Promise.race([decided, new Promise((resolve) => setTimeout(resolve, 3000))]);
          return { paid: args.cents };
        },
      },
    },
    policy: {
      pay: ({ parsedArguments }) =>
        parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large payment' },
    },
    onDecision: (decision, info) => {
      if (info.resume && ++resumeDecisions === 2) bothDecided();
    },
    ...gateOptions,
  });
  const storage = new InMemoryStore();
  const model = gate.model(scriptedModel(steps));
  const worker = () => {
    const agent = new Agent({ id: 'billing', name: 'billing', instructions: 'Pay what the user asks.', model, tools: gate.tools });
    return new Mastra({ agents: { billing: agent }, storage, logger: false }).getAgent('billing');
  };
  return { gate, executed, workers: [worker(), worker()] };
}

/** TAS_APPROVED_WITHOUT_GRANT warnings emitted while `fn` runs. */
async function approvalWarnings(fn) {
  const seen = [];
  const listener = (warning) => {
    if (warning.code === 'TAS_APPROVED_WITHOUT_GRANT') seen.push(warning.message);
  };
  process.on('warning', listener);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

/** Suspends a run on a large payment, approves it through the gate, and resumes it in both workers at once. */
async function resumedTwice({ grants, uses, gateOptions }) {
  const app = twoWorkers({ steps: [[call('call_1', '{"to":"bob","cents":250000}')], 'Paid.', 'Paid.'], grants, gateOptions });
  const output = await app.workers[0].stream('Pay bob 2500 dollars');
  await drain(output);
  assert.deepEqual(app.executed, []);
  await app.gate.approve({ runId: output.runId, toolCallId: 'call_1' }, { uses });
  let results;
  const warnings = await approvalWarnings(async () => {
    results = await Promise.all(
      app.workers.map(async (agent) => resultsOf(await drain(await agent.approveToolCall({ runId: output.runId, toolCallId: 'call_1' }))).call_1),
    );
  });
  return { ...app, results, warnings, runId: output.runId };
}

test(
  "a suspended approval resumed twice at once (two workers, a grant of two uses): the handler runs once, the other resume gets the receipt's code",
  { skip },
  async () => {
    const { executed, results, warnings } = await resumedTwice({ grants: createApprovalGrants(), uses: 2 });
    assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
    const paid = results.filter((r) => r.paid === 250000);
    const refused = results.filter((r) => r.error === true);
    assert.equal(paid.length, 1);
    assert.equal(refused.length, 1);
    assert.match(refused[0].reason, /^(execution_in_progress|call_already_executed)$/);
    assert.equal(refused[0].decidedBy, 'runtime');
    assert.deepEqual(warnings, []);
  },
);

test('receipts: false restores the per-decision behaviour: the same two resumes run the handler twice', { skip }, async () => {
  const { executed, results } = await resumedTwice({ grants: createApprovalGrants(), uses: 2, gateOptions: { receipts: false } });
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}', '{"cents":250000,"to":"bob"}']);
  assert.deepEqual(results, [{ paid: 250000 }, { paid: 250000 }]);
});

test("explicit receipts: the key is { agentName, Mastra's runId, the call id }; the receipt reads completed", { skip }, async () => {
  const receipts = createExecutionReceipts();
  const { executed, runId } = await resumedTwice({ grants: createApprovalGrants(), uses: 2, gateOptions: { receipts } });
  assert.equal(executed.length, 1);
  const receipt = await receipts.get({ agentName: 'billing', runId, toolCallId: 'call_1' });
  assert.equal(receipt.status, 'completed');
  assert.equal(await receipts.get({ agentName: 'billing', runId: null, toolCallId: 'call_1' }), null);
});

test(
  "a one-use grant resumed twice: the second resume is the receipt's code, or without receipts grant_unavailable; never approved_without_grant, never a warning",
  { skip },
  async () => {
    for (const gateOptions of [{}, { receipts: false }]) {
      const { executed, results, warnings } = await resumedTwice({ grants: createApprovalGrants(), uses: 1, gateOptions });
      assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
      const refused = results.find((r) => r.error === true);
      if (gateOptions.receipts === false) assert.equal(refused.reason, 'grant_unavailable');
      else assert.match(refused.reason, /^(execution_in_progress|call_already_executed)$/);
      assert.deepEqual(warnings, []);
    }
  },
);

for (const keyed of [true, false]) {
  test(
    `gate.pending lists from listSuspendedRuns the proposals that verify; one changed in the store is listed by its code only (${keyed ? 'sealed' : 'no key ring'})`,
    { skip },
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mastra-pending-'));
      try {
        const file = path.join(dir, 'grants.json');
        const grants = createApprovalGrants({ store: createFileStandInGrantStore(file), ...(keyed ? { keys: KEYS } : {}) });
        const app = twoWorkers({ steps: [[call('c1', '{"to":"bob","cents":250000}'), call('c2', '{"to":"eve","cents":350000}')], 'Done.'], grants });
        const agent = app.workers[0];
        const run = await agent.stream('pay');
        await drain(run);
        // Whoever can write the store rewrites c2's arguments.
        const data = JSON.parse(fs.readFileSync(file, 'utf8'));
        const key = Object.keys(data.proposals).find((k) => k.endsWith('c2'));
        data.proposals[key].json = data.proposals[key].json.replace('\\"eve\\"', '\\"mallory\\"');
        fs.writeFileSync(file, JSON.stringify(data));
        assert.ok(fs.readFileSync(file, 'utf8').includes('mallory'));

        const suspended = await agent.listSuspendedRuns();
        // What Mastra itself offers a review screen: its stored arguments, unverified.
        assert.deepEqual(suspended.runs[0].toolCalls.map((c) => c.toolCallId).sort(), ['c1', 'c2']);
        const code = keyed ? 'bad_signature' : 'hash_mismatch';
        for (const source of [
          suspended,
          suspended.runs,
          [
            { runId: run.runId, toolCallId: 'c1' },
            { runId: run.runId, toolCallId: 'c2' },
          ],
        ]) {
          const listed = await app.gate.pending(source);
          listed.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
          assert.deepEqual(
            listed.map((e) => [e.runId, e.toolCallId, e.proposal?.argsCanonicalJson ?? e.error.code]),
            [
              [run.runId, 'c1', '{"cents":250000,"to":"bob"}'],
              [run.runId, 'c2', code],
            ],
          );
          assert.equal(listed[0].toolName, 'pay');
          assert.deepEqual(listed[1], { runId: run.runId, toolCallId: 'c2', error: { name: keyed ? 'ApprovalGrantError' : 'SnapshotDomainError', code } });
          assert.equal(JSON.stringify(listed[1]).includes('mallory'), false);
        }
        // Proxies are refused unread.
        const trap = new Proxy(
          {},
          {
            get() {
              throw new Error('read');
            },
            getOwnPropertyDescriptor() {
              throw new Error('read');
            },
            ownKeys() {
              throw new Error('read');
            },
          },
        );
        await assert.rejects(app.gate.pending(trap), TypeError);
        await assert.rejects(app.gate.pending([trap]), TypeError);
        await assert.rejects(app.gate.pending({ runs: [trap] }), TypeError);
        await assert.rejects(app.gate.pending(suspended, trap), TypeError);
        // Once c1 is approved it no longer waits.
        await app.gate.approve({ runId: run.runId, toolCallId: 'c1' });
        assert.deepEqual(
          (await app.gate.pending(suspended)).map((e) => e.toolCallId),
          ['c2'],
        );
        assert.deepEqual(app.executed, []);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

test('pending with a grant scope that is a function of the run needs the scope: options.grantScope', { skip }, async () => {
  const { RequestContext } = mastra();
  const app = twoWorkers({
    steps: [[call('c1', '{"to":"bob","cents":250000}')], 'Done.'],
    grants: createApprovalGrants(),
    gateOptions: { grantScope: ({ requestContext }) => `user:${requestContext.get('userId')}` },
  });
  const run = await app.workers[0].stream('pay', { requestContext: new RequestContext([['userId', 'alice']]) });
  await drain(run);
  const suspended = await app.workers[0].listSuspendedRuns();
  await assert.rejects(app.gate.pending(suspended), TypeError);
  assert.deepEqual(await app.gate.pending(suspended, { grantScope: 'user:mallory' }), []);
  const listed = await app.gate.pending(suspended, { grantScope: 'user:alice' });
  assert.deepEqual(
    listed.map((e) => [e.toolCallId, e.proposal.argsCanonicalJson]),
    [['c1', '{"cents":250000,"to":"bob"}']],
  );
});

// ---------------------------------------------------------------------------------
// No receipts option, grants on a durable store (issue 33): the gate keeps its receipts in
// the grants' store. A run suspended in one process, approved in a second, resumed in a
// third; then resumed again in a fourth from a copy of Mastra's storage taken before the
// first resume (a job redelivered from a queue, a worker that read the suspended run).

for (const kind of KINDS) {
  test(
    `no receipts option, grants on ${kind}: a Mastra run resumed twice in two processes runs its call once; the second resume is call_already_executed, never approved_without_grant`,
    { skip, timeout: 240_000 },
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mastra-default-receipts-'));
      const durable = durableStore(t, kind, dir);
      try {
        if (durable === null) return;
        const env = { ...process.env, TAS_SEAL_KEY: 'k'.repeat(40), TAS_MASTRA_STORE: JSON.stringify(durable) };
        delete env.NODE_TEST_CONTEXT;
        const runChild = (db, ...args) => {
          const result = spawnSync(process.execPath, ['--trace-warnings', path.join(__dirname, 'process.js'), ...args], {
            encoding: 'utf8',
            env: { ...env, TAS_MASTRA_DB: db },
            timeout: 120_000,
          });
          assert.equal(result.status, 0, `${args[0]}: ${result.stderr}`);
          return { answer: JSON.parse(result.stdout.trim().split('\n').pop()), stderr: result.stderr };
        };
        const executed = () =>
          fs.existsSync(path.join(dir, 'executed.log')) ? fs.readFileSync(path.join(dir, 'executed.log'), 'utf8').trim().split('\n').filter(Boolean) : [];
        const started = runChild('mastra.db', 'start', dir).answer;
        runChild('mastra.db', 'review', dir, started.runId, 'call_1');
        // Mastra's storage as the second worker read it: the run still suspended.
        for (const name of fs.readdirSync(dir).filter((n) => n.startsWith('mastra.db'))) {
          fs.copyFileSync(path.join(dir, name), path.join(dir, name.replace('mastra.db', 'worker-b.db')));
        }
        const resumed = runChild('mastra.db', 'resume', dir, started.runId, 'call_1').answer;
        assert.deepEqual(resumed.results, { call_1: { paid: 250000 } });
        const again = runChild('worker-b.db', 'resume', dir, started.runId, 'call_1');
        assert.equal(executed().length, 1, 'the handler ran in one process');
        assert.deepEqual(again.answer.results.call_1, {
          error: true,
          message: 'The tool call was not executed (deny: call_already_executed).',
          decision: 'deny',
          reason: 'call_already_executed',
          decidedBy: 'runtime',
        });
        assert.equal(again.stderr.includes('TAS_APPROVED_WITHOUT_GRANT'), false);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await dropDurable(durable);
      }
    },
  );
}
