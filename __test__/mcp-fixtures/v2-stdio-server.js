'use strict';
// A server of the MCP TypeScript SDK 2.x gated by gateMcpServer and served over stdio with
// gate.serveStdio(), for mcp-v2-stdio.test.js: a `pay` tool that appends each run (the JSON
// of its arguments) to the file TAS_V2_LOG; grants with the key ring TAS_V2_KEYS on the
// SQLite file TAS_V2_DB (the test's process grants on the same file).

const fs = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/server');
const { z } = require('zod');
const { createApprovalGrants, createSqliteGrantStore } = require('../..');
const { gateMcpServer } = require('../../adapters/mcp/index.js');

const grants = createApprovalGrants({ keys: JSON.parse(process.env.TAS_V2_KEYS), store: createSqliteGrantStore({ path: process.env.TAS_V2_DB }) });
const gate = gateMcpServer(() => {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount: z.number() }) }, async (args) => {
    fs.appendFileSync(process.env.TAS_V2_LOG, `${JSON.stringify(args)}\n`);
    return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
  });
  return server;
}, {
  agentName: 'payments',
  grants,
  policy: (input) => {
    if (input.parsedArguments.to === 'mallory') return { decision: 'deny', reason: 'blocked_payee' };
    return input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small_payment' } : { decision: 'require_approval', reason: 'large_payment' };
  },
});
gate.serveStdio({ onerror: (error) => process.stderr.write(`${error && error.message}\n`) });
