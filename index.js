'use strict';
// tool-argument-snapshot: RFC-0016 authorized tool-argument snapshots (RFC 8785 JCS).

const { canonicalize, createSnapshot, decodeView, proposalHash, verifySnapshot, MAX_DEPTH } = require('./lib/snapshot');
const {
  SnapshotDomainError, ToolArgumentsValidationError, ToolCallNotAllowedError, ApprovalGrantError, ERROR_CODES,
  isSnapshotDomainError, isToolArgumentsValidationError, isToolCallNotAllowedError, isApprovalGrantError, RUNTIME_REASONS,
  CedarPolicyError, isCedarPolicyError,
} = require('./lib/errors');
const { checkEngine } = require('./lib/selftest');
const { lazy } = require('./lib/lazy');

// What a process may never use is loaded at its first call: the run loop (decodeRequest
// to authorizeToolCall), grants and seals, receipts, the stores and openGrantStore, diff,
// json-schema (and ajv), Cedar. Each export is a plain function (a data property, as
// before) whose call loads its module once and hands over; those modules take their
// built-ins from lib/primordials.js, captured now. Loading fewer modules matters beyond
// their own code: every module Node loads runs its resolver's path functions, and once
// those are hot the engine's optimizing compiler itself is loaded (docs/performance.md).
const run = lazy(() => require('./lib/run'));
const grants = lazy(() => require('./lib/grants'));
const receipts = lazy(() => require('./lib/receipts'));
const sqlite = lazy(() => require('./lib/stores/sqlite'));
const postgres = lazy(() => require('./lib/stores/postgres'));
const redis = lazy(() => require('./lib/stores/redis'));
const open = lazy(() => require('./lib/stores/open'));
const diff = lazy(() => require('./lib/diff'));
const jsonSchema = lazy(() => require('./lib/json-schema/index'));
const cedar = lazy(() => require('./lib/cedar'));

function decodeRequest(text, options) {
  return run().decodeRequest(text, options);
}
function isArgumentsText(value) {
  return run().isArgumentsText(value);
}
function prepareToolCall(options) {
  return run().prepareToolCall(options);
}
function prepareToolCallAsync(options) {
  return run().prepareToolCallAsync(options);
}
function evaluateToolCall(options) {
  return run().evaluateToolCall(options);
}
function executeToolCall(decision, execute, options) {
  return run().executeToolCall(decision, execute, options);
}
function authorizeToolCall(options) {
  return run().authorizeToolCall(options);
}
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
