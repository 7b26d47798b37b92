// tool-argument-snapshot/openai-agents: RFC-0016 for the OpenAI Agents SDK 0.20.
import type { FunctionTool, Model, RunContext, RunState, RunToolApprovalItem } from '@openai/agents';
import type {
  ApprovalGrants,
  SuspendedToolProposal,
  ToolArgumentsValidationError,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/** The output type of a tool schema: zod 3 and zod 4, a Standard Schema, or a function. */
export type OpenAIAgentsSchemaOutput<S> =
  S extends { _output: infer O } ? O
  : S extends { '~standard': { types?: infer T } } ? (NonNullable<T> extends { output: infer O } ? O : unknown)
  : S extends (value: unknown) => infer R ? Awaited<R>
  : unknown;

/** What the gate adds to the policy input (through `policyContext`). */
export interface OpenAIAgentsPolicyContext {
  /** The SDK's run context of the call (its `context` is the object you passed to `run`). */
  runContext: RunContext<unknown>;
  /** The provider's call id. */
  callId: string | undefined;
}

/** A decision of `evaluateToolCall`, as `onDecision` receives it (frozen). */
export interface OpenAIAgentsDecision {
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
  readonly agentName: string;
  readonly toolName: string;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  readonly policyResult?: unknown;
  readonly error?: unknown;
  readonly proposal?: SuspendedToolProposal;
}

export interface OpenAIAgentsGateOptions {
  /** The agent name bound into every proposal hash (use the Agent's name). */
  agentName: string;
  /**
   * Decides every attempt on a fresh view. With `grants`, it runs only when no unspent
   * grant matches the call's hash; with neither, every call is denied
   * (`policy_not_configured`).
   */
  policy?: (input: ToolPolicyInput & OpenAIAgentsPolicyContext) => ToolPolicyResult | Promise<ToolPolicyResult>;
  /** Approval grants (`createApprovalGrants()`): required for `approve`. */
  grants?: ApprovalGrants;
  /** Called with every decision before anything executes (record it here); awaited. */
  onDecision?: (decision: OpenAIAgentsDecision, call: { callId: string | undefined; runContext: RunContext<unknown> }) => void | Promise<void>;
  /**
   * What the model is told when a call is not executed (a deny; an approval the resumed
   * attempt no longer matches; `grant_unavailable`). Default: a sentence with the decision
   * and its reason.
   */
  notExecutedOutput?: (decision: { decision: 'deny' | 'require_approval'; reason: string; decidedBy: 'policy' | 'runtime' }) => unknown;
  /**
   * What the model is told for invalid input (stage json, schema or snapshot): no decision
   * exists and the policy never ran. Default: the error's message (tool, stage and code,
   * never the payload) and a request to call again.
   */
  invalidInputOutput?: (error: ToolArgumentsValidationError) => unknown;
  /** Attach JSON Pointers to validation errors (they are made of payload keys). */
  includePath?: boolean;
}

/** The options of the SDK's `tool()`, with `parameters` a schema this package runs. */
export interface OpenAIAgentsToolOptions<S, Context = unknown, R = unknown> {
  name: string;
  description: string;
  /** zod 3 or zod 4 schema, a Standard Schema, or a function; run by this package only. */
  parameters: S;
  /**
   * The JSON schema the model sees. Default: the SDK's own conversion of `parameters`
   * (zod, or a Standard Schema with JSON Schema support). The SDK does not validate it.
   */
  jsonSchema?: Record<string, unknown>;
  /** The SDK's strict mode (default true). With zod, strict-mode nulls for optional fields are removed before the schema. */
  strict?: boolean;
  /** Receives a new execution view of the snapshot: never the policy's object, never the SDK's parse. */
  execute: (args: OpenAIAgentsSchemaOutput<S>, runContext: RunContext<Context>, details?: unknown) => R | Promise<R>;
  /** For errors of `execute`; invalid input (stage json, schema, snapshot) is answered by the gate. */
  errorFunction?: ((context: RunContext<Context>, error: unknown, details?: unknown) => unknown) | null;
  /** Not accepted: the policy decides (return `require_approval`). */
  needsApproval?: never;
  timeoutMs?: number;
  isEnabled?: FunctionTool<Context>['isEnabled'] | boolean;
  [option: string]: unknown;
}

export interface PendingApproval {
  interruption: RunToolApprovalItem;
  /** The proposal the policy evaluated; undefined for a call the SDK could not parse at all. */
  proposal: SuspendedToolProposal | undefined;
}

export interface OpenAIAgentsGate {
  readonly agentName: string;
  /** Wraps the agent's model so that the provider's raw argument strings are captured. */
  model(model: Model): Model;
  /** Replaces the SDK's `tool(options)`. */
  tool<S, Context = unknown, R = unknown>(options: OpenAIAgentsToolOptions<S, Context, R>): FunctionTool<Context, any, R>;
  /** The SuspendedToolProposal an interruption carries (same call id, same raw string). */
  proposal(interruption: RunToolApprovalItem): SuspendedToolProposal | undefined;
  /** The interruptions of this gate's tools in `state`, each with its proposal. */
  pending(state: RunState<any, any>): PendingApproval[];
  /**
   * Grants exactly `proposal` (bound to agent, tool and proposal hash; single use unless
   * `grantOptions` say otherwise), then approves the one call in the SDK (never
   * alwaysApprove). Default proposal: the one the interruption carries.
   */
  approve(
    state: RunState<any, any>,
    interruption: RunToolApprovalItem,
    proposal?: SuspendedToolProposal | { agentName: string; toolName: string; argsCanonicalJson: string; proposalHash: string },
    grantOptions?: { uses?: number; ttlMs?: number; expiresAt?: number },
  ): Promise<void>;
}

export declare function createOpenAIAgentsGate(options: OpenAIAgentsGateOptions): OpenAIAgentsGate;

export type { ToolArgumentsValidationError };
