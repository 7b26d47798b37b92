// Type tests of the Mastra gate's receipts option and pending listing (checked by
// adapters/gate/receipts-types.test.js under tsc --strict).
import { Agent } from '@mastra/core/agent';
import { z } from 'zod';
import { createExecutionReceipts, createSqliteGrantStore } from 'tool-argument-snapshot';
import { createToolGate, createTool, type MastraPendingApproval } from 'tool-argument-snapshot/mastra';

const pay = createTool({
  id: 'pay',
  description: 'Pays cents to someone',
  inputSchema: z.object({ to: z.string(), cents: z.number().int() }),
  execute: async ({ to, cents }) => ({ paid: cents, to }),
});

const store = createSqliteGrantStore({ path: 'grants.db' });
const gate = createToolGate({ agentName: 'billing', tools: { pay }, receipts: createExecutionReceipts({ store }) });
createToolGate({ agentName: 'billing', tools: { pay }, receipts: false });
// @ts-expect-error receipts is an ExecutionReceipts object or false
createToolGate({ agentName: 'billing', tools: { pay }, receipts: 'memory' });

export async function review(agent: Agent) {
  const listed: MastraPendingApproval[] = await gate.pending(await agent.listSuspendedRuns());
  await gate.pending([{ runId: 'r1', toolCallId: 'c1' }], { grantScope: 'user:alice' });
  for (const entry of listed) {
    if ('error' in entry) {
      const code: string = entry.error.code;
      void code;
    } else {
      const json: string = entry.proposal.argsCanonicalJson;
      const runId: string = entry.runId;
      void json;
      void runId;
    }
  }
  // @ts-expect-error pending reads suspended runs or approval requests
  await gate.pending('r1');
}
