'use strict';
// A real MCP server of @modelcontextprotocol/sdk 1.x over stdio, for
// adapters/openai-agents/mcp.test.js: one `transfer` tool (to, cents, optional memo) whose
// every execution is appended, as the arguments the server received, to the file named by
// TAS_MCP_LOG, and answered with them.

const fs = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'payments', version: '1.0.0' });
server.registerTool(
  'transfer',
  {
    description: 'Send money',
    inputSchema: { to: z.string(), cents: z.number().int(), memo: z.string().optional() },
  },
  async (args) => {
    fs.appendFileSync(process.env.TAS_MCP_LOG, `${JSON.stringify(args)}\n`);
    return { content: [{ type: 'text', text: `sent ${args.cents} to ${args.to}` }] };
  },
);

server.connect(new StdioServerTransport()).catch((error) => {
  console.error(error);
  process.exit(1);
});
