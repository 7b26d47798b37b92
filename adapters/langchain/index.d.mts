// Generated from adapters/langchain/index.d.ts by scripts/gen-declarations.js (npm run gen:declarations): edit adapters/langchain/index.d.ts, never this file.
// Type declarations of tool-argument-snapshot/langchain (adapters/langchain/index.js), the
// RFC-0016 gate for LangChain.js: createToolGate for @langchain/core 1.x, and
// toolGateMiddleware for LangChain v1's createAgent. The frameworks are optional peers.
// index.d.mts is generated from this file (npm run gen:declarations): TypeScript resolves
// @langchain/core's own types by the importer's module kind, so CommonJS and ESM each need one.

import type { AIMessage, AIMessageChunk, ToolCall, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface, ToolInputParsingException } from '@langchain/core/tools';
import type {
  ApprovalGrantRecord,
  ApprovalGrants,
  ExecutionReceipts,
  FromJsonSchemaOptions,
  ProposalFields,
  SchemaOutput,
  SealedProposal,
  SuspendedToolProposal,
  ToolArgumentsValidationError,
  ToolCallDecision,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/**
 * Where a call's arguments came from. `provider_text`: the provider's own string
 * (OpenAI-style `additional_kwargs.tool_calls[].function.arguments`, concatenated
 * `tool_call_chunks[].args`, or the text of an `invalid_tool_calls` entry), strict-decoded.
 * `object`: the integration gave a parsed object (Anthropic, Gemini); `rawArguments` is
 * then the adapter's RFC 8785 serialization of that object, not provider evidence, and
 * strict decoding could not apply (duplicate keys were already collapsed by whoever parsed it).
 * `edit`: (toolGateMiddleware only) the arguments a reviewer wrote in an `edit` decision,
 * serialized the same way.
 */
export type ArgumentsSource = 'provider_text' | 'object' | 'edit';

/** Any LangChain tool (a `tool()` or another StructuredTool). */
export type LangChainTool = StructuredToolInterface<any, any, any>;

/** A tool's name as a literal type where `tool({ name })` kept it, else `string`. */
export type LangChainToolName<T> = T extends { readonly name: infer N extends string } ? N : string;

/**
 * What the tool's schema outputs (zod 3, zod 4, Standard Schema); `unknown` for a JSON
 * Schema (a `tool()` given one, an MCP tool): narrow it in the policy.
 */
export type LangChainToolArgs<T> = T extends { readonly schema: infer S } ? Awaited<SchemaOutput<S>> : unknown;

/**
 * What a policy sees for one call: the package's policy input (`parsedArguments` typed by
 * the tool's schema output, deeply read-only) plus the call's id and argument source.
 */
export interface LangChainToolPolicyInput<Name extends string = string, Args = unknown> extends ToolPolicyInput<Args> {
  readonly toolName: Name;
  readonly toolCallId: string;
  readonly argumentsSource: ArgumentsSource;
}

/** The policy input of a gate over `Tools`: a union discriminated by `toolName`. */
export type LangChainPolicyInputOf<Tools extends readonly LangChainTool[]> = {
  [K in keyof Tools]: LangChainToolPolicyInput<LangChainToolName<Tools[K]>, LangChainToolArgs<Tools[K]>>;
}[number];

export type LangChainToolPolicy<Input> = (input: Input) => ToolPolicyResult | Promise<ToolPolicyResult>;

/**
 * A gate's `policy`: one function for every tool (its input a union discriminated by
 * `toolName`), or a map `{ [toolName]: policy }`, each typed by its tool's schema output.
 * A tool without an entry is denied (`policy_not_configured`), or with grants needs
 * approval unless granted. An entry naming a tool the gate does not have is a TypeError.
 */
export type LangChainPolicies<Tools extends readonly LangChainTool[]> =
  | LangChainToolPolicy<LangChainPolicyInputOf<Tools>>
  | { readonly [Name in LangChainToolName<Tools[number]>]?: LangChainToolPolicy<Extract<LangChainPolicyInputOf<Tools>, { readonly toolName: Name }>> };

/** A call waiting for approval. Frozen. Approve it with `gate.approve(proposal)`. */
export interface LangChainToolProposal<Name extends string = string, Args = unknown> extends SuspendedToolProposal<Args> {
  readonly toolName: Name;
  readonly toolCallId: string;
  readonly argumentsSource: ArgumentsSource;
  /** The scope the call was evaluated under (`policyContext.grantScope`; null: none): `approve` grants it there. */
  readonly grantScope: string | null;
  /**
   * With grants that seal (a key ring): the sealed proposal, which `grants.grant` accepts in
   * any process sharing the key ring (kept in the grants' store when `run` had a `runId`).
   */
  readonly sealed?: SealedProposal;
}

/** The proposal type of each tool of `Tools`, as a union discriminated by `toolName`. */
export type LangChainProposalOf<Tools extends readonly LangChainTool[]> = {
  [K in keyof Tools]: LangChainToolProposal<LangChainToolName<Tools[K]>, LangChainToolArgs<Tools[K]>>;
}[number];

/**
 * A kept record that did not verify, as a review listing reports it: the call and the code
 * (`bad_signature`, `unknown_key`, `seal_expired`, `hash_mismatch`, `not_a_snapshot`...),
 * never a field of the record. Frozen.
 */
export interface LangChainRefusedProposal {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly code: string;
}

/** A proposal kept in the grants' store for a run, as `gate.pending` reads it back. Frozen. */
export interface LangChainKeptProposal extends ProposalFields {
  readonly toolCallId: string;
  /** A new decoded view of `argsCanonicalJson`. */
  readonly parsedArguments: unknown;
  /** The scope it waits in (the seal's; without a key ring, the one `pending` was asked for): `approve` grants it there. */
  readonly grantScope: string | null;
  readonly sealed?: SealedProposal;
}

/**
 * Why a call itself (not its arguments) is invalid input: `missing_call_id` (no id: it can
 * be neither paired with its text, answered nor approved), `duplicate_call_id` (two calls
 * or two provider texts of the message share its id), `unpaired_call` (the message has
 * provider texts but none with this call's id and tool name).
 */
export type LangChainCallProblem = 'missing_call_id' | 'duplicate_call_id' | 'unpaired_call';

/** The `cause` of a call problem: an Error whose `code` says which (no payload). */
export interface LangChainToolCallError extends Error {
  readonly code: LangChainCallProblem;
}

/** LangChain's invalid-input error, with the package's error (no payload) as `cause`. */
export interface LangChainInvalidToolInput extends ToolInputParsingException {
  readonly cause: ToolArgumentsValidationError | LangChainToolCallError;
}

interface ToolCallResultBase {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly argumentsSource: ArgumentsSource;
}

interface DecidedResult extends ToolCallResultBase {
  readonly decision: ToolCallDecision<unknown>;
  readonly decidedBy: 'policy' | 'runtime';
  readonly reason: string;
}

/** One tool call of the message, as the gate handled it. Frozen. */
export type LangChainToolCallResult<Proposal extends LangChainToolProposal = LangChainToolProposal> =
  /**
   * The tool ran; `message` is LangChain's ToolMessage (`output` when the tool returned
   * something else). `replayed: true`: the call had run before and the receipts
   * (`keepResults`) gave its kept result back; the tool did not run this time.
   */
  | (DecidedResult & {
      readonly status: 'executed';
      readonly decidedBy: 'policy';
      readonly message?: ToolMessage;
      readonly output?: unknown;
      readonly replayed?: true;
    })
  /**
   * Nothing ran: the policy denied, or the runtime did (`policy_mutated_arguments`,
   * `policy_error`, `invalid_policy_result`, `policy_not_configured`,
   * `grant_store_unavailable`, `grant_unavailable` when the grant was spent by another
   * attempt first, or an execution receipt's code: `call_already_executed`,
   * `execution_in_progress`, `outcome_unknown`, `call_id_conflict`, `call_id_required`,
   * `receipt_store_unavailable`).
   */
  | (DecidedResult & { readonly status: 'denied'; readonly message: ToolMessage })
  /** Nothing ran; the call waits for approval and has no ToolMessage yet. */
  | (DecidedResult & { readonly status: 'pending'; readonly decidedBy: 'policy'; readonly proposal: Proposal })
  /**
   * Stage json, schema or snapshot failed, or the call itself is invalid (stage `call`:
   * no id, a shared id, no provider text): LangChain's invalid-input path, not a decision.
   * A call without an id has `toolCallId: undefined` and a ToolMessage whose
   * `tool_call_id` is empty.
   */
  | (Omit<ToolCallResultBase, 'toolCallId'> & {
      readonly toolCallId: string | undefined;
      readonly status: 'invalid_input';
      readonly stage: 'json' | 'schema' | 'snapshot' | 'call';
      readonly code: ToolArgumentsValidationError['code'] | LangChainCallProblem;
      readonly error: LangChainInvalidToolInput;
      readonly message: ToolMessage;
    })
  /** The model named a tool the gate does not have. */
  | (ToolCallResultBase & { readonly status: 'unknown_tool'; readonly message: ToolMessage });

export interface LangChainToolRun<Proposal extends LangChainToolProposal = LangChainToolProposal> {
  /** One ToolMessage per call that is answered (every status but `pending`), in call order. */
  readonly messages: ToolMessage[];
  /** The calls waiting for approval. */
  readonly pending: Proposal[];
  readonly results: LangChainToolCallResult<Proposal>[];
}

/** Options of `grants.grant`: uses, lifetime, scope. */
export type LangChainGrantOptions = Parameters<ApprovalGrants['grant']>[1];

export interface LangChainToolGate<Tools extends readonly LangChainTool[] = readonly LangChainTool[]> {
  readonly agentName: string;
  /**
   * Runs the tool calls of a model message, one after the other: strict decoding of the
   * provider text, the tool's schema once, the policy on a fresh view, and on allow the
   * tool's own `_call` with its own view (LangChain's callbacks and ToolMessage
   * formatting apply; its zod does not run again). Errors thrown by a tool propagate.
   */
  run(
    message: AIMessage | AIMessageChunk,
    options?: {
      /** Only these calls (to resume approved calls of a stored message). */
      toolCallIds?: readonly string[];
      /** Passed to the tool run (callbacks, signal, tags...). */
      config?: RunnableConfig;
      /** Extra policy input fields (own data properties are copied); `grantScope` scopes grants. */
      policyContext?: object;
      /**
       * Your id of this conversation or run: each pending proposal is kept in the grants'
       * store under it and its call id (sealed with a key ring), for `pending` in any
       * process; it is forgotten once the call is executed or denied. Needs `grants`. With
       * `receipts` given and no LangGraph thread, also the run of the calls' receipts.
       */
      runId?: string;
    },
  ): Promise<LangChainToolRun<LangChainProposalOf<Tools>>>;
  /**
   * The proposals kept for the calls of a (stored) message under `runId` that verify again
   * (the key ring's signature and expiry when sealed, else the hash): what a reviewer in any
   * process is shown and approves. A record that does not verify is not listed: it is in
   * the list's `refused` (not enumerable) with its code, and no field of it.
   * `grantScope`: the scope the calls were evaluated under. Without a key ring a kept record
   * cannot say its scope, so a call kept under a scope is listed only when it is given
   * (never granted in another); with one, the seal says it, and `grantScope` filters.
   */
  pending(
    message: AIMessage | AIMessageChunk,
    options: { runId: string; grantScope?: string | null },
  ): Promise<LangChainKeptProposal[] & { readonly refused: readonly LangChainRefusedProposal[] }>;
  /**
   * Grants exactly this proposal (its seal when the grants seal) in its `grantScope`; a
   * `scope` in the options that differs is a TypeError. Needs `grants`. A proposal kept for
   * a run is forgotten once granted.
   * @throws {Error} `code: 'TAS_NO_PENDING_PROPOSAL'` when this proposal was approved
   * before, or, kept for a run (`runId`, `pending`), no longer waits (approved in any
   * process, answered, expired).
   */
  approve(proposal: LangChainToolProposal | LangChainKeptProposal, options?: LangChainGrantOptions): Promise<ApprovalGrantRecord>;
  /**
   * The error ToolMessage that answers a declined call (`message`, or a default that says a
   * reviewer declined it); nothing runs and no grant is made.
   */
  decline(proposal: { readonly toolCallId: string; readonly toolName: string }, message?: string): ToolMessage;
}

/**
 * A gate for LangChain tools made with `tool()` or any StructuredTool whose `schema` is a
 * zod (3 or 4), a Standard Schema or a JSON Schema (an MCP tool of @langchain/mcp-adapters,
 * a `tool()` given one), run through `fromJsonSchema`. Bind the same tools to the model
 * as before. With `grants`, `policy` decides first; when it answers `require_approval`, a
 * live grant for exactly this agent, tool and proposal hash allows (and is spent when the
 * call executes).
 * Without a policy for a tool (and without grants) its calls are denied
 * (`policy_not_configured`).
 * @throws {TypeError} for a bad option or two tools with one name; code
 * `ERR_INVALID_ARG_VALUE` for a JSON Schema that does not compile.
 */
export declare function createToolGate<const Tools extends readonly LangChainTool[]>(options: {
  agentName: string;
  tools: Tools;
  policy?: LangChainPolicies<Tools>;
  grants?: ApprovalGrants;
  /**
   * Execution receipts (docs/receipts.md): default, the receipts kept in the grants' store
   * when the grants have one of yours (else the process-wide memory receipts every gate
   * shares), used for calls of a LangGraph thread (`config.configurable.thread_id`, or
   * the graph node `run` is called in); `false`, none; or yours (a durable store for several
   * processes), used for every call, keyed by the thread, else `runId`, else null. The key:
   * `{ agentName, runId: thread id, toolCallId: the AIMessage's tool call id }`.
   */
  receipts?: ExecutionReceipts | false;
  /** Attach JSON Pointers to argument errors (`error.cause.path`); they hold payload keys. */
  includePath?: boolean;
  /** `fromJsonSchema` options for the tools whose schema is a JSON Schema (defaults off, formats asserted). */
  jsonSchemaOptions?: FromJsonSchemaOptions;
  /** Refused (a TypeError): the option is `jsonSchemaOptions`, as in every gate. */
  jsonSchema?: never;
}): LangChainToolGate<Tools>;

// ---------------------------------------------------------------------------------
// toolGateMiddleware: LangChain v1's createAgent (`langchain` and `@langchain/langgraph`,
// optional peers loaded on the first call). Its types are written without importing
// `langchain`, so that apps using createToolGate alone compile without it.

export type ReviewDecisionType = 'approve' | 'edit' | 'reject';

/**
 * The interrupt value: humanInTheLoopMiddleware's `{ actionRequests, reviewConfigs }`
 * (one entry per call under review, in message order), plus the proposals kept for them
 * (sealed with a key ring). `args` is a decoded view of the canonical arguments, what
 * would run (schema defaults included).
 */
export interface ToolGateReview {
  actionRequests: Array<{ name: string; args: unknown; description: string; toolCallId: string; argumentsSource: ArgumentsSource }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: ReviewDecisionType[] }>;
  proposals: Array<SealedProposal | ProposalFields>;
  /** Set when the review is asked again because the last resume was malformed: what was wrong. */
  invalidResume?: string;
}

/** The resume value: humanInTheLoopMiddleware's `{ decisions }`, one per action request, in order. */
export interface ToolGateResume {
  decisions: Array<
    { type: 'approve' } | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } } | { type: 'reject'; message?: string }
  >;
}

export interface ToolGateMiddlewareOptions<Tools extends readonly LangChainTool[]> {
  agentName: string;
  /** The tools it gates; calls of other tools go to the rest of the middleware chain and the tool. */
  tools: Tools;
  policy?: LangChainPolicies<Tools>;
  /**
   * Grants and kept proposals (default: `createApprovalGrants()`, this process only). Give
   * one with a durable store to resume in another process, and with `keys` for sealed proposals.
   */
  grants?: ApprovalGrants;
  /**
   * Execution receipts (docs/receipts.md), keyed `{ agentName, runId: the thread_id,
   * toolCallId: the AIMessage's tool call id }`: default, the receipts kept in the grants'
   * store when the grants have one of yours (no process on it runs a call twice, time travel
   * included), else the process-wide memory receipts every gate shares (a replay in this
   * process never runs a call twice); `false`, none; or yours (memory ones beside grants on
   * a store warn once, `TAS_MEMORY_RECEIPTS`).
   */
  receipts?: ExecutionReceipts | false;
  includePath?: boolean;
  /** `fromJsonSchema` options for the tools whose schema is a JSON Schema (defaults off, formats asserted). */
  jsonSchemaOptions?: FromJsonSchemaOptions;
  /** Refused (a TypeError): the option is `jsonSchemaOptions`, as in every gate. */
  jsonSchema?: never;
  /** The decisions a reviewer may make (default: all three). */
  allowedDecisions?: readonly ReviewDecisionType[];
  /** The start of each action request's description (default: humanInTheLoopMiddleware's). */
  descriptionPrefix?: string;
  /** Extra policy input fields per call (`grantScope` scopes grants and seals). */
  policyContext?: (request: { toolCall: ToolCall; state: unknown; runtime: unknown }) => object | undefined | Promise<object | undefined>;
  /** The middleware's name (default `ToolArgumentSnapshotMiddleware`). */
  name?: string;
}

/** A proposal the middleware's interrupt asks about, as `pending` reads it from the grants' store, verified. Frozen. */
export interface ToolGatePendingProposal extends Readonly<ProposalFields> {
  /** The LangGraph interrupt that asks about it (the key of a resume's id map). */
  readonly interruptId: string;
  readonly toolCallId: string;
  /** A new decoded view of `argsCanonicalJson`. */
  readonly parsedArguments: unknown;
  /** With a key ring: the seal (its `scope` is the scope the call waits in). */
  readonly sealed?: SealedProposal;
}

/**
 * A call of an interrupt that `pending` does not list, with its code (never a field of a
 * record): a kept record that does not verify (`bad_signature`, `hash_mismatch`...),
 * `proposal_changed` (the interrupt carries another proposal than the one kept), or
 * `TAS_NO_PENDING_PROPOSAL` (none is kept: an approval would run nothing). Frozen.
 */
export interface ToolGateRefusedProposal {
  readonly interruptId: string;
  readonly toolCallId: string;
  readonly code: string;
}

/** What `createAgent({ middleware })` takes (a LangChain AgentMiddleware), plus the review listing. */
export interface LangChainToolGateMiddleware {
  readonly name: string;
  wrapToolCall(request: any, handler: any): Promise<any>;
  /**
   * What a reviewer is shown for a thread: the proposals kept for the calls its interrupts
   * ask about, read from the grants' store and verified (the key ring's signature, else the
   * hash), never the interrupt value's text, which the checkpointer keeps. `state` is
   * LangGraph's StateSnapshot: `await agent.graph.getState({ configurable: { thread_id } })`.
   */
  pending(state: {
    readonly config: RunnableConfig;
    readonly values: unknown;
    readonly tasks: readonly unknown[];
  }): Promise<ToolGatePendingProposal[] & { readonly refused: readonly ToolGateRefusedProposal[] }>;
}

/**
 * A middleware for createAgent that gates `tools`: each call's provider text (strictly
 * decoded; `argumentsSource: 'object'` where the provider sends objects), the tool's
 * schema once, the policy; on allow the tool's own `_call` through executeToolCall, and
 * its own ToolMessage (the handler, the rest of the chain and `tool.invoke`, never run for
 * a gated tool). On require_approval it interrupts with a `ToolGateReview` and resumes
 * with a `ToolGateResume` (several interrupts: LangGraph's id map). Approve grants exactly
 * the kept proposal's hash and runs it once; edit is a new attempt (`argumentsSource:
 * 'edit'`) under the named tool's policy, granted by the reviewer unless denied; reject is
 * a ToolMessage. It replaces humanInTheLoopMiddleware for these tools, and must be the
 * FIRST middleware of the list. Needs a checkpointer and a `thread_id`.
 * @throws an Error with `code: 'MODULE_NOT_FOUND'` naming `langchain` or `@langchain/langgraph` when missing.
 */
export declare function toolGateMiddleware<const Tools extends readonly LangChainTool[]>(
  options: ToolGateMiddlewareOptions<Tools>,
): LangChainToolGateMiddleware;
