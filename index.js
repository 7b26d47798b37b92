'use strict';
// tool-argument-snapshot: RFC-0016 authorized tool-argument snapshots (RFC 8785 JCS).

const { canonicalize, createSnapshot, decodeView, proposalHash, verifySnapshot } = require('./lib/snapshot');
const {
  SnapshotDomainError, ToolArgumentsValidationError, ToolCallNotAllowedError, ApprovalGrantError, ERROR_CODES,
  isSnapshotDomainError, isToolArgumentsValidationError, isToolCallNotAllowedError, isApprovalGrantError,
} = require('./lib/errors');
const { MAX_DEPTH } = require('./lib/snapshot/walk');
const {
  decodeRequest, isArgumentsText, prepareToolCall, prepareToolCallAsync, evaluateToolCall, executeToolCall, authorizeToolCall, RUNTIME_REASONS,
} = require('./lib/run');
const { createApprovalGrants } = require('./lib/grants');
const { createExecutionReceipts } = require('./lib/receipts');
const { createSqliteGrantStore } = require('./lib/grants/stores/sqlite');
const { createPostgresGrantStore } = require('./lib/grants/stores/postgres');
const { createRedisGrantStore } = require('./lib/grants/stores/redis');
const { openGrantStore } = require('./lib/grants/open');
const { diffSnapshots } = require('./lib/diff');
const { fromJsonSchema } = require('./lib/json-schema/index');
const { checkEngine } = require('./lib/selftest');
const { createCedarPolicy, CedarPolicyError, isCedarPolicyError } = require('./lib/cedar');

checkEngine(canonicalize, createSnapshot);

module.exports = {
  canonicalize,
  createSnapshot,
  decodeView,
  proposalHash,
  verifySnapshot,
  decodeRequest,
  isArgumentsText,
  prepareToolCall,
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  RUNTIME_REASONS,
  createApprovalGrants,
  createExecutionReceipts,
  createSqliteGrantStore,
  createPostgresGrantStore,
  createRedisGrantStore,
  openGrantStore,
  diffSnapshots,
  fromJsonSchema,
  createCedarPolicy, CedarPolicyError, isCedarPolicyError,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ToolCallNotAllowedError,
  ApprovalGrantError,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  isApprovalGrantError,
  ERROR_CODES,
  MAX_DEPTH,
};
