// Compiled with `tsc --strict --noEmit` by __test__/adapters/openai-agents/openai-agents.test.js: the
// declarations of tool-argument-snapshot/openai-agents accept ordinary usage and reject misuse.
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { Agent, run } from '@openai/agents';
import { ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createOpenAIAgentsGate, type OpenAIAgentsProposal, type PendingApproval } from 'tool-argument-snapshot/openai-agents';

const Transfer = z.object({ to: z.string(), cents: z.number().int(), memo: z.string().optional() });
const gate = createOpenAIAgentsGate({
  agentName: 'Payments',
  grants: createApprovalGrants(),
  policy: (input) => {
    const hash: string = input.proposalHash;
    const callId: string = input.callId;
    void hash, callId, input.runContext.context;
    return input.proposalHash ? { decision: 'allow', reason: 'ok' } : { decision: 'require_approval', reason: 'review' };
  },
  onDecision: (decision) => {
    const by: 'policy' | 'runtime' = decision.decidedBy;
    void by;
  },
});

const transfer = gate.tool({
  name: 'transfer',
  description: 'Send money',
  parameters: Transfer,
  execute: (args) => {
    const cents: number = args.cents;
    const memo: string | undefined = args.memo;
    // @ts-expect-error the handler's arguments are the schema's output
    const wrong: string = args.cents;
    void memo, wrong;
    return `sent ${cents}`;
  },
});
const agent = new Agent({ name: 'Payments', model: gate.model(new ScriptedModel([])), tools: [transfer] });

async function resume(): Promise<void> {
  const result = await run(agent, 'pay');
  const pending: PendingApproval[] = gate.pending(result.state);
  for (const { interruption, proposal } of pending) {
    const shown: OpenAIAgentsProposal | undefined = proposal;
    if (shown !== undefined) await gate.approve(result.state, interruption, shown);
  }
  await run(agent, result.state);
}
void resume;

// @ts-expect-error agentName is required
createOpenAIAgentsGate({ policy: () => ({ decision: 'allow', reason: 'ok' }) });
// @ts-expect-error a policy must return a decision and a reason
createOpenAIAgentsGate({ agentName: 'a', policy: () => ({ decision: 'maybe' }) });
// @ts-expect-error the policy decides: no needsApproval on a gated tool
gate.tool({ name: 't', description: 'd', parameters: Transfer, needsApproval: true, execute: () => 'x' });
// @ts-expect-error model() takes a Model
gate.model('gpt-4.1');
