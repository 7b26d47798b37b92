// The CommonJS view of the same declarations (require-style import).
import mcp = require('tool-argument-snapshot/mcp');
import sdk = require('@modelcontextprotocol/sdk/server/mcp.js');

const server = new sdk.McpServer({ name: 'payments', version: '1.0.0' });
const gate: mcp.McpServerGate = mcp.gateMcpServer<{ pay: { to: string; amount: number } }>(server, {
  agentName: 'payments',
  policy: (input) => ({ decision: input.toolName === 'pay' && input.parsedArguments.amount > 100 ? 'deny' : 'allow', reason: 'by_amount' }),
});
export const transport = gate.stdioTransport();
