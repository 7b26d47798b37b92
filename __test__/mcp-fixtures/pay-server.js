'use strict';
// An MCP server over stdio for __test__/mcp.test.js and the docs: one `pay` tool whose
// every execution is appended (as one JSON line) to the file named by MCP_EXECUTIONS.
//   node pay-server.js gated   -> gated by tool-argument-snapshot/mcp (gate.stdioTransport())
//   node pay-server.js plain   -> the SDK alone (StdioServerTransport)
// Gated: payments up to 100 are allowed, larger ones need an approval; grants are sealed
// with the key in MCP_GRANT_KEY and kept in the SQLite file MCP_GRANTS_DB when it is set
// (an approval granted by another process), in memory otherwise.

const fs = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const z = require('zod');

const mode = process.argv[2];
const log = process.env.MCP_EXECUTIONS;

const server = new McpServer({ name: 'payments', version: '1.0.0' });
server.registerTool('pay', {
  description: 'Pay an amount to someone',
  inputSchema: { to: z.string().min(1), amount: z.number().positive() },
}, async ({ to, amount }) => {
  if (log) fs.appendFileSync(log, `${JSON.stringify({ to, amount })}\n`);
  return { content: [{ type: 'text', text: `paid ${amount} to ${to}` }] };
});

async function main() {
  if (mode === 'plain') {
    await server.connect(new StdioServerTransport());
    return;
  }
  const { createApprovalGrants } = require('tool-argument-snapshot');
  const { gateMcpServer } = require('tool-argument-snapshot/mcp');
  const keys = process.env.MCP_GRANT_KEY ? [{ id: 'k1', secret: process.env.MCP_GRANT_KEY }] : undefined;
  let store;
  if (process.env.MCP_GRANTS_DB) store = require('tool-argument-snapshot').createSqliteGrantStore({ path: process.env.MCP_GRANTS_DB });
  const grants = createApprovalGrants({ keys, store });
  const gate = gateMcpServer(server, {
    agentName: 'payments',
    grants,
    policy: (input) => (input.parsedArguments.amount <= 100
      ? { decision: 'allow', reason: 'small_payment' }
      : { decision: 'require_approval', reason: 'large_payment' }),
  });
  await server.connect(gate.stdioTransport());
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
