// Compiled with `tsc --strict --noEmit` by __test__/adapters/openai-agents/types.test.js:
// policies typed per tool (issue 17 item 3). Reading `input.parsedArguments` and its fields
// compiles (no TS2589); a map is typed by each tool's schema output; a single function gets
// a union discriminated by `toolName`; `toolCallId` is a string.
import { Agent, run, type RunContext } from '@openai/agents';
import { ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import * as z3 from 'zod3';
import { createApprovalGrants, type ToolPolicyResult } from 'tool-argument-snapshot';
import {
  createOpenAIAgentsGate,
  CARRIER_KEY,
  type OpenAIAgentsPolicyInput,
  type PendingApproval,
} from 'tool-argument-snapshot/openai-agents';

const Transfer = z.object({ to: z.string(), cents: z.number().int(), memo: z.string().optional() });
const Lookup = z3.object({ query: z3.string(), limit: z3.number().default(10) });
type Tools = { transfer: typeof Transfer; lookup: typeof Lookup };
type Ctx = { userId: string };

// A map: each policy typed by its own tool.
const byTool = createOpenAIAgentsGate<Tools, Ctx>({
  agentName: 'Payments',
  grants: createApprovalGrants(),
  grantScope: (runContext) => `user:${runContext.context.userId}`,
  policy: {
    transfer: (input) => {
      const cents: number = input.parsedArguments.cents;
      const memo: string | undefined = input.parsedArguments.memo;
      const name: 'transfer' = input.toolName;
      const id: string = input.toolCallId;
      const user: string = input.runContext.context.userId;
      // @ts-expect-error a transfer has no query
      void input.parsedArguments.query;
      // @ts-expect-error the policy's view is read-only
      input.parsedArguments.cents = 1;
      void memo, name, id, user;
      return cents <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
    },
    lookup: (input) => {
      const limit: number = input.parsedArguments.limit; // zod 3's output type: the default applied
      return { decision: limit <= 50 ? 'allow' : 'deny', reason: input.parsedArguments.query };
    },
  },
});

// One function: a union discriminated by toolName.
function policy(input: OpenAIAgentsPolicyInput<Tools>): ToolPolicyResult {
  if (input.toolName === 'transfer') {
    const cents: number = input.parsedArguments.cents;
    return { decision: cents < 10 ? 'allow' : 'deny', reason: 'by amount' };
  }
  const query: string = input.parsedArguments.query;
  // @ts-expect-error a lookup has no cents
  void input.parsedArguments.cents;
  return { decision: 'allow', reason: query };
}
const single = createOpenAIAgentsGate<Tools>({ agentName: 'Payments', policy });

// Without declared schemas: read-only JSON, narrowed to be read (and no TS2589).
const untyped = createOpenAIAgentsGate({
  agentName: 'Payments',
  policy: (input) => {
    const args = input.parsedArguments;
    const callId: string = input.callId;
    void callId;
    if (typeof args === 'object' && args !== null && !Array.isArray(args) && 'cents' in args) {
      const cents = (args as { readonly cents: unknown }).cents;
      if (typeof cents === 'number' && cents <= 100) return { decision: 'allow', reason: 'small' };
    }
    // @ts-expect-error a JSON value must be narrowed before its fields are read
    void input.parsedArguments.cents;
    return { decision: 'require_approval', reason: 'review' };
  },
});

const transfer = byTool.tool({
  name: 'transfer',
  description: 'Send money',
  parameters: Transfer,
  execute: (args, runContext: RunContext<Ctx>) => `sent ${args.cents} for ${runContext.context.userId}`,
});
// A JSON Schema tool: its handler gets the decoded JSON.
const note = untyped.tool({
  name: 'note',
  description: 'Write a note',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  execute: (args) => JSON.stringify(args),
});
const agent = new Agent<Ctx>({ name: 'Payments', model: byTool.model(new ScriptedModel([])), tools: [transfer] });
void note, single;

async function review(): Promise<void> {
  const result = await run(agent, 'pay', { context: { userId: 'alice' } });
  const pending: PendingApproval[] = byTool.pending(result.state);
  for (const { interruption, proposal, sealed } of pending) {
    if (sealed !== undefined) {
      const signature: string = sealed.signature;
      void signature;
    }
    if (proposal !== undefined) {
      const hash: string = proposal.proposalHash;
      const json: string = proposal.argsCanonicalJson;
      void hash, json;
      await byTool.approve(result.state, interruption);
    }
    const again = byTool.proposal(result.state, interruption);
    void again;
  }
  const key: 'tool-argument-snapshot' = CARRIER_KEY;
  void key;
}
void review;

// @ts-expect-error a map entry must be a policy function
createOpenAIAgentsGate<Tools>({ agentName: 'a', policy: { transfer: 'allow' } });
// @ts-expect-error grantScope is a function of the run context
createOpenAIAgentsGate({ agentName: 'a', grantScope: 'user:alice' });
