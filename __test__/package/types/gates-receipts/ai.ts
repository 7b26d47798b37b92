// Type tests of the AI SDK gate's receipts option and pending listing (checked by
// adapters/gate/receipts-types.test.js under tsc --strict).
import { generateText, tool } from 'ai';
import { z } from 'zod';
import { createApprovalGrants, createExecutionReceipts } from 'tool-argument-snapshot';
import { createToolGate, type AIPendingApproval } from 'tool-argument-snapshot/ai';

declare const model: Parameters<typeof generateText>[0]['model'] & object;

const tools = {
  transfer: tool({
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    execute: async ({ to, cents }) => `sent ${cents} to ${to}`,
  }),
};

const withDefault = createToolGate({ agentName: 'a', tools, runId: 'chat-1', grants: createApprovalGrants() });
const withReceipts = createToolGate({ agentName: 'a', tools, runId: 'chat-1', receipts: createExecutionReceipts({ keepResults: true }) });
const without = createToolGate({ agentName: 'a', tools, receipts: false });
// @ts-expect-error receipts is an ExecutionReceipts object or false
createToolGate({ agentName: 'a', tools, runId: 'chat-1', receipts: true });

export async function review() {
  const result = await generateText({ model: withDefault.model(model as never), tools: withDefault.tools, toolApproval: withDefault.toolApproval, prompt: 'p' });
  const listed: AIPendingApproval[] = await withDefault.pending(result.content);
  for (const entry of listed) {
    if ('error' in entry) {
      const code: string = entry.error.code;
      const name: 'ApprovalGrantError' | 'SnapshotDomainError' = entry.error.name;
      void code;
      void name;
      // @ts-expect-error an entry that does not verify has no proposal
      void entry.proposal;
    } else {
      const json: string = entry.proposal.argsCanonicalJson;
      const toolName: string = entry.toolName;
      void json;
      void toolName;
    }
  }
  await withReceipts.pending(result.responseMessages);
  void without;
}
