// Receipts and review listings of tool-argument-snapshot/langchain under tsc --strict: the
// `receipts` option (a createExecutionReceipts object or false, nothing else), a replayed
// result, and the verified listings with their `refused` entries (a code, no record text).
import { createAgent, tool } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import type { AIMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { createApprovalGrants, createExecutionReceipts } from 'tool-argument-snapshot';
import {
  createToolGate,
  toolGateMiddleware,
  type LangChainRefusedProposal,
  type ToolGatePendingProposal,
  type ToolGateRefusedProposal,
} from 'tool-argument-snapshot/langchain';

const transfer = tool(async ({ to, cents }) => `sent ${cents} to ${to}`, {
  name: 'transfer',
  schema: z.object({ to: z.string(), cents: z.number().int() }),
});
const grants = createApprovalGrants();
const receipts = createExecutionReceipts({ keepResults: true });

const gate = createToolGate({ agentName: 'a', tools: [transfer], grants, receipts, policy: () => ({ decision: 'allow', reason: 'ok' }) });
createToolGate({ agentName: 'a', tools: [transfer], receipts: false });
// @ts-expect-error receipts are a createExecutionReceipts object or false
createToolGate({ agentName: 'a', tools: [transfer], receipts: true });
// @ts-expect-error not a receipts object
toolGateMiddleware({ agentName: 'a', tools: [transfer], receipts: 'memory' });

export async function review(ai: AIMessage): Promise<void> {
  const run = await gate.run(ai, { runId: 'conversation-1' });
  for (const result of run.results) {
    if (result.status === 'executed') {
      const replayed: true | undefined = result.replayed;
      void replayed;
    }
  }
  const listed = await gate.pending(ai, { runId: 'conversation-1' });
  for (const proposal of listed) await gate.approve(proposal);
  const refused: readonly LangChainRefusedProposal[] = listed.refused;
  const code: string = refused[0].code;
  void code;
  // @ts-expect-error a refused entry carries no text of the record
  void refused[0].argsCanonicalJson;
}

const middleware = toolGateMiddleware({ agentName: 'a', tools: [transfer], grants, receipts });

export async function reviewer(model: Parameters<typeof createAgent>[0]['model']): Promise<void> {
  const agent = createAgent({ model, tools: [transfer], middleware: [middleware], checkpointer: new MemorySaver() });
  const state = await agent.graph.getState({ configurable: { thread_id: 't1' } });
  const listed = await middleware.pending(state);
  const first: ToolGatePendingProposal | undefined = listed[0];
  const interruptId: string | undefined = first?.interruptId;
  void interruptId;
  const refused: readonly ToolGateRefusedProposal[] = listed.refused;
  void refused;
  // @ts-expect-error a StateSnapshot, not a message list
  await middleware.pending([]);
}
