'use strict';
// The idempotency key and the scope of a call, read the same way on both SDK lines (no
// SDK loaded here): each reader answers the value, or INVALID, and the caller makes the
// error of its line (an McpError of SDK 1.x, a JSON-RPC error with the same code on 2.x).

const { own, isWellFormedString } = require('../gate/read');
const { ObjectFreeze } = require('../gate/primordials');

/**
 * The `_meta` member of a tools/call request that names its idempotency key. It follows
 * MCP's `_meta` naming (a prefix, a slash, a name) and stays out of the prefixes MCP
 * reserves (`io.modelcontextprotocol/`, `dev.mcp/`, any prefix whose second label is
 * `modelcontextprotocol` or `mcp`), so a 2026-07-28 SDK never lifts it into its envelope.
 */
const IDEMPOTENCY_KEY = 'tool-argument-snapshot/idempotency-key';

/** The longest idempotency key, in UTF-16 code units (a store keeps it in an index). */
const MAX_KEY_LENGTH = 255;

/** What a reader answers for a value it refuses. */
const INVALID = ObjectFreeze({ __proto__: null });

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

const KEY_MESSAGE = (toolName) =>
  `Tool ${toolName}: _meta["${IDEMPOTENCY_KEY}"] must be a non-empty, well-formed string of at most ${MAX_KEY_LENGTH} characters`;
const SCOPE_MESSAGE = 'tool-argument-snapshot/mcp: options.idempotencyScope must return a non-empty, well-formed string, null or undefined';

/** The idempotency key of a tools/call's params: undefined (none named), the key, or INVALID. */
function readIdempotencyKey(params) {
  const meta = own(params, '_meta');
  if (meta === undefined) return undefined;
  const key = own(meta, IDEMPOTENCY_KEY);
  if (key === undefined) return undefined;
  if (!isWellFormedString(key) || key === '' || key.length > MAX_KEY_LENGTH) return INVALID;
  return key;
}

/** The scope the application's `idempotencyScope(extra)` returns: undefined (none), the string, or INVALID. */
function readScope(idempotencyScope, extra) {
  if (idempotencyScope === undefined) return undefined;
  const scope = idempotencyScope(extra);
  if (scope === undefined || scope === null) return undefined;
  if (!isWellFormedString(scope) || scope === '') return INVALID;
  return scope;
}

module.exports = {
  IDEMPOTENCY_KEY,
  MAX_KEY_LENGTH,
  INVALID,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  KEY_MESSAGE,
  SCOPE_MESSAGE,
  readIdempotencyKey,
  readScope,
};
