'use strict';
// tool-argument-snapshot/temporal (issue 37 item 3). Temporal's server cannot run here: the
// dev server and the time-skipping test server of @temporalio/testing are downloaded at run
// time (TestWorkflowEnvironment.createLocal / createTimeSkipping), and the network is closed.
// So what runs is:
//   - the activities, each attempt in a process of its own under @temporalio/testing's
//     MockActivityEnvironment (the Info a worker gives: workflow id, run id, activity id,
//     attempt), grants and receipts in one SQLite file, the side effect a line in a file
//     outside the process. A worker that dies between the tool's side effect and the
//     activity's completion is that process SIGKILLed; Temporal's retry is the same activity
//     (same ids, next attempt) in a new process.
//   - the workflow's side (tool-argument-snapshot/temporal/workflow) with the AI SDK's
//     generateText and mock model in this process, the activities called as proxyActivities
//     would schedule them (a new activity id per call), outside a workflow sandbox.
// Not run: a Temporal server, a Worker, the workflow sandbox and its replay, signals.
// ai 7 needs Node >= 22: skipped visibly on older Node; package/node-lines.test.js runs this file
// under the newest Node line.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');

const { requires } = require('../../helpers/services');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const SKIP =
  NODE_MAJOR < 22 && `ai 7 needs Node >= 22 (this is ${process.versions.node}; package/node-lines.test.js runs this file under the newest Node line)`;
const CHILD = path.join(__dirname, 'activity-process.js');
const ROOT = path.join(__dirname, '..', '..', '..');

/** The stores the activities run on: SQLite always; PostgreSQL and Redis when configured (skipped visibly otherwise). */
const STORES = [
  ['SQLite', null, {}],
  ['PostgreSQL', 'TAS_TEST_PG_URL', SKIP ? {} : requires('pg')],
  ['Redis', 'TAS_TEST_REDIS_URL', SKIP ? {} : requires('redis')],
];

for (const [storeKind, variable, needs] of STORES)
  describe(
    `tool-argument-snapshot/temporal activities (MockActivityEnvironment, one process per attempt), grants and receipts in ${storeKind}`,
    { skip: SKIP || needs.skip },
    () => {
      let dir;
      const key = randomBytes(32).toString('hex');
      const tas = () => require('tool-argument-snapshot');
      let n = 0;
      const storeName = `tas_temporal_${randomBytes(4).toString('hex')}`;
      const storeUrl = () => (variable === null ? path.join(dir, 'grants.db') : process.env[variable]);
      const openStore = () =>
        variable === null
          ? tas().createSqliteGrantStore({ path: storeUrl() })
          : tas().openGrantStore(storeUrl(), variable === 'TAS_TEST_REDIS_URL' ? { prefix: storeName } : { table: storeName });

      before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-temporal-test-'));
      });
      after(async () => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        // What this suite wrote to a shared server: its tables, or its keys.
        if (variable === 'TAS_TEST_PG_URL') {
          const { Client } = require('pg');
          const client = new Client({ connectionString: storeUrl() });
          await client.connect();
          for (const suffix of ['', '_nonces', '_proposals', '_receipts']) await client.query(`DROP TABLE IF EXISTS "${storeName}${suffix}"`);
          await client.end();
        } else if (variable === 'TAS_TEST_REDIS_URL') {
          const { createClient } = require('redis');
          const client = createClient({ url: storeUrl() });
          await client.connect();
          const keys = await client.keys(`${storeName}*`);
          if (keys.length) await client.del(keys);
          await client.quit();
        }
      });

      /** One activity attempt in a new process: resolves { result } / { failure }, or { crashed } after a SIGKILL at CRASH_POINT. */
      function attempt(input, env = {}) {
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [CHILD, JSON.stringify(input)], {
            cwd: ROOT,
            env: { ...process.env, STORE: storeUrl(), STORE_NAME: storeName, APPROVAL_KEY: key, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          let crashed = false;
          child.stdout.on('data', (chunk) => {
            out += chunk;
            if (!crashed && out.includes('CRASH_POINT\n')) {
              crashed = true;
              child.kill('SIGKILL');
            }
          });
          child.stderr.on('data', (chunk) => {
            err += chunk;
          });
          child.on('close', (code, signal) => {
            if (crashed) return resolve({ crashed: signal === 'SIGKILL' });
            const line = out.split('\n').find((l) => l.startsWith('RESULT ') || l.startsWith('FAILURE '));
            if (line === undefined) return reject(new Error(`the activity process printed no outcome (${code ?? signal})\n${out}\n${err}`));
            const [kind, ...rest] = line.split(' ');
            resolve(kind === 'RESULT' ? JSON.parse(rest.join(' ')) : { failure: JSON.parse(rest.join(' ')) });
          });
        });
      }

      const info = (activityId, attemptNumber = 1, runId = 'run-1') => ({
        activityId,
        attempt: attemptNumber,
        workflowExecution: { workflowId: 'wf-1', runId },
      });
      const transfer = (rawArguments, toolCallId = 'call_1') => ({ toolName: 'transfer', toolCallId, rawArguments });
      const effects = (file) =>
        fs.existsSync(file)
          ? fs
              .readFileSync(file, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : [];
      const sideEffects = () => path.join(dir, `effects-${++n}.jsonl`);
      async function receipt(runId, toolCallId) {
        const store = await openStore();
        try {
          return await tas().createExecutionReceipts({ store }).get({ agentName: 'payments', runId, toolCallId });
        } finally {
          await store.close();
        }
      }

      test('an allowed call runs once; its receipt is keyed by the workflow run and the activity id; schema and policy ran once', async () => {
        const file = sideEffects();
        const out = await attempt({
          info: info('a1', 1, 'run-allowed'),
          call: 'run',
          request: transfer('{ "to": "bob", "cents": 500 }'),
          receipts: 'default',
          sideEffects: file,
        });
        assert.deepEqual(out, { result: { status: 'executed', result: 'sent 500 cents to bob' }, policyRuns: 1, schemaRuns: 1 });
        assert.deepEqual(effects(file), [{ to: 'bob', cents: 500, toolCallId: 'call_1' }]);
        assert.equal((await receipt('wf-1/run-allowed', 'a1')).status, 'completed');
      });

      test('the worker dies after the side effect, inside the tool: the retried activity fails retryable (execution_in_progress) while the lease holds, then outcome_unknown; the tool ran once', async () => {
        const file = sideEffects();
        const base = { call: 'run', request: transfer('{"to":"bob","cents":500}'), receipts: 'clocked', sideEffects: file };
        assert.deepEqual(await attempt({ ...base, info: info('a1', 1, 'run-crash-1') }, { CRASH: 'in_handler' }), { crashed: true });
        assert.equal(effects(file).length, 1);
        const retried = await attempt({ ...base, info: info('a1', 2, 'run-crash-1') });
        assert.equal(retried.failure.type, 'execution_in_progress');
        assert.equal(retried.failure.nonRetryable, false, 'Temporal retries it');
        assert.doesNotMatch(retried.failure.message, /bob|500/);
        const late = await attempt({ ...base, info: info('a1', 3, 'run-crash-1') }, { CLOCK_OFFSET_MS: String(10 * 60 * 1000) });
        assert.deepEqual(late.result, { status: 'refused', code: 'outcome_unknown' });
        assert.equal(late.policyRuns, 0, 'nothing is decided again');
        assert.equal(effects(file).length, 1, 'the tool ran once');
      });

      test('the worker dies after the receipt recorded the outcome, before Temporal recorded the activity: the retry answers the kept result (or call_already_executed with the default receipts); the tool ran once', async () => {
        const kept = sideEffects();
        const base = { call: 'run', request: transfer('{"to":"bob","cents":500}'), receipts: 'kept', sideEffects: kept };
        assert.deepEqual(await attempt({ ...base, info: info('a1', 1, 'run-crash-2') }, { CRASH: 'after_receipt' }), { crashed: true });
        const retried = await attempt({ ...base, info: info('a1', 2, 'run-crash-2') });
        assert.deepEqual(retried.result, { status: 'executed', result: 'sent 500 cents to bob', replayed: true });
        assert.equal(effects(kept).length, 1);

        const plain = sideEffects();
        const other = { call: 'run', request: transfer('{"to":"bob","cents":500}'), receipts: 'default', sideEffects: plain };
        assert.deepEqual(await attempt({ ...other, info: info('a1', 1, 'run-crash-3') }, { CRASH: 'after_receipt' }), { crashed: true });
        assert.deepEqual((await attempt({ ...other, info: info('a1', 2, 'run-crash-3') })).result, { status: 'refused', code: 'call_already_executed' });
        assert.equal(effects(plain).length, 1, 'the tool ran once');
      });

      test('control: without receipts (receipts: false) the retried activity runs the tool again', async () => {
        const file = sideEffects();
        const base = { call: 'run', request: transfer('{"to":"bob","cents":500}'), receipts: 'off', sideEffects: file };
        assert.deepEqual(await attempt({ ...base, info: info('a1', 1, 'run-control') }, { CRASH: 'in_handler' }), { crashed: true });
        assert.equal((await attempt({ ...base, info: info('a1', 2, 'run-control') })).result.status, 'executed');
        assert.equal(effects(file).length, 2, 'at least once');
      });

      test('the provider text is decoded strictly in the activity: a duplicate key is invalid input (an outcome, never a retried failure); no policy, no side effect', async () => {
        const file = sideEffects();
        const out = await attempt({
          info: info('a1', 1, 'run-invalid'),
          call: 'run',
          request: transfer('{"to":"bob","cents":5,"cents":99999999}'),
          receipts: 'default',
          sideEffects: file,
        });
        assert.deepEqual(out, { result: { status: 'invalid', stage: 'json', code: 'duplicate_key' }, policyRuns: 0, schemaRuns: 0 });
        assert.deepEqual(effects(file), []);
      });

      test('a policy that mutates its view is denied (policy_mutated_arguments); nothing runs', async () => {
        const file = sideEffects();
        const out = await attempt({
          info: info('a1', 1, 'run-mutate'),
          call: 'run',
          request: transfer('{"to":"bob","cents":250000}'),
          receipts: 'default',
          sideEffects: file,
          mutate: true,
        });
        assert.deepEqual(out.result, { status: 'denied', reason: 'policy_mutated_arguments', decidedBy: 'runtime' });
        assert.deepEqual(effects(file), []);
      });

      test('approval: the sealed proposal travels to the reviewer and back; a forged one is refused (bad_signature); the genuine grant lets the next activity run the call once', async () => {
        const file = sideEffects();
        const base = { request: transfer('{"to":"bob","cents":250000}'), receipts: 'default', sideEffects: file };
        const asked = await attempt({ ...base, info: info('a1', 1, 'run-approval'), call: 'run' });
        assert.equal(asked.result.status, 'approval_required');
        const { proposal } = asked.result;
        const reviewer = tas().createApprovalGrants({ keys: [{ id: 'k1', secret: key }] });
        assert.equal(reviewer.verify(proposal).argsCanonicalJson, '{"cents":250000,"to":"bob"}');
        const forged = { ...proposal, argsCanonicalJson: '{"cents":250000,"to":"mallory"}' };
        const refused = await attempt({
          ...base,
          info: info('a2', 1, 'run-approval'),
          call: 'grant',
          request: { answer: { approved: true, proposal: forged }, proposal },
        });
        assert.deepEqual(refused.result, { refused: 'bad_signature' });
        const declined = await attempt({ ...base, info: info('a3', 1, 'run-approval'), call: 'grant', request: { answer: { approved: false }, proposal } });
        assert.deepEqual(declined.result, { refused: 'approval_declined' });
        const granted = await attempt({
          ...base,
          info: info('a4', 1, 'run-approval'),
          call: 'grant',
          request: { answer: { approved: true, proposal }, proposal },
        });
        assert.deepEqual(granted.result, { granted: true });
        // Temporal retries the grant activity (its completion was lost): the seal was granted, its grant is live.
        const regranted = await attempt({
          ...base,
          info: info('a4', 2, 'run-approval'),
          call: 'grant',
          request: { answer: { approved: true, proposal }, proposal },
        });
        assert.deepEqual(regranted.result, { granted: true });
        const ran = await attempt({ ...base, info: info('a5', 1, 'run-approval'), call: 'run' });
        assert.deepEqual(ran.result, { status: 'executed', result: 'sent 250000 cents to bob' });
        // The grant was spent: the same call asked again needs a new approval.
        const again = await attempt({ ...base, info: info('a6', 1, 'run-approval'), call: 'run' });
        assert.equal(again.result.status, 'approval_required');
        // Its seal granted once, its grant spent: the old answer grants nothing any more.
        const stale = await attempt({
          ...base,
          info: info('a7', 1, 'run-approval'),
          call: 'grant',
          request: { answer: { approved: true, proposal }, proposal },
        });
        assert.deepEqual(stale.result, { refused: 'seal_used' });
        assert.equal(effects(file).length, 1);
      });
    },
  );

describe('tool-argument-snapshot/temporal/workflow with generateText (outside a workflow sandbox)', { skip: SKIP }, () => {
  test('the recorded provider text reaches the activity unchanged; allowed, invalid and approved calls; a refused approval', async () => {
    const { generateText, stepCountIs, tool } = require('ai');
    const { MockLanguageModelV4 } = require('ai/test');
    const { MockActivityEnvironment } = require('@temporalio/testing');
    const { z } = require('zod');
    const { createApprovalGrants, createSqliteGrantStore } = require('tool-argument-snapshot');
    const { createToolActivities } = require('tool-argument-snapshot/temporal');
    const { createWorkflowToolGate } = require('tool-argument-snapshot/temporal/workflow');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-temporal-wf-'));
    const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
    try {
      const grants = createApprovalGrants({ store, keys: [{ id: 'k1', secret: randomBytes(32) }] });
      const ran = [];
      const inputSchema = z.object({ to: z.string(), cents: z.number().int().positive() });
      const worker = createToolActivities({
        agentName: 'payments',
        grants,
        tools: {
          transfer: tool({
            inputSchema,
            execute: async ({ to, cents }) => {
              ran.push(`${to}:${cents}`);
              return `sent ${cents} cents to ${to}`;
            },
          }),
        },
        policy: (input) => (input.parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' }),
      });
      // What proxyActivities schedules: each call a new activity of the workflow run.
      let activityId = 0;
      const texts = [];
      const scheduled = (fn) => (request) => {
        if (request.rawArguments !== undefined) texts.push(request.rawArguments);
        return new MockActivityEnvironment({ activityId: String(++activityId), workflowExecution: { workflowId: 'wf-chat', runId: 'run-1' } }).run(fn, request);
      };
      const gate = createWorkflowToolGate({
        tools: { transfer: tool({ description: 'Send money', inputSchema }) },
        runToolCall: scheduled(worker.runToolCall),
        grantToolCall: scheduled(worker.grantToolCall),
        // What a signal handler and condition() give a workflow: the reviewer's answer.
        approval: async (request) =>
          request.proposal.argsCanonicalJson.includes('"eve"') ? { approved: false } : { approved: true, proposal: request.proposal },
      });
      const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
      const call = (toolCallId, input) => ({ type: 'tool-call', toolCallId, toolName: 'transfer', input });
      const model = new MockLanguageModelV4({
        doGenerate: [
          {
            content: [
              call('c1', '{ "to": "bob", "cents": 500 }'),
              call('c2', '{"to":"eve","cents":5,"cents":99999999}'),
              call('c3', '{"to":"carol","cents":250000}'),
              call('c4', '{"to":"eve","cents":250000}'),
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          },
          { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
        ],
      });
      const result = await generateText({ model: gate.model(model), tools: gate.tools, stopWhen: stepCountIs(3), prompt: 'pay' });
      const byId = {};
      for (const part of result.steps[0].content) {
        if (part.type === 'tool-result') byId[part.toolCallId] = part.output;
        if (part.type === 'tool-error') byId[part.toolCallId] = `${part.error.code}${part.error.reason ? `/${part.error.reason}` : ''}`;
      }
      assert.deepEqual(byId, { c1: 'sent 500 cents to bob', c2: 'duplicate_key', c3: 'sent 250000 cents to carol', c4: 'denied/approval_declined' });
      assert.deepEqual(ran.sort(), ['bob:500', 'carol:250000']);
      assert.ok(texts.includes('{ "to": "bob", "cents": 500 }'), 'the activity got the provider text as it was, not a re-serialization');
      assert.ok(texts.includes('{"to":"eve","cents":5,"cents":99999999}'));
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the workflow side in Temporal's workflow bundler", { skip: SKIP }, () => {
  test("a workflow using tool-argument-snapshot/temporal/workflow bundles with the AI SDK plugin's bundler options; the bundle holds no native addon", async () => {
    const { bundleWorkflowCode } = require('@temporalio/worker');
    const { AiSdkPlugin } = require('@temporalio/ai-sdk');
    const plugin = new AiSdkPlugin({ modelProvider: { specificationVersion: 'v4', languageModel() {}, embeddingModel() {}, imageModel() {} } });
    const logs = [];
    const logger = { trace() {}, debug() {}, info: (m) => logs.push(m), warn: (m) => logs.push(`warn ${m}`), error: (m) => logs.push(`error ${m}`), log() {} };
    const { code } = await bundleWorkflowCode({ ...plugin.configureBundler({ workflowsPath: path.join(__dirname, 'workflow.js') }), logger });
    assert.ok(code.includes('tool-argument-snapshot/temporal/workflow') || code.includes('adapters/temporal/workflow.js'), 'the module is in the bundle');
    assert.doesNotMatch(code, /tool-argument-snapshot\.[a-z0-9-]+\.node|lib\/native\.js/, 'no native addon in the sandbox');
    assert.deepEqual(
      logs.filter((l) => l.startsWith('error')),
      [],
    );
  });
});

describe('receipts in process memory beside a durable engine', { skip: SKIP }, () => {
  test('warn once per process (TAS_DURABLE_MEMORY_RECEIPTS), not with NODE_ENV=production, not with grants in a durable store', () => {
    const { spawnSync } = require('node:child_process');
    const script = (grants) => `
      const codes = [];
      process.on('warning', (w) => codes.push(w.code));
      const { tool } = require('ai');
      const { z } = require('zod');
      const tas = require('tool-argument-snapshot');
      const { createToolActivities } = require('tool-argument-snapshot/temporal');
      const { createRestateToolGate } = require('tool-argument-snapshot/restate');
      const tools = { transfer: tool({ inputSchema: z.object({}), execute: async () => 'ok' }) };
      const ctx = { run() {}, awakeable() {}, request() { return { id: 'inv_1' }; } };
      for (let i = 0; i < 2; i++) {
        createToolActivities({ agentName: 'a', tools, ${grants} });
        createRestateToolGate(ctx, { agentName: 'a', tools, ${grants} });
      }
      setImmediate(() => console.log(JSON.stringify(codes)));
    `;
    const run = (grants, env = {}) => {
      const result = spawnSync(process.execPath, ['-e', script(grants)], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_ENV: '', ...env } });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout);
    };
    assert.deepEqual(run(''), ['TAS_DURABLE_MEMORY_RECEIPTS']);
    assert.deepEqual(run('', { NODE_ENV: 'production' }), []);
    assert.deepEqual(run("grants: tas.createApprovalGrants({ store: tas.createSqliteGrantStore({ path: ':memory:' }) })"), []);
    assert.deepEqual(run('receipts: false'), []);
  });
});
