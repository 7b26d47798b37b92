'use strict';
// A gated MCP server over stdio for __test__/mcp-receipts.test.js: one `pay` tool that
// appends `{ pid, to, amount }` (one JSON line) to the file named by MCP_EXECUTIONS, then
// waits MCP_DELAY_MS before answering. Its receipts are kept in the SQLite file
// MCP_RECEIPTS_DB (shared with other processes), with keepResults when MCP_KEEP_RESULTS=1.

const fs = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const z = require('zod');
const { createExecutionReceipts, createSqliteGrantStore } = require('tool-argument-snapshot');
const { gateMcpServer } = require('tool-argument-snapshot/mcp');

const log = process.env.MCP_EXECUTIONS;
const delay = Number(process.env.MCP_DELAY_MS ?? 0);

const server = new McpServer({ name: 'payments', version: '1.0.0' });
server.registerTool('pay', { inputSchema: { to: z.string().min(1), amount: z.number().positive() } }, async ({ to, amount }) => {
  fs.appendFileSync(log, `${JSON.stringify({ pid: process.pid, to, amount })}\n`);
  await new Promise((resolve) => setTimeout(resolve, delay));
  return { content: [{ type: 'text', text: `paid ${amount} to ${to} in ${process.pid}` }] };
});

const store = createSqliteGrantStore({ path: process.env.MCP_RECEIPTS_DB });
const receipts = createExecutionReceipts({ store, keepResults: process.env.MCP_KEEP_RESULTS === '1' });
const gate = gateMcpServer(server, { agentName: 'payments', receipts, policy: () => ({ decision: 'allow', reason: 'test' }) });
server.connect(gate.stdioTransport()).catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
