// Typed policies of tool-argument-snapshot/ai under --strict (issue 17 item 3): a single
// policy reads parsedArguments through a union discriminated by toolName, a policy map is
// typed per tool, and no TS2589 anywhere (checked by adapters/ai/approvals.test.js).
import { tool, jsonSchema, isToolUIPart, type UIMessage } from 'ai';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createToolGate, type AIToolPolicyInput, type AIToolPolicyInputOf } from 'tool-argument-snapshot/ai';

const tools = {
  transfer: tool({
    inputSchema: z.object({ to: z.string(), cents: z.number().int() }),
    execute: async ({ to, cents }) => `sent ${cents} to ${to}`,
  }),
  note: tool({
    inputSchema: z3.object({ text: z3.string(), tags: z3.array(z3.string()).optional() }),
    execute: async ({ text }) => text,
  }),
  raw: tool({
    inputSchema: jsonSchema<{ id: number }>({ type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }),
    execute: async ({ id }) => id,
  }),
  untyped: tool({
    inputSchema: jsonSchema({ type: 'object' }),
    execute: async () => 'ok',
  }),
};

// One function: a union discriminated by toolName, each parsedArguments typed.
createToolGate({
  agentName: 'a',
  tools,
  policy: (input) => {
    const id: string = input.toolCallId;
    void id;
    if (input.toolName === 'transfer') {
      const cents: number = input.parsedArguments.cents;
      const to: string = input.parsedArguments.to;
      // @ts-expect-error parsedArguments is a read-only view
      input.parsedArguments.cents = 1;
      return cents > 1000 ? { decision: 'require_approval', reason: `large to ${to}` } : { decision: 'allow', reason: 'small' };
    }
    if (input.toolName === 'note') {
      const text: string = input.parsedArguments.text;
      const tags: readonly string[] | undefined = input.parsedArguments.tags;
      void tags;
      return { decision: 'allow', reason: text };
    }
    if (input.toolName === 'raw') {
      const n: number = input.parsedArguments.id;
      return { decision: n > 0 ? 'allow' : 'deny', reason: 'id' };
    }
    // Without a typed schema: unknown, to be narrowed.
    const value: unknown = input.parsedArguments;
    if (typeof value === 'object' && value !== null && 'x' in value) return { decision: 'deny', reason: 'x' };
    return { decision: 'deny', reason: input.toolName };
  },
});

// A map: each policy typed by its own tool.
createToolGate({
  agentName: 'a',
  tools,
  grants: createApprovalGrants(),
  runId: 'chat-1',
  grantScope: 'user:alice',
  proposalTtlMs: 60_000,
  policy: {
    transfer: (input) => {
      const name: 'transfer' = input.toolName;
      void name;
      return input.parsedArguments.cents > 1000 ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' };
    },
    note: async (input) => ({ decision: 'allow', reason: input.parsedArguments.text }),
  },
});

createToolGate({
  agentName: 'a',
  tools,
  policy: {
    // @ts-expect-error the transfer tool has no field `amount`
    transfer: (input) => ({ decision: 'allow', reason: String(input.parsedArguments.amount) }),
  },
});

createToolGate({
  agentName: 'a',
  tools,
  // @ts-expect-error not a tool of the gate
  policy: { refund: () => ({ decision: 'allow', reason: 'x' }) },
});

// A policy written apart, reading parsedArguments (the TS2589 case).
function apart(input: AIToolPolicyInput<typeof tools>) {
  if (input.toolName !== 'transfer') return { decision: 'deny' as const, reason: 'other' };
  const cents: number = input.parsedArguments.cents;
  return { decision: 'allow' as const, reason: `cents ${cents}` };
}
createToolGate({ agentName: 'a', tools, policy: apart });

// The default input (any tool set) reads parsedArguments without TS2589 too.
function generic(input: AIToolPolicyInput) {
  const args = input.parsedArguments;
  void args;
  const source: 'provider_text' | 'history' = input.argumentsSource;
  return { decision: 'allow' as const, reason: source };
}
createToolGate({ agentName: 'a', tools, policy: generic });

const one: AIToolPolicyInputOf<'transfer', { to: string; cents: number }> | undefined = undefined;
void one;

async function approvals() {
  const gate = createToolGate({ agentName: 'a', tools, runId: 'chat-1' });
  const response = await gate.approve({ approvalId: 'ap-1', toolCallId: 'call-1' });
  const approved: true = response.approved;
  void approved;
  const declined = await gate.decline({ type: 'tool-transfer', toolCallId: 'call-2', approval: { id: 'ap-2' } }, 'too much');
  const no: false = declined.approved;
  void no;
  const kept = await gate.keptProposal({ approvalId: 'ap-1', toolCallId: 'call-1' });
  if (kept !== undefined) {
    const json: string = kept.argsCanonicalJson;
    void json;
  }
  const runId: string = gate.runId;
  void runId;
  // @ts-expect-error an approval request names its approval id
  void gate.approve({ toolCallId: 'call-1' });
  // useChat: the UI parts the browser answered.
  const messages: UIMessage[] = [];
  for (const part of messages.at(-1)?.parts ?? []) {
    if (isToolUIPart(part) && part.state === 'approval-responded' && part.approval.approved) await gate.approve(part);
  }
}
void approvals;
