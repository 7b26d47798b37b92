// tool-argument-snapshot/genkit under tsc --strict: policies and handlers typed by each
// tool's schema output (Genkit's zod 3 `z`), the gate given to Genkit's generate as it is.

import { genkit, z } from 'genkit';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createToolGate, type GenkitToolPolicyInput } from 'tool-argument-snapshot/genkit';

const ai = genkit({});
const Transfer = z.object({ to: z.string(), amount: z.number().int().positive() });
const Lookup = z.object({ id: z.string() });

const gate = createToolGate({
  ai,
  agentName: 'payments',
  grants: createApprovalGrants(),
  tools: {
    transfer: { description: 'Send money', inputSchema: Transfer, execute: async ({ to, amount }) => `sent ${amount.toFixed(0)} to ${to.toUpperCase()}` },
    lookup: { description: 'Find a customer', inputSchema: Lookup, execute: ({ id }) => ({ id: id.trim() }) },
  },
  policy: {
    transfer: ({ parsedArguments, toolCallId, resume }) => {
      const amount: number = parsedArguments.amount;
      // @ts-expect-error the policy's view is read-only
      parsedArguments.amount = 1;
      return amount <= 100 && toolCallId !== '' && !resume ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
    },
    // @ts-expect-error the policy of lookup sees its own arguments
    lookup: ({ parsedArguments }) => ({ decision: parsedArguments.amount > 1 ? 'allow' : 'deny', reason: 'x' }),
  },
});

const one = (input: GenkitToolPolicyInput<{ transfer: typeof Transfer; lookup: typeof Lookup }>) =>
  input.toolName === 'transfer' && input.parsedArguments.amount > 10 ? { decision: 'deny' as const, reason: 'big' } : { decision: 'allow' as const, reason: 'ok' };
createToolGate({ agentName: 'p', tools: { transfer: { description: 'x', inputSchema: Transfer, execute: () => 'ok' }, lookup: { description: 'y', inputSchema: Lookup, execute: () => 'ok' } }, policy: one });

async function run() {
  const response = await ai.generate({ prompt: 'pay', tools: [...gate.tools], use: [gate.use({ runId: 'conversation-1' })] });
  for (const waiting of await gate.pending(response.interrupts)) {
    if (waiting.error === undefined) {
      const json: string = waiting.proposal.argsCanonicalJson;
      void json;
    }
  }
  const [interrupt] = response.interrupts;
  if (interrupt) {
    await gate.approve(interrupt);
    await ai.generate({ messages: response.messages, tools: [...gate.tools], use: [gate.use({ runId: 'conversation-1' })], resume: { restart: [gate.toolsByName.transfer.restart(interrupt)] } });
  }
  // @ts-expect-error approve takes an interrupt or { runId, toolCallId }
  await gate.approve({ sessionId: 's' });
}
void run;

// @ts-expect-error tools are required
createToolGate({ agentName: 'p' });
