'use strict';
// tool-argument-snapshot/restate against the real engine (issue 37 item 3): a restate-server
// process (bound to 127.0.0.1, a temporary data directory), the Restate SDK's own endpoint
// in a service process of its own (adapters/restate/service.mjs), the real
// @restatedev/vercel-ai-middleware durableCalls around the AI SDK's mock model, grants and
// receipts in one SQLite file. The tool's side effect is a line appended to a file outside
// the service process, so what ran is counted after the process is gone.
//
// The crash tests SIGKILL the service process between the tool's side effect and the
// step's completion (the service prints CRASH_POINT there and waits), start it again on the
// same address, and let Restate retry the invocation: the side effect stays at one line.
// The control (receipts: false) shows what Restate alone does with the same crash: two.
// ai 7 and the middleware need Node >= 22: on older Node this file is skipped visibly and
// package/node-lines.test.js runs it under the newest Node line.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { findRestateServer, startRestateServer, freePort, register } = require('../../helpers/restate-server');
const { required, requires } = require('../../helpers/services');

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const binary = findRestateServer();
const SKIP =
  NODE_MAJOR < 22
    ? `ai 7 and @restatedev/vercel-ai-middleware need Node >= 22 (this is ${process.versions.node}; package/node-lines.test.js runs this file under the newest Node line)`
    : binary.file === null && !required()
      ? binary.reason
      : false;
const SERVICE = path.join(__dirname, 'service.mjs');
const ROOT = path.join(__dirname, '..', '..', '..');

/** The stores the suite runs on: SQLite always; PostgreSQL and Redis when configured (skipped visibly otherwise). */
const STORES = [
  ['SQLite', null, {}],
  ['PostgreSQL', 'TAS_TEST_PG_URL', SKIP ? {} : requires('pg')],
  ['Redis', 'TAS_TEST_REDIS_URL', SKIP ? {} : requires('redis')],
];

for (const [storeKind, variable, needs] of STORES)
  describe(`tool-argument-snapshot/restate with a real restate-server, grants and receipts in ${storeKind}`, { skip: SKIP || needs.skip }, () => {
    let server;
    let dir;
    let port;
    let service;
    const key = randomBytes(32).toString('hex');
    const tas = () => require('tool-argument-snapshot');
    const storeName = `tas_restate_${randomBytes(4).toString('hex')}`;
    const storeUrl = () => (variable === null ? path.join(dir, 'grants.db') : process.env[variable]);
    const openStore = () =>
      variable === null
        ? tas().createSqliteGrantStore({ path: storeUrl() })
        : tas().openGrantStore(storeUrl(), variable === 'TAS_TEST_REDIS_URL' ? { prefix: storeName } : { table: storeName });

    /** Starts the service process on the one registered address, with `env` (CRASH). */
    async function startService(env = {}) {
      const child = spawn(process.execPath, [SERVICE], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), STORE: storeUrl(), STORE_NAME: storeName, APPROVAL_KEY: key, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const proc = { child, out: '', err: '', waiters: [] };
      child.stdout.on('data', (chunk) => {
        proc.out += chunk;
        for (const waiter of proc.waiters.splice(0)) waiter();
      });
      child.stderr.on('data', (chunk) => {
        proc.err += chunk;
      });
      child.on('exit', () => {
        for (const waiter of proc.waiters.splice(0)) waiter();
      });
      proc.line = async (prefix) => {
        for (;;) {
          const found = proc.out.split('\n').find((l) => l.startsWith(prefix));
          if (found !== undefined) return found;
          if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited before printing ${prefix}\n${proc.err}`);
          await new Promise((resolve) => proc.waiters.push(resolve));
        }
      };
      proc.kill = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      };
      await proc.line('READY');
      service = proc;
      return proc;
    }

    async function send(scenario) {
      const response = await fetch(`${server.ingress}/agent/run/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(scenario),
      });
      assert.equal(response.status, 202, await response.clone().text());
      return (await response.json()).invocationId;
    }

    async function attach(invocationId) {
      const response = await fetch(`${server.ingress}/restate/invocation/${invocationId}/attach`);
      const body = await response.text();
      assert.equal(response.status, 200, body);
      return JSON.parse(body);
    }

    const effects = (file) =>
      fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    let n = 0;
    const scenario = (calls, extra = {}) => ({ calls, receipts: 'default', sideEffects: path.join(dir, `effects-${++n}.jsonl`), ...extra });
    async function receipt(invocationId, toolCallId = 'call_1') {
      const store = await openStore();
      try {
        return await tas()
          .createExecutionReceipts({ store })
          .get({ agentName: 'payments', runId: `${invocationId}/1`, toolCallId });
      } finally {
        await store.close();
      }
    }

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-restate-test-'));
      server = await startRestateServer();
      port = await freePort();
      await startService();
      await register(server.admin, `http://127.0.0.1:${port}`);
    });

    after(async () => {
      if (service) await service.kill();
      if (server) await server.stop();
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
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    async function restart(env) {
      await service.kill();
      return startService(env);
    }

    test('an allowed call runs once, as one step: its result reaches the model; schema and policy ran once', async () => {
      await restart();
      const s = scenario([['call_1', '{ "to": "bob", "cents": 500 }']]);
      const result = await attach(await send(s));
      assert.deepEqual(result.answers, [{ id: 'call_1', output: 'sent 500 cents to bob' }]);
      assert.equal(result.text, 'Done.');
      assert.deepEqual([result.schemaRuns, result.policyRuns], [1, 1]);
      assert.deepEqual(effects(s.sideEffects), [{ to: 'bob', cents: 500 }]);
      // The receipt, in the grants' own store, keyed by the invocation id and model step.
      const r = await receipt(result.invocationId);
      assert.equal(r.status, 'completed');
    });

    test('killed after the side effect, inside the tool: Restate retries the step, the receipt the dead attempt claimed refuses it at once (outcome_unknown); the tool ran once', async () => {
      await restart({ CRASH: 'in_handler' });
      const s = scenario([['call_1', '{"to":"bob","cents":500}']]);
      const id = await send(s);
      await service.line('CRASH_POINT');
      await service.kill();
      assert.equal(effects(s.sideEffects).length, 1, 'the side effect happened before the kill');
      assert.equal((await receipt(id)).status, 'in_progress', 'the claim the dead process made, its lease still live');
      await restart();
      const result = await attach(id);
      assert.deepEqual(result.answers, [{ id: 'call_1', error: { name: 'TerminalError', reason: 'outcome_unknown' } }]);
      assert.deepEqual(effects(s.sideEffects), [{ to: 'bob', cents: 500 }], 'the tool ran once');
    });

    test('killed after the receipt recorded the outcome, before the step completed: the retried step answers the kept result; the tool ran once', async () => {
      await restart({ CRASH: 'after_receipt' });
      const s = scenario([['call_1', '{"to":"bob","cents":500}']], { receipts: 'kept' });
      const id = await send(s);
      await service.line('CRASH_POINT');
      await service.kill();
      assert.equal(effects(s.sideEffects).length, 1);
      await restart();
      const result = await attach(id);
      assert.deepEqual(result.answers, [{ id: 'call_1', output: 'sent 500 cents to bob' }]);
      assert.equal(result.text, 'Done.');
      assert.deepEqual(effects(s.sideEffects), [{ to: 'bob', cents: 500 }], 'the tool ran once');
    });

    test("the same crash with the default receipts (the grants' store, no kept results): the retried step refuses call_already_executed; the tool ran once", async () => {
      await restart({ CRASH: 'after_receipt' });
      const s = scenario([['call_1', '{"to":"bob","cents":500}']]);
      const id = await send(s);
      await service.line('CRASH_POINT');
      await service.kill();
      await restart();
      const result = await attach(id);
      assert.deepEqual(
        result.answers.map((a) => a.error && a.error.reason),
        ['call_already_executed'],
      );
      assert.equal(effects(s.sideEffects).length, 1, 'the tool ran once');
    });

    test('control: the same crash without receipts (receipts: false) runs the tool twice: Restate alone retries the step', async () => {
      await restart({ CRASH: 'in_handler' });
      const s = scenario([['call_1', '{"to":"bob","cents":500}']], { receipts: 'off' });
      const id = await send(s);
      await service.line('CRASH_POINT');
      await service.kill();
      await restart();
      const result = await attach(id);
      assert.deepEqual(result.answers, [{ id: 'call_1', output: 'sent 500 cents to bob' }]);
      assert.equal(effects(s.sideEffects).length, 2, 'at least once: the side effect ran again');
    });

    test("strict decoding of the journaled provider text: a duplicate key is the model's tool error; no policy, no step, no side effect", async () => {
      await restart();
      const s = scenario([['call_1', '{"to":"bob","cents":5,"cents":99999999}']]);
      const result = await attach(await send(s));
      assert.equal(result.answers.length, 1);
      assert.equal(result.answers[0].error.validation, 'json/duplicate_key');
      assert.equal(result.policyRuns, 0);
      assert.deepEqual(effects(s.sideEffects), []);
      assert.equal(await receipt(result.invocationId), null);
    });

    test('two calls of one response with one id are refused (duplicate_call_id); two calls with their own ids each run once', async () => {
      await restart();
      const dup = scenario([
        ['c', '{"to":"bob","cents":5}'],
        ['c', '{"to":"eve","cents":7}'],
      ]);
      const refused = await attach(await send(dup));
      assert.deepEqual(
        refused.answers.map((a) => a.error && a.error.code),
        ['duplicate_call_id', 'duplicate_call_id'],
      );
      assert.deepEqual(effects(dup.sideEffects), []);
      const two = scenario([
        ['call_1', '{"to":"bob","cents":5}'],
        ['call_2', '{"to":"eve","cents":7}'],
      ]);
      const ran = await attach(await send(two));
      assert.deepEqual(ran.answers.map((a) => a.output).sort(), ['sent 5 cents to bob', 'sent 7 cents to eve'], JSON.stringify(ran.answers));
      assert.equal(effects(two.sideEffects).length, 2);
    });

    test('a policy that mutates its view is denied (policy_mutated_arguments); nothing runs', async () => {
      await restart();
      const s = scenario([['call_1', '{"to":"bob","cents":250000}']], { mutate: true });
      const result = await attach(await send(s));
      assert.deepEqual(
        result.answers.map((a) => [a.error.code, a.error.reason]),
        [['denied', 'policy_mutated_arguments']],
      );
      assert.deepEqual(effects(s.sideEffects), []);
    });

    test('approval through an awakeable carrying the sealed proposal: a forged answer is refused (bad_signature), the genuine one runs the call once', async () => {
      await restart();
      const reviewer = tas().createApprovalGrants({ keys: [{ id: 'k1', secret: key }] });
      const resolve = async (awakeableId, body) => {
        const response = await fetch(`${server.ingress}/restate/awakeables/${awakeableId}/resolve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 202, await response.clone().text());
      };

      // Forged: the amount edited, the hash kept.
      const forged = scenario([['call_1', '{"to":"bob","cents":250000}']]);
      const forgedId = await send(forged);
      const first = JSON.parse((await service.line('APPROVAL ')).slice('APPROVAL '.length));
      assert.equal(first.toolName, 'transfer');
      assert.equal(first.reason, 'large transfer');
      assert.equal(reviewer.verify(first.proposal).argsCanonicalJson, '{"cents":250000,"to":"bob"}');
      await resolve(first.awakeableId, { approved: true, proposal: { ...first.proposal, argsCanonicalJson: '{"cents":250000,"to":"mallory"}' } });
      const refused = await attach(forgedId);
      assert.deepEqual(
        refused.answers.map((a) => [a.error.code, a.error.reason]),
        [['denied', 'bad_signature']],
      );
      assert.deepEqual(effects(forged.sideEffects), []);

      // Genuine, in a new invocation.
      service.out = '';
      const genuine = scenario([['call_1', '{"to":"bob","cents":250000}']]);
      const genuineId = await send(genuine);
      const asked = JSON.parse((await service.line('APPROVAL ')).slice('APPROVAL '.length));
      await resolve(asked.awakeableId, { approved: true, proposal: asked.proposal });
      const result = await attach(genuineId);
      assert.deepEqual(result.answers, [{ id: 'call_1', output: 'sent 250000 cents to bob' }]);
      assert.deepEqual(effects(genuine.sideEffects), [{ to: 'bob', cents: 250000 }]);
      assert.equal((await receipt(genuineId)).status, 'completed');
    });
    test('killed inside the tool of an approved call: the retried step reads the receipt before any decision, so the spent grant never becomes a second request to the reviewer; the tool ran once', async () => {
      await restart({ CRASH: 'in_handler' });
      const s = scenario([['call_1', '{"to":"bob","cents":250000}']]);
      const id = await send(s);
      const asked = JSON.parse((await service.line('APPROVAL ')).slice('APPROVAL '.length));
      const response = await fetch(`${server.ingress}/restate/awakeables/${asked.awakeableId}/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true, proposal: asked.proposal }),
      });
      assert.equal(response.status, 202);
      await service.line('CRASH_POINT');
      await service.kill();
      assert.equal(effects(s.sideEffects).length, 1);
      await restart();
      const result = await attach(id);
      assert.deepEqual(result.answers, [{ id: 'call_1', error: { name: 'TerminalError', reason: 'outcome_unknown' } }]);
      assert.equal(result.policyRuns, 0, 'nothing was decided again');
      assert.ok(!service.out.includes('APPROVAL '), 'the reviewer was not asked again');
      assert.equal(effects(s.sideEffects).length, 1, 'the tool ran once');
    });
  });
