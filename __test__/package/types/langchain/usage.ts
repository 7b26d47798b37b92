// Compiled with `tsc --strict --noEmit` by __test__/adapters/langchain/langchain.test.js: the
// declarations of tool-argument-snapshot/langchain accept ordinary usage and reject misuse.
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createToolGate, type LangChainToolCallResult, type LangChainToolProposal } from 'tool-argument-snapshot/langchain';

const transfer = tool(async ({ cents }: { cents: number }) => `sent ${cents}`, {
  name: 'transfer',
  schema: z.object({ cents: z.number() }),
});
const grants = createApprovalGrants();
const gate = createToolGate({
  agentName: 'Payments assistant',
  tools: [transfer],
  grants,
  policy: (input) => {
    const source: 'provider_text' | 'object' | 'edit' = input.argumentsSource;
    const id: string = input.toolCallId;
    const hash: string = input.proposalHash;
    const cents: number = input.parsedArguments.cents;
    // @ts-expect-error argumentsSource is 'provider_text', 'object' or 'edit'
    const wrong: 'text' = input.argumentsSource;
    void source, id, hash, wrong;
    return { decision: cents > 1000 ? 'require_approval' : 'allow', reason: 'ok' };
  },
});

// @ts-expect-error a policy must return a decision and a reason
createToolGate({ agentName: 'a', tools: [transfer], policy: () => ({ decision: 'maybe' }) });
// @ts-expect-error agentName is required
createToolGate({ tools: [transfer] });

export async function turn(ai: AIMessage): Promise<ToolMessage[]> {
  const { messages, pending, results } = await gate.run(ai, { toolCallIds: ['call_1'] });
  for (const proposal of pending) {
    const p: LangChainToolProposal = proposal;
    const approved: string = p.argsCanonicalJson;
    const id: string = p.toolCallId;
    const cents: number = proposal.parsedArguments.cents;
    await grants.grant(p);
    void approved, id, cents;
  }
  for (const result of results) describe(result);
  // @ts-expect-error run takes a model message, not text
  await gate.run('pay alice');
  return messages;
}

function describe(result: LangChainToolCallResult): string {
  switch (result.status) {
    case 'executed':
      return result.decision.proposalHash;
    case 'denied':
      return `${result.decidedBy} ${result.reason} ${result.message.content}`;
    case 'pending':
      return result.proposal.proposalHash;
    case 'invalid_input':
      // @ts-expect-error an invalid input has no decision
      void result.decision;
      return `${result.stage} ${result.code} ${result.error.cause.code} ${result.toolCallId ?? '(no id)'}`;
    case 'unknown_tool':
      return result.toolName;
    default: {
      const never: never = result;
      return never;
    }
  }
}
