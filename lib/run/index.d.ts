// Type declarations of tool-argument-snapshot, room run (lib/run/): the run-loop pipeline.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { SnapshotValue, ToolArgumentSnapshot } from '../snapshot/index';
import type { ExecutionReceiptCode } from '../errors';
import type { ExecutionReceipts } from '../receipts/index';

// ---------------------------------------------------------------------------------
// The run-loop pipeline (RFC-0016): prepareToolCall, evaluateToolCall (the run loop
// records the decision), executeToolCall; or authorizeToolCall for the last two at once.

/** A read-only value of the strict snapshot domain: what a policy sees without a schema. Narrow it to read it. */
export type ReadonlySnapshotValue = null | boolean | number | string | readonly ReadonlySnapshotValue[] | { readonly [key: string]: ReadonlySnapshotValue };

/**
 * A value and everything reachable from it, read-only (functions are left as they are).
 * `unknown` and `any` stay as they are, and the whole JSON domain (SnapshotValue, a
 * recursive type) becomes ReadonlySnapshotValue without being expanded: reading
 * `parsedArguments` never instantiates a type without end (TS2589).
 */
export type DeepReadonly<T> = unknown extends T
  ? T
  : [SnapshotValue] extends [T]
    ? ReadonlySnapshotValue
    : T extends (...args: never[]) => unknown
      ? T
      : T extends object
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T;

/**
 * A Standard Schema v1 (zod 3.24+, zod 4, valibot, arktype): only what the package uses.
 * `types` carries the output type for inference; `validate` may return a promise (an
 * asynchronous schema: use prepareToolCallAsync).
 */
export interface StandardSchemaV1<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/**
 * A tool schema: a function, an object with a synchronous `parse` (zod 3, zod 4), or a
 * Standard Schema v1. The schema's methods may be inherited or getters.
 */
export type ToolSchema = { parse(value: unknown): unknown } | StandardSchemaV1 | ((value: unknown) => unknown);

/**
 * The output type of a schema: Standard Schema `InferOutput` (zod 3 and 4 `z.output`,
 * valibot, arktype), else zod's `_output`, else what `parse` or the function returns.
 * No schema: the decoded JSON. (Output outside the snapshot domain, such as a Date,
 * fails at stage `snapshot` at run time; the types do not model that.)
 */
export type SchemaOutput<S> = [S] extends [undefined]
  ? SnapshotValue
  : S extends { readonly '~standard': { readonly types?: infer Types } }
    ? NonNullable<Types> extends { readonly output: infer O }
      ? O
      : unknown
    : S extends { readonly _output: infer O }
      ? O
      : S extends { parse(value: unknown): infer O }
        ? O
        : S extends (value: unknown) => infer O
          ? O
          : unknown;

/** What prepareToolCall and prepareToolCallAsync take. Fields are read as own data properties. */
export interface PrepareInput<S extends ToolSchema | undefined = undefined> {
  agentName: string;
  toolName: string;
  /**
   * The exact provider string, or a member decodeRequest set aside (its text is the
   * provider string; its value, decoded with the message, is the schema's input).
   */
  rawArguments: string | ArgumentsText;
  schema?: S;
  /** Attach JSON Pointers (`path`, `issuePaths`) to errors. Off by default: they hold payload keys. */
  includePath?: boolean;
  /**
   * The provider's call id (events, and the execution receipt's key); never hashed. Given
   * once: here, or, for a call prepared before its id is known, to evaluateToolCall.
   */
  toolCallId?: string;
  /** The run the call belongs to (the execution receipt's key, null when absent); never hashed. */
  runId?: string;
}

/**
 * Strict JSON decoding of a provider's raw arguments string. Empty or whitespace-only
 * text decodes to `{}`. Duplicate keys, lone surrogates, numbers that overflow to
 * infinity and nesting past MAX_DEPTH are rejected.
 * @throws {ToolArgumentsValidationError} with `stage: 'json'`.
 */
export declare function decodeRequest(
  rawArguments: string,
  options?: {
    toolName?: string;
    includePath?: boolean;
    /**
     * A member path (1 to 16 names), such as `['params', 'arguments']` of a JSON-RPC
     * `tools/call`: where it reaches a member through objects (of the value, or of each
     * element of an array value), the member's value is replaced by an ArgumentsText
     * holding its exact text and the value decoded with the message, which
     * prepareToolCall takes as `rawArguments` without decoding it a second time.
     */
    setAside?: readonly string[];
  },
): unknown;

/**
 * A member decodeRequest set aside (`setAside`): its exact text in the decoded text,
 * strict JSON. Frozen; made only by decodeRequest.
 */
export interface ArgumentsText {
  readonly text: string;
  /** The member's value: the one decoded with the message the first time, then a new decoding of `text`. */
  decode(): unknown;
}

/** Whether a value is an ArgumentsText made by decodeRequest (runs none of the value's code). */
export declare function isArgumentsText(value: unknown): value is ArgumentsText;

/** One tool call, decoded, parsed by its schema once and snapshotted. Frozen. */
export interface PreparedToolCall<T = SnapshotValue> {
  readonly agentName: string;
  readonly toolName: string;
  /** The exact provider string. */
  readonly rawArguments: string;
  /**
   * The strict-decoded, pre-schema request: diagnostic evidence, not authorization.
   * A new decoded copy of `rawArguments` on every read, so no policy can change what
   * another policy, the proposal or the prepared call shows.
   */
  readonly requestedArguments: unknown;
  readonly snapshot: ToolArgumentSnapshot;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  /**
   * A new decoded view of the snapshot on every call, for a policy evaluated outside
   * evaluateToolCall. There is no execution view here: a handler's view exists only
   * inside executeToolCall, for an allow decision.
   */
  policyView(): T;
}

/**
 * Decodes `rawArguments`, runs the schema exactly once on its own decoded copy, and
 * snapshots the schema output. Nothing returned references the schema output.
 * @throws {ToolArgumentsValidationError} at stage `json`, `schema` (`schema_error`, or
 * `async_schema` for a schema that is asynchronous) or `snapshot` (`async_schema` for
 * output that is a promise or another thenable).
 */
export declare function prepareToolCall(input: PrepareInput<undefined>): PreparedToolCall<SnapshotValue>;
export declare function prepareToolCall<S extends ToolSchema>(input: PrepareInput<S>): PreparedToolCall<SchemaOutput<S>>;

/**
 * prepareToolCall for asynchronous schemas: awaits `safeParseAsync` or `parseAsync` where
 * the schema has one, else `~standard.validate`, else the function, so that the schema's
 * own code runs exactly once per attempt.
 */
export declare function prepareToolCallAsync(input: PrepareInput<undefined>): Promise<PreparedToolCall<SnapshotValue>>;
export declare function prepareToolCallAsync<S extends ToolSchema>(input: PrepareInput<S>): Promise<PreparedToolCall<Awaited<SchemaOutput<S>>>>;

/** What policy sees: fresh evidence of one attempt. */
export interface ToolPolicyInput<T = SnapshotValue> {
  agentName: string;
  toolName: string;
  rawArguments: string;
  /** This input's own decoded copy of `rawArguments` (decoded when first read). */
  requestedArguments: unknown;
  /** A fresh view of the snapshot; changing it denies the call (`policy_mutated_arguments`). */
  readonly parsedArguments: DeepReadonly<T>;
  argsCanonicalJson: string;
  proposalHash: string;
  /** Own enumerable data fields of `policyContext` (for example a run context and turn). */
  [extra: string]: unknown;
}

/**
 * What a policy returns: `decision` one of the three and `reason` a non-empty string, as
 * own data properties. Any other fields ride along in `policyResult`.
 */
export interface ToolPolicyResult {
  decision: 'allow' | 'deny' | 'require_approval';
  reason: string;
}

/** The reasons of a deny the runtime decided itself (`decidedBy: 'runtime'`). */
export type RuntimeReason = 'policy_mutated_arguments' | 'policy_error' | 'invalid_policy_result' | 'policy_not_configured' | 'grant_store_unavailable';

/** The five runtime reasons, frozen. */
export declare const RUNTIME_REASONS: readonly [
  'policy_mutated_arguments',
  'policy_error',
  'invalid_policy_result',
  'policy_not_configured',
  'grant_store_unavailable',
];

/** A tool call waiting for approval: the evidence policy evaluated, reused as it was. Frozen. */
export interface SuspendedToolProposal<T = SnapshotValue> {
  readonly kind: 'tool';
  readonly agentName: string;
  readonly toolName: string;
  readonly rawArguments: string;
  /** Its own decoded view; approval systems should use argsCanonicalJson. */
  readonly parsedArguments: T;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  readonly reason: string;
  /** The provider's call id when the evaluation had one (never hashed, never sealed). */
  readonly toolCallId?: string;
}

declare const argumentsType: unique symbol;

/** The fields every decision has: the fingerprint it was made for. */
interface ToolCallDecisionBase<T> {
  readonly agentName: string;
  readonly toolName: string;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  /** Type-level only: the arguments type a handler of this decision receives. */
  readonly [argumentsType]?: T;
}

/** An allow, deny or approval the policy returned. */
export type PolicyDecision<T = SnapshotValue, P extends ToolPolicyResult = ToolPolicyResult> =
  | (ToolCallDecisionBase<T> & { readonly decision: 'allow'; readonly decidedBy: 'policy'; readonly reason: string; readonly policyResult: P })
  | (ToolCallDecisionBase<T> & { readonly decision: 'deny'; readonly decidedBy: 'policy'; readonly reason: string; readonly policyResult: P })
  | (ToolCallDecisionBase<T> & {
      readonly decision: 'require_approval';
      readonly decidedBy: 'policy';
      readonly reason: string;
      /** The fingerprint policy evaluated, with its own view. */
      readonly proposal: SuspendedToolProposal<T>;
      readonly policyResult: P;
    });

/**
 * A deny the runtime decided: the policy threw, changed its view, returned no valid
 * result, or was absent; or a grants store failed while the policy looked a grant up.
 */
export interface RuntimeDecision<T = SnapshotValue> extends ToolCallDecisionBase<T> {
  readonly decision: 'deny';
  readonly decidedBy: 'runtime';
  readonly reason: RuntimeReason;
  /** What the policy returned (policy_mutated_arguments, invalid_policy_result). */
  readonly policyResult?: unknown;
  /** What the policy threw or rejected with (policy_error). */
  readonly error?: unknown;
}

/**
 * The frozen decision of one evaluation, discriminated by `decidedBy`. Only
 * executeToolCall can act on it, and only on an allow, once.
 */
export type ToolCallDecision<T = SnapshotValue, P extends ToolPolicyResult = ToolPolicyResult> = PolicyDecision<T, P> | RuntimeDecision<T>;

/**
 * Runs policy on a fresh view and returns the frozen decision. Never rejects for what the
 * policy does (a throw, a rejection, a mutated view, a malformed result): those are
 * runtime denies. Without a policy: a runtime deny `policy_not_configured`.
 * @throws {TypeError} (as a rejection) for a `prepared` not made by prepareToolCall.
 */
export declare function evaluateToolCall<T, P extends ToolPolicyResult = ToolPolicyResult, C extends object = {}>(input: {
  prepared: PreparedToolCall<T>;
  policy?: (input: PolicyInputWith<T, C>) => P | Promise<P>;
  /**
   * Extra fields for the policy input, such as `{ runContext, turn }`: its own enumerable
   * data properties are copied (getters are not run). They cannot override the argument
   * fields. Its `grantScope` (a string) is the scope grants are looked up in.
   */
  policyContext?: C;
  /**
   * The provider's call id (default: the one given to prepareToolCall); never hashed. For a
   * call prepared without one, it is the call's id: its events' and, with receipts, its
   * execution receipt's key, so the call is never prepared again to be given it. With
   * receipts, one that differs from the prepared call's is a TypeError at execution.
   */
  toolCallId?: string;
}): Promise<ToolCallDecision<T, P>>;

/** The argument fields of a policy input: a policyContext cannot override them. */
export type ToolPolicyInputField = 'agentName' | 'toolName' | 'rawArguments' | 'requestedArguments' | 'parsedArguments' | 'argsCanonicalJson' | 'proposalHash';

/** The policy input with the fields of a policyContext `C` (the argument fields win). */
export type PolicyInputWith<T, C> = ToolPolicyInput<T> & Omit<C, ToolPolicyInputField>;

/**
 * The `grants` hook: asked right before the handler runs; only `true` lets it run. The
 * grants an evaluation relied on are spent whether or not a hook is passed.
 */
export interface ToolGrantSpender {
  spend(decision: ToolCallDecision<unknown, ToolPolicyResult>): boolean | Promise<boolean>;
}

/**
 * Runs `handler` with a new execution view, only for an allow decision evaluateToolCall
 * made, and at most once per decision.
 * @throws {ToolCallNotAllowedError} (as a rejection; nothing ran) `not_allowed` for a
 * deny or approval, `already_executed`, `not_a_decision` for anything evaluateToolCall
 * did not return (a copy included), `grant_unavailable` when `grants.spend` refused.
 * Errors of the handler propagate.
 */
export declare function executeToolCall<T, R>(
  decision: ToolCallDecision<T, ToolPolicyResult>,
  handler: (args: T) => R | Promise<R>,
  options?: { grants?: ToolGrantSpender; receipts?: ExecutionReceipts },
): Promise<R>;

/** The outcome of authorizeToolCall: a decision, and on allow the handler's result. */
export type ToolCallOutcome<R, P extends ToolPolicyResult = ToolPolicyResult, T = SnapshotValue> =
  | {
      decision: 'allow';
      decidedBy: 'policy';
      reason: string;
      result: R;
      policyResult: P;
      /** true when receipts (keepResults) returned the stored result: the handler did not run. */
      replayed?: true;
    }
  | { decision: 'deny'; decidedBy: 'policy'; reason: string; policyResult: P }
  | { decision: 'require_approval'; decidedBy: 'policy'; reason: string; proposal: SuspendedToolProposal<T>; policyResult: P }
  | {
      decision: 'deny';
      decidedBy: 'runtime';
      /** A RuntimeReason, `grant_unavailable` (the grants hook refused), or a receipts refusal. */
      reason: RuntimeReason | 'grant_unavailable' | ExecutionReceiptCode;
      policyResult?: unknown;
      error?: unknown;
    };

/**
 * evaluateToolCall, then, on allow, executeToolCall with `execute`: for run loops that
 * decide and execute at once. A refused grant becomes a runtime deny `grant_unavailable`.
 * Errors thrown by `execute` propagate.
 */
export declare function authorizeToolCall<T, R, P extends ToolPolicyResult = ToolPolicyResult, C extends object = {}>(input: {
  prepared: PreparedToolCall<T>;
  policy?: (input: PolicyInputWith<T, C>) => P | Promise<P>;
  execute: (args: T) => R | Promise<R>;
  policyContext?: C;
  grants?: ToolGrantSpender;
  receipts?: ExecutionReceipts;
  /**
   * The provider's call id (default: the one given to prepareToolCall); never hashed. For a
   * call prepared without one, it is the call's id (the receipt's key). With receipts, one
   * that differs from the prepared call's is a TypeError.
   */
  toolCallId?: string;
}): Promise<ToolCallOutcome<R, P, T>>;
