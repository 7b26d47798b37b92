'use strict';
// Execution receipts at an MCP server (docs/mcp-server.md, "Retries and idempotency keys").
// A client's retry of a tools/call is a new JSON-RPC request with a new id, so the only
// identity a retry shares with its first attempt is the idempotency key the client puts
// in the request's `_meta`. The receipt key is { agentName, runId: the scope (null unless
// the application scopes keys), toolCallId: the idempotency key }.

const { mcpError } = require('./sdk');
const { IDEMPOTENCY_KEY, MAX_KEY_LENGTH, INVALID, KEY_MESSAGE, SCOPE_MESSAGE, readIdempotencyKey, readScope } = require('./keys');

/**
 * The idempotency key of a tools/call's params: undefined when `_meta` does not name one,
 * else a non-empty, well-formed string of at most MAX_KEY_LENGTH code units. Anything else
 * is an McpError (invalid params) that quotes nothing of it; nothing runs.
 */
function idempotencyKeyOf(toolName, params) {
  const key = readIdempotencyKey(params);
  if (key === INVALID) throw mcpError('InvalidParams', KEY_MESSAGE(toolName));
  return key;
}

/**
 * The receipt key's runId for a call: null, or the well-formed string the application's
 * `idempotencyScope(extra)` returns (undefined and null: null).
 */
function scopeOf(idempotencyScope, extra) {
  const scope = readScope(idempotencyScope, extra);
  if (scope === INVALID) throw mcpError('InternalError', SCOPE_MESSAGE);
  return scope;
}

module.exports = { IDEMPOTENCY_KEY, MAX_KEY_LENGTH, idempotencyKeyOf, scopeOf };
