'use strict';
// Every gate's receipts beside grants in a durable store (issue 33 item 1): given explicit
// memory receipts, the gate warns, once per process, with its own code TAS_MEMORY_RECEIPTS
// and its adapter's name (a replay in another process would run again); receipts on the
// grants' store, `false` and the default (the grants' store's receipts) never warn. Each
// adapter in a fresh process (the warning is once per process). What the default does
// across processes: the *-receipts tests of each adapter, "no receipts option".

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { newestNode } = require('../../helpers/services');

const CHILD = path.join(__dirname, 'default-receipts-child.js');

for (const adapter of ['ai', 'langchain', 'openai-agents', 'mastra', 'mcp']) {
  test(`${adapter}: explicit memory receipts beside durable grants warn once (TAS_MEMORY_RECEIPTS, the adapter named); the store's receipts, false and the default do not`, (t) => {
    // Mastra needs Node >= 22.13.
    let node = process.execPath;
    if (adapter === 'mastra') {
      const found = newestNode(t, 22);
      if (found === null) return;
      node = found.file;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-memory-receipts-'));
    try {
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      delete env.NODE_ENV;
      const result = spawnSync(node, [CHILD, adapter, dir], { encoding: 'utf8', env });
      assert.equal(result.status, 0, result.stderr);
      const warnings = JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS');
      assert.equal(warnings.length, 1, 'one warning for the process');
      assert.match(warnings[0].message, new RegExp(`^tool-argument-snapshot/${adapter}: `));
      assert.match(warnings[0].message, /Leave options\.receipts out/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('NODE_ENV=production silences the warning', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-memory-receipts-'));
  try {
    const env = { ...process.env, NODE_ENV: 'production' };
    delete env.NODE_TEST_CONTEXT;
    const result = spawnSync(process.execPath, [CHILD, 'ai', dir], { encoding: 'utf8', env });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(
      JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS'),
      [],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- How the gates read their receipts options (red team rounds 4 and 5) ----------------

test("gates: a `receipts` or `runId` option defined by a getter is refused unread (it was read as absent: durable receipts silently replaced by the shared memory ones, or the AI SDK gate's receipts silently off)", () => {
  const { z } = require('zod');
  const { createExecutionReceipts } = require('../../..');
  const durable = createExecutionReceipts();
  let ran = 0;
  const getter = (value) => () => {
    ran += 1;
    return value;
  };
  const withGetter = (options, name, value) => Object.defineProperty(options, name, { get: getter(value), enumerable: true, configurable: true });

  const ai = require('tool-argument-snapshot/ai');
  const { tool } = require('ai');
  const aiTools = () => ({ pay: tool({ inputSchema: z.object({ cents: z.number() }), execute: async () => 'paid' }) });
  assert.throws(() => ai.createToolGate(withGetter({ agentName: 'billing', tools: aiTools(), runId: 'chat-1' }, 'receipts', durable)), TypeError);
  assert.throws(() => ai.createToolGate(withGetter({ agentName: 'billing', tools: aiTools() }, 'runId', 'chat-1')), TypeError);

  const oa = require('tool-argument-snapshot/openai-agents');
  assert.throws(() => oa.createOpenAIAgentsGate(withGetter({ agentName: 'billing' }, 'receipts', durable)), TypeError);
  assert.throws(() => oa.createOpenAIAgentsGate(withGetter({ agentName: 'billing' }, 'runId', () => 'thread-1')), TypeError);

  const lc = require('tool-argument-snapshot/langchain');
  const { tool: lcTool } = require('@langchain/core/tools');
  const lcTools = () => [lcTool(async () => 'paid', { name: 'pay', schema: z.object({ cents: z.number() }) })];
  assert.throws(() => lc.createToolGate(withGetter({ agentName: 'billing', tools: lcTools() }, 'receipts', durable)), TypeError);
  assert.throws(() => lc.toolGateMiddleware(withGetter({ agentName: 'billing', tools: lcTools() }, 'receipts', durable)), TypeError);
  // Data properties still work, and `false` still turns receipts off.
  assert.doesNotThrow(() => ai.createToolGate({ agentName: 'billing', tools: aiTools(), runId: 'chat-1', receipts: durable }));
  assert.doesNotThrow(() => oa.createOpenAIAgentsGate({ agentName: 'billing', receipts: false }));
  assert.doesNotThrow(() => lc.createToolGate({ agentName: 'billing', tools: lcTools(), receipts: durable }));
  assert.equal(ran, 0);
});

test('gates: durable grants over a store without all six receipt operations warn once (TAS_MEMORY_RECEIPTS) that their default receipts are in process memory (they fell back silently: a replay in another process ran again with no word)', () => {
  const child = `
    const { createApprovalGrants, createSqliteGrantStore } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..'))});
    const { gateMcpServer } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'adapters', 'mcp', 'index.js'))});
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
  const result = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', env, cwd: path.join(__dirname, '..', '..', '..') });
  assert.equal(result.status, 0, result.stderr);
  const warnings = JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS');
  assert.equal(warnings.length, 1, 'one warning for the process');
  assert.match(warnings[0].message, /^tool-argument-snapshot\/mcp: /);
  assert.match(warnings[0].message, /six receipt operations/);
});
