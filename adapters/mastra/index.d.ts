// Type declarations of tool-argument-snapshot/mastra (adapters/mastra/index.js), the RFC-0016
// gate for Mastra agents. `@mastra/core` 1.x is an optional peer dependency.

import type { createTool as mastraCreateTool, Tool, ToolExecutionContext } from '@mastra/core/tools';
import type { MastraModelConfig } from '@mastra/core/llm';
import type { RequestContext } from '@mastra/core/request-context';
import type { ApprovalGrants, ExecutionReceipts, FromJsonSchemaOptions, ProposalFields, SchemaOutput, SealedProposal } from 'tool-argument-snapshot';
import type { SnapshotValue, SuspendedToolProposal, ToolArgumentsErrorCode, ToolArgumentsValidationError } from 'tool-argument-snapshot';
import type { ToolPolicyInput, ToolPolicyResult, ToolSchema } from 'tool-argument-snapshot';

/**
 * Mastra's `createTool`, unchanged (same options, same Mastra tool), that also remembers the
 * options so that `createToolGate` can gate the tool: a Mastra tool's own `execute` parses
 * its input again, so the gate needs the `execute` you wrote.
 */
export declare const createTool: typeof mastraCreateTool;

/**
 * The output type of a tool's `inputSchema`: zod 3 or 4, a Standard Schema or a function
 * give their output; a JSON Schema (a plain object) or no schema gives the decoded JSON,
 * read-only for the policy (narrow it to read it).
 */
export type MastraSchemaOutput<S> = [S] extends [undefined] ? SnapshotValue : [S] extends [ToolSchema] ? SchemaOutput<S> : SnapshotValue;

/** The createTool options the gate takes (Mastra's own; `execute` is required). */
export interface MastraToolOptions<S = unknown> {
  id: string;
  description: string;
  inputSchema?: S;
  outputSchema?: unknown;
  execute: (inputData: any, context: ToolExecutionContext<any, any, any>) => unknown;
  [option: string]: unknown;
}

/** A tool the gate takes: createTool options, or a tool made by this module's `createTool`. */
export type MastraGateableTool = MastraToolOptions<any> | Tool<any, any, any, any, any, any, any>;

/** The arguments type of a gated tool: its input schema's output. */
export type MastraToolArguments<T> =
  T extends Tool<infer I, any, any, any, any, any, any>
    ? unknown extends I
      ? SnapshotValue
      : I
    : T extends { inputSchema?: infer S }
      ? MastraSchemaOutput<S>
      : SnapshotValue;

/**
 * Where a call's arguments came from. `provider_text`: the provider's own string, recorded
 * by `gate.model` and strict-decoded. `history`: a call Mastra resumes after an approval,
 * from the parsed object it stored; `rawArguments` is then the package's RFC 8785 form of
 * that object, and the call runs only if its hash is the one the reviewer was asked about.
 */
export type MastraArgumentsSource = 'provider_text' | 'history';

/** What the gate adds to a policy's input (through `policyContext`). */
export interface MastraPolicyContext {
  /** The provider's call id (a call without one is invalid input, `missing_call_id`). */
  readonly toolCallId: string;
  /** Mastra's run id (what `approveToolCall` takes). */
  readonly runId: string;
  readonly argumentsSource: MastraArgumentsSource;
  /** True when Mastra resumes the call after an approval. */
  readonly resume: boolean;
  /** The run's request context (Mastra restores it from storage on resume). */
  readonly requestContext: RequestContext<any>;
  /** The memory thread and resource of the run, when it has them. */
  readonly threadId?: string;
  readonly resourceId?: string;
  /** The run's grant scope, when the gate has one. */
  readonly grantScope?: string;
}

/** The policy input of a call of tool `NAME` with arguments `ARGS`. */
export type MastraToolPolicyInputOf<NAME extends string, ARGS> = ToolPolicyInput<ARGS> & { readonly toolName: NAME } & MastraPolicyContext;

/** The policy input of a call of any tool of the gate: a union discriminated by `toolName`. */
export type MastraToolPolicyInput<TOOLS extends Record<string, MastraGateableTool> = Record<string, MastraGateableTool>> = {
  [K in keyof TOOLS & string]: MastraToolPolicyInputOf<K, MastraToolArguments<TOOLS[K]>>;
}[keyof TOOLS & string];

/** One policy for every tool of the gate. */
export type MastraToolPolicy<TOOLS extends Record<string, MastraGateableTool> = Record<string, MastraGateableTool>> = (
  input: MastraToolPolicyInput<TOOLS>,
) => ToolPolicyResult | Promise<ToolPolicyResult>;

/**
 * A policy per tool, each typed by its tool's schema output. A tool without an entry has
 * no policy of its own: its calls need a grant (with `grants`) or are denied
 * (`policy_not_configured`).
 */
export type MastraToolPolicies<TOOLS extends Record<string, MastraGateableTool> = Record<string, MastraGateableTool>> = {
  [K in keyof TOOLS & string]?: (input: MastraToolPolicyInputOf<K, MastraToolArguments<TOOLS[K]>>) => ToolPolicyResult | Promise<ToolPolicyResult>;
};

/** A decision of `evaluateToolCall`, as `onDecision` receives it (frozen). */
export interface MastraDecision {
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

/** What `onDecision` learns with each decision (record it before anything runs). */
export interface MastraDecisionInfo {
  readonly toolCallId: string;
  readonly runId: string;
  readonly argumentsSource: MastraArgumentsSource;
  readonly resume: boolean;
}

/** Why a call was not executed, as `notExecutedOutput` receives it. */
export interface MastraNotExecuted {
  readonly decision: 'deny' | 'require_approval';
  /**
   * The policy's reason; or, decided by the runtime: a runtime reason of the package,
   * `grant_unavailable` (the grant is used: also a resumed call approved through the gate
   * whose grant another resume spent), `grant_store_unavailable`, `approved_without_grant`
   * (resumed by `approveToolCall` without an approval through the gate), `proposal_changed`
   * (the stored arguments are not the ones the reviewer was asked about),
   * `invalid_grant_scope`, or a receipt's code (`call_already_executed`,
   * `execution_in_progress`, `outcome_unknown`, `call_id_conflict`,
   * `receipt_store_unavailable`: the call ran, or runs, already).
   */
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
}

/** The default answer to the model for a call that did not run (no payload). */
export interface MastraNotExecutedOutput {
  error: true;
  message: string;
  decision: 'deny' | 'require_approval';
  reason: string;
  decidedBy: 'policy' | 'runtime';
}

/** The default answer to the model for invalid input: Mastra's own ValidationError shape (no payload). */
export interface MastraInvalidInputOutput {
  error: true;
  message: string;
  validationErrors: { errors: string[]; fields: Record<string, never> };
  stage: 'json' | 'schema' | 'snapshot';
  code: ToolArgumentsErrorCode;
}

/** The run a grant scope function sees. */
export interface MastraRunInfo {
  readonly requestContext: RequestContext<any> | undefined;
  readonly runId: string;
  readonly threadId: string | undefined;
  readonly resourceId: string | undefined;
}

export interface MastraToolGateOptions<TOOLS extends Record<string, MastraGateableTool>> {
  /** The agent name bound into every proposal hash (use the Agent's name). */
  agentName: string;
  /** The tools to gate, by the name the model calls them. */
  tools: TOOLS;
  /**
   * Decides each call from a fresh view: one function (its input a union discriminated by
   * `toolName`) or an object of functions by tool name. Asked first: the grants answer
   * only its `require_approval` (an approved hash then allows). Without it, a call without a grant is denied
   * (`policy_not_configured`) unless `grants` is given.
   */
  policy?: MastraToolPolicy<TOOLS> | MastraToolPolicies<TOOLS>;
  /**
   * Default: `createApprovalGrants()` (in memory: approvals in this process only). Give one
   * with a durable store (and a key ring) to approve and resume in other processes.
   */
  grants?: ApprovalGrants;
  /**
   * Execution receipts: a call runs at most once per `{ agentName, runId, toolCallId }`
   * (Mastra's run id and the provider's call id), so a run resumed twice runs it once.
   * Default: the receipts kept in the grants' store when the grants have one of yours
   * (`createApprovalGrants({ store })`: across processes), else the process-wide memory
   * receipts every gate shares (one hour); `false`: none (at most once per decision); or a
   * `createExecutionReceipts(...)` object (memory ones beside grants on a store warn once,
   * `TAS_MEMORY_RECEIPTS`). A replay answers the model with the receipt's code (`notExecutedOutput`), or
   * with `keepResults` the kept result.
   */
  receipts?: ExecutionReceipts | false;
  /**
   * The scope grants are looked up, kept and granted in: a string, or a function of the run
   * (for example `({ requestContext }) => 'user:' + requestContext.get('userId')`).
   */
  grantScope?: string | null | ((run: MastraRunInfo) => string | null | undefined | Promise<string | null | undefined>);
  /** How long a proposal waits for its approval (and its seal lives), in milliseconds. Default: until answered or pruned. */
  proposalTtlMs?: number;
  /** Called with every decision before anything runs; awaited (a throw fails the call). */
  onDecision?: (decision: MastraDecision, info: MastraDecisionInfo) => void | Promise<void>;
  /** What the model is told when a call is not executed. Default: a MastraNotExecutedOutput. */
  notExecutedOutput?: (info: MastraNotExecuted) => unknown;
  /**
   * What the model is told for invalid input: stage json, schema or snapshot, including a
   * call the gate cannot pair with its own provider text (stage json, codes
   * `missing_call_id`, `duplicate_call_id`, `unpaired_call`, `no_provider_text`). No
   * decision exists and the policy never ran. Default: a MastraInvalidInputOutput.
   */
  invalidInputOutput?: (error: ToolArgumentsValidationError) => unknown;
  /** Attach JSON Pointers of failing values to errors (payload keys; off by default). */
  includePath?: boolean;
  /**
   * For JSON Schema tools (a plain JSON Schema object as `inputSchema`): the options of the
   * package's `fromJsonSchema`, which compiles each such schema when the gate is made and
   * runs it once per attempt.
   */
  jsonSchemaOptions?: FromJsonSchemaOptions;
}

/**
 * A call waiting for approval: `{ runId, toolCallId }` (what `agent.approveToolCall`
 * takes), a `tool-call-approval` chunk of Mastra's stream, or a suspended `generate()`
 * result; `grantScope` when the gate's scope is a function of the run.
 */
export type MastraApprovalRequest =
  | { readonly runId: string; readonly toolCallId: string; readonly grantScope?: string | null }
  | { readonly runId: string; readonly payload: { readonly toolCallId: string }; readonly grantScope?: string | null }
  | { readonly runId: string; readonly suspendPayload: { readonly toolCallId: string }; readonly grantScope?: string | null };

/** Why a waiting proposal is not shown: the name and code of the error its verification threw, nothing of the record. */
export interface MastraPendingProposalError {
  readonly name: 'ApprovalGrantError' | 'SnapshotDomainError';
  readonly code: string;
}

/** A call whose proposal waits for a reviewer: verified, or, when it does not verify, its error only. */
export type MastraPendingApproval =
  | { readonly runId: string; readonly toolCallId: string; readonly toolName: string; readonly proposal: SealedProposal | ProposalFields }
  | { readonly runId: string; readonly toolCallId: string; readonly error: MastraPendingProposalError };

/** What `pending` reads: what `agent.listSuspendedRuns()` resolves, its runs, or approval requests. */
export type MastraPendingSource =
  | {
      readonly runs: readonly {
        readonly runId: string;
        readonly toolCalls: readonly { readonly toolCallId?: string; readonly requiresApproval?: boolean }[];
      }[];
    }
  | { readonly runId: string; readonly toolCalls: readonly { readonly toolCallId?: string; readonly requiresApproval?: boolean }[] }
  | MastraApprovalRequest
  | readonly (
      | { readonly runId: string; readonly toolCalls: readonly { readonly toolCallId?: string; readonly requiresApproval?: boolean }[] }
      | MastraApprovalRequest
    )[];

export interface MastraToolGate<TOOLS extends Record<string, MastraGateableTool>> {
  /** Pass as the Agent's `tools`: Mastra tools that decide, and execute only what is allowed. */
  readonly tools: { readonly [K in keyof TOOLS]: Tool<MastraToolArguments<TOOLS[K]>, unknown, unknown, unknown, any, string, unknown> };
  /**
   * Pass as the Agent's `model`: the same model, recording the provider's raw argument
   * strings. Takes an AI SDK language model (v2, v3, v4), a Mastra model id (through
   * Mastra's model router) or a function of the request returning one.
   */
  model<M extends MastraModelConfig | ((...args: any[]) => MastraModelConfig | Promise<MastraModelConfig>)>(model: M): M extends string ? MastraModelConfig : M;
  /**
   * The proposal waiting for approval of this call of this run (sealed with a key ring), in
   * any process sharing the grants' store; undefined when none waits.
   */
  keptProposal(request: MastraApprovalRequest): Promise<SealedProposal | ProposalFields | undefined>;
  /**
   * For a review screen: the calls of `source` (`await agent.listSuspendedRuns()`, its runs,
   * or approval requests) whose proposals wait, each verified (never Mastra's stored `args`),
   * or listed with its error's name and code only when its record does not verify.
   * `options.grantScope`: the scope of calls that carry none (a gate whose scope is a
   * function of the run needs it).
   */
  pending(source: MastraPendingSource, options?: { grantScope?: string | null }): Promise<MastraPendingApproval[]>;
  /**
   * The reviewer approved this call: grants exactly the proposal kept for it (with a key
   * ring, its seal is verified and granted once), takes it out of the waiting ones and
   * returns it. Then resume the run with `agent.approveToolCall({ runId, toolCallId })`,
   * here or in another process.
   * @throws {Error} `code: 'TAS_NO_PENDING_PROPOSAL'` when no proposal waits for this call
   * (approved before, declined, expired, or never asked under this agent and scope).
   */
  approve(request: MastraApprovalRequest, options?: { uses?: number; ttlMs?: number; expiresAt?: number }): Promise<SealedProposal | ProposalFields>;
  /**
   * The reviewer declined this call: forgets its kept proposal (no approval can be given
   * for it any more). Then `agent.declineToolCall({ runId, toolCallId })`.
   * @throws {Error} `code: 'TAS_NO_PENDING_PROPOSAL'` when no proposal waits for this call.
   */
  decline(request: MastraApprovalRequest): Promise<void>;
  readonly grants: ApprovalGrants;
}

/** RFC-0016 for a Mastra agent: `new Agent({ ..., model: gate.model(model), tools: gate.tools })`. */
export declare function createToolGate<TOOLS extends Record<string, MastraGateableTool>>(options: MastraToolGateOptions<TOOLS>): MastraToolGate<TOOLS>;
