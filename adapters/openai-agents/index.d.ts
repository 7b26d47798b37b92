// tool-argument-snapshot/openai-agents: RFC-0016 for the OpenAI Agents SDK 0.20.
import type { FunctionTool, Model, RunContext, RunState, RunToolApprovalItem, Tool } from '@openai/agents';
import type {
  ApprovalGrants,
  ExecutionReceipts,
  ProposalFields,
  SchemaOutput,
  SealedProposal,
  SnapshotValue,
  SuspendedToolProposal,
  ToolArgumentsValidationError,
  ToolPolicyInput,
  ToolPolicyResult,
  ToolSchema,
} from 'tool-argument-snapshot';

/**
 * The output type of a tool's `parameters`: a zod 3 or zod 4 schema, a Standard Schema or a
 * function gives its output; a JSON Schema (a plain object) gives the decoded JSON, read-only
 * for the policy (narrow it to read it).
 */
export type OpenAIAgentsSchemaOutput<S> = [S] extends [ToolSchema] ? SchemaOutput<S> : SnapshotValue;

/**
 * The schemas of a gate's tools by tool name, for typed policies:
 * `createOpenAIAgentsGate<{ transfer: typeof Transfer }>(...)`. Default: any tool, any JSON.
 */
export type OpenAIAgentsToolSchemas = { [toolName: string]: unknown };

/** What the gate adds to the policy input (through `policyContext`). */
export interface OpenAIAgentsPolicyContext<Context = unknown> {
  /** The SDK's run context of the call (its `context` is the object you passed to `run`). */
  readonly runContext: RunContext<Context>;
  /** The provider's call id (a call without one is invalid input, `missing_call_id`). */
  readonly callId: string;
  /** The same call id, under the name the package's events use. */
  readonly toolCallId: string;
  /** The run's grant scope, when the gate has `grantScope` and it gave one. */
  readonly grantScope?: string;
}

/** The policy input of one tool: its schema's output, its name, the run. */
export type OpenAIAgentsToolPolicyInput<Name extends string, S, Context = unknown> = ToolPolicyInput<OpenAIAgentsSchemaOutput<S>> & {
  readonly toolName: Name;
} & OpenAIAgentsPolicyContext<Context>;

/** The policy input of any tool of the gate: a union discriminated by `toolName`. */
export type OpenAIAgentsPolicyInput<Schemas extends OpenAIAgentsToolSchemas = OpenAIAgentsToolSchemas, Context = unknown> = {
  [K in keyof Schemas & string]: OpenAIAgentsToolPolicyInput<K, Schemas[K], Context>;
}[keyof Schemas & string];

/** A policy: one function for every tool, or a map with one per tool (a tool without one is not allowed). */
export type OpenAIAgentsPolicy<Schemas extends OpenAIAgentsToolSchemas = OpenAIAgentsToolSchemas, Context = unknown> =
  | ((input: OpenAIAgentsPolicyInput<Schemas, Context>) => ToolPolicyResult | Promise<ToolPolicyResult>)
  | {
      [K in keyof Schemas & string]?: (input: OpenAIAgentsToolPolicyInput<K, Schemas[K], Context>) => ToolPolicyResult | Promise<ToolPolicyResult>;
    };

/** A decision of `evaluateToolCall`, as `onDecision` receives it (frozen). */
export interface OpenAIAgentsDecision extends Readonly<ProposalFields> {
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
  readonly policyResult?: unknown;
  readonly error?: unknown;
  readonly proposal?: SuspendedToolProposal;
}

/** Why a call was not executed, as `notExecutedOutput` receives it. */
export interface OpenAIAgentsNotExecuted {
  readonly decision: 'deny' | 'require_approval';
  /**
   * The policy's reason; or, decided by the runtime: a runtime reason; `grant_unavailable`
   * (the grant the call relied on is spent, expired or revoked); a receipt's code
   * (`call_already_executed`, `call_id_conflict`, `execution_in_progress`, `outcome_unknown`,
   * `receipt_store_unavailable`, `call_id_required`); `proposal_changed` (approved through
   * the package for other arguments); or `approved_without_grant` (approved with
   * `state.approve` alone, no grant ever given for what would run).
   */
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
}

export interface OpenAIAgentsGateOptions<Schemas extends OpenAIAgentsToolSchemas = OpenAIAgentsToolSchemas, Context = unknown> {
  /** The agent name bound into every proposal hash (use the Agent's name). */
  agentName: string;
  /**
   * Decides every attempt on a fresh view. With `grants`, it runs only when no unspent
   * grant matches the call's hash and scope; with neither, every call is denied
   * (`policy_not_configured`).
   */
  policy?: OpenAIAgentsPolicy<Schemas, Context>;
  /** Approval grants (`createApprovalGrants()`): required for `approve`. With keys, pending proposals are sealed. */
  grants?: ApprovalGrants;
  /**
   * The scope of a run's grants (for example `user:${runContext.context.userId}`); null or
   * undefined: unscoped. Its argument is typed by the gate's `Context`: give it as the
   * second type argument (`createOpenAIAgentsGate<Tools, Ctx>`) or annotate the parameter
   * (`(runContext: RunContext<Ctx>) => ...`), and `runContext.context` is your context type.
   */
  grantScope?: (runContext: RunContext<Context>) => string | null | undefined;
  /**
   * Execution receipts (once per tool call): default, the receipts kept in the grants' store
   * when the grants have one of yours (`createApprovalGrants({ store })`: a RunState restored
   * in any process on it runs a call once), else the process-wide memory receipts every gate
   * of the process shares (one hour of retention); `false`: none (once per decision only); or
   * a `createExecutionReceipts(...)` object (memory ones beside grants on a store warn once,
   * `TAS_MEMORY_RECEIPTS`). The key is `{ agentName, runId, toolCallId }`:
   * the function call's `callId`, and `runId` below.
   */
  receipts?: ExecutionReceipts | false;
  /**
   * The receipts' `runId` of a run: your id of the conversation or thread (for example
   * `(runContext) => runContext.context.threadId`). Null, undefined or absent: the gate's own
   * id, made once per run and carried in the run context's `context` with the RunState (the
   * SDK has no run id that survives `RunState.fromString` in every configuration).
   */
  runId?: (runContext: RunContext<Context>) => string | null | undefined;
  /** Called with every decision before anything executes (record it here); awaited. */
  onDecision?: (decision: OpenAIAgentsDecision, call: { callId: string; toolCallId: string; runContext: RunContext<Context> }) => void | Promise<void>;
  /** What the model is told when a call is not executed. Default: a sentence with the decision and its reason. */
  notExecutedOutput?: (decision: OpenAIAgentsNotExecuted) => unknown;
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
export interface OpenAIAgentsToolOptions<S, Context = unknown, R = unknown, Name extends string = string> {
  name: Name;
  description: string;
  /**
   * zod 3 or zod 4 schema, a Standard Schema or a function, run by this package only; or a
   * JSON Schema object, validated by the package's `fromJsonSchema`.
   */
  parameters: S;
  /**
   * The JSON schema the model sees. Default: the SDK's own conversion of `parameters`
   * (zod, or a Standard Schema with JSON Schema support), or `parameters` itself when it is
   * a JSON Schema. The SDK does not validate it.
   */
  jsonSchema?: Record<string, unknown>;
  /**
   * The SDK's strict mode (default true). A null the model sends for an optional field is
   * removed before the schema only where the schema refuses null for certain.
   */
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

/** What a reviewer approves: the live proposal in the process that made it, else what the state carries. */
export type OpenAIAgentsProposal = SuspendedToolProposal<any> | SealedProposal | ProposalFields;

/** Why a carried proposal is not shown: the class and code of the error verifying it raised (no text of the record). */
export interface OpenAIAgentsInvalidProposal {
  readonly name: 'ApprovalGrantError' | 'SnapshotDomainError';
  /** `bad_signature`, `unknown_key`, `seal_expired`, `not_sealed`; `hash_mismatch`, `not_canonical`, `not_a_snapshot`, ... */
  readonly code: string;
}

export interface PendingApproval {
  interruption: RunToolApprovalItem;
  /**
   * The proposal the policy evaluated: the SuspendedToolProposal in the process that made
   * it; after `RunState.fromString`, what the state carries once it verifies (with keys the
   * seal, checked by `grants.verify`; else the agent, tool, canonical JSON and hash, the hash
   * recomputed). Undefined for a call the SDK could not parse at all, whose carried proposal
   * does not match the interruption's raw string, or that does not verify (see `invalid`).
   */
  proposal: OpenAIAgentsProposal | undefined;
  /** With a key ring: the sealed proposal, verified (it can leave the server; `grants.grant(sealed)`). */
  sealed?: SealedProposal;
  /** A carried proposal that does not verify (edited in the stored state): its error's class and code; `approve` rejects with that error. */
  invalid?: OpenAIAgentsInvalidProposal;
}

export interface OpenAIAgentsGate<Schemas extends OpenAIAgentsToolSchemas = OpenAIAgentsToolSchemas, Context = unknown> {
  readonly agentName: string;
  /** Wraps the agent's model so that the provider's raw argument strings are captured (per run). */
  model(model: Model): Model;
  /** Replaces the SDK's `tool(options)`. */
  tool<S, R = unknown, Name extends string = string>(options: OpenAIAgentsToolOptions<S, Context, R, Name>): FunctionTool<Context, any, R>;
  /**
   * Gated copies of SDK function tools with JSON schemas (the MCP tools of
   * `agent.getAllTools()`): each call decided on its provider text; on an allow the
   * original tool is invoked with the snapshot's canonical JSON.
   */
  tools(tools: readonly Tool<any>[]): FunctionTool<Context, any, unknown>[];
  /** The proposal an interruption of `state` carries (same call id, same raw string), once it verifies. */
  proposal(state: RunState<any, any>, interruption: RunToolApprovalItem): OpenAIAgentsProposal | undefined;
  /** The interruptions of this gate's tools in `state`, each with its verified proposal (or why it does not verify). */
  pending(state: RunState<any, any>): PendingApproval[];
  /**
   * Grants exactly the proposal the interruption carries (bound to agent, tool, proposal
   * hash and the run's scope; single use unless `grantOptions` say otherwise; with keys,
   * through the seal), forgets it (live and in the state's carrier), then approves the one
   * call in the SDK (never alwaysApprove). `proposal`, when given, must be that proposal
   * (the same hash; a TypeError otherwise).
   * @throws {Error} `code: 'TAS_NO_PENDING_PROPOSAL'` when no proposal waits for this
   * interruption in this state (approved before, or never carried).
   */
  approve(
    state: RunState<any, any>,
    interruption: RunToolApprovalItem,
    proposal?: OpenAIAgentsProposal,
    grantOptions?: { uses?: number; ttlMs?: number; expiresAt?: number },
  ): Promise<void>;
}

export declare function createOpenAIAgentsGate<Schemas extends OpenAIAgentsToolSchemas = OpenAIAgentsToolSchemas, Context = unknown>(
  options: OpenAIAgentsGateOptions<Schemas, Context>,
): OpenAIAgentsGate<Schemas, Context>;

/** The key of the run context's `context` object under which pending proposals travel with a RunState. */
export declare const CARRIER_KEY: 'tool-argument-snapshot';

export type { ToolArgumentsValidationError };
