// Compiled with `tsc --strict --noEmit` by __test__/adapters/mcp/mcp.test.js: the gate's options, its
// transports as the SDK's Transport, and policies that read parsedArguments (typed by a
// type argument or an annotated input; `unknown` otherwise) without a cast. Every @ts-expect-error line must fail.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { createApprovalGrants, fromJsonSchema } from 'tool-argument-snapshot';
import { gateMcpServer, type McpApprovalRequest, type McpPolicyInput, type McpStageFailure } from 'tool-argument-snapshot/mcp';

const server = new McpServer({ name: 'payments', version: '1.0.0' });
server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async ({ to, amount }) => ({
  content: [{ type: 'text', text: `paid ${amount} to ${to}` }],
}));

const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'x'.repeat(32) }] });
const gate = gateMcpServer(server, {
  agentName: 'payments',
  grants,
  elicitation: false,
  policy: {
    pay: (input: McpPolicyInput<{ to: string; amount: number }>) => {
      const amount: number = input.parsedArguments.amount;
      // @ts-expect-error parsedArguments is read-only
      input.parsedArguments.amount = 1;
      const id: string = input.toolCallId;
      return { decision: amount > 100 ? 'require_approval' : 'allow', reason: `${id} ${input.argumentsSource}` };
    },
    balance: (input: McpPolicyInput<{ account: string }>) => ({ decision: input.parsedArguments.account === 'main' ? 'allow' : 'deny', reason: 'typed' }),
  },
  policyContext: (extra) => ({ grantScope: `session:${extra.sessionId ?? 'none'}` }),
  http: { enableJsonResponse: true },
});

const [clientTransport, serverTransport] = gate.createLinkedPair();
await server.connect(serverTransport);
const client = new Client({ name: 'c', version: '1.0.0' });
await client.connect(clientTransport);
await clientTransport.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
const result = await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } });
if (result.isError === true) {
  const failure = result.structuredContent as McpStageFailure | McpApprovalRequest | undefined;
  if (failure !== undefined && 'proposal' in failure) await grants.grant(failure.proposal);
}
createServer((req, res) => void gate.handleHttp(req, res));
void gate.stdioTransport({ stdin: process.stdin, stdout: process.stdout });

// The JSON-schema side: fromJsonSchema is a tool schema of the core.
const schema = fromJsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] });
void schema;

// @ts-expect-error agentName is required
gateMcpServer(server, { policy: () => ({ decision: 'allow', reason: 'x' }) });
// @ts-expect-error elicitation is a boolean
gateMcpServer(server, { agentName: 'a', elicitation: 'yes' });
// @ts-expect-error a policy returns a decision
gateMcpServer(server, { agentName: 'a', policy: () => ({ decision: 'maybe', reason: 'x' }) });
