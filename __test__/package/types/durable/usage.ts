// The declarations of tool-argument-snapshot/restate, /temporal and /temporal/workflow under
// tsc --strict: ordinary usage type-checks; misuse is an error (@ts-expect-error).
import { tool } from 'ai';
import { z } from 'zod';
import { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore } from 'tool-argument-snapshot';
import { createRestateToolGate, type RestateApprovalRequest, type DurableCallOutcome } from 'tool-argument-snapshot/restate';
import { createToolActivities, type ToolActivities } from 'tool-argument-snapshot/temporal';
import { createWorkflowToolGate, type ReviewerAnswer } from 'tool-argument-snapshot/temporal/workflow';

const store = createSqliteGrantStore({ path: ':memory:' });
const grants = createApprovalGrants({ store });
const tools = {
  transfer: tool({ inputSchema: z.object({ to: z.string(), cents: z.number() }), execute: async ({ to, cents }) => `sent ${cents} to ${to}` }),
};
declare const ctx: { run: (name: string, action: () => Promise<unknown>) => Promise<any>; awakeable: () => { id: string; promise: Promise<unknown> }; request(): { readonly id: string } };

const restateGate = createRestateToolGate(ctx, {
  agentName: 'payments',
  tools,
  grants,
  receipts: createExecutionReceipts({ store, keepResults: true }),
  policy: {
    transfer: (input) => (input.parsedArguments.cents <= 1000 ? { decision: 'allow', reason: `small, ${input.toolCallId}` } : { decision: 'require_approval', reason: 'large' }),
  },
  approvals: { request: (request: RestateApprovalRequest) => { void request.awakeableId; void request.proposal.proposalHash; } },
});
const invocation: string = restateGate.invocationId;
void restateGate.tools.transfer;

// @ts-expect-error the schema's cents is a number
createRestateToolGate(ctx, { agentName: 'a', tools, policy: { transfer: (input) => ({ decision: 'allow', reason: input.parsedArguments.cents.toUpperCase() }) } });
// @ts-expect-error a policy for a tool the gate does not have
createRestateToolGate(ctx, { agentName: 'a', tools, policy: { refund: () => ({ decision: 'allow', reason: 'x' }) } });
// @ts-expect-error approvals.request is a function
createRestateToolGate(ctx, { agentName: 'a', tools, approvals: { request: 'mail' } });

const activities: ToolActivities = createToolActivities({
  agentName: 'payments',
  tools,
  grants,
  policy: (input) => ({ decision: 'allow', reason: `${input.toolName} ${input.providerToolCallId ?? 'none'}` }),
});
async function outcome(): Promise<string> {
  const result: DurableCallOutcome = await activities.runToolCall({ toolName: 'transfer', toolCallId: 'c1', rawArguments: '{}' });
  switch (result.status) {
    case 'executed': return String(result.result);
    case 'approval_required': return result.proposal.argsCanonicalJson;
    case 'denied': return result.reason;
    case 'refused': return result.code;
    case 'invalid': return `${result.stage}/${result.code}`;
  }
}
// @ts-expect-error rawArguments is the provider's text
void activities.runToolCall({ toolName: 'transfer', toolCallId: 'c1', rawArguments: { to: 'bob' } });

const workflowGate = createWorkflowToolGate({
  tools: { transfer: tool({ inputSchema: z.object({ to: z.string(), cents: z.number() }) }) },
  runToolCall: activities.runToolCall,
  grantToolCall: activities.grantToolCall,
  approval: async (request): Promise<ReviewerAnswer> => ({ approved: true, proposal: request.proposal }),
});
void workflowGate.tools.transfer;
// @ts-expect-error an approved answer carries the proposal back
createWorkflowToolGate({ tools, runToolCall: activities.runToolCall, grantToolCall: activities.grantToolCall, approval: async () => ({ approved: true }) });
void invocation;
void outcome;
