'use strict';
// One process of adapters/gate/default-receipts.test.js:
//   node adapters/gate/default-receipts-child.js ADAPTER DIR
// makes the gates of ADAPTER over grants on the SQLite file DIR/grants.db, each with a
// receipts option of its own, in this order: explicit memory receipts (twice: two gates),
// receipts on the grants' store, `false`, and none. Prints one JSON line: the warnings the
// process emitted ({ code, message }).

const path = require('node:path');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore } = require('tool-argument-snapshot');

const [adapter, dir] = process.argv.slice(2);
const warnings = [];
process.on('warning', (warning) => warnings.push({ code: warning.code, message: warning.message }));

const makers = {
  ai(options) {
    const { tool } = require('ai');
    const { createToolGate } = require('tool-argument-snapshot/ai');
    createToolGate({
      agentName: 'payments',
      runId: 'chat-1',
      tools: { pay: tool({ inputSchema: z.object({ cents: z.number() }), execute: async () => 'paid' }) },
      ...options,
    });
  },
  langchain(options) {
    const { tool } = require('langchain');
    const { createToolGate, toolGateMiddleware } = require('tool-argument-snapshot/langchain');
    const pay = tool(async () => 'paid', { name: 'pay', description: 'Pay', schema: z.object({ cents: z.number() }) });
    createToolGate({ agentName: 'payments', tools: [pay], ...options });
    toolGateMiddleware({ agentName: 'payments', tools: [pay], ...options });
  },
  'openai-agents'(options) {
    const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');
    createOpenAIAgentsGate({ agentName: 'payments', ...options });
  },
  mastra(options) {
    const { createToolGate } = require('tool-argument-snapshot/mastra');
    createToolGate({
      agentName: 'payments',
      tools: { pay: { id: 'pay', description: 'Pay', inputSchema: z.object({ cents: z.number() }), execute: async () => 'paid' } },
      ...options,
    });
  },
  mcp(options) {
    const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
    const { gateMcpServer } = require('tool-argument-snapshot/mcp');
    gateMcpServer(new McpServer({ name: 'payments', version: '1.0.0' }), { agentName: 'payments', ...options });
  },
};

(async () => {
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  const grants = createApprovalGrants({ store });
  const make = makers[adapter];
  make({ grants, receipts: createExecutionReceipts() });
  make({ grants, receipts: createExecutionReceipts() });
  make({ grants, receipts: createExecutionReceipts({ store }) });
  make({ grants, receipts: false });
  make({ grants });
  await new Promise((resolve) => setImmediate(resolve));
  await store.close();
  process.stdout.write(`${JSON.stringify(warnings)}\n`);
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exitCode = 1;
});
