'use strict';
// Red team round 5: issue 33 ("safe by default across processes") attacked: receipts in the
// grants' store by default, the MCP gate's kept approval requests and the CLI's review of
// them. Each test reproduces one finding (it failed before the fix named beside it).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');

const { createApprovalGrants, createSqliteGrantStore } = require('../..');
const { gateMcpServer } = require('../../adapters/mcp/index.js');

const CLI = path.join(__dirname, '..', '..', 'bin', 'tool-argument-snapshot.js');
const KEY_NAME = 'tool-argument-snapshot/idempotency-key';

function review(file, ...args) {
  const result = spawnSync(process.execPath, [CLI, ...args, '--store', `sqlite:${file}`], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A gated payments server over grants in the SQLite file, linked to an SDK client. */
async function paymentsServer(file, options = {}) {
  const runs = [];
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async ({ to, amount }) => {
    runs.push({ to, amount });
    return { content: [{ type: 'text', text: `paid ${amount} to ${to}` }] };
  });
  const store = createSqliteGrantStore({ path: file });
  const gate = gateMcpServer(server, {
    agentName: 'payments',
    grants: createApprovalGrants({ store }),
    policy: () => ({ decision: 'require_approval', reason: 'every_payment' }),
    ...options,
  });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientTransport);
  return { client, runs, close: async () => { await client.close(); await store.close(); } };
}

const keyed = (key, args) => ({ name: 'pay', arguments: args, _meta: { [KEY_NAME]: key } });

test('MCP: a retry of a keyed approval request with other arguments does not change what the listed id grants (the reviewer saw 5 to bob under the id; grant --id then granted 5000 to mallory, which ran)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt5-'));
  const file = path.join(dir, 'grants.db');
  const app = await paymentsServer(file);
  try {
    const asked = await app.client.callTool(keyed('k1', { to: 'bob', amount: 5 }));
    const { pendingId } = asked.structuredContent;
    const listed = review(file, 'pending', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    const seen = JSON.parse(listed.stdout).proposals.find((p) => p.id === pendingId);
    assert.equal(seen.proposal.argsCanonicalJson, '{"amount":5,"to":"bob"}');

    // The client (or the model behind it) retries the same key with other arguments before the review.
    const swapped = await app.client.callTool(keyed('k1', { to: 'mallory', amount: 5000 }));
    assert.equal(swapped.structuredContent.decision, 'require_approval');

    // The reviewer grants the id they reviewed: what is granted is what they saw.
    const granted = review(file, 'grant', '--id', pendingId, '--json');
    assert.equal(granted.status, 0, granted.stderr);
    assert.equal(JSON.parse(granted.stdout).argsCanonicalJson, '{"amount":5,"to":"bob"}');
    const other = await app.client.callTool(keyed('k1', { to: 'mallory', amount: 5000 }));
    assert.equal(other.isError, true);
    assert.equal(other.structuredContent.decision, 'require_approval', 'the swapped arguments were never granted');
    assert.deepEqual(app.runs, []);
    // The reviewed call runs once, under its key.
    assert.equal((await app.client.callTool(keyed('k1', { to: 'bob', amount: 5 }))).isError, undefined);
    assert.deepEqual(app.runs, [{ to: 'bob', amount: 5 }]);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('gates: durable grants over a store without all six receipt operations warn once (TAS_MEMORY_RECEIPTS) that their default receipts are in process memory (they fell back silently: a replay in another process ran again with no word)', () => {
  const child = `
    const { createApprovalGrants, createSqliteGrantStore } = require(${JSON.stringify(path.join(__dirname, '..', '..'))});
    const { gateMcpServer } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'adapters', 'mcp', 'index.js'))});
    const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
    const warnings = [];
    process.on('warning', (w) => warnings.push({ code: w.code, message: w.message }));
    const sqlite = createSqliteGrantStore({ path: ':memory:' });
    // An application's store written before receipts (or with one receipt method missing).
    const store = {};
    for (const name of ['put', 'has', 'take', 'delete', 'prune', 'putProposal', 'getProposal', 'deleteProposal', 'listProposals', 'claimReceipt', 'completeReceipt', 'getReceipt', 'deleteReceipt', 'pruneReceipts']) {
      store[name] = sqlite[name].bind(sqlite);
    }
    const grants = createApprovalGrants({ store });
    for (let i = 0; i < 2; i++) gateMcpServer(new McpServer({ name: 's', version: '1' }), { agentName: 'a', grants });
    // Memory grants and receipts: false never warn.
    gateMcpServer(new McpServer({ name: 's', version: '1' }), { agentName: 'a', grants: createApprovalGrants() });
    gateMcpServer(new McpServer({ name: 's', version: '1' }), { agentName: 'a', grants, receipts: false });
    setImmediate(() => { process.stdout.write(JSON.stringify(warnings)); sqlite.close(); });
  `;
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_ENV;
  const result = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', env, cwd: path.join(__dirname, '..', '..') });
  assert.equal(result.status, 0, result.stderr);
  const warnings = JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS');
  assert.equal(warnings.length, 1, 'one warning for the process');
  assert.match(warnings[0].message, /^tool-argument-snapshot\/mcp: /);
  assert.match(warnings[0].message, /six receipt operations/);
});

// Not fixed (a design decision, written down with its reproducer): LangChain's createToolGate
// keeps a proposal under the application's own run id as it is (adapters/langchain/gate/
// proposals.js keptKeyOf), not namespaced as the other gates' keptRunId keys are. A run id
// (a thread id a client may choose) that begins with `ai-approved ` or `mastra-approved ` is
// taken by the CLI for a gate's evidence of an approval given: `pending` hides the proposal that
// waits under it and `grant --id` refuses it. A run id such as `mcp 8:payments - hash` shares
// the MCP gate's key space. Namespacing LangChain's key changes where kept records of earlier
// versions are found, hence not changed here.
test('CLI: a proposal kept under a run id as LangChain\'s createToolGate keeps it (the application\'s run id, raw) is listed by pending whatever the run id says', { todo: 'LangChain kept-proposal keys are not namespaced; see the comment above' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt5-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const { prepareToolCall, evaluateToolCall } = require('../..');
    const prepared = prepareToolCall({ agentName: 'support', toolName: 'refund', rawArguments: '{"cents":900000}' });
    const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'refunds' }) });
    await createApprovalGrants({ store }).keepProposal({ runId: 'ai-approved thread-of-a-client', toolCallId: 'call_1' }, decision.proposal);
    const listed = review(file, 'pending', '--json');
    assert.equal(JSON.parse(listed.stdout).proposals.length, 1, 'the waiting proposal is listed');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
