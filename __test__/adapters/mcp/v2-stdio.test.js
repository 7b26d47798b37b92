'use strict';
// gateMcpServer on the MCP TypeScript SDK 2.x over stdio (gate.serveStdio, the SDK's
// serveStdio behind the gate's line reader): a child process (mcp-fixtures/v2-stdio-server.js)
// reached by the SDK's own 2.x Client (its StdioClientTransport, 2026-07-28 and 2025-era)
// and by raw lines written to its stdin. Grants on one SQLite file, granted from here.

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
const { createApprovalGrants, createSqliteGrantStore } = require('../../..');
const { ENVELOPE, toolCallText } = require('./v2-support');

const FIXTURE = path.join(__dirname, 'fixtures', 'v2-stdio-server.js');
const KEYS = [{ id: 'k1', secret: 's'.repeat(32) }];
const APPROVAL_META = 'tool-argument-snapshot/approval';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-v2-stdio-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function files(name) {
  const log = path.join(dir, `${name}.log`);
  fs.writeFileSync(log, '');
  return {
    log,
    db: path.join(dir, `${name}.db`),
    env: { ...process.env, TAS_V2_LOG: log, TAS_V2_DB: path.join(dir, `${name}.db`), TAS_V2_KEYS: JSON.stringify(KEYS) },
  };
}
const ran = (log) => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);

for (const mode of ['2026-07-28', 'legacy']) {
  test(`the 2.x Client over stdio (${mode}): allowed once, denied, and an approval granted by another process runs once`, async (t) => {
    const { log, db, env } = files(`client-${mode}`);
    const client = new Client({ name: 'agent', version: '1.0.0' }, mode === 'legacy' ? {} : { versionNegotiation: { mode: { pin: mode } } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env, stderr: 'pipe' }));
    const store = createSqliteGrantStore({ path: db });
    t.after(async () => {
      await client.close();
      await store.close();
    });
    const grants = createApprovalGrants({ keys: KEYS, store });
    const call = (args, extra = {}) => client.callTool({ name: 'pay', arguments: args, ...extra }, { allowInputRequired: true });
    assert.equal((await call({ to: 'bob', amount: 20 })).content[0].text, 'paid 20 to bob');
    assert.equal((await call({ to: 'mallory', amount: 1 })).structuredContent.reason, 'blocked_payee');
    const asked = await call({ to: 'landlord', amount: 1200 });
    if (mode === 'legacy') {
      // 2025-era: no requestState; the approval result of SDK 1.x, granted, and the next identical call runs.
      await grants.grant(asked.structuredContent.proposal);
      assert.equal((await call({ to: 'landlord', amount: 1200 })).content[0].text, 'paid 1200 to landlord');
    } else {
      assert.equal(asked.resultType, 'input_required');
      await grants.grant(asked._meta[APPROVAL_META].proposal);
      assert.equal((await call({ amount: 1200, to: 'landlord' }, { requestState: asked.requestState })).content[0].text, 'paid 1200 to landlord');
      assert.equal((await call({ to: 'landlord', amount: 1200 }, { requestState: asked.requestState })).structuredContent.reason, 'request_state_used');
    }
    assert.deepEqual(ran(log), ['{"amount":20,"to":"bob"}', '{"amount":1200,"to":"landlord"}']);
  });
}

test("raw lines over stdio: a duplicate key outside arguments is -32600, inside it is the tool's stage error, bad UTF-8 is -32700; nothing runs", async (t) => {
  const { log, env } = files('raw');
  const child = spawn(process.execPath, [FIXTURE], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  const answers = [];
  let waiting;
  let pending = '';
  child.stdout.on('data', (chunk) => {
    pending += chunk;
    for (let i = pending.indexOf('\n'); i !== -1; i = pending.indexOf('\n')) {
      answers.push(JSON.parse(pending.slice(0, i)));
      pending = pending.slice(i + 1);
      if (waiting !== undefined) waiting();
    }
  });
  const next = async () => {
    while (answers.length === 0)
      await new Promise((resolve) => {
        waiting = resolve;
      });
    waiting = undefined;
    return answers.shift();
  };
  const send = (line) => child.stdin.write(Buffer.isBuffer(line) ? Buffer.concat([line, Buffer.from('\n')]) : `${line}\n`);

  send(JSON.stringify({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: ENVELOPE } }));
  assert.ok((await next()).result, 'discovered');
  send(toolCallText(1, 'pay', '{"to":"bob","amount":5}').replace('"name":"pay"', '"name":"pay","name":"pay"'));
  assert.deepEqual((await next()).error, { code: -32600, message: 'Invalid Request', data: { stage: 'json', code: 'duplicate_key' } });
  send(toolCallText(2, 'pay', '{"to":"bob","amount":5,"amount":5000}'));
  assert.deepEqual((await next()).result.structuredContent, { toolName: 'pay', stage: 'json', code: 'duplicate_key' });
  send(Buffer.from([0x7b, 0xff, 0x7d]));
  assert.equal((await next()).error.code, -32700);
  send(toolCallText(3, 'pay', '{ "amount" : 5.0, "to" : "bob" }'));
  assert.equal((await next()).result.content[0].text, 'paid 5 to bob');
  assert.deepEqual(ran(log), ['{"amount":5,"to":"bob"}']);
});

test('in process over streams: a request reusing an id in flight on the connection runs nothing (-32600 request_id_in_flight); the id is free once answered', async (t) => {
  const { PassThrough } = require('node:stream');
  const { McpServer } = require('@modelcontextprotocol/server');
  const { z } = require('zod');
  const { gateMcpServer } = require('../../../adapters/mcp/index.js');
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  let runs = 0;
  const gate = gateMcpServer(
    () => {
      const server = new McpServer({ name: 'slow', version: '1.0.0' });
      server.registerTool('pay', { inputSchema: z.object({ to: z.string() }) }, async () => {
        runs += 1;
        if (runs === 1) await held;
        return { content: [{ type: 'text', text: 'paid' }] };
      });
      return server;
    },
    { agentName: 'payments', policy: () => ({ decision: 'allow', reason: 'test' }) },
  );
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const handle = gate.serveStdio({ stdin, stdout });
  t.after(() => handle.close());
  const answers = [];
  let waiting;
  let pending = '';
  stdout.on('data', (chunk) => {
    pending += chunk;
    for (let i = pending.indexOf('\n'); i !== -1; i = pending.indexOf('\n')) {
      answers.push(JSON.parse(pending.slice(0, i)));
      pending = pending.slice(i + 1);
      if (waiting !== undefined) waiting();
    }
  });
  const next = async () => {
    while (answers.length === 0)
      await new Promise((resolve) => {
        waiting = resolve;
      });
    waiting = undefined;
    return answers.shift();
  };
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: ENVELOPE } })}\n`);
  assert.ok((await next()).result);
  stdin.write(`${toolCallText(5, 'pay', '{"to":"bob"}')}\n`);
  while (runs === 0) await new Promise((resolve) => setImmediate(resolve));
  stdin.write(`${toolCallText(5, 'pay', '{"to":"eve"}')}\n`);
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request', data: { code: 'request_id_in_flight' } } });
  release();
  assert.equal((await next()).result.content[0].text, 'paid');
  stdin.write(`${toolCallText(5, 'pay', '{"to":"eve"}')}\n`);
  assert.equal((await next()).result.content[0].text, 'paid');
  assert.equal(runs, 2);
});
