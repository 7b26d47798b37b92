'use strict';
// A gated MCP server over stdio for __test__/mcp-receipts.test.js: one `pay` tool that
// appends `{ pid, to, amount }` (one JSON line) to the file named by MCP_EXECUTIONS, then
// waits MCP_DELAY_MS before answering.
// - By default its receipts are kept in the SQLite file MCP_RECEIPTS_DB (shared with other
//   processes), with keepResults when MCP_KEEP_RESULTS=1; every call is allowed.
// - With MCP_GRANTS_STORE (a durable-stores.js spec, JSON): grants on that store, sealed
//   with the key ring of MCP_KEY_RING when set, and NO receipts option (the gate's default
//   receipts are then the ones the grants' store keeps); a payment up to 1000 is allowed,
//   a larger one needs an approval.

const fs = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const z = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore } = require('tool-argument-snapshot');
const { gateMcpServer } = require('tool-argument-snapshot/mcp');

const log = process.env.MCP_EXECUTIONS;
const delay = Number(process.env.MCP_DELAY_MS ?? 0);

const server = new McpServer({ name: 'payments', version: '1.0.0' });
server.registerTool('pay', { inputSchema: { to: z.string().min(1), amount: z.number().positive() } }, async ({ to, amount }) => {
  fs.appendFileSync(log, `${JSON.stringify({ pid: process.pid, to, amount })}\n`);
  await new Promise((resolve) => setTimeout(resolve, delay));
  return { content: [{ type: 'text', text: `paid ${amount} to ${to} in ${process.pid}` }] };
});

async function gate() {
  if (process.env.MCP_GRANTS_STORE === undefined) {
    const store = createSqliteGrantStore({ path: process.env.MCP_RECEIPTS_DB });
    const receipts = createExecutionReceipts({ store, keepResults: process.env.MCP_KEEP_RESULTS === '1' });
    return gateMcpServer(server, { agentName: 'payments', receipts, policy: () => ({ decision: 'allow', reason: 'test' }) });
  }
  const store = await require('../durable-stores').openDurable(JSON.parse(process.env.MCP_GRANTS_STORE));
  const keys = process.env.MCP_KEY_RING === undefined ? undefined : JSON.parse(process.env.MCP_KEY_RING);
  const grants = createApprovalGrants(keys === undefined ? { store } : { store, keys });
  return gateMcpServer(server, {
    agentName: 'payments',
    grants,
    policy: ({ parsedArguments }) => (parsedArguments.amount <= 1000
      ? { decision: 'allow', reason: 'small_payment' }
      : { decision: 'require_approval', reason: 'large_payment' }),
  });
}

gate().then((gated) => server.connect(gated.stdioTransport())).catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
