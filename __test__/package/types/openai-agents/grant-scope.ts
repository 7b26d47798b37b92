// Compiled with `tsc --strict --noEmit` (as .ts by adapters/openai-agents/openai-agents.test.js, as a .cts
// and a .mts copy by package/types.test.js): the gate's run context type reaches grantScope, runId
// and the policy without a cast (issue 26 item 4). A field the context does not have fails to
// compile (each @ts-expect-error line must be an error); the right one compiles.
import { Agent, type RunContext } from '@openai/agents';
import { z } from 'zod';
import { createApprovalGrants, createExecutionReceipts } from 'tool-argument-snapshot';
import { createOpenAIAgentsGate, type OpenAIAgentsToolSchemas } from 'tool-argument-snapshot/openai-agents';

type Ctx = { userId: string; threadId: string };
const Transfer = z.object({ to: z.string(), cents: z.number().int() });

// The context as the gate's second type argument.
const typed = createOpenAIAgentsGate<{ transfer: typeof Transfer }, Ctx>({
  agentName: 'Payments',
  grants: createApprovalGrants(),
  receipts: createExecutionReceipts(),
  grantScope: (runContext) => `user:${runContext.context.userId}`,
  runId: (runContext) => runContext.context.threadId,
  policy: { transfer: (input) => ({ decision: input.runContext.context.userId === 'alice' ? 'allow' : 'deny', reason: 'by user' }) },
});

// Only the context typed (any tool, any JSON).
createOpenAIAgentsGate<OpenAIAgentsToolSchemas, Ctx>({
  agentName: 'Payments',
  grantScope: (runContext) => {
    const user: string = runContext.context.userId;
    return `user:${user}`;
  },
});

// Inferred from an annotated grantScope: the policy gets the same context type.
createOpenAIAgentsGate({
  agentName: 'Payments',
  grantScope: (runContext: RunContext<Ctx>) => `user:${runContext.context.userId}`,
  policy: (input) => ({ decision: 'allow', reason: input.runContext.context.threadId }),
});

createOpenAIAgentsGate<OpenAIAgentsToolSchemas, Ctx>({
  agentName: 'Payments',
  // @ts-expect-error the context has no userID (a typo of userId)
  grantScope: (runContext) => `user:${runContext.context.userID}`,
});

createOpenAIAgentsGate<OpenAIAgentsToolSchemas, Ctx>({
  agentName: 'Payments',
  // @ts-expect-error a grant scope is a string, not the context's object
  grantScope: (runContext) => runContext.context,
});

createOpenAIAgentsGate<OpenAIAgentsToolSchemas, Ctx>({
  agentName: 'Payments',
  // @ts-expect-error the context has no thread (runId reads threadId)
  runId: (runContext) => runContext.context.thread,
});

createOpenAIAgentsGate({
  agentName: 'Payments',
  // @ts-expect-error receipts are an ExecutionReceipts object or false, never true
  receipts: true,
});

// Without a context type the context is unknown: a field cannot be read unnarrowed.
createOpenAIAgentsGate({
  agentName: 'Payments',
  // @ts-expect-error runContext.context is unknown when the gate is given no context type
  grantScope: (runContext) => `user:${runContext.context.userId}`,
});

const transfer = typed.tool({
  name: 'transfer',
  description: 'Send money',
  parameters: Transfer,
  execute: (args, runContext) => `sent ${args.cents} for ${runContext.context.userId}`,
});
void new Agent<Ctx>({ name: 'Payments', tools: [transfer] });

// What pending reports for a carried proposal that does not verify.
declare const pending: ReturnType<typeof typed.pending>;
for (const item of pending) {
  if (item.invalid !== undefined) {
    const name: 'ApprovalGrantError' | 'SnapshotDomainError' = item.invalid.name;
    const code: string = item.invalid.code;
    void name, code;
  }
}
