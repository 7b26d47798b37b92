// gateMcpServer with a server factory of @modelcontextprotocol/server 2.x, from ESM: typed
// policies, the request context of the callbacks, the web face, the input_required answer.
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { gateMcpServer, type McpServerGateV2, type McpInputRequired, type McpRequestStateRefusal } from 'tool-argument-snapshot/mcp';
import { z } from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount: z.number() }) },
    async ({ to, amount }) => ({ content: [{ type: 'text', text: `paid ${amount} to ${to}` }] }));
  return server;
}

type Tools = { pay: { to: string; amount: number } };
const gate: McpServerGateV2 = gateMcpServer<Tools, 'v2'>(() => makeServer(), {
  agentName: 'payments',
  grants: createApprovalGrants({ keys: [{ id: 'k1', secret: 'k'.repeat(32) }] }),
  policy: {
    pay: (input) => ({ decision: input.parsedArguments.amount <= 100 ? 'allow' : 'require_approval', reason: 'limit' }),
  },
  idempotencyScope: (ctx) => ctx.http?.authInfo?.clientId,
  policyContext: (ctx) => ({ grantScope: `client:${ctx.http?.authInfo?.clientId ?? 'anonymous'}` }),
  proposalTtlMs: 60_000,
  http: { legacy: 'reject', createMcpHandler },
});

export async function serve(request: Request): Promise<Response> {
  return gate.fetch(request, { authInfo: { clientId: 'alice', token: 't', scopes: [] } });
}

export function stateOf(answer: McpInputRequired): [string, string | null, string] {
  const approval = answer._meta['tool-argument-snapshot/approval'];
  return [answer.requestState, approval.pendingId, approval.proposal.signature];
}

export const used: McpRequestStateRefusal = 'request_state_used';

gateMcpServer<Tools, 'v2'>(() => makeServer(), {
  agentName: 'payments',
  // @ts-expect-error `amout` is not a field of pay's arguments
  policy: { pay: (input) => ({ decision: input.parsedArguments.amout > 1 ? 'deny' : 'allow', reason: 'typo' }) },
});

// @ts-expect-error idempotencyScope returns a string, null or undefined
gateMcpServer(() => makeServer(), { agentName: 'payments', idempotencyScope: () => 42 });
