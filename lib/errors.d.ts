// Type declarations of tool-argument-snapshot, room errors (lib/errors.js): the error classes, their codes and guards.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { SnapshotErrorCode } from './snapshot/index';

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
  | 'invalid_type'
  | 'invalid_literal'
  | 'custom'
  | 'invalid_union'
  | 'invalid_union_discriminator'
  | 'invalid_enum_value'
  | 'unrecognized_keys'
  | 'invalid_arguments'
  | 'invalid_return_type'
  | 'invalid_date'
  | 'invalid_string'
  | 'too_small'
  | 'too_big'
  | 'invalid_intersection_types'
  | 'not_multiple_of'
  | 'not_finite'
  | 'invalid_format'
  | 'invalid_key'
  | 'invalid_element'
  | 'invalid_value'
  | 'unknown';

/** The JSON Schema keywords fromJsonSchema's issues can name in `issueCodes`. */
export type JsonSchemaIssueKeyword =
  | 'type'
  | 'required'
  | 'enum'
  | 'const'
  | 'format'
  | 'pattern'
  | 'minimum'
  | 'maximum'
  | 'exclusiveMinimum'
  | 'exclusiveMaximum'
  | 'multipleOf'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems'
  | 'uniqueItems'
  | 'minProperties'
  | 'maxProperties'
  | 'additionalProperties'
  | 'unevaluatedProperties'
  | 'unevaluatedItems'
  | 'propertyNames'
  | 'dependentRequired'
  | 'dependentSchemas'
  | 'dependencies'
  | 'if'
  | 'not'
  | 'anyOf'
  | 'oneOf'
  | 'allOf'
  | 'contains'
  | 'minContains'
  | 'maxContains'
  | 'items'
  | 'prefixItems'
  | 'additionalItems'
  | 'false schema'
  | 'formatMinimum'
  | 'formatMaximum'
  | 'formatExclusiveMinimum'
  | 'formatExclusiveMaximum';

/** Tool arguments rejected at one stage of the RFC-0016 pipeline. */
export declare class ToolArgumentsValidationError extends Error {
  /**
   * Made by the pipeline and by the framework adapters (stage json, a ToolCallPairingCode,
   * for a tool call they cannot pair with its provider text); `path` as the `path` field.
   */
  constructor(stage: 'json' | 'schema' | 'snapshot', toolName: string, code: ToolArgumentsErrorCode, path?: string);
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
export type ToolCallNotAllowedCode = 'not_allowed' | 'already_executed' | 'not_a_decision' | 'grant_unavailable' | ExecutionReceiptCode;

/** The codes execution receipts add (docs/receipts.md). */
export type ExecutionReceiptCode =
  | 'call_id_required'
  | 'call_already_executed'
  | 'call_id_conflict'
  | 'execution_in_progress'
  | 'outcome_unknown'
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
