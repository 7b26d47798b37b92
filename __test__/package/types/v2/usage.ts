// Compiled with `tsc --strict --noEmit` by __test__/package/types.test.js: the run-loop contract
// v2 types. The schema's output type reaches the prepared call, the policy input (deeply
// read-only), the decision and the handler with no cast; decisions are discriminated by
// decidedBy; error codes are string-literal unions. Every @ts-expect-error line must fail
// to compile (tsc reports an unused @ts-expect-error otherwise).
import * as z4 from 'zod';
import * as z3 from 'zod3';
import * as v from 'valibot';
import { type } from 'arktype';
import {
  authorizeToolCall,
  evaluateToolCall,
  executeToolCall,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  prepareToolCall,
  prepareToolCallAsync,
  RUNTIME_REASONS,
  verifySnapshot,
  type PreparedToolCall,
  type RuntimeReason,
  type ExecutionReceiptCode,
  type SnapshotValue,
  type ToolArgumentSnapshot,
  type ToolCallDecision,
  type ToolPolicyInput,
} from '../../../..';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}

const base = { agentName: 'ops', toolName: 'deploy', rawArguments: '{"service":"api","replicas":"3"}' };

// zod 4: z.output (the coerced number, the default), not z.input.
const deploy4 = z4.object({ service: z4.string(), replicas: z4.coerce.number(), region: z4.string().default('eu') });
const prepared4 = prepareToolCall({ ...base, schema: deploy4 });
assertType<Equal<typeof prepared4, PreparedToolCall<{ service: string; replicas: number; region: string }>>>();

// zod 3: z.output through a transform.
const deploy3 = z3.object({ service: z3.string().transform((s) => s.length), replicas: z3.number() });
const prepared3 = prepareToolCall({ ...base, schema: deploy3 });
assertType<Equal<typeof prepared3, PreparedToolCall<{ service: number; replicas: number }>>>();

// Standard Schema InferOutput: valibot and arktype.
const deployV = v.object({ service: v.string(), replicas: v.pipe(v.string(), v.transform(Number)) });
const preparedV = prepareToolCall({ ...base, schema: deployV });
assertType<Equal<typeof preparedV, PreparedToolCall<{ service: string; replicas: number }>>>();
const deployA = type({ service: 'string', replicas: 'number' });
const preparedA = prepareToolCall({ ...base, schema: deployA });
assertType<Equal<typeof preparedA, PreparedToolCall<{ service: string; replicas: number }>>>();

// A function's return type; no schema: the decoded JSON.
const preparedF = prepareToolCall({ ...base, schema: (value: unknown) => ({ checked: value !== null }) });
assertType<Equal<typeof preparedF, PreparedToolCall<{ checked: boolean }>>>();
const preparedNone = prepareToolCall(base);
assertType<Equal<typeof preparedNone, PreparedToolCall<SnapshotValue>>>();

// @ts-expect-error a schema must be a function, a parse object or a Standard Schema
prepareToolCall({ ...base, schema: 'deploy' });
// @ts-expect-error rawArguments is the provider's string
prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: { service: 'api' } });

async function threeSteps(): Promise<void> {
  // prepareToolCallAsync: the awaited output type.
  const preparedAsync = await prepareToolCallAsync({ ...base, schema: async (value: unknown) => ({ ok: value !== null }) });
  assertType<Equal<typeof preparedAsync, PreparedToolCall<{ ok: boolean }>>>();

  const decision = await evaluateToolCall({
    prepared: prepared4,
    policy: (input) => {
      // The policy input carries the schema output, deeply read-only.
      const replicas: number = input.parsedArguments.replicas;
      // @ts-expect-error parsedArguments is read-only
      input.parsedArguments.replicas = 100;
      // @ts-expect-error and so is every member below it
      input.parsedArguments = { service: 'x', replicas: 1, region: 'eu' };
      return replicas > 10 ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' };
    },
    policyContext: { turn: 1 },
  });

  // Discriminated by decidedBy: under 'runtime' the reason is one of the five, exhaustively.
  if (decision.decidedBy === 'runtime') {
    const reason: RuntimeReason = decision.reason;
    switch (reason) {
      case 'policy_mutated_arguments':
      case 'policy_error':
      case 'invalid_policy_result':
      case 'policy_not_configured':
      case 'grant_store_unavailable':
        break;
      default: {
        const unreachable: never = reason;
        void unreachable;
      }
    }
    // @ts-expect-error a runtime decision is always a deny
    const allowed: 'allow' = decision.decision;
    void reason, allowed;
  } else if (decision.decision === 'require_approval') {
    const replicas: number = decision.proposal.parsedArguments.replicas;
    void replicas;
  } else {
    const policyReason: string = decision.reason;
    void policyReason;
  }

  // The handler's argument is the schema's output: no cast.
  const result = await executeToolCall(decision, (args) => `${args.service} x${args.replicas.toFixed(0)} in ${args.region}`);
  assertType<Equal<typeof result, string>>();
  // @ts-expect-error the handler's argument type must match the schema output
  await executeToolCall(decision, (args: { service: number }) => args.service);
  // @ts-expect-error a field the schema does not have
  await executeToolCall(decision, (args) => args.missing);
  // @ts-expect-error only decisions are executed
  await executeToolCall({ decision: 'allow', reason: 'forged' }, () => 1);

  const generic: ToolCallDecision<{ a: number }> = await evaluateToolCall({ prepared: prepareToolCall({ ...base, schema: (x: unknown) => ({ a: Number(x) }) }) });
  const runtimeOnly: readonly RuntimeReason[] = RUNTIME_REASONS;
  void generic, runtimeOnly;

  // @ts-expect-error a policy reason must be a string
  await evaluateToolCall({ prepared: prepared4, policy: () => ({ decision: 'allow', reason: 1 }) });

  // policyContext fields reach the policy input with their types.
  await evaluateToolCall({
    prepared: prepared4,
    policyContext: { turn: 2, user: 'u-1' },
    policy: (input) => ({ decision: 'deny', reason: `${input.turn.toFixed(0)} ${input.user.toUpperCase()} ${input.parsedArguments.service}` }),
  });
  await evaluateToolCall({
    prepared: prepared4,
    policyContext: { turn: 2 },
    // @ts-expect-error turn is a number
    policy: (input) => ({ decision: 'deny', reason: input.turn.toUpperCase() }),
  });

  // The grants hook.
  await executeToolCall(decision, () => 1, { grants: { spend: async () => true } });
  // @ts-expect-error spend returns a boolean
  await executeToolCall(decision, () => 1, { grants: { spend: () => 'yes' } });

  // authorizeToolCall: the same types, and the outcome has decidedBy.
  const outcome = await authorizeToolCall({ prepared: prepared3, policy: () => ({ decision: 'allow', reason: 'ok' }), execute: (args) => args.service + args.replicas });
  if (outcome.decision === 'allow') {
    const sum: number = outcome.result;
    void sum;
  } else if (outcome.decidedBy === 'runtime') {
    const reason: RuntimeReason | 'grant_unavailable' | ExecutionReceiptCode = outcome.reason;
    void reason;
  }
}

function policyOf(input: ToolPolicyInput<{ amount: number }>): void {
  const amount: number = input.parsedArguments.amount;
  void amount;
}

// Stored snapshots and error codes.
function errors(error: unknown, stored: unknown): void {
  const snapshot: ToolArgumentSnapshot = verifySnapshot(stored);
  void snapshot;
  if (isSnapshotDomainError(error)) {
    const code: 'not_canonical' | 'hash_mismatch' | 'not_a_snapshot' | 'negative_zero' | (string & {}) = error.code;
    // @ts-expect-error a SnapshotDomainError never has async_schema
    const impossible: 'async_schema' = error.code;
    void code, impossible;
  }
  if (isToolArgumentsValidationError(error)) {
    if (error.code === 'schema_error') {
      const count: number | undefined = error.issueCount;
      const schemaError: unknown = error.getSchemaError();
      void count, schemaError;
    }
    // @ts-expect-error no such code
    const wrong: typeof error.code = 'schema_failed';
    // @ts-expect-error there is no cause
    void error.cause.issues;
    void wrong;
  }
  if (isToolCallNotAllowedError(error)) {
    const code: 'not_allowed' | 'already_executed' | 'not_a_decision' | 'grant_unavailable' | ExecutionReceiptCode = error.code;
    // @ts-expect-error no such code
    const wrong: typeof error.code = 'denied';
    void code, wrong;
  }
}

void threeSteps, policyOf, errors;
