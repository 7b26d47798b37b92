import type { ToolPolicyInput } from '../run/index';
import type { ApprovalGrants } from '../grants/index';

/** A Cedar entity reference. */
export interface CedarEntityRef {
  type: string;
  id: string;
}

export interface CedarPolicyOptions {
  /** Cedar policy text. Its SHA-256 (as given) is the `policySetHash` of every decision. */
  policies: string;
  /** Tool name to schema (zod, a Standard Schema with JSON Schema, fromJsonSchema, a JSON Schema): the derived Cedar schema validates the policies strictly. */
  tools?: Record<string, unknown>;
  /** Cedar entities (Cedar's JSON entity format, or its text). */
  entities?: readonly unknown[] | string;
  /** The principal of a call; default `policyContext.principal`, else `Agent::"<agentName>"`. */
  principal?: (input: ToolPolicyInput<any>) => CedarEntityRef | undefined;
  /** A Cedar schema (JSON or Cedar schema text) used instead of the derived one. */
  schema?: string | object;
  /** Grants that answer `@approval("required")` permits. */
  grants?: ApprovalGrants;
}

export type CedarDecisionReason =
  | 'permitted'
  | 'approval_granted'
  | 'approval_required'
  | 'no_permit'
  | 'forbidden'
  | 'cedar_evaluation_error'
  | 'cedar_unrepresentable_value'
  | 'grant_store_unavailable';

export interface CedarPolicyResult {
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: CedarDecisionReason;
  /** The determining policies' ids (`@id` annotation, else Cedar's own id), sorted. */
  readonly policies: readonly string[];
  /** SHA-256 (hex) of the policy text the decision was made under. */
  readonly policySetHash: string;
}

export interface CedarPolicy {
  (input: ToolPolicyInput<any>): Promise<CedarPolicyResult>;
  /** Swaps the policy set after parsing and validating `text`; a refused text throws CedarPolicyError and keeps the old set. Returns the new hash. */
  update(text: string): string;
  /** The hash of the current policy set. */
  readonly policySetHash: string;
}

export type CedarPolicyErrorCode = 'parse_error' | 'validation_error' | 'duplicate_policy_id' | 'schema_error';

export interface CedarPolicyIssue {
  readonly code: CedarPolicyErrorCode;
  readonly policyId: string | null;
  readonly message: string;
}

export declare class CedarPolicyError extends Error {
  readonly name: 'CedarPolicyError';
  readonly code: CedarPolicyErrorCode;
  readonly policyId?: string;
  readonly issues: readonly CedarPolicyIssue[];
}

export declare function createCedarPolicy(options: CedarPolicyOptions): CedarPolicy;
export declare function isCedarPolicyError(value: unknown): value is CedarPolicyError;
