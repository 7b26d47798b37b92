'use strict';
// Issue 35, item 1, at the MCP gate: the gate decides and runs a tools/call in one step
// (authorizeToolCall), so a call that relies on a grant makes one store call before its
// handler: the receipt's claim, which takes the grant's use (claimReceiptAndTake). Without
// a live grant the same call asks for approval and claims nothing. Every store, each
// wrapped to count its calls: memory, SQLite, PostgreSQL and Redis (the last two skipped
// visibly without their servers, helpers/services.js).

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');

const { createApprovalGrants, createSqliteGrantStore, createPostgresGrantStore, createRedisGrantStore } = require('../../..');
const { createMemoryStore } = require('../../../lib/stores/memory');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');
const { service } = require('../../helpers/services');

const KEY_NAME = 'tool-argument-snapshot/idempotency-key';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-trips-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A store of each kind over a fresh namespace: `{ store, dispose }`, or null when skipped. */
const STORES = {
  memory: async () => ({ store: createMemoryStore(), dispose: async () => {} }),
  sqlite: async () => {
    const store = createSqliteGrantStore({ path: path.join(dir, `trips-${process.pid}.db`) });
    return { store, dispose: () => store.close() };
  },
  postgres: async (t) => {
    const url = service(t, 'pg');
    if (url === null) return null;
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: url });
    const table = `tas_trips_${process.pid}`;
    const store = createPostgresGrantStore({ pool, table });
    await store.migrate();
    return {
      store,
      async dispose() {
        await store.close();
        await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`);
        await pool.end();
      },
    };
  },
  redis: async (t) => {
    const url = service(t, 'redis');
    if (url === null) return null;
    const { createClient } = require('redis');
    const client = createClient({ url });
    client.on('error', () => {});
    await client.connect();
    const prefix = `tas:trips:${process.pid}:${Date.now()}:`;
    const store = createRedisGrantStore({ client, prefix });
    return {
      store,
      async dispose() {
        const keys = await client.sendCommand(['KEYS', `${prefix}*`]);
        if (keys.length > 0) await client.sendCommand(['DEL', ...keys]);
        await client.close();
      },
    };
  },
};

/** The store wrapped to log each call by name: `log` is the list since the last `watch()`. */
function counted(store) {
  const log = [];
  const wrapper = {};
  for (const name of Object.keys(store)) {
    if (typeof store[name] !== 'function') continue;
    wrapper[name] = (...args) => {
      log.push(name);
      return store[name](...args);
    };
  }
  return { wrapper, log };
}

for (const [kind, open] of Object.entries(STORES)) {
  test(`${kind}: a tools/call relying on a grant makes one store call before its handler; without a live grant it asks and claims nothing`, async (t) => {
    const opened = await open(t);
    if (opened === null) return;
    const { wrapper, log } = counted(opened.store);
    const grants = createApprovalGrants({ store: wrapper });
    const receipts = grants.executionReceipts();
    assert.notEqual(receipts, null, "the gate's receipts are in the grants' store");
    const runs = [];
    let before;
    const server = new McpServer({ name: 'payments', version: '1.0.0' });
    server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async ({ to, amount }) => {
      before = [...log];
      runs.push({ to, amount });
      return { content: [{ type: 'text', text: `paid ${amount} to ${to}` }] };
    });
    const gate = gateMcpServer(server, { agentName: 'payments', grants, policy: () => ({ decision: 'require_approval', reason: 'every_payment' }) });
    const [clientTransport, serverTransport] = gate.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'trips', version: '1.0.0' });
    await client.connect(clientTransport);
    const key = `k-${kind}-${process.pid}`;
    const params = { name: 'pay', arguments: { to: 'bob', amount: 5 }, _meta: { [KEY_NAME]: key } };
    try {
      log.length = 0;
      const asked = await client.callTool(params);
      assert.equal(asked.structuredContent.decision, 'require_approval');
      assert.equal(asked.structuredContent.reason, 'every_payment');
      assert.equal(log[0], 'claimReceiptAndTake', 'the claim looks for the grant');
      assert.equal(log.includes('has'), false, 'no separate lookup');
      assert.equal(log.includes('claimReceipt'), false, 'nothing claimed');
      assert.deepEqual(runs, []);
      await grants.grant(asked.structuredContent.proposal, { uses: 1 });
      log.length = 0;
      const ran = await client.callTool(params);
      assert.equal(ran.isError, undefined);
      assert.deepEqual(runs, [{ to: 'bob', amount: 5 }]);
      assert.deepEqual(before, ['claimReceiptAndTake'], 'one store call before the handler');
      assert.equal(log.filter((name) => name === 'completeReceipt').length, 1, 'the completion');
      assert.equal(await grants.has(asked.structuredContent.proposal), false, 'the use is spent');
      // The client's retry (same key, a new request id): its receipt answers, nothing runs.
      const retry = await client.callTool(params);
      assert.deepEqual(retry.structuredContent, { decision: 'deny', reason: 'call_already_executed', decidedBy: 'runtime' });
      assert.equal(runs.length, 1);
    } finally {
      await client.close();
      await opened.dispose();
    }
  });
}

// The same at the gate of SDK 2.x (a server factory behind its fetch), without a key ring:
// the approval result of SDK 1.x, then the granted call.
for (const kind of ['memory', 'sqlite', 'postgres', 'redis']) {
  test(`SDK 2.x, ${kind}: a tools/call relying on a grant makes one store call before its handler`, async (t) => {
    const opened = await STORES[kind](t);
    if (opened === null) return;
    const { McpServer: McpServer2 } = require('@modelcontextprotocol/server');
    const { serve, connect } = require('./v2-support');
    const { wrapper, log } = counted(opened.store);
    const grants = createApprovalGrants({ store: wrapper });
    const runs = [];
    let before;
    const factory = () => {
      const server = new McpServer2({ name: 'payments', version: '1.0.0' });
      server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount: z.number() }) }, async (args) => {
        before = [...log];
        runs.push(args.amount);
        return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
      });
      return server;
    };
    const gate = gateMcpServer(factory, { agentName: 'payments', grants, policy: () => ({ decision: 'require_approval', reason: 'every_payment' }) });
    const served = await serve(gate);
    const client = await connect(served.url);
    const call = () =>
      client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 7 }, _meta: { [KEY_NAME]: `k2-${kind}-${process.pid}` } }, { allowInputRequired: true });
    try {
      log.length = 0;
      const asked = await call();
      assert.equal(asked.structuredContent.decision, 'require_approval');
      assert.equal(log[0], 'claimReceiptAndTake', 'the claim looks for the grant');
      assert.equal(log.includes('has'), false, 'no separate lookup');
      await grants.grant(asked.structuredContent.proposal, { uses: 1 });
      log.length = 0;
      const ran = await call();
      assert.equal(ran.content[0].text, 'paid 7 to bob');
      assert.deepEqual(runs, [7]);
      assert.deepEqual(before, ['claimReceiptAndTake'], 'one store call before the handler');
      assert.equal(await grants.has(asked.structuredContent.proposal), false, 'the use is spent');
      assert.equal((await call()).structuredContent.reason, 'call_already_executed');
      assert.deepEqual(runs, [7]);
    } finally {
      await client.close();
      await served.close();
      await gate.close();
      await opened.dispose();
    }
  });
}
