'use strict';
// Execution receipts at an MCP server (docs/mcp-server.md, "Retries and idempotency keys").
// A client's retry of a tools/call is a new JSON-RPC request with a new id, so the only
// identity a retry shares with its first attempt is the idempotency key the client puts
// in the request's `_meta`. The receipt key is { agentName, runId: the scope (null unless
// the application scopes keys), toolCallId: the idempotency key }.

const { own, isWellFormedString } = require('../shared');
const { ObjectFreeze, ReflectApply } = require('../gate/primordials');
const { isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { McpError, ErrorCode } = require('./sdk').types;

/** The `_meta` member of a tools/call request that names its idempotency key. */
const IDEMPOTENCY_KEY = 'tool-argument-snapshot/idempotency-key';

/** The longest idempotency key, in UTF-16 code units (a store keeps it in an index). */
const MAX_KEY_LENGTH = 255;

/** The refusals of executeToolCall with receipts, answered as denials (decidedBy: 'runtime'). */
const RECEIPT_REFUSALS = ObjectFreeze({
  __proto__: null,
  call_already_executed: true,
  call_id_conflict: true,
  execution_in_progress: true,
  outcome_unknown: true,
  receipt_store_unavailable: true,
  call_id_required: true,
  grant_unavailable: true,
});

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
    throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName}: _meta["${IDEMPOTENCY_KEY}"] must be a non-empty, well-formed string of at most ${MAX_KEY_LENGTH} characters`);
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
    throw new McpError(ErrorCode.InternalError, 'tool-argument-snapshot/mcp: options.idempotencyScope must return a non-empty, well-formed string, null or undefined');
  }
  return scope;
}

/** The code of a refusal of executeToolCall answered as a denial, else undefined (the error is the handler's). */
function refusalCode(error) {
  if (!isToolCallNotAllowedError(error)) return undefined;
  const code = own(error, 'code');
  return typeof code === 'string' && RECEIPT_REFUSALS[code] === true ? code : undefined;
}

/**
 * For a keyed call the policy did not allow this time (an approval it needs again because
 * its first attempt spent the grant): the refusal its receipt makes of it, or undefined
 * when there is no receipt; `receipt_store_unavailable` when the store cannot be read (as
 * the other gates answer a replay).
 */
async function receiptRefusal(receipts, key, proposalHash) {
  let receipt;
  try {
    receipt = await ReflectApply(own(receipts, 'get'), receipts, [key]);
  } catch {
    return 'receipt_store_unavailable';
  }
  if (receipt === null || receipt === undefined) return undefined;
  if (own(receipt, 'proposalHash') !== proposalHash) return 'call_id_conflict';
  const status = own(receipt, 'status');
  if (status === 'in_progress') return 'execution_in_progress';
  if (status === 'outcome_unknown') return 'outcome_unknown';
  return 'call_already_executed';
}

module.exports = { receiptRefusal, IDEMPOTENCY_KEY, MAX_KEY_LENGTH, idempotencyKeyOf, scopeOf, refusalCode };
