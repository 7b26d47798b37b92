// toolGateMiddleware under tsc --strict: it goes into createAgent's middleware list,
// typed policies read parsedArguments, and a review UI reads the interrupt value and
// answers with humanInTheLoopMiddleware's decisions.
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { createAgent, tool, type Interrupt } from 'langchain';
import { Command, MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { toolGateMiddleware, type ToolGateResume, type ToolGateReview } from 'tool-argument-snapshot/langchain';

const transfer = tool(async ({ to, cents }) => `sent ${cents} to ${to}`, {
  name: 'transfer',
  schema: z.object({ to: z.string(), cents: z.number().int() }),
});
const lookup = tool(async ({ query }) => `found ${query}`, { name: 'lookup', schema: z.object({ query: z.string() }) });

const middleware = toolGateMiddleware({
  agentName: 'Payments assistant',
  tools: [transfer],
  grants: createApprovalGrants({ keys: [{ id: 'k1', secret: 'a secret of at least thirty-two bytes' }] }),
  policy: {
    transfer: (input) => {
      const cents: number = input.parsedArguments.cents;
      const source: 'provider_text' | 'object' | 'edit' = input.argumentsSource;
      void source;
      return { decision: cents > 1000 ? 'require_approval' : 'allow', reason: 'amount' };
    },
  },
  policyContext: () => ({ grantScope: 'user:alice' }),
  allowedDecisions: ['approve', 'reject'],
});
// @ts-expect-error only the three decisions of humanInTheLoopMiddleware
toolGateMiddleware({ agentName: 'a', tools: [transfer], allowedDecisions: ['maybe'] });

export async function run(model: Parameters<typeof createAgent>[0]['model']): Promise<void> {
  const agent = createAgent({ model, tools: [transfer, lookup], middleware: [middleware], checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: 't1' } };
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'pay bob' }] }, config);
  const interrupts = (result.__interrupt__ ?? []) as Interrupt<ToolGateReview>[];
  const resume: Record<string, ToolGateResume> = {};
  for (const { id, value } of interrupts) {
    if (value === undefined || id === undefined) continue;
    const decisions: ToolGateResume['decisions'] = value.actionRequests.map((action, i) =>
      value.reviewConfigs[i].allowedDecisions.includes('approve') && action.name === 'transfer' ? { type: 'approve' } : { type: 'reject', message: 'no' },
    );
    resume[id] = { decisions };
  }
  await agent.invoke(new Command({ resume }), config);
}
