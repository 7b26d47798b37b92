// Policies read `input.parsedArguments` and its fields (issue 17 item 3): no TS2589 with the
// default type argument, with a schema, in a core policy without a schema.
import { z } from 'zod';
import {
  prepareToolCall, evaluateToolCall, authorizeToolCall, createApprovalGrants,
  type ToolPolicyInput, type ToolPolicyResult, type ReadonlySnapshotValue,
} from 'tool-argument-snapshot';

// The default type argument: a read-only JSON value that can be narrowed.
function defaultPolicy(input: ToolPolicyInput): ToolPolicyResult {
  const args = input.parsedArguments;
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const record = args as { readonly [key: string]: ReadonlySnapshotValue };
    const amount = record.amount;
    if (typeof amount === 'number' && amount > 100) return { decision: 'require_approval', reason: 'large' };
    // @ts-expect-error the view is read-only
    record.amount = 1;
  }
  return { decision: 'allow', reason: 'ok' };
}

async function withoutSchema(raw: string) {
  const prepared = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: raw });
  const decision = await evaluateToolCall({
    prepared,
    policy: (input) => {
      const args = input.parsedArguments;
      if (args !== null && typeof args === 'object' && 'amount' in args) return { decision: 'deny', reason: 'has amount' };
      return defaultPolicy(input);
    },
  });
  return decision.decision;
}

async function withSchema(raw: string) {
  const schema = z.object({ amount: z.number(), to: z.string(), tags: z.array(z.string()).optional() });
  const prepared = prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: raw, schema });
  const outcome = await authorizeToolCall({
    prepared,
    policy: (input) => {
      const amount: number = input.parsedArguments.amount;
      const to: string = input.parsedArguments.to;
      const first: string | undefined = input.parsedArguments.tags?.[0];
      // @ts-expect-error read-only
      input.parsedArguments.amount = 2;
      // @ts-expect-error not a field of the schema
      void input.parsedArguments.missing;
      return amount > 10 && to !== first ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' };
    },
    execute: (args) => args.amount,
  });
  return outcome.decision;
}

// The grants policy helper takes the same input.
const grants = createApprovalGrants();
const grantPolicy = grants.policy((input: ToolPolicyInput) => defaultPolicy(input));
void grantPolicy, withoutSchema, withSchema;

// A recursive schema output (a tree) is read without TS2589 too.
type Node = { name: string; children: Node[] };
const tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));
async function recursive(raw: string) {
  const prepared = prepareToolCall({ agentName: 'a', toolName: 'tree', rawArguments: raw, schema: tree });
  const decision = await evaluateToolCall({
    prepared,
    policy: (input) => {
      const name: string = input.parsedArguments.name;
      const grandchild: string | undefined = input.parsedArguments.children[0]?.children[0]?.name;
      return { decision: name === grandchild ? 'deny' : 'allow', reason: 'tree' };
    },
  });
  return decision.decision;
}
void recursive;
