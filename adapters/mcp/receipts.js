'use strict';
// Execution receipts at an MCP server (docs/mcp-server.md, "Retries and idempotency keys").
// A client's retry of a tools/call is a new JSON-RPC request with a new id, so the only
// identity a retry shares with its first attempt is the idempotency key the client puts
// in the request's `_meta`. The receipt key is { agentName, runId: the scope (null unless
// the application scopes keys), toolCallId: the idempotency key }.

const { own, isWellFormedString } = require('../shared');
const { mcpError } = require('./sdk');

/** The `_meta` member of a tools/call request that names its idempotency key. */
const IDEMPOTENCY_KEY = 'tool-argument-snapshot/idempotency-key';

/** The longest idempotency key, in UTF-16 code units (a store keeps it in an index). */
const MAX_KEY_LENGTH = 255;

/**
 * The idempotency key of a tools/call's params: undefined when `_meta` does not name one,
 * else a non-empty, well-formed string of at most MAX_KEY_LENGTH code units. Anything else
 * is an McpError (invalid params) that quotes nothing of it; nothing runs.
 */
function idempotencyKeyOf(toolName, params) {
  const meta = own(params, '_meta');
  if (meta === undefined) return undefined;
  const key = own(meta, IDEMPOTENCY_KEY);
  if (key === undefined) return undefined;
  if (!isWellFormedString(key) || key === '' || key.length > MAX_KEY_LENGTH) {
    throw mcpError('InvalidParams', `Tool ${toolName}: _meta["${IDEMPOTENCY_KEY}"] must be a non-empty, well-formed string of at most ${MAX_KEY_LENGTH} characters`);
  }
  return key;
}

/**
 * The receipt key's runId for a call: null, or the well-formed string the application's
 * `idempotencyScope(extra)` returns (undefined and null: null).
 */
function scopeOf(idempotencyScope, extra) {
  if (idempotencyScope === undefined) return undefined;
  const scope = idempotencyScope(extra);
  if (scope === undefined || scope === null) return undefined;
  if (!isWellFormedString(scope) || scope === '') {
    throw mcpError('InternalError', 'tool-argument-snapshot/mcp: options.idempotencyScope must return a non-empty, well-formed string, null or undefined');
  }
  return scope;
}

module.exports = { IDEMPOTENCY_KEY, MAX_KEY_LENGTH, idempotencyKeyOf, scopeOf };
