// Typed policies of tool-argument-snapshot/langchain under tsc --strict: a map
// { [toolName]: policy } typed by each tool's schema output, and one function whose
// input is a union discriminated by toolName; reading parsedArguments needs no cast.
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createToolGate, type LangChainToolProposal } from 'tool-argument-snapshot/langchain';

const transfer = tool(async ({ to, cents }) => `sent ${cents} to ${to}`, {
  name: 'transfer',
  schema: z.object({ to: z.string(), cents: z.number().int() }),
});
const lookup = tool(async ({ query }) => `found ${query}`, {
  name: 'lookup',
  schema: z3.object({ query: z3.string(), limit: z3.number().default(10) }),
});

// A map: each entry gets its own tool's arguments.
const grants = createApprovalGrants();
const mapped = createToolGate({
  agentName: 'Payments assistant',
  tools: [transfer, lookup],
  grants,
  policy: {
    transfer: (input) => {
      const cents: number = input.parsedArguments.cents;
      const to: string = input.parsedArguments.to;
      const name: 'transfer' = input.toolName;
      const id: string = input.toolCallId;
      // @ts-expect-error transfer has no query
      void input.parsedArguments.query;
      // @ts-expect-error the view is read-only
      input.parsedArguments.cents = 1;
      void name, id;
      return cents <= 1000 && to !== 'mallory' ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
    },
    lookup: async (input) => {
      const limit: number = input.parsedArguments.limit;
      return { decision: limit <= 50 ? 'allow' : 'deny', reason: 'limit' };
    },
  },
});

// One function: a union discriminated by toolName.
createToolGate({
  agentName: 'Payments assistant',
  tools: [transfer, lookup],
  policy: (input) => {
    if (input.toolName === 'transfer') {
      const cents: number = input.parsedArguments.cents;
      return { decision: cents > 1000 ? 'require_approval' : 'allow', reason: 'amount' };
    }
    const query: string = input.parsedArguments.query;
    // @ts-expect-error lookup has no cents
    void input.parsedArguments.cents;
    return { decision: 'allow', reason: query };
  },
});

// @ts-expect-error a map entry for a tool the gate does not have
createToolGate({ agentName: 'a', tools: [transfer], policy: { refund: () => ({ decision: 'allow', reason: 'x' }) } });
createToolGate({
  agentName: 'a',
  tools: [transfer],
  policy: {
    // @ts-expect-error an entry reads its own tool's fields only
    transfer: (input) => ({ decision: input.parsedArguments.query ? 'allow' : 'deny', reason: 'x' }),
  },
});

export async function turn(ai: AIMessage, runId: string): Promise<ToolMessage[]> {
  const { messages, pending } = await mapped.run(ai, { runId });
  for (const proposal of pending) {
    if (proposal.toolName === 'transfer') {
      const cents: number = proposal.parsedArguments.cents;
      const id: string = proposal.toolCallId;
      if (cents > 1_000_000) messages.push(mapped.decline(proposal, 'too large'));
      else await mapped.approve(proposal);
      void id;
    }
    const p: LangChainToolProposal = proposal;
    void p;
  }
  for (const kept of await mapped.pending(ai, { runId })) {
    const hash: string = kept.proposalHash;
    const declined: ToolMessage = mapped.decline(kept);
    void hash, declined;
  }
  // @ts-expect-error pending needs a runId
  await mapped.pending(ai);
  return messages;
}

// A JSON-schema tool (an MCP tool, a tool() given a JSON Schema): its arguments are unknown
// to the types, and a policy narrows them.
const raw = tool(async () => 'ok', { name: 'raw', schema: { type: 'object', properties: { cents: { type: 'number' } } } });
// One name per option: the former `jsonSchema` is refused.
// @ts-expect-error the option is jsonSchemaOptions
createToolGate({ agentName: 'a', tools: [raw], jsonSchema: { defaults: true } });
createToolGate({
  agentName: 'a',
  tools: [raw, transfer],
  jsonSchemaOptions: { defaults: true },
  policy: {
    raw: (input) => {
      const args = input.parsedArguments;
      // @ts-expect-error unknown until narrowed
      void args.cents;
      const cents = typeof args === 'object' && args !== null && 'cents' in args && typeof args.cents === 'number' ? args.cents : 0;
      return { decision: cents > 10 ? 'deny' : 'allow', reason: 'json schema' };
    },
  },
});
