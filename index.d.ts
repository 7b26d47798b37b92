// Type declarations of tool-argument-snapshot. Hand-written beside index.js (the
// native binding's own declarations are generated into lib/native.d.ts). One file per
// room, beside the room's code; this file re-exports each room's public names.

// snapshot (lib/snapshot/): the strict snapshot domain, canonical JSON, snapshots, views and proposal hashes.
export { canonicalize, createSnapshot, decodeView, verifySnapshot, proposalHash, MAX_DEPTH } from './lib/snapshot/index';
export type { SnapshotValue, ToolArgumentSnapshot, SnapshotErrorCode, PathOption } from './lib/snapshot/index';

// errors (lib/errors.js): the error classes, their codes and guards.
export {
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ToolCallNotAllowedError,
  ApprovalGrantError,
  isApprovalGrantError,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  ERROR_CODES,
} from './lib/errors';
export type {
  SnapshotDomainErrorCode,
  ToolArgumentsErrorCode,
  ToolCallPairingCode,
  ZodIssueCode,
  JsonSchemaIssueKeyword,
  ToolCallNotAllowedCode,
  ExecutionReceiptCode,
  ApprovalGrantErrorCode,
} from './lib/errors';

// run (lib/run/): the run-loop pipeline.
export {
  decodeRequest,
  isArgumentsText,
  prepareToolCall,
  prepareToolCallAsync,
  RUNTIME_REASONS,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
} from './lib/run/index';
export type {
  ReadonlySnapshotValue,
  DeepReadonly,
  StandardSchemaV1,
  ToolSchema,
  SchemaOutput,
  PrepareInput,
  ArgumentsText,
  PreparedToolCall,
  ToolPolicyInput,
  ToolPolicyResult,
  RuntimeReason,
  SuspendedToolProposal,
  PolicyDecision,
  RuntimeDecision,
  ToolCallDecision,
  ToolPolicyInputField,
  PolicyInputWith,
  ToolGrantSpender,
  ToolCallOutcome,
} from './lib/run/index';

// grants (lib/grants/): approval grants.
export { createApprovalGrants } from './lib/grants/index';
export type { ApprovalKey, ApprovalGrantsOptions, SealedProposal, ProposalFields, ProposalKey, ApprovalGrants, KeptProposalEntry } from './lib/grants/index';

// receipts (lib/receipts/): execution receipts.
export { createExecutionReceipts } from './lib/receipts/index';
export type { ExecutionReceiptsOptions, ExecutionReceipt, ExecutionReceipts } from './lib/receipts/index';

// stores (lib/stores/): the store interfaces of grants and receipts, and the durable stores.
export { createSqliteGrantStore, createPostgresGrantStore, createRedisGrantStore, openGrantStore } from './lib/stores/index';
export type {
  ApprovalGrantRecord,
  ApprovalGrantQuery,
  ApprovalGrantStore,
  ProposalPage,
  DurableGrantStore,
  SqliteGrantStoreOptions,
  PostgresQueryable,
  PostgresGrantStoreOptions,
  PostgresGrantStore,
  RedisCommandClient,
  RedisGrantStoreOptions,
  GrantStoreError,
  ExecutionReceiptKey,
  ExecutionReceiptRecord,
  ExecutionReceiptStore,
  OpenGrantStoreOptions,
} from './lib/stores/index';

// json-schema (lib/json-schema/): JSON Schema tools.
export { fromJsonSchema } from './lib/json-schema/index';
export type { JsonSchema, JsonSchemaDialect, FromJsonSchemaOptions, JsonSchemaIssue, JsonSchemaToolSchema } from './lib/json-schema/index';

// diff (lib/diff.js): a reviewer's diff.
export { diffSnapshots } from './lib/diff';
export type { SnapshotDiffEntry } from './lib/diff';

// Random ids (lib/random.js): RFC 9562 version 4 UUIDs from the operating system, without node:crypto.
export { randomUUID } from './lib/random';

// Cedar policies (lib/cedar/).
export { createCedarPolicy, isCedarPolicyError, CedarPolicyError } from './lib/cedar/index';
export type {
  CedarPolicyOptions,
  CedarPolicy,
  CedarPolicyResult,
  CedarPolicyIssue,
  CedarPolicyErrorCode,
  CedarDecisionReason,
  CedarEntityRef,
} from './lib/cedar/index';
