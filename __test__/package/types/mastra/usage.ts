// Type tests of tool-argument-snapshot/mastra (checked by adapters/mastra/mastra.test.js):
// policies typed per tool (a map) and over a union discriminated by toolName, reading
// parsedArguments and its fields under --strict (no TS2589), the gate's options and results.
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { z } from 'zod';
import { createApprovalGrants, type ReadonlySnapshotValue } from 'tool-argument-snapshot';
import { createToolGate, createTool, type MastraToolPolicyInput } from 'tool-argument-snapshot/mastra';

const pay = createTool({
  id: 'pay',
  description: 'Pays cents to someone',
  inputSchema: z.object({ to: z.string(), cents: z.number().int(), memo: z.string().optional() }),
  execute: async ({ to, cents }) => ({ paid: cents, to }),
});
const search = {
  id: 'search',
  description: 'Searches',
  inputSchema: z.object({ query: z.string(), tags: z.array(z.string()) }),
  execute: async (input: { query: string }) => ({ hits: input.query.length }),
};
const note = { id: 'note', description: 'A note, any JSON', execute: async () => 'ok' };
const tools = { pay, search, note };

// One policy per tool, each typed by its tool's schema output.
const gate = createToolGate({
  agentName: 'billing',
  tools,
  grants: createApprovalGrants(),
  grantScope: ({ requestContext }) => `user:${String(requestContext?.get('user'))}`,
  policy: {
    pay: (input) => {
      const cents: number = input.parsedArguments.cents;
      const to: string = input.parsedArguments.to;
      const memo: string | undefined = input.parsedArguments.memo;
      const id: string = input.toolCallId;
      const run: string = input.runId;
      const name: 'pay' = input.toolName;
      // @ts-expect-error the policy's view is read-only
      input.parsedArguments.cents = 1;
      void [to, memo, id, run, name];
      return cents > 1000 ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' };
    },
    search: ({ parsedArguments }) => {
      const first: string | undefined = parsedArguments.tags[0];
      void first;
      return { decision: 'allow', reason: parsedArguments.query };
    },
    note: ({ parsedArguments }) => {
      // No schema: the decoded JSON, read-only, narrowed before it is read.
      const value: ReadonlySnapshotValue = parsedArguments;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) void value;
      return { decision: 'deny', reason: 'notes are off' };
    },
  },
});

// One function for every tool: a union discriminated by toolName.
const single = (input: MastraToolPolicyInput<typeof tools>) => {
  switch (input.toolName) {
    case 'pay':
      return input.parsedArguments.cents > 1000 ? { decision: 'require_approval' as const, reason: 'large' } : { decision: 'allow' as const, reason: 'small' };
    case 'search':
      return { decision: 'allow' as const, reason: input.parsedArguments.query };
    default:
      return { decision: 'deny' as const, reason: input.toolName };
  }
};
createToolGate({ agentName: 'billing', tools, policy: single });

const agent = new Agent({ id: 'billing', name: 'billing', instructions: 'i', model: gate.model(new MastraLanguageModelV2Mock({})), tools: gate.tools });

async function main() {
  const output = await agent.stream('pay');
  for await (const chunk of output.fullStream) {
    if (chunk.type !== 'tool-call-approval') continue;
    const kept = await gate.keptProposal(chunk);
    if (kept !== undefined) {
      const hash: string = kept.proposalHash;
      void hash;
    }
    await gate.approve({ runId: output.runId, toolCallId: chunk.payload.toolCallId, grantScope: 'user:alice' }, { ttlMs: 60_000 });
    await agent.approveToolCall({ runId: output.runId, toolCallId: chunk.payload.toolCallId });
    await gate.decline({ runId: output.runId, toolCallId: chunk.payload.toolCallId });
  }
}
void main;

// @ts-expect-error agentName is required
createToolGate({ tools });
// @ts-expect-error a policy returns a decision
createToolGate({ agentName: 'a', tools, policy: () => 'allow' });
// @ts-expect-error a map names tools of the gate only by their own arguments
createToolGate({ agentName: 'a', tools, policy: { pay: (input) => ({ decision: 'allow', reason: input.parsedArguments.query }) } });
// @ts-expect-error approve grants options are uses / ttlMs / expiresAt
void gate.approve({ runId: 'r', toolCallId: 'c' }, { forever: true });
createToolGate({
  agentName: 'a',
  tools,
  onDecision: (decision, info) => {
    const source: 'provider_text' | 'history' = info.argumentsSource;
    void source;
    // @ts-expect-error a decision is allow, deny or require_approval
    if (decision.decision === 'maybe') return;
  },
  notExecutedOutput: ({ reason }) => `not run: ${reason}`,
  invalidInputOutput: (error) => `invalid at ${error.stage}: ${error.code}`,
});
