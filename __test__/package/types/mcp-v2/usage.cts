// The CommonJS view of the 2.x declarations (require-style import).
import mcp = require('tool-argument-snapshot/mcp');
import server = require('@modelcontextprotocol/server');

const gate: mcp.McpServerGateV2 = mcp.gateMcpServer(() => new server.McpServer({ name: 'ops', version: '1.0.0' }), {
  agentName: 'ops',
  policy: (input) => ({ decision: input.argumentsSource === 'message_text' ? 'allow' : 'deny', reason: 'text_only' }),
});
export const close: () => Promise<void> = gate.close;
export const serveStdio: () => { close(): Promise<void> } = () => gate.serveStdio({ legacy: 'reject' });
export const handleHttp: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void> = gate.handleHttp;
