'use strict';
// tool-argument-snapshot: RFC-0016 authorized tool-argument snapshots (RFC 8785 JCS).

const { canonicalize, createSnapshot, decodeView, proposalHash } = require('./lib/snapshot');
const { SnapshotDomainError, ToolArgumentsValidationError, ERROR_CODES } = require('./lib/errors');
const { MAX_DEPTH } = require('./lib/walk');
const { decodeRequest, prepareToolCall, authorizeToolCall } = require('./lib/pipeline');
const { createApprovalGrants } = require('./lib/grants');

module.exports = {
  canonicalize,
  createSnapshot,
  decodeView,
  proposalHash,
  decodeRequest,
  prepareToolCall,
  authorizeToolCall,
  createApprovalGrants,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ERROR_CODES,
  MAX_DEPTH,
};
