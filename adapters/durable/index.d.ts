// Types the durable-engine helpers share (tool-argument-snapshot/restate, /temporal,
// /temporal/workflow): the outcome of one attempt inside the engine's step, the approval
// request sent to a reviewer and the answer that comes back.

import type { ToolSet, InferToolInput } from 'ai';
import type {
  ApprovalGrants,
  ExecutionReceipts,
  FromJsonSchemaOptions,
  ProposalFields,
  SealedProposal,
  ToolCallDecision,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/** The proposal an approval request carries: sealed when the grants have a key ring, else the four hashed fields. */
export type RecordedProposal = SealedProposal | ProposalFields;

/** What one attempt of a call answers, as the engine records it (plain JSON). */
export type DurableCallOutcome =
  | { readonly status: 'executed'; readonly result: unknown; readonly replayed?: true }
  | { readonly status: 'denied'; readonly reason: string; readonly decidedBy: string }
  | { readonly status: 'approval_required'; readonly reason: string; readonly proposal: RecordedProposal }
  /** A receipt or a grant says the call must not run: `call_already_executed`, `call_id_conflict`, `outcome_unknown`, `grant_unavailable`, ... */
  | { readonly status: 'refused'; readonly code: string }
  /** Temporal only (Restate's steps throw for it): the provider text failed strict decoding, the schema or the snapshot. */
  | { readonly status: 'invalid'; readonly stage: string; readonly code: string };

/** The reviewer's answer: the proposal the request carried, back, or a refusal. */
export type ReviewerAnswer = { readonly approved: true; readonly proposal: RecordedProposal } | { readonly approved: false; readonly reason?: string };

/** What a policy of a durable gate sees for a call of tool `NAME`. */
export type DurableToolPolicyInputOf<NAME extends string, ARGS, EXTRA> = ToolPolicyInput<ARGS> &
  EXTRA & {
    readonly toolName: NAME;
    readonly argumentsSource: 'provider_text';
    /** The gate's `grantScope`, when it has one. */
    readonly grantScope?: string;
  };

export type DurableToolPolicies<TOOLS extends ToolSet, EXTRA> = {
  [K in keyof TOOLS & string]?: (input: DurableToolPolicyInputOf<K, InferToolInput<TOOLS[K]>, EXTRA>) => ToolPolicyResult | Promise<ToolPolicyResult>;
};

export type DurableToolPolicy<TOOLS extends ToolSet, EXTRA> = (
  input: { [K in keyof TOOLS & string]: DurableToolPolicyInputOf<K, InferToolInput<TOOLS[K]>, EXTRA> }[keyof TOOLS & string],
) => ToolPolicyResult | Promise<ToolPolicyResult>;

/** The options every durable helper reads, as the AI SDK gate reads them. */
export interface DurableGateOptions<TOOLS extends ToolSet, EXTRA> {
  agentName: string;
  /** AI SDK tools with their own `execute` (the side effect). Tools without one pass through. */
  tools: TOOLS;
  /** One function for every tool (a union by `toolName`), or one per tool; combined with the grants' policy as in the AI SDK gate (an approved hash allows a call that needs approval). */
  policy?: DurableToolPolicy<TOOLS, EXTRA> | DurableToolPolicies<TOOLS, EXTRA>;
  /** Grants in the application's store (give a durable store: the receipts default to it). */
  grants?: ApprovalGrants;
  /**
   * Default: the receipts in the grants' own store (`grants.executionReceipts()`), else the
   * process-wide memory receipts. `false`: none (the engine's at-least-once then holds).
   */
  receipts?: ExecutionReceipts | false;
  /** The scope grants are looked up and sealed in (`policyContext.grantScope`). */
  grantScope?: string | null;
  /** Called with every decision, inside the step, before anything executes. */
  onDecision?: (decision: ToolCallDecision, info: { readonly toolCallId: string }) => void | Promise<void>;
  /** For JSON Schema tools the SDK does not validate: the options of `fromJsonSchema`. */
  jsonSchemaOptions?: FromJsonSchemaOptions;
}
