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

/** The stable error codes of the strict snapshot domain and of strict JSON decoding. */
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
 * surrogates, negative zero and numbers that overflow are rejected.
 * @throws {SnapshotDomainError} when a string source is not strict snapshot JSON.
 */
export declare function decodeView(source: ToolArgumentSnapshot | string, options?: PathOption): SnapshotValue;

/** The proposal hash of already computed canonical JSON (see ToolArgumentSnapshot). */
export declare function proposalHash(input: {
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
}): string;

/** A value outside the strict snapshot domain, or text that is not strict JSON. */
export declare class SnapshotDomainError extends Error {
  readonly name: 'SnapshotDomainError';
  readonly code: SnapshotErrorCode;
  /** RFC 6901 JSON Pointer of the offending value; only with `includePath: true`. */
  readonly path?: string;
}

/** Tool arguments rejected at one stage of the RFC-0016 pipeline. */
export declare class ToolArgumentsValidationError extends Error {
  readonly name: 'ToolArgumentsValidationError';
  readonly stage: 'json' | 'schema' | 'snapshot';
  readonly toolName: string;
  /** A SnapshotErrorCode, or `schema_error` at stage `schema`. */
  readonly code: string;
  /** RFC 6901 JSON Pointer of the offending value; only with `includePath: true`. */
  readonly path?: string;
  /** At stage `schema`: the schema's own error (not enumerable, not inspected). */
  readonly cause?: unknown;
}

/** Every error code, as listed in SnapshotErrorCode. */
export declare const ERROR_CODES: readonly SnapshotErrorCode[];

/** Deepest accepted nesting of arrays and objects (1024). */
export declare const MAX_DEPTH: number;

// ---------------------------------------------------------------------------------
// The run-loop pipeline (RFC-0016): prepareToolCall, then authorizeToolCall.

/** A tool schema: a function, or any object with a synchronous `parse` (zod schemas as they are). */
export type ToolSchema = { parse(value: unknown): unknown } | ((value: unknown) => unknown);

/**
 * Strict JSON decoding of a provider's raw arguments string. Empty or whitespace-only
 * text decodes to `{}`. Duplicate keys, lone surrogates, numbers that overflow to
 * infinity and nesting past MAX_DEPTH are rejected.
 * @throws {ToolArgumentsValidationError} with `stage: 'json'`.
 */
export declare function decodeRequest(
  rawArguments: string,
  options?: { toolName?: string; includePath?: boolean },
): unknown;

/** One tool call, decoded, parsed by its schema once and snapshotted. Frozen. */
export interface PreparedToolCall {
  readonly agentName: string;
  readonly toolName: string;
  /** The exact provider string. */
  readonly rawArguments: string;
  /** The strict-decoded, pre-schema request: diagnostic evidence, not authorization. */
  readonly requestedArguments: unknown;
  readonly snapshot: ToolArgumentSnapshot;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  /** A new decoded view of the snapshot on every call, for policy. */
  policyView(): SnapshotValue;
  /** A new decoded view of the snapshot on every call, for the tool handler. */
  executionView(): SnapshotValue;
}

/**
 * Decodes `rawArguments`, runs the schema exactly once on its own decoded copy, and
 * snapshots the schema output. Nothing returned references the schema output.
 * @throws {ToolArgumentsValidationError} at stage `json`, `schema` (the schema's error
 * as `cause`) or `snapshot`.
 */
export declare function prepareToolCall(input: {
  agentName: string;
  toolName: string;
  rawArguments: string;
  schema?: ToolSchema;
  includePath?: boolean;
}): PreparedToolCall;

/** What policy sees. `parsedArguments` is a fresh view; treat it as read-only. */
export interface ToolPolicyInput {
  agentName: string;
  toolName: string;
  rawArguments: string;
  requestedArguments: unknown;
  parsedArguments: SnapshotValue;
  argsCanonicalJson: string;
  proposalHash: string;
  /** Fields of `policyContext` (for example a run context and turn) are spread in. */
  [extra: string]: unknown;
}

/** What a policy returns; any other fields ride along and come back as `policyResult`. */
export interface ToolPolicyResult {
  decision: 'allow' | 'deny' | 'require_approval';
  reason: string;
}

/** A tool call waiting for approval: the evidence policy evaluated, reused as it was. */
export interface SuspendedToolProposal {
  kind: 'tool';
  agentName: string;
  toolName: string;
  rawArguments: string;
  /** Its own decoded view; approval systems should use argsCanonicalJson. */
  parsedArguments: SnapshotValue;
  argsCanonicalJson: string;
  proposalHash: string;
  reason: string;
}

export type ToolCallOutcome<R, P extends ToolPolicyResult = ToolPolicyResult> =
  | { decision: 'allow'; reason: string; result: R; policyResult: P }
  | {
      decision: 'deny';
      /**
       * The policy's reason, or `policy_mutated_arguments` (the policy view changed),
       * `policy_error` (the policy threw or rejected; see `error`) or
       * `invalid_policy_result` (the result was not a ToolPolicyResult).
       */
      reason: string;
      policyResult?: unknown;
      error?: unknown;
    }
  | { decision: 'require_approval'; reason: string; proposal: SuspendedToolProposal; policyResult: P };

/**
 * Runs policy on a fresh view, denies with `policy_mutated_arguments` if that view no
 * longer canonicalizes to the snapshot, and on `allow` runs `execute` with a new
 * execution view. Errors thrown by `execute` propagate.
 */
export declare function authorizeToolCall<R, P extends ToolPolicyResult = ToolPolicyResult>(input: {
  prepared: PreparedToolCall;
  policy: (input: ToolPolicyInput) => P | Promise<P>;
  execute: (args: SnapshotValue) => R | Promise<R>;
  /**
   * Extra fields for the policy input, such as `{ runContext, turn }`. They cannot
   * override the argument fields.
   */
  policyContext?: object;
}): Promise<ToolCallOutcome<R, P>>;

// ---------------------------------------------------------------------------------
// Approval grants bound to the proposal hash (lib/grants.js).

/** A stored grant. `expiresAt` is milliseconds since the epoch (the grants' clock), or null. */
export interface ApprovalGrantRecord {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
  /** The canonical JSON the approver saw (verified against `proposalHash` before storing). */
  readonly argsCanonicalJson: string;
  readonly expiresAt: number | null;
  /** Executions left; 1 for a single-use grant. */
  readonly uses: number;
}

/** What a grant is looked up and spent by. */
export interface ApprovalGrantQuery {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
}

/**
 * Where grants live. Methods are own properties of the store object (inherited ones are
 * not read), may be async, and get `now` from the grants' clock. A record is live when
 * `uses > 0` and (`expiresAt === null` or `now < expiresAt`).
 */
export interface ApprovalGrantStore {
  /** Insert a record (several may exist for one query; each counts separately). */
  put(record: ApprovalGrantRecord): void | Promise<void>;
  /** Whether a live record matches the query. A read: it must change nothing. */
  has(query: ApprovalGrantQuery, now: number): boolean | Promise<boolean>;
  /**
   * Atomically: if a live record matches, decrement its `uses` (removing it at 0) and
   * return true; otherwise return false. Two concurrent calls for a record with one use
   * left must not both return true (a conditional update, e.g.
   * `UPDATE ... SET uses = uses - 1 WHERE ... AND uses > 0 AND (expires_at IS NULL OR expires_at > $now)`
   * reporting whether one row changed). Anything but `true` counts as false.
   */
  take(query: ApprovalGrantQuery, now: number): boolean | Promise<boolean>;
  /** Remove every record matching the query (for `revoke`). Optional. */
  delete?(query: ApprovalGrantQuery): void | Promise<void>;
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
}

export interface ApprovalGrants {
  /**
   * Grants exactly this action: `approved` is a SuspendedToolProposal, a decision, or a
   * stored record, with own `agentName`, `toolName`, `argsCanonicalJson`, `proposalHash`.
   * The hash is checked against the text first (`verifySnapshot`).
   * @throws {SnapshotDomainError} `not_a_snapshot`, `not_canonical` or `hash_mismatch`.
   */
  grant(
    approved: { agentName: string; toolName: string; argsCanonicalJson: string; proposalHash: string },
    options?: { uses?: number; ttlMs?: number; expiresAt?: number },
  ): Promise<ApprovalGrantRecord>;
  /** Whether a live grant matches (a read; spends nothing). */
  has(query: ApprovalGrantQuery): Promise<boolean>;
  /** Removes every grant of this action (needs `store.delete`). */
  revoke(query: ApprovalGrantQuery): Promise<void>;
  /**
   * A policy that allows (`reason: 'approval_granted'`) exactly a call with a live
   * matching grant, and otherwise returns what `fallback` returns (default:
   * `{ decision: 'require_approval', reason: 'approval_required' }`). Looking spends nothing.
   */
  policy<I extends ApprovalGrantQuery>(
    fallback?: (input: I) => ToolPolicyResult | Promise<ToolPolicyResult>,
  ): (input: I) => Promise<ToolPolicyResult>;
  /**
   * The `grants` hook of `executeToolCall` / `authorizeToolCall`: for an allow made by
   * this object's `policy`, atomically consumes the matching grant and returns whether it
   * did; for any other allow returns true and spends nothing; otherwise false.
   */
  spend(decision: unknown): Promise<boolean>;
}

/** Approval grants bound to agent, tool and proposal hash, spent when the call executes. */
export declare function createApprovalGrants(options?: ApprovalGrantsOptions): ApprovalGrants;
