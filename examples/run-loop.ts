// A tool-calling run loop shaped like aioc's src/run.ts, adopting RFC-0016 with
// tool-argument-snapshot: decode and snapshot before policy, fresh views for policy and
// handler, mutation deny, suspended proposals that reuse the evaluated fingerprint, and
// approvals bound to the proposal hash.
//
// Type-checked and run by __test__/examples.test.js (tsc, then node); `main()` returns
// the log of decisions.
import { z } from 'zod';
import {
  authorizeToolCall,
  prepareToolCall,
  ToolArgumentsValidationError,
  type SnapshotValue,
  type SuspendedToolProposal,
  type ToolPolicyInput,
} from 'tool-argument-snapshot';

// ---- what an agent framework already has -------------------------------------------

interface ToolDefinition<Args> {
  name: string;
  parameters: z.ZodType<Args, unknown>;
  execute(args: Args, context: RunContext): Promise<unknown>;
}

interface RunContext {
  userId: string;
  approvedHashes: Set<string>;
}

interface PolicyResult {
  decision: 'allow' | 'deny' | 'require_approval';
  reason: string;
  policyVersion?: string;
}

type ToolPolicy = (input: ToolPolicyInput & { runContext: RunContext; turn: number }) => PolicyResult | Promise<PolicyResult>;

interface PendingToolCall {
  callId: string;
  name: string;
  arguments: string; // the provider's raw JSON string
}

type ToolCallResult =
  | { status: 'executed'; output: unknown }
  | { status: 'denied'; reason: string }
  | { status: 'suspended'; proposal: SuspendedToolProposal }
  | { status: 'invalid'; stage: string; code: string };

// ---- the run loop's tool step ---------------------------------------------------------

async function executeToolCall<Args>(
  agentName: string,
  call: PendingToolCall,
  definition: ToolDefinition<Args>,
  policy: ToolPolicy,
  runContext: RunContext,
  turn: number,
): Promise<ToolCallResult> {
  let prepared;
  try {
    // Strict decoding, the schema exactly once, the snapshot: all before policy.
    prepared = prepareToolCall({
      agentName,
      toolName: call.name,
      rawArguments: call.arguments,
      schema: definition.parameters,
    });
  } catch (error) {
    // Not a policy decision: no policy call, no execution, no proposal.
    if (error instanceof ToolArgumentsValidationError) return { status: 'invalid', stage: error.stage, code: error.code };
    throw error;
  }

  const outcome = await authorizeToolCall({
    prepared,
    policy: (input) => policy(input as ToolPolicyInput & { runContext: RunContext; turn: number }),
    policyContext: { runContext, turn },
    // A new decoded view of the snapshot. The schema already ran; the handler gets the
    // authorized value, typed as the schema's output because it is that value, decoded.
    execute: (args: SnapshotValue) => definition.execute(args as Args, runContext),
  });

  switch (outcome.decision) {
    case 'allow':
      return { status: 'executed', output: outcome.result };
    case 'require_approval':
      return { status: 'suspended', proposal: outcome.proposal };
    default:
      return { status: 'denied', reason: outcome.reason };
  }
}

// ---- an application ---------------------------------------------------------------------

const transfer: ToolDefinition<{ to: string; amountCents: number; memo: string }> = {
  name: 'transfer_funds',
  parameters: z.object({
    to: z.string().trim().toLowerCase(),
    amountCents: z.coerce.number().int().positive(),
    memo: z.string().default(''),
  }),
  async execute(args) {
    return { sent: args.amountCents, to: args.to };
  },
};

const policy: ToolPolicy = (input) => {
  const args = input.parsedArguments as { amountCents: number };
  if (input.runContext.approvedHashes.has(input.proposalHash)) return { decision: 'allow', reason: 'approved' };
  if (args.amountCents <= 10_000) return { decision: 'allow', reason: 'small transfer', policyVersion: 'v3' };
  return { decision: 'require_approval', reason: 'large transfer' };
};

export async function main(): Promise<string[]> {
  const log: string[] = [];
  const runContext: RunContext = { userId: 'u-42', approvedHashes: new Set() };
  const calls: PendingToolCall[] = [
    { callId: 'c1', name: 'transfer_funds', arguments: '{"to":" Alice ","amountCents":"2500"}' },
    { callId: 'c2', name: 'transfer_funds', arguments: '{"to":"bob","amountCents":500000,"memo":"rent"}' },
    { callId: 'c3', name: 'transfer_funds', arguments: '{"to":"bob","amountCents":1,"amountCents":2}' },
  ];
  for (const call of calls) {
    const result = await executeToolCall('Treasurer', call, transfer, policy, runContext, 1);
    log.push(`${call.callId} ${result.status}${'reason' in result ? ` ${result.reason}` : ''}${'code' in result ? ` ${result.stage}/${result.code}` : ''}`);
    if (result.status === 'suspended') {
      // A reviewer approves exactly this action; the model retries with other spelling.
      runContext.approvedHashes.add(result.proposal.proposalHash);
      const retry = { ...call, arguments: '{ "memo": "rent", "amountCents": 500000.0, "to": "BOB" }' };
      const resumed = await executeToolCall('Treasurer', retry, transfer, policy, runContext, 2);
      log.push(`${call.callId} resumed ${resumed.status}${resumed.status === 'executed' ? ` ${JSON.stringify(resumed.output)}` : ''}`);
    }
  }
  return log;
}
