'use strict';
// A real MCP server of @modelcontextprotocol/sdk 1.x for adapters/ai/mcp.test.js: one
// `transfer` tool (its input schema is zod, which the SDK publishes as JSON Schema) whose
// handler is where a transfer happens. Run as a program it serves stdio; required, it
// gives `createPayServer(onTransfer)` for the in-memory transport. Each transfer it runs is
// appended, as the JSON of its arguments, to the file named by TAS_AI_MCP_LOG (stdio).

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = require('zod');

function createPayServer(onTransfer) {
  const server = new McpServer({ name: 'pay-server', version: '1.0.0' });
  server.registerTool(
    'transfer',
    {
      description: 'Send money',
      inputSchema: { amount: z.number().int().positive(), to: z.string().min(1) },
    },
    async (args) => {
      onTransfer(JSON.stringify(args));
      return { content: [{ type: 'text', text: `sent ${args.amount} to ${args.to}` }] };
    },
  );
  return server;
}

if (require.main === module) {
  const fs = require('node:fs');
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  const log = process.env.TAS_AI_MCP_LOG;
  const server = createPayServer((args) => fs.appendFileSync(log, `${args}\n`));
  server.connect(new StdioServerTransport()).catch((error) => {
    process.stderr.write(`${error && error.stack}\n`);
    process.exit(1);
  });
}

module.exports = { createPayServer };
