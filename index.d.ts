// Type declarations of tool-argument-snapshot. Hand-written beside index.js (the
// native binding's own declarations are generated into lib/native.d.ts).

/** A value of the strict snapshot domain (RFC-0016): a JSON data tree. */
export type SnapshotValue =
  | null
  | boolean
  | number
  | string
  | SnapshotValue[]
  | { [key: string]: SnapshotValue };

/**
 * The authorized form of a tool call's arguments. Frozen: assigning to a field changes
 * nothing (in strict-mode code the assignment throws a TypeError).
 */
export interface ToolArgumentSnapshot {
  readonly agentName: string;
  readonly toolName: string;
  /** The RFC 8785 (JCS) serialization of the detached, validated value. */
  readonly argsCanonicalJson: string;
  /**
   * Lowercase hex SHA-256 of the UTF-8 bytes of the RFC 8785 form of
   * `{"agentName":A,"argsCanonicalJson":J,"kind":"tool","toolName":T}`.
   */
  readonly proposalHash: string;
}

/**
 * The stable error codes of the strict snapshot domain, of strict JSON decoding, of
 * stored-snapshot verification (`not_canonical`, `hash_mismatch`, `not_a_snapshot`) and
 * of asynchronous schemas (`async_schema`): every member of ERROR_CODES.
 */
export type SnapshotErrorCode =
  | 'unsupported_type'
  | 'non_finite_number'
  | 'negative_zero'
  | 'lone_surrogate'
  | 'non_plain_object'
  | 'sparse_array'
  | 'array_extra_property'
  | 'accessor_property'
  | 'non_enumerable_property'
  | 'symbol_key'
  | 'cycle'
  | 'repeated_reference'
  | 'depth_limit'
  | 'invalid_json'
  | 'duplicate_key'
  | 'size_limit'
  | 'reentrant_call'
  | 'async_schema'
  | 'not_canonical'
  | 'hash_mismatch'
  | 'not_a_snapshot'
  | 'internal_error';

export interface PathOption {
  /**
   * Attach the RFC 6901 JSON Pointer of the offending value to errors as `path`.
   * Off by default because a pointer is made of payload keys. Messages never hold one.
   */
  includePath?: boolean;
}

/**
 * Returns the RFC 8785 canonical JSON of `value`, which must be in the strict snapshot
 * domain. Runs none of the value's code (no getter, setter, toJSON or Proxy trap).
 * @throws {SnapshotDomainError} when the value is outside the domain.
 */
export declare function canonicalize(value: unknown, options?: PathOption): string;

/**
 * Validates the strict domain, detaches, canonicalizes and hashes `value` exactly once.
 * @throws {ToolArgumentsValidationError} with `stage: 'snapshot'` when the value is
 * outside the domain.
 * @throws {TypeError} when `agentName` or `toolName` is not a well-formed string.
 */
export declare function createSnapshot(input: {
  agentName: string;
  toolName: string;
  value: unknown;
  includePath?: boolean;
}): ToolArgumentSnapshot;

/**
 * Decodes a snapshot (or its `argsCanonicalJson`) into a new value that shares no
 * reference with any earlier view. Text is strict-decoded: duplicate keys, lone
 * surrogates, negative zero and numbers that overflow are rejected. A plain object (a
 * snapshot loaded from storage) is verified as verifySnapshot does before it is decoded.
 * @throws {SnapshotDomainError} when a string source is not strict snapshot JSON, or a
 * stored snapshot does not verify.
 */
export declare function decodeView(source: ToolArgumentSnapshot | string, options?: PathOption): SnapshotValue;

/**
 * Verifies a snapshot loaded from storage (`{ agentName, toolName, argsCanonicalJson,
 * proposalHash }`, own data properties, extra fields ignored): `argsCanonicalJson` is
 * strict JSON in exact RFC 8785 form and `proposalHash` is the hash of the three fields.
 * Returns a new frozen snapshot that decodeView treats as its own. Nothing executes from
 * a stored snapshot: resuming prepares a new attempt (RFC-0016).
 * @throws {SnapshotDomainError} `not_a_snapshot` (not an object, a field missing, not a
 * well-formed string or not own data), a strict-JSON code or `not_canonical`, `hash_mismatch`.
 */
export declare function verifySnapshot(stored: unknown): ToolArgumentSnapshot;

/** The proposal hash of already computed canonical JSON (see ToolArgumentSnapshot). */
export declare function proposalHash(input: {
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
}): string;

/** The codes of a SnapshotDomainError. */
export type SnapshotDomainErrorCode = Exclude<SnapshotErrorCode, 'async_schema'>;

/** A value outside the strict snapshot domain, text that is not strict JSON, or a stored snapshot that does not verify. */
export declare class SnapshotDomainError extends Error {
  readonly name: 'SnapshotDomainError';
  readonly code: SnapshotDomainErrorCode;
  /** RFC 6901 JSON Pointer of the offending value; only with `includePath: true`. */
  readonly path?: string;
}

/** The codes of a ToolArgumentsValidationError: `schema_error` or `async_schema` at stage schema, a SnapshotErrorCode otherwise. */
export type ToolArgumentsErrorCode = Exclude<SnapshotErrorCode, 'not_canonical' | 'hash_mismatch' | 'not_a_snapshot'> | 'schema_error' | ToolCallPairingCode;

/**
 * Stage json codes of the framework adapters: a tool call they cannot pair with its
 * provider text (no call id, a call id two calls share, no recorded text, another text).
 */
export type ToolCallPairingCode = 'missing_call_id' | 'duplicate_call_id' | 'unpaired_call' | 'no_provider_text' | 'provider_text_mismatch';

/** The issue codes of zod 3 and zod 4 (`unknown` for a code outside them). */
export type ZodIssueCode =
  | 'invalid_type' | 'invalid_literal' | 'custom' | 'invalid_union' | 'invalid_union_discriminator'
  | 'invalid_enum_value' | 'unrecognized_keys' | 'invalid_arguments' | 'invalid_return_type' | 'invalid_date'
  | 'invalid_string' | 'too_small' | 'too_big' | 'invalid_intersection_types' | 'not_multiple_of' | 'not_finite'
  | 'invalid_format' | 'invalid_key' | 'invalid_element' | 'invalid_value' | 'unknown';

/** The JSON Schema keywords fromJsonSchema's issues can name in `issueCodes`. */
export type JsonSchemaIssueKeyword =
  | 'type' | 'required' | 'enum' | 'const' | 'format' | 'pattern' | 'minimum' | 'maximum' | 'exclusiveMinimum'
  | 'exclusiveMaximum' | 'multipleOf' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems' | 'uniqueItems'
  | 'minProperties' | 'maxProperties' | 'additionalProperties' | 'unevaluatedProperties' | 'unevaluatedItems'
  | 'propertyNames' | 'dependentRequired' | 'dependentSchemas' | 'dependencies' | 'if' | 'not' | 'anyOf' | 'oneOf'
  | 'allOf' | 'contains' | 'minContains' | 'maxContains' | 'items' | 'prefixItems' | 'additionalItems' | 'false schema'
  | 'formatMinimum' | 'formatMaximum' | 'formatExclusiveMinimum' | 'formatExclusiveMaximum';

/** Tool arguments rejected at one stage of the RFC-0016 pipeline. */
export declare class ToolArgumentsValidationError extends Error {
  readonly name: 'ToolArgumentsValidationError';
  readonly stage: 'json' | 'schema' | 'snapshot';
  readonly toolName: string;
  readonly code: ToolArgumentsErrorCode;
  /** RFC 6901 JSON Pointer of the offending value; only with `includePath: true`. */
  readonly path?: string;
  /** Stage schema: how many issues the schema reported (zod's issues, Standard Schema `issues`). */
  readonly issueCount?: number;
  /**
   * Stage schema, zod and fromJsonSchema only: the issues' codes (zod's issue codes, the
   * JSON Schema keyword that failed), in order (at most 100); `unknown` outside the vocabulary.
   */
  readonly issueCodes?: readonly (ZodIssueCode | JsonSchemaIssueKeyword)[];
  /** Stage schema, with `includePath: true` only: the issues' paths as JSON Pointers (at most 100). */
  readonly issuePaths?: readonly string[];
  /**
   * Stage schema: the schema's own error (what `parse` threw or `parseAsync` rejected
   * with; for a Standard Schema, its `issues`). It can quote the payload, so no property
   * of this error holds it (there is no `cause`): never log it.
   */
  getSchemaError(): unknown;
}

/** The codes of a ToolCallNotAllowedError. */
export type ToolCallNotAllowedCode =
  | 'not_allowed' | 'already_executed' | 'not_a_decision' | 'grant_unavailable'
  | ExecutionReceiptCode;

/** The codes execution receipts add (docs/receipts.md). */
export type ExecutionReceiptCode =
  | 'call_id_required' | 'call_already_executed' | 'call_id_conflict' | 'execution_in_progress' | 'outcome_unknown'
  | 'receipt_store_unavailable';

/** executeToolCall refused to run the handler; nothing ran. */
export declare class ToolCallNotAllowedError extends Error {
  readonly name: 'ToolCallNotAllowedError';
  readonly code: ToolCallNotAllowedCode;
  /** The tool of the decision (absent for `not_a_decision`). */
  readonly toolName?: string;
  /** The decision that was refused (absent for `not_a_decision`). */
  readonly decision?: 'allow' | 'deny' | 'require_approval';
  /** For `call_already_executed`: what the receipt says (payload-free). */
  readonly receipt?: { readonly status: 'completed' | 'failed'; readonly proposalHash: string; readonly completedAt: number | null };
}

/** The codes of an ApprovalGrantError. */
export type ApprovalGrantErrorCode = 'not_sealed' | 'unknown_key' | 'bad_signature' | 'seal_expired' | 'seal_used';

/**
 * A grant refused (with a key ring, `grant` accepts only sealed proposals that verify,
 * are live and were never granted). Nothing was granted; the message names the code only.
 */
export declare class ApprovalGrantError extends Error {
  readonly name: 'ApprovalGrantError';
  readonly code: ApprovalGrantErrorCode;
}

/** Whether `value` is an ApprovalGrantError of this or any other copy of the package in the process. */
export declare function isApprovalGrantError(value: unknown): value is ApprovalGrantError;

/** Whether `value` is a SnapshotDomainError of this or any other copy of the package in the process. */
export declare function isSnapshotDomainError(value: unknown): value is SnapshotDomainError;
/** Whether `value` is a ToolArgumentsValidationError of this or any other copy of the package in the process. */
export declare function isToolArgumentsValidationError(value: unknown): value is ToolArgumentsValidationError;
/** Whether `value` is a ToolCallNotAllowedError of this or any other copy of the package in the process. */
export declare function isToolCallNotAllowedError(value: unknown): value is ToolCallNotAllowedError;

/** Every error code, as listed in SnapshotErrorCode. */
export declare const ERROR_CODES: readonly SnapshotErrorCode[];

/** Deepest accepted nesting of arrays and objects (1024). */
export declare const MAX_DEPTH: number;

// ---------------------------------------------------------------------------------
// The run-loop pipeline (RFC-0016): prepareToolCall, evaluateToolCall (the run loop
// records the decision), executeToolCall; or authorizeToolCall for the last two at once.

/** A read-only value of the strict snapshot domain: what a policy sees without a schema. Narrow it to read it. */
export type ReadonlySnapshotValue =
  | null
  | boolean
  | number
  | string
  | readonly ReadonlySnapshotValue[]
  | { readonly [key: string]: ReadonlySnapshotValue };

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
    ? NonNullable<Types> extends { readonly output: infer O } ? O : unknown
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
  /** The provider's call id (events, and the execution receipt's key); never hashed. */
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
export declare const RUNTIME_REASONS: readonly ['policy_mutated_arguments', 'policy_error', 'invalid_policy_result', 'policy_not_configured', 'grant_store_unavailable'];

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
  /** The provider's call id, for events only (default: the one given to prepareToolCall); never hashed. */
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
      decision: 'allow'; decidedBy: 'policy'; reason: string; result: R; policyResult: P;
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
   * The provider's call id (default: the one given to prepareToolCall); never hashed.
   * With receipts, one that differs from the prepared call's is a TypeError.
   */
  toolCallId?: string;
}): Promise<ToolCallOutcome<R, P, T>>;

// ---------------------------------------------------------------------------------
// Approval grants bound to the proposal hash and an optional scope (lib/grants/).

/**
 * A stored grant. `expiresAt` is milliseconds since the epoch (the grants' clock), or
 * null. `scope` is the grant's scope (null: evaluations without a `grantScope`).
 */
export interface ApprovalGrantRecord {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
  readonly scope: string | null;
  /** The canonical JSON the approver saw (verified against `proposalHash` before storing). */
  readonly argsCanonicalJson: string;
  readonly expiresAt: number | null;
  /** Executions left; 1 for a single-use grant. */
  readonly uses: number;
  /** The sealed proposal's nonce (with a key ring), recorded with the grant; else null. */
  readonly nonce: string | null;
  /** Until when the nonce is kept (the seal's expiry; null: always). */
  readonly nonceExpiresAt: number | null;
  /** The id of the key whose seal was granted (null without a key ring); stores need not keep it. */
  readonly keyId: string | null;
}

/** What a grant is looked up, spent and revoked by. `scope` absent or null: unscoped. */
export interface ApprovalGrantQuery {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
  readonly scope?: string | null;
}

/**
 * Where grants live (docs/stores.md). Methods are own function properties of the store
 * object (inherited ones are not read), may be async, and get `now` from the grants'
 * clock (stores never use their server's clock). A record is live when `uses > 0` and
 * (`expiresAt === null` or `now < expiresAt`). The key of a grant is agent, tool, hash
 * and scope (null is a value of its own).
 */
export interface ApprovalGrantStore {
  /**
   * Insert a record (several may exist for one key; each counts separately). With a
   * `nonce`, atomically with the insert: record it, or, if it was recorded before, insert
   * nothing and return `false`.
   */
  put(record: ApprovalGrantRecord, now: number): boolean | void | Promise<boolean | void>;
  /** Whether a live record matches the query. A read: it changes nothing (a clock that steps back finds what it found). */
  has(query: Required<ApprovalGrantQuery>, now: number): boolean | Promise<boolean>;
  /**
   * Atomically: if a live record matches, decrement its `uses` (removing it at 0) and
   * return true; otherwise return false. Of N concurrent callers (in any process) racing
   * for the last use, exactly one gets `true`. Anything but `true` counts as false.
   */
  take(query: Required<ApprovalGrantQuery>, now: number): boolean | Promise<boolean>;
  /** Remove every record matching the query (for `revoke`). */
  delete?(query: Required<ApprovalGrantQuery>): void | Promise<void>;
  /** Remove expired and used-up records, expired nonces and kept proposals; how many. */
  prune?(now: number): number | Promise<number>;
  /** Keep, read and drop a proposal by an opaque key (for adapters; see keepProposal). */
  putProposal?(key: string, json: string, expiresAt: number | null): void | Promise<void>;
  getProposal?(key: string, now: number): string | null | Promise<string | null>;
  deleteProposal?(key: string): void | Promise<void>;
  /**
   * One page of the live kept proposals, in key order after `after` (null: from the start),
   * at most `limit` (1 to 1000); `next` is the cursor of the following page, or null at the
   * end (a page may be short while `next` is not null). For reviewing (listProposals).
   */
  listProposals?(after: string | null, limit: number, now: number): ProposalPage | Promise<ProposalPage>;
  /** Release what the store opened (never a client or pool the application passed in). */
  close?(): void | Promise<void>;
}

/** A key of the ring: `id` non-empty; `secret` a string (its UTF-8 bytes) or bytes, at least 32 bytes. */
export interface ApprovalKey {
  id: string;
  secret: string | Uint8Array;
}

export interface ApprovalGrantsOptions {
  /** Default: an in-memory store (one process). */
  store?: ApprovalGrantStore;
  /** The clock, in milliseconds. Default: `Date.now`. */
  now?: () => number;
  /** Default uses of a grant. Default: 1 (single use). */
  uses?: number;
  /** Default lifetime of a grant in milliseconds. Default: none (grants do not expire). */
  ttlMs?: number;
  /**
   * A key ring: the first key seals, every key verifies. With keys, `grant` accepts only
   * sealed proposals that verify, are live and were never granted before.
   */
  keys?: readonly ApprovalKey[];
  /**
   * How long a granted seal's nonce is kept past the seal's expiry, so that processes whose
   * clocks disagree by less never grant one seal twice. Default: one day (86,400,000 ms).
   */
  nonceRetentionMs?: number;
}

/**
 * A sealed proposal: a plain JSON object signed with HMAC-SHA256 (lowercase hex) over
 * the UTF-8 RFC 8785 form of the same object without `signature` (docs/approvals.md).
 */
export interface SealedProposal {
  v: 1;
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
  proposalHash: string;
  keyId: string;
  /** 128 random bits, 32 lowercase hex digits. */
  nonce: string;
  /** Until when the seal can be granted (the grants' clock), or null. */
  expiresAt: number | null;
  /** The scope the grant will have, or null. */
  scope: string | null;
  signature: string;
}

/** The snapshot fields of a proposal: a SuspendedToolProposal, a decision, a snapshot or a stored record. */
export interface ProposalFields {
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
  proposalHash: string;
}

/** Where an adapter keeps a proposal: one run, one call. */
export interface ProposalKey {
  runId: string;
  toolCallId: string;
}

export interface ApprovalGrants {
  /**
   * Grants exactly this action. Without keys: `approved` is a SuspendedToolProposal, a
   * decision, or a stored record, checked with `verifySnapshot` first. With keys: only a
   * sealed proposal that verifies, is not expired and was never granted.
   * @throws {SnapshotDomainError} `not_a_snapshot`, `not_canonical` or `hash_mismatch`.
   * @throws {ApprovalGrantError} with keys: `not_sealed`, `unknown_key`, `bad_signature`,
   * `seal_expired`, `seal_used`.
   * @throws {TypeError} a Proxy, bad options, or a `scope` other than the sealed one.
   */
  grant(
    approved: ProposalFields | SealedProposal,
    options?: { uses?: number; ttlMs?: number; expiresAt?: number; scope?: string | null },
  ): Promise<ApprovalGrantRecord>;
  /**
   * Seals a proposal for an approval that leaves the server (synchronous).
   * @throws {TypeError} without keys.
   */
  seal(proposal: ProposalFields, options?: { ttlMs?: number; scope?: string | null }): SealedProposal;
  /**
   * Verifies a sealed proposal without granting it (for a reviewer's display): its
   * signature, its expiry on the grants' clock and its hash; returns a fresh copy.
   * @throws {TypeError} without keys. @throws {ApprovalGrantError} (not `seal_used`).
   * @throws {SnapshotDomainError}.
   */
  verify(sealed: unknown): SealedProposal;
  /** Whether these grants seal (a key ring was given). */
  readonly sealing: boolean;
  /** Whether the grants keep their records in a store the application gave (false: this process's memory). */
  readonly durable: boolean;
  /**
   * The execution receipts kept in the grants' own store (one object per store), or null
   * when the grants live in this process's memory or the store lacks the six receipt
   * operations. Every gate given these grants uses them by default.
   */
  executionReceipts(): ExecutionReceipts | null;
  /** Whether a live grant matches (a read; spends nothing). */
  has(query: ApprovalGrantQuery): Promise<boolean>;
  /** Removes every grant of this action and scope (needs `store.delete`). */
  revoke(query: ApprovalGrantQuery): Promise<void>;
  /** Removes expired and used-up grants, nonces and kept proposals (needs `store.prune`). */
  prune(): Promise<number>;
  /**
   * A policy that asks `fallback` first (default: `{ decision: 'require_approval', reason:
   * 'approval_required' }`) and returns its answer, except that a `require_approval` is
   * answered allow (`reason: 'approval_granted'`) when a live grant matches the call's
   * agent, tool, hash and `policyContext.grantScope`: an allow or a deny of `fallback` is
   * final, and looks nothing up. Looking spends nothing: the evaluation that relied on the
   * grant spends one use right before its handler runs, however the result is copied.
   * Called with anything but the input evaluateToolCall made, it answers as `fallback`.
   */
  policy<I extends ToolPolicyInput<any>>(
    fallback?: (input: I) => ToolPolicyResult | Promise<ToolPolicyResult>,
  ): (input: I) => Promise<ToolPolicyResult>;
  /**
   * The `grants` hook of `executeToolCall` / `authorizeToolCall`: for an allow whose
   * evaluation relied on grants, spends them (once, whoever asks first) and returns
   * whether it did; for any other allow returns true and spends nothing; otherwise false.
   */
  spend(decision: unknown): Promise<boolean>;
  /** Keeps a proposal for a run and a call (sealed with keys). Returns what was kept. */
  keepProposal(key: ProposalKey, proposal: ProposalFields, options?: { ttlMs?: number; scope?: string | null }): Promise<SealedProposal | ProposalFields>;
  /** The proposal kept for a run and a call, verified again, or undefined. */
  keptProposal(key: ProposalKey): Promise<SealedProposal | ProposalFields | undefined>;
  forgetProposal(key: ProposalKey): Promise<void>;
  /**
   * A page of the proposals kept in the store (for a review screen or the CLI's `pending`):
   * each verified as keptProposal does, or, when it does not verify, only its `error`
   * (ApprovalGrantError or SnapshotDomainError, such as `bad_signature` or `hash_mismatch`),
   * never its text. `limit` 1 to 1000 (default 100); pass `cursor` from the previous page.
   * Needs a store with listProposals (every store of the package has it).
   */
  listProposals(options?: { limit?: number; cursor?: string | null }): Promise<{ proposals: KeptProposalEntry[]; cursor: string | null }>;
}

/** A page of a store's listProposals: the store key and stored JSON of each kept proposal. */
export interface ProposalPage {
  proposals: { key: string; json: string }[];
  next: string | null;
}

/** One entry of ApprovalGrants.listProposals: its ids, and the verified proposal or the error. */
export interface KeptProposalEntry {
  runId: string | null;
  toolCallId: string | null;
  proposal?: SealedProposal | ProposalFields;
  error?: Error & { code: string };
}

/** Approval grants bound to agent, tool, proposal hash and scope, spent when the call executes. */
export declare function createApprovalGrants(options?: ApprovalGrantsOptions): ApprovalGrants;

// ---------------------------------------------------------------------------------
// Durable grant stores (lib/grants/stores/, docs/stores.md): synchronous factories.

/** A store of `createSqliteGrantStore`, `createPostgresGrantStore` or `createRedisGrantStore`: every method answers a promise. */
export interface DurableGrantStore extends ApprovalGrantStore, ExecutionReceiptStore {
  put(record: ApprovalGrantRecord, now: number): Promise<boolean>;
  has(query: Required<ApprovalGrantQuery>, now: number): Promise<boolean>;
  take(query: Required<ApprovalGrantQuery>, now: number): Promise<boolean>;
  delete(query: Required<ApprovalGrantQuery>): Promise<void>;
  prune(now: number): Promise<number>;
  putProposal(key: string, json: string, expiresAt: number | null): Promise<void>;
  getProposal(key: string, now: number): Promise<string | null>;
  deleteProposal(key: string): Promise<void>;
  /** Releases what the store opened (SQLite: its file, after the calls already made); later calls reject `store_closed`. Never closes a pool or client it was given. */
  close(): Promise<void>;
}

export interface SqliteGrantStoreOptions {
  /** The database file (created when missing, mode 0600), or ':memory:'. */
  path: string;
  /** Default 'tool_argument_snapshot_grants' (and `<table>_nonces`, `<table>_proposals`): [A-Za-z_][A-Za-z0-9_]*, at most 41 characters. */
  table?: string;
  /** The longest a call takes, waiting for other processes' locks included. Default 5000; whole milliseconds 1..2147483647. */
  timeoutMs?: number;
}

/** A pg Pool or Client (or anything with pg's `query(config)` resolving to `{ rows }`). */
export interface PostgresQueryable {
  query(config: { text: string; values?: unknown[]; query_timeout?: number }): unknown;
}

export interface PostgresGrantStoreOptions {
  /** Never ended by the store. */
  pool: PostgresQueryable;
  /** Default 'tool_argument_snapshot_grants'; may be schema-qualified ('schema.table'). */
  table?: string;
  /** Default 5000; also pg's query_timeout. */
  timeoutMs?: number;
}

export interface PostgresGrantStore extends DurableGrantStore {
  /** Creates the tables and indexes when missing (idempotent; the DDL is in docs/stores.md). */
  migrate(): Promise<void>;
}

/** A connected node-redis (4 or later) or ioredis client. */
export type RedisCommandClient =
  | { sendCommand(args: string[]): PromiseLike<unknown> }
  | { call(command: string, ...args: string[]): PromiseLike<unknown> };

export interface RedisGrantStoreOptions {
  /** Never closed by the store. */
  client: RedisCommandClient;
  /** Default 'tas:grant:'. */
  prefix?: string;
  /** Default 5000. */
  timeoutMs?: number;
}

/** What a store call rejects with when the store fails, times out or was closed (a bad argument is a TypeError). */
export interface GrantStoreError extends Error {
  readonly name: 'GrantStoreError';
  readonly code: 'store_timeout' | 'store_failed' | 'store_closed';
  /** The store method: 'put', 'has', 'take', 'delete', 'prune', 'putProposal', 'getProposal', 'deleteProposal', 'close' or 'migrate'. */
  readonly operation: string;
  /** A bare code when the cause had one: an SQLSTATE ('42P01'), a system error ('ECONNREFUSED'), a Redis error kind ('WRONGTYPE'), 'sqlite_<code>', 'bad_result' or 'bad_reply'. */
  readonly detail?: string;
}

export declare function createSqliteGrantStore(options: SqliteGrantStoreOptions): DurableGrantStore;
export declare function createPostgresGrantStore(options: PostgresGrantStoreOptions): PostgresGrantStore;
export declare function createRedisGrantStore(options: RedisGrantStoreOptions): DurableGrantStore;

// ---------------------------------------------------------------------------------
// JSON Schema tools (lib/json-schema/): MCP tools, the AI SDK's jsonSchema(), OpenAI
// function tools and LangChain tools describe their input with JSON Schema.

/** A JSON Schema: an object of JSON data, or a boolean schema. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** The dialects fromJsonSchema compiles, chosen by `$schema` (none: draft 2020-12). */
export type JsonSchemaDialect = 'draft-2020-12' | 'draft-2019-09' | 'draft-07' | 'draft-06';

export interface FromJsonSchemaOptions {
  /**
   * Insert the `default` of every absent property (Ajv's `useDefaults`) into the output,
   * and so into the snapshot and its hash: `{}` and `{"limit":10}` (default 10) become the
   * same proposal. Default: false (the output is the input as sent).
   */
  defaults?: boolean;
  /**
   * Default: the formats ajv-formats knows (`email`, `date-time`, `uri`, `uuid`, ...) are
   * asserted, and a schema naming any other format does not compile. `'ignore'`: formats
   * are annotations only (ajv-formats is not needed). An object adds formats by name: a
   * RegExp, a function of the string that returns `true` to accept, or `true` (accepted
   * unchecked).
   */
  formats?: 'ignore' | { readonly [name: string]: RegExp | ((value: string) => boolean) | true };
}

/** One reason a value failed its JSON Schema. Its message and path can quote payload keys: never log them. */
export interface JsonSchemaIssue {
  readonly message: string;
  /** Keys from the root to the failing value (for `required`, to the missing property). */
  readonly path: readonly string[];
  /** The JSON Schema keyword that failed (`type`, `required`, `format`, ...). */
  readonly keyword: string;
}

/**
 * A JSON Schema as a tool schema: a Standard Schema v1 (with Standard JSON Schema's
 * `jsonSchema.input()`), validated by Ajv 8. `T` is the output type you assert the schema
 * describes (default: a JSON value).
 *
 * The validator is JavaScript that Ajv generates from the schema (`new Function`): it
 * calls the built-ins it finds when it runs, so it is outside the package's guarantee
 * that every built-in is captured at load. The package's own steps around it (the copy it
 * validates, the snapshot of its output) keep that guarantee.
 */
export interface JsonSchemaToolSchema<T = SnapshotValue> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'tool-argument-snapshot';
    /**
     * Never changes its argument. Without defaults, `value` is the value validated; with
     * defaults, a copy the package made (records and arrays of the value's own data) with
     * the inserted defaults.
     */
    readonly validate: (value: unknown) => { readonly value: T; readonly issues?: undefined } | { readonly issues: readonly JsonSchemaIssue[] };
    readonly types?: { readonly input: unknown; readonly output: T } | undefined;
    /** A new, mutable copy of the schema as given (no conversion between dialects). */
    readonly jsonSchema: {
      input(options?: { readonly target?: string }): JsonSchema;
      output(options?: { readonly target?: string }): JsonSchema;
    };
  };
  /** The schema as given, deeply frozen (for a framework that shows it to the model: copy it). */
  readonly jsonSchema: JsonSchema;
  readonly dialect: JsonSchemaDialect;
  readonly defaults: boolean;
}

/**
 * A tool schema of a JSON Schema, for prepareToolCall and every adapter. The schema is
 * read once as JSON data and compiled now, by Ajv 8 (optional peer dependencies `ajv` and
 * `ajv-formats`, loaded on the first call).
 * @throws {TypeError} `ERR_INVALID_ARG_VALUE` when the schema does not compile (an
 * invalid keyword, an unresolvable `$ref`, an unsupported `$schema`, an unknown format),
 * `ERR_INVALID_ARG_TYPE` for a schema that is not JSON data (a Proxy, a getter, a function).
 * @throws {Error} `MODULE_NOT_FOUND` naming `ajv` or `ajv-formats` when it is not installed.
 */
export declare function fromJsonSchema<T = SnapshotValue>(schema: JsonSchema, options?: FromJsonSchemaOptions): JsonSchemaToolSchema<T>;

// ---------------------------------------------------------------------------------
// A reviewer's diff (lib/diff.js).

/** One difference between an approved and a proposed snapshot (see diffSnapshots). */
export interface SnapshotDiffEntry {
  /**
   * RFC 6901 JSON Pointer of the member or element ('' is the whole value; "~" is written
   * "~0" and "/" is written "~1"). Made of the payload's own keys: treat it as sensitive.
   */
  readonly path: string;
  /**
   * 'added': only in the proposed value; 'removed': only in the approved value;
   * 'changed': in both and different (a change of type is not descended into).
   */
  readonly kind: 'added' | 'removed' | 'changed';
  /** With `includeValues: true`, absent for 'added': the approved value at `path`, a fresh decoded copy. */
  readonly approved?: SnapshotValue;
  /** With `includeValues: true`, absent for 'removed': the proposed value at `path`, a fresh decoded copy. */
  readonly proposed?: SnapshotValue;
}

/**
 * Where a proposed call's arguments differ from an approved one's, for a reviewer. Both
 * sides (snapshots, prepared calls, decisions, SuspendedToolProposals, sealed proposals or
 * records loaded from storage) are verified as verifySnapshot verifies them and decoded
 * afresh from their verified canonical JSON. Returns a frozen array of frozen entries in
 * canonical key order (RFC 8785 member order, depth first, arrays by index); equal
 * arguments give `[]`. Paths hold payload keys and, with `includeValues`, entries hold
 * payload values. A diff is a reviewer's aid, never an authorization: an approval binds
 * the proposal hash.
 * @throws {SnapshotDomainError} when either side does not verify (the verifySnapshot codes).
 * @throws {TypeError} code `ERR_INVALID_ARG_VALUE` when the agents or the tools differ;
 * `ERR_INVALID_ARG_TYPE` when `options` is not an object or is a Proxy.
 */
export declare function diffSnapshots(
  approved: unknown,
  proposed: unknown,
  options?: { includeValues?: boolean },
): readonly SnapshotDiffEntry[];

// ---------------------------------------------------------------------------------
// Execution receipts: once per tool call (lib/receipts/, docs/receipts.md).

/** The key of an execution receipt: the prepared call's agentName, runId (null when absent) and toolCallId. */
export interface ExecutionReceiptKey {
  agentName: string;
  runId?: string | null;
  toolCallId: string;
}

/** What a store keeps of a receipt (docs/stores.md); `status` is never `outcome_unknown` there. */
export interface ExecutionReceiptRecord {
  agentName: string;
  runId: string | null;
  toolCallId: string;
  proposalHash: string;
  claimId: string;
  status: 'in_progress' | 'completed' | 'failed';
  claimedAt: number;
  leaseExpiresAt: number;
  completedAt: number | null;
  resultJson: string | null;
  expiresAt: number;
}

/** The receipt operations of a grant store (each atomic; a value or a promise). */
export interface ExecutionReceiptStore {
  claimReceipt(
    claim: Readonly<{ agentName: string; runId: string | null; toolCallId: string; proposalHash: string; claimId: string; claimedAt: number; leaseExpiresAt: number; expiresAt: number }>,
    now: number,
  ): ExecutionReceiptRecord | null | Promise<ExecutionReceiptRecord | null>;
  completeReceipt(
    outcome: Readonly<{ agentName: string; runId: string | null; toolCallId: string; claimId: string; status: 'completed' | 'failed'; completedAt: number; resultJson: string | null; expiresAt: number }>,
    now: number,
  ): boolean | Promise<boolean>;
  releaseReceipt(key: Readonly<{ agentName: string; runId: string | null; toolCallId: string; claimId: string }>, now: number): boolean | Promise<boolean>;
  getReceipt(key: Readonly<{ agentName: string; runId: string | null; toolCallId: string }>, now: number): ExecutionReceiptRecord | null | Promise<ExecutionReceiptRecord | null>;
  deleteReceipt(key: Readonly<{ agentName: string; runId: string | null; toolCallId: string }>): boolean | Promise<boolean>;
  pruneReceipts(now: number): number | Promise<number>;
}

/** Options of createExecutionReceipts, read as own data properties (a Proxy is refused). */
export interface ExecutionReceiptsOptions {
  /** Any grant store of the package, or one with the six receipt methods (default: process memory). */
  store?: ExecutionReceiptStore;
  /** How long a claim holds before it reads as outcome_unknown (ms; default 5 minutes). */
  leaseMs?: number;
  /** How long a receipt with an outcome is kept after it (ms; default 24 hours). An unfinished claim is kept until `forget`. */
  retentionMs?: number;
  /** Keep a result that is JSON data (RFC 8785 JSON) and resolve it on a replay (default false). */
  keepResults?: boolean;
  /** Release the claim of a failed handler so a retry runs (default false). */
  retryFailed?: boolean;
  /** The clock, integer ms (default Date.now). Stores never use their own. */
  now?: () => number;
  /** How long the store may take at claim before receipt_store_unavailable (ms; default 5000). */
  timeoutMs?: number;
}

/** A receipt as `receipts.get` reads it: payload-free; `outcome_unknown` is an in-progress claim past its lease. */
export interface ExecutionReceipt {
  readonly agentName: string;
  readonly runId: string | null;
  readonly toolCallId: string;
  readonly status: 'in_progress' | 'completed' | 'failed' | 'outcome_unknown';
  readonly proposalHash: string;
  readonly claimedAt: number;
  readonly leaseExpiresAt: number;
  readonly completedAt: number | null;
  readonly expiresAt: number;
  /** Whether a result is kept (keepResults and a JSON-data result). */
  readonly hasResult: boolean;
}

/** Pass as `receipts` to executeToolCall or authorizeToolCall. */
export interface ExecutionReceipts {
  get(key: ExecutionReceiptKey): Promise<ExecutionReceipt | null>;
  /** Deletes a receipt whatever it says, so a new run of the key may happen: an operator's decision. */
  forget(key: ExecutionReceiptKey): Promise<boolean>;
  /** Deletes the receipts whose outcome is past its retention (never an unfinished claim); resolves how many. */
  prune(): Promise<number>;
  /** Whether the application gave the store (false: this process's memory). */
  readonly durable: boolean;
}

/** Execution receipts: at most one run per { agentName, runId, toolCallId }, bound to the proposal hash. */
export declare function createExecutionReceipts(options?: ExecutionReceiptsOptions): ExecutionReceipts;

// openGrantStore

export interface OpenGrantStoreOptions {
  /** SQLite and PostgreSQL: the grants table (as the factories take it). */
  table?: string;
  /** Redis: the key prefix. */
  prefix?: string;
  /** Every call's bound (default 5000); for Redis also the connect's. */
  timeoutMs?: number;
  /** Redis: which client to load from the application (default: 'redis' when installed, else 'ioredis'). */
  redisClient?: 'redis' | 'ioredis';
}

/**
 * A grant store from a URL: `sqlite:PATH`, `sqlite::memory:`, `postgres://...`, `postgresql://...`
 * (migrate() is run), `redis://...`, `rediss://...`. pg, redis or ioredis is loaded from the
 * application (optional peers; MODULE_NOT_FOUND naming it when missing). close() closes the store
 * and what was opened for it. No message shows the URL.
 */
export declare function openGrantStore(url: `sqlite:${string}`, options?: OpenGrantStoreOptions): Promise<DurableGrantStore>;
export declare function openGrantStore(url: `postgres://${string}` | `postgresql://${string}`, options?: OpenGrantStoreOptions): Promise<PostgresGrantStore>;
export declare function openGrantStore(url: string, options?: OpenGrantStoreOptions): Promise<DurableGrantStore>;

export { createCedarPolicy, isCedarPolicyError, CedarPolicyError } from './lib/cedar/index';
export type { CedarPolicyOptions, CedarPolicy, CedarPolicyResult, CedarPolicyIssue, CedarPolicyErrorCode, CedarDecisionReason, CedarEntityRef } from './lib/cedar/index';
