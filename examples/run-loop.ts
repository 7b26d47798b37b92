// A tool-calling run loop shaped like aioc's src/run.ts, adopting RFC-0016 with
// tool-argument-snapshot in three steps: prepare (strict decode, the schema once, the
// snapshot), evaluate (policy on its own view; the runtime's checks), record the decision
// (aioc's policy-decision event and run-record entry), then execute (a new view, only for
// an allow, once). Suspended proposals reuse the evaluated fingerprint; approvals are
// bound to the proposal hash.
//
// Nothing here needs a cast, compares a reason string, or relies on an `if` to stay
// fail-closed: the handler is typed from the schema's output, and executeToolCall itself
// refuses anything but a fresh allow that evaluateToolCall made.
//
// Type-checked and run by __test__/docs/examples.test.js (tsc, then node); `main()` returns
// the log of decisions.
import { z } from 'zod';
import {
  evaluateToolCall,
  executeToolCall,
  isToolArgumentsValidationError,
  prepareToolCall,
  type SuspendedToolProposal,
  type ToolCallDecision,
  type ToolPolicyInput,
  type ToolPolicyResult,
} from 'tool-argument-snapshot';

// ---- what an agent framework already has -------------------------------------------

interface RunContext {
  userId: string;
  approvedHashes: Set<string>;
}

/** A tool: its zod 4 schema (output type Args), and a handler typed by that output. */
interface ToolDefinition<Args> {
  name: string;
  parameters: z.ZodType<Args>;
  execute(args: Args, context: RunContext): Promise<unknown>;
}

interface PolicyResult extends ToolPolicyResult {
  policyVersion?: string;
}

/** What the run loop adds to the policy input (aioc passes its run context and turn). */
interface PolicyContext {
  runContext: RunContext;
  turn: number;
}

type ToolPolicy<Args> = (input: ToolPolicyInput<Args> & PolicyContext) => PolicyResult | Promise<PolicyResult>;

interface PendingToolCall {
  callId: string;
  name: string;
  arguments: string; // the provider's raw JSON string
}

/** aioc's run record: one entry per policy decision, written before anything executes. */
interface RunRecordEntry {
  callId: string;
  turn: number;
  decision: ToolCallDecision['decision'];
  decidedBy: ToolCallDecision['decidedBy'];
  reason: string;
  proposalHash: string;
}

type ToolCallResult =
  | { status: 'executed'; output: unknown }
  | { status: 'denied'; decidedBy: 'policy' | 'runtime'; reason: string }
  | { status: 'suspended'; proposal: SuspendedToolProposal<unknown> }
  | { status: 'invalid'; stage: string; code: string };

// ---- the run loop's tool step ---------------------------------------------------------

async function runToolStep<Args>(
  agentName: string,
  call: PendingToolCall,
  definition: ToolDefinition<Args>,
  policy: ToolPolicy<Args> | undefined,
  runContext: RunContext,
  turn: number,
  record: RunRecordEntry[],
): Promise<ToolCallResult> {
  let prepared;
  try {
    // 1. Prepare: strict decoding, the schema exactly once, the snapshot, before policy.
    prepared = prepareToolCall({ agentName, toolName: call.name, rawArguments: call.arguments, schema: definition.parameters });
  } catch (error) {
    // Not a policy decision: no policy call, no execution, no proposal.
    if (isToolArgumentsValidationError(error)) return { status: 'invalid', stage: error.stage, code: error.code };
    throw error;
  }

  // 2. Evaluate: policy on its own view. A throwing, mutating or malformed policy, or none
  //    at all, is a deny the runtime decided (decidedBy: 'runtime').
  const policyContext: PolicyContext = { runContext, turn };
  const decision = await evaluateToolCall({ prepared, policy, policyContext });

  // 3. Record: the policy-decision event and the run-record entry, before anything runs.
  record.push({
    callId: call.callId,
    turn,
    decision: decision.decision,
    decidedBy: decision.decidedBy,
    reason: decision.reason,
    proposalHash: decision.proposalHash,
  });

  // 4. Execute, or report. executeToolCall would refuse a deny or an approval by itself
  //    (ToolCallNotAllowedError, nothing runs): this switch only shapes the result.
  switch (decision.decision) {
    case 'allow':
      return { status: 'executed', output: await executeToolCall(decision, (args) => definition.execute(args, runContext)) };
    case 'require_approval':
      return { status: 'suspended', proposal: decision.proposal };
    case 'deny':
      return { status: 'denied', decidedBy: decision.decidedBy, reason: decision.reason };
  }
}

// ---- an application ---------------------------------------------------------------------

const transferSchema = z.object({
  to: z.string().trim().toLowerCase(),
  amountCents: z.coerce.number().int().positive(),
  memo: z.string().default(''),
});

const transfer: ToolDefinition<z.output<typeof transferSchema>> = {
  name: 'transfer_funds',
  parameters: transferSchema,
  // `args` is z.output<typeof transferSchema>: { to: string; amountCents: number; memo: string }.
  async execute(args) {
    return { sent: args.amountCents, to: args.to };
  },
};

const closeSchema = z.object({ accountId: z.string() });
const closeAccount: ToolDefinition<z.output<typeof closeSchema>> = {
  name: 'close_account',
  parameters: closeSchema,
  async execute(args) {
    return { closed: args.accountId };
  },
};

const transferPolicy: ToolPolicy<z.output<typeof transferSchema>> = (input) => {
  // Typed and read-only: input.parsedArguments.amountCents is a number.
  if (input.runContext.approvedHashes.has(input.proposalHash)) return { decision: 'allow', reason: 'approved' };
  if (input.parsedArguments.amountCents <= 10_000) return { decision: 'allow', reason: 'small transfer', policyVersion: 'v3' };
  return { decision: 'require_approval', reason: 'large transfer' };
};

/** One line per call: what happened, and who decided. */
function describe(callId: string, result: ToolCallResult): string {
  switch (result.status) {
    case 'executed':
      return `${callId} executed ${JSON.stringify(result.output)}`;
    case 'denied':
      return `${callId} denied ${result.decidedBy}/${result.reason}`;
    case 'suspended':
      return `${callId} suspended ${result.proposal.reason}`;
    case 'invalid':
      return `${callId} invalid ${result.stage}/${result.code}`;
  }
}

export async function main(): Promise<string[]> {
  const log: string[] = [];
  const record: RunRecordEntry[] = [];
  const runContext: RunContext = { userId: 'u-42', approvedHashes: new Set() };
  const calls: PendingToolCall[] = [
    { callId: 'c1', name: 'transfer_funds', arguments: '{"to":" Alice ","amountCents":"2500"}' },
    { callId: 'c2', name: 'transfer_funds', arguments: '{"to":"bob","amountCents":500000,"memo":"rent"}' },
    { callId: 'c3', name: 'transfer_funds', arguments: '{"to":"bob","amountCents":1,"amountCents":2}' },
  ];
  for (const call of calls) {
    const result = await runToolStep('Treasurer', call, transfer, transferPolicy, runContext, 1, record);
    log.push(describe(call.callId, result));
    if (result.status === 'suspended') {
      // A reviewer approves exactly this action; the model retries with other spelling,
      // which prepares a new attempt with the same snapshot and hash.
      runContext.approvedHashes.add(result.proposal.proposalHash);
      const retry = { ...call, arguments: '{ "memo": "rent", "amountCents": 500000.0, "to": "BOB" }' };
      log.push(describe(`${call.callId} resumed`, await runToolStep('Treasurer', retry, transfer, transferPolicy, runContext, 2, record)));
    }
  }
  // A tool nobody wrote a policy for: denied by the runtime, with no code for it here.
  const unguarded = { callId: 'c4', name: 'close_account', arguments: '{"accountId":"acct-7"}' };
  log.push(describe(unguarded.callId, await runToolStep('Treasurer', unguarded, closeAccount, undefined, runContext, 1, record)));
  log.push(`record ${record.map((entry) => `${entry.callId}:${entry.decidedBy}:${entry.decision}`).join(' ')}`);
  return log;
}
