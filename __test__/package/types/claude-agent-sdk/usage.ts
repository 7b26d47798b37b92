// tool-argument-snapshot/claude-agent-sdk under tsc --strict: policies typed by each tool's
// schema output (the gate's own tools) and by the SDK's declarations (built-in tools), the
// gate's options given to the SDK's query() as they are, and misuse rejected.

import { z } from 'zod';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { createApprovalGrants, createCedarPolicy } from 'tool-argument-snapshot';
import { createToolGate, type ClaudeToolPolicyInput } from 'tool-argument-snapshot/claude-agent-sdk';

const Transfer = z.object({ to: z.string(), amount: z.number().int().positive() });

const gate = createToolGate({
  agentName: 'payments',
  serverName: 'payments',
  grants: createApprovalGrants(),
  tools: {
    transfer: {
      description: 'Send money',
      inputSchema: Transfer,
      execute: async ({ to, amount }) => `sent ${amount.toFixed(0)} to ${to.toUpperCase()}`,
    },
    lookup: { description: 'Look up a customer', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, execute: (args) => ({ found: args !== null }) },
  },
  policy: {
    transfer: ({ parsedArguments, sessionId, toolCallId }) => {
      const amount: number = parsedArguments.amount;
      const ids: string = sessionId + toolCallId;
      // @ts-expect-error the policy's view is read-only
      parsedArguments.amount = 1;
      return amount <= 100 && ids !== '' ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
    },
    Bash: ({ parsedArguments }) => {
      const command: string = parsedArguments.command;
      return command.startsWith('ls') ? { decision: 'allow', reason: 'read_only' } : { decision: 'deny', reason: 'no_shell' };
    },
    Write: ({ parsedArguments }) => (parsedArguments.file_path.startsWith('/tmp/') ? { decision: 'allow', reason: 'tmp' } : { decision: 'deny', reason: 'outside' }),
    mcp__other__tool: () => ({ decision: 'deny', reason: 'not_ours' }),
  },
  onDecision: (decision, info) => {
    const hash: string = decision.proposalHash;
    const id: string = info.sessionId;
    void hash;
    void id;
  },
});

// One policy for every call: a union discriminated by toolName.
const one = (input: ClaudeToolPolicyInput) => {
  // Any tool may be called: a tool outside the typed ones carries untyped JSON, so narrow it.
  const args = input.parsedArguments;
  if (input.toolName === 'Bash' && args !== null && typeof args === 'object' && 'command' in args && typeof args.command === 'string') {
    return args.command === 'ls' ? { decision: 'allow' as const, reason: 'ok' } : { decision: 'deny' as const, reason: 'no' };
  }
  return { decision: 'require_approval' as const, reason: 'ask' };
};
createToolGate({ agentName: 'ops', policy: one });
createToolGate({ agentName: 'ops', policy: createCedarPolicy({ policies: 'permit(principal, action, resource);', tools: { transfer: Transfer } }) });

async function run(sessionId: string) {
  for await (const message of query({ prompt: 'pay bob', options: gate.queryOptions({ cwd: '/tmp', allowedTools: [...gate.toolNames] }) })) {
    if (message.type === 'result') {
      for (const waiting of await gate.pending(message)) {
        if (waiting.error === undefined) {
          const json: string = waiting.proposal.argsCanonicalJson;
          void json;
          await gate.approve({ sessionId: waiting.sessionId, toolUseId: waiting.toolUseId });
        }
      }
    }
  }
  await gate.decline({ sessionId, toolUseId: 'toolu_1' });
  // @ts-expect-error approve takes the session and tool_use ids
  await gate.approve({ runId: sessionId, toolCallId: 'toolu_1' });
}
void run;

createToolGate({
  agentName: 'payments',
  tools: {
    transfer: {
      description: 'Send money',
      inputSchema: Transfer,
      // @ts-expect-error the handler gets the schema's output type
      execute: async ({ amount }: { amount: string }) => amount,
    },
  },
});

// @ts-expect-error agentName is required
createToolGate({ policy: one });
