// Type declarations of tool-argument-snapshot, room snapshot (lib/snapshot/): the strict snapshot domain, canonical JSON, snapshots, views and proposal hashes.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

/** A value of the strict snapshot domain (RFC-0016): a JSON data tree. */
export type SnapshotValue = null | boolean | number | string | SnapshotValue[] | { [key: string]: SnapshotValue };

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
export declare function createSnapshot(input: { agentName: string; toolName: string; value: unknown; includePath?: boolean }): ToolArgumentSnapshot;

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
export declare function proposalHash(input: { agentName: string; toolName: string; argsCanonicalJson: string }): string;

/** Deepest accepted nesting of arrays and objects (1024). */
export declare const MAX_DEPTH: number;
