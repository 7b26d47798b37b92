// Type declarations of tool-argument-snapshot/ai (adapters/ai/index.js), the RFC-0016 gate for the
// Vercel AI SDK 7. `ai` is an optional peer dependency.

import type { GenericToolApprovalFunction, InferToolInput, LanguageModelMiddleware, ToolSet, wrapLanguageModel } from 'ai';
import type {
  ApprovalGrants,
  ExecutionReceipts,
  FromJsonSchemaOptions,
  ProposalFields,
  SealedProposal,
  SuspendedToolProposal,
  ToolCallDecision,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/**
 * Where a call's arguments came from. `provider_text`: the provider's own string, recorded
 * by the gate's model middleware and strict-decoded. `history`: a resumed call, replayed by
 * the SDK from message history, where only a parsed object exists; `rawArguments` is then
 * the package's RFC 8785 serialization of what the tool's schema made of that object (it
 * must be strict JSON data; the schema runs once, when the SDK validates it), not provider
 * evidence, and strict decoding of provider text cannot apply.
 */
export type ArgumentsSource = 'provider_text' | 'history';

/**
 * What the policy sees for a call of tool `NAME`: the package's policy input, with
 * `parsedArguments` typed by the tool's schema output `ARGS`, plus the SDK call's id and
 * argument source.
 */
export type AIToolPolicyInputOf<NAME extends string, ARGS> = ToolPolicyInput<ARGS> & {
  readonly toolName: NAME;
  readonly toolCallId: string;
  readonly argumentsSource: ArgumentsSource;
  /** The SDK's `runtimeContext` (approval hook only; undefined when `execute` decides). */
  readonly runtimeContext: unknown;
  /** The gate's `grantScope`, when it has one. */
  readonly grantScope?: string;
};

/** What a policy of the gate sees: a union over the tools, discriminated by `toolName`. */
export type AIToolPolicyInput<TOOLS extends ToolSet = ToolSet> = {
  [K in keyof TOOLS & string]: AIToolPolicyInputOf<K, InferToolInput<TOOLS[K]>>;
}[keyof TOOLS & string];

/** One policy for every tool of the gate. */
export type AIToolPolicy<TOOLS extends ToolSet = ToolSet> = (input: AIToolPolicyInput<TOOLS>) => ToolPolicyResult | Promise<ToolPolicyResult>;

/**
 * A policy per tool, each typed by its tool's schema output. A guarded tool without an
 * entry has no policy of its own: its calls need a grant (with `grants`) or are denied
 * (`policy_not_configured`).
 */
export type AIToolPolicies<TOOLS extends ToolSet = ToolSet> = {
  [K in keyof TOOLS & string]?: (input: AIToolPolicyInputOf<K, InferToolInput<TOOLS[K]>>) => ToolPolicyResult | Promise<ToolPolicyResult>;
};

/** What `onDecision` learns with each decision (record it before anything executes). */
export interface AIToolDecisionInfo {
  readonly toolCallId: string;
  readonly argumentsSource: ArgumentsSource;
  /** True on the SDK's resume path (an approved call replayed from history). */
  readonly resume: boolean;
}

export interface ToolGateOptions<TOOLS extends ToolSet> {
  agentName: string;
  /** The app's AI SDK tools. Tools with an `execute` (not provider-executed) are guarded. */
  tools: TOOLS;
  /**
   * Decides each call from a fresh view: one function (its input is a union discriminated
   * by `toolName`) or an object of functions by tool name. Asked first: the grants answer
   * only its `require_approval` (an approved hash then allows). Without it, a call without a grant needs approval when
   * `grants` is given, and every call is denied (`policy_not_configured`) when neither is.
   */
  policy?: AIToolPolicy<TOOLS> | AIToolPolicies<TOOLS>;
  /**
   * Default: `createApprovalGrants()` (in memory). Give one with a durable store (and a key
   * ring) to approve in another process.
   */
  grants?: ApprovalGrants;
  /**
   * The conversation this gate serves (for example useChat's chat id): proposals waiting
   * for approval are kept with the grants under it and the tool call id, so any gate with
   * the same `agentName`, `grantScope` and `runId` can approve them. Default: a random id
   * (approvals in this gate only).
   */
  runId?: string;
  /**
   * Execution receipts: a call runs at most once per `{ agentName, runId, toolCallId }` (the
   * chat id and the SDK's tool call id), across requests and, on a shared store, processes.
   * Default, when `runId` is given: the receipts kept in the grants' store when the grants
   * have one of yours (`createApprovalGrants({ store })`: a replay in any process on it runs
   * nothing), else the process-wide memory receipts every gate shares (one hour); without a
   * `runId` the gate knows no conversation and executes without receipts. Memory receipts
   * given beside grants on a store warn once (`TAS_MEMORY_RECEIPTS`).
   * `false`: none (at most once per decision). A `createExecutionReceipts(...)` object needs
   * `runId` (a TypeError otherwise). A replay is the SDK's tool error
   * (`ToolCallNotAllowedError`, code `call_already_executed`, ...), or with `keepResults` the
   * kept result; a replayed approval is denied with the receipt's code.
   */
  receipts?: ExecutionReceipts | false;
  /**
   * The scope grants are looked up, kept and granted in (for example `user:${id}`): passed
   * to every evaluation as `policyContext.grantScope`, sealed into kept proposals.
   */
  grantScope?: string | null;
  /** How long a proposal waits for its approval (and its seal lives), in milliseconds. Default: until approved, declined or pruned. */
  proposalTtlMs?: number;
  /** The approval function for tools the gate does not guard (default: their needsApproval). */
  toolApproval?: GenericToolApprovalFunction<TOOLS, any, any>;
  /** Called with every decision before the SDK acts on it; a throw stops the run. */
  onDecision?: (decision: ToolCallDecision, info: AIToolDecisionInfo) => void | Promise<void>;
  /** Attach JSON Pointers of failing values to errors (payload keys; off by default). */
  includePath?: boolean;
  /**
   * For tools whose `inputSchema` is a JSON Schema the SDK does not validate (`jsonSchema()`
   * without `validate`, MCP tools of `@ai-sdk/mcp`): the options of `fromJsonSchema`, which
   * compiles each such schema when the gate is created and runs it once per attempt.
   */
  jsonSchemaOptions?: FromJsonSchemaOptions;
}

/** A `tool-approval-request` content part of a generateText/streamText result. */
export interface AIToolApprovalRequestPart {
  readonly type: 'tool-approval-request';
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
}

/**
 * What `approve`, `decline` and `keptProposal` accept: a `tool-approval-request` part of a
 * result, the same part as stored in model messages (`{ approvalId, toolCallId }`), or a
 * UI message tool part that carries an `approval` (useChat).
 */
export type AIApprovalRequest =
  | { readonly approvalId: string; readonly toolCall: { readonly toolCallId: string; readonly toolName: string } }
  | { readonly approvalId: string; readonly toolCallId: string; readonly toolName?: string }
  | { readonly type: string; readonly toolCallId: string; readonly approval: { readonly id: string } };

/** Why a waiting proposal is not shown: the name and code of the error its verification threw, nothing of the record. */
export interface PendingProposalError {
  readonly name: 'ApprovalGrantError' | 'SnapshotDomainError';
  readonly code: string;
}

/**
 * An approval request whose proposal waits for a reviewer: verified (the key ring's
 * signature, else its hash), or, when it does not verify, its error only.
 */
export type AIPendingApproval =
  | {
      readonly approvalId: string;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly proposal: SealedProposal | ProposalFields | SuspendedToolProposal;
    }
  | { readonly approvalId: string; readonly toolCallId: string; readonly error: PendingProposalError };

export interface ToolGate<TOOLS extends ToolSet> {
  /** Pass as `tools`: the same tools, validated and executed through the package. */
  readonly tools: TOOLS;
  /** Pass as `toolApproval`: the policy's decision (allow / denied / user-approval). */
  readonly toolApproval: GenericToolApprovalFunction<TOOLS, any, any>;
  /** The middleware that records the provider's raw argument strings (innermost). */
  readonly middleware: LanguageModelMiddleware;
  /** `wrapLanguageModel({ model, middleware })`: pass the provider's model directly. */
  model(model: Parameters<typeof wrapLanguageModel>[0]['model']): ReturnType<typeof wrapLanguageModel>;
  /** The SuspendedToolProposal behind an approval request of a result of this gate (same process), or undefined. */
  proposalOf(part: AIToolApprovalRequestPart): SuspendedToolProposal | undefined;
  /**
   * The proposal waiting for approval of this call in this run, as kept with the grants
   * (a sealed proposal with a key ring), in any process; undefined when none waits.
   */
  keptProposal(request: AIApprovalRequest): Promise<SealedProposal | ProposalFields | undefined>;
  /**
   * For a review screen: the approval requests of `source` (a result's `content`, model
   * messages, UI messages, or one of them) whose proposals wait, each verified, or listed
   * with its error's name and code only when its record does not verify. Requests answered
   * already, expired or of another run are not listed.
   */
  pending(source: readonly unknown[] | object): Promise<AIPendingApproval[]>;
  /**
   * The reviewer approved this request: grants exactly the proposal kept for the call
   * (with a key ring, its seal is verified and granted once), forgets it, and returns the
   * approval response for the next call's messages.
   * @throws {Error} `code: 'TAS_NO_PENDING_PROPOSAL'` when no proposal waits for this call
   * in this run (approved or declined before, expired, or another run or scope).
   * @throws {ApprovalGrantError} with a key ring, as `grants.grant` does.
   */
  approve(
    request: AIApprovalRequest,
    options?: { uses?: number; ttlMs?: number; expiresAt?: number },
  ): Promise<{ type: 'tool-approval-response'; approvalId: string; approved: true }>;
  /** The reviewer declined: forgets the kept proposal and returns the approval response (approved: false). */
  decline(request: AIApprovalRequest, reason?: string): Promise<{ type: 'tool-approval-response'; approvalId: string; approved: false; reason?: string }>;
  /**
   * The SDK's UI message stream (`result.toUIMessageStream(...)`) with the reason of each
   * resumed approval this gate denied (`proposal_changed`, `call_already_executed`, a
   * policy's deny...): the SDK writes such a denial as a bare `tool-output-denied`; this
   * stream writes a `tool-approval-response` chunk (`approved: false`, the code as `reason`)
   * before it, so the UI part reads `approval: { id, approved: false, reason }`.
   */
  uiMessageStream<CHUNK>(stream: ReadableStream<CHUNK>): ReadableStream<CHUNK>;
  readonly grants: ApprovalGrants;
  /** The run proposals are kept under (the `runId` option, or this gate's random id). */
  readonly runId: string;
}

/** RFC-0016 for an AI SDK app: `model: gate.model(model), tools: gate.tools, toolApproval: gate.toolApproval`. */
export declare function createToolGate<TOOLS extends ToolSet>(options: ToolGateOptions<TOOLS>): ToolGate<TOOLS>;
