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
const { checkEngine } = require('./lib/selftest');
const { CedarPolicyError, isCedarPolicyError } = require('./lib/cedar/shared');
const { lazy } = require('./lib/lazy');

// What a process may never use is loaded at its first call: grants and seals, receipts,
// the stores and openGrantStore, diff, json-schema (and ajv), Cedar. Each export is a
// plain function (a data property, as before) whose call loads its module once and
// hands over; those modules take their built-ins from lib/primordials.js, captured now.
const grants = lazy(() => require('./lib/grants'));
const receipts = lazy(() => require('./lib/receipts'));
const sqlite = lazy(() => require('./lib/grants/stores/sqlite'));
const postgres = lazy(() => require('./lib/grants/stores/postgres'));
const redis = lazy(() => require('./lib/grants/stores/redis'));
const open = lazy(() => require('./lib/grants/open'));
const diff = lazy(() => require('./lib/diff'));
const jsonSchema = lazy(() => require('./lib/json-schema/index'));
const cedar = lazy(() => require('./lib/cedar'));

function createApprovalGrants(options) {
  return grants().createApprovalGrants(options);
}
function createExecutionReceipts(options) {
  return receipts().createExecutionReceipts(options);
}
function createSqliteGrantStore(options) {
  return sqlite().createSqliteGrantStore(options);
}
function createPostgresGrantStore(options) {
  return postgres().createPostgresGrantStore(options);
}
function createRedisGrantStore(options) {
  return redis().createRedisGrantStore(options);
}
function openGrantStore(url, options) {
  return open().openGrantStore(url, options);
}
function diffSnapshots(approved, proposed, options) {
  return diff().diffSnapshots(approved, proposed, options);
}
function fromJsonSchema(schema, options) {
  return jsonSchema().fromJsonSchema(schema, options);
}
function createCedarPolicy(options) {
  return cedar().createCedarPolicy(options);
}

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
