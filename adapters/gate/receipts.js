'use strict';
// The receipts every gate executes with (docs/receipts.md): the application's
// createExecutionReceipts() object, none with `receipts: false`, or by default the
// receipts kept in the grants' own store (grants.executionReceipts(): SQLite, PostgreSQL,
// Redis or any store with the six receipt operations), so a replay in another process never
// runs a call twice either. Grants in this process's memory get one process-wide memory
// receipts object shared by every gate of the process; its retention is bounded and it is
// pruned as calls go by, so a long-lived process does not keep every call it ever ran.
// Explicit memory receipts beside a durable grants store warn once (TAS_MEMORY_RECEIPTS),
// and so do the default ones of durable grants whose store lacks a receipt operation.

const { createExecutionReceipts } = require('tool-argument-snapshot');
const { isProxy, DateNow } = require('./primordials');
const { invalidArgument, own, ownOption } = require('./read');
const { warnOncePerProcess } = require('./warnings');

/** How long the shared memory receipts keep a call (one hour), and how often they are pruned. */
const SHARED_RETENTION_MS = 60 * 60 * 1000;
const SHARED_PRUNE_EVERY_MS = 60 * 1000;

const RECEIPTS_USAGE = 'options.receipts must be an object made by createExecutionReceipts, or false (an own data property)';

/**
 * The code of the warning, once per process (whichever of the two comes first; not with
 * NODE_ENV=production), for a gate with memory receipts beside durable grants: a replay in
 * another process would run again.
 */
const MEMORY_RECEIPTS_WARNING = 'TAS_MEMORY_RECEIPTS';

/** Memory receipts given beside grants that keep their records in a durable store. */
function warnMemoryReceipts(adapter) {
  warnOncePerProcess(
    MEMORY_RECEIPTS_WARNING,
    adapter,
    'the gate was given receipts in process memory while its grants keep their records in a durable store; ' +
      "a call replayed in another process runs again. Leave options.receipts out to keep receipts in the grants' store.",
  );
}

/** Durable grants whose store has not the six receipt operations: the default receipts are in process memory. */
function warnStoreWithoutReceipts(adapter) {
  warnOncePerProcess(
    MEMORY_RECEIPTS_WARNING,
    adapter,
    "the gate's grants keep their records in a durable store without the six receipt operations, so its receipts are in process memory; " +
      'a call replayed in another process runs again. Give the store claimReceipt, completeReceipt, releaseReceipt, getReceipt, deleteReceipt and pruneReceipts, or options.receipts.',
  );
}

/** The receipts kept in the grants' own store, or undefined (memory grants, or no receipt operations). */
function receiptsOfGrants(grants) {
  if (grants === undefined || grants === null || own(grants, 'durable') !== true) return undefined;
  const executionReceipts = own(grants, 'executionReceipts');
  if (typeof executionReceipts !== 'function') return undefined;
  const receipts = executionReceipts();
  return receipts === null ? undefined : receipts;
}

let shared;
let sharedPrunedAt = 0;

/** The process-wide memory receipts object of the gates (made on first use). */
function sharedReceipts() {
  if (shared === undefined) shared = createExecutionReceipts({ retentionMs: SHARED_RETENTION_MS });
  return shared;
}

/**
 * `options.receipts`: undefined (the receipts in the grants' store when the grants are
 * durable and their store holds receipts, else the shared memory receipts), `false` (none:
 * undefined is returned), or an object made by createExecutionReceipts (executeToolCall
 * checks it is one; here it must at least be an object that is not a Proxy). `grants` is
 * the gate's grants object; `adapter` names the gate in the warning.
 */
function readReceipts(opts, grants, adapter) {
  const given = ownOption(opts, 'receipts', RECEIPTS_USAGE);
  if (given === undefined) {
    const ofGrants = receiptsOfGrants(grants);
    if (ofGrants !== undefined) return ofGrants;
    if (grants !== undefined && grants !== null && own(grants, 'durable') === true) warnStoreWithoutReceipts(adapter ?? 'gate');
    return sharedReceipts();
  }
  if (given === false) return undefined;
  if (given === null || typeof given !== 'object' || isProxy(given) || typeof own(given, 'get') !== 'function' || typeof own(given, 'forget') !== 'function') {
    throw invalidArgument(RECEIPTS_USAGE);
  }
  if (own(given, 'durable') === false && grants !== undefined && grants !== null && own(grants, 'durable') === true) {
    warnMemoryReceipts(adapter ?? 'gate');
  }
  return given;
}

/**
 * The key of a call's receipt (docs/receipts.md): `{ agentName, runId, toolCallId }`, a
 * `runId` left undefined being null (its own key, distinct from every string). Every gate
 * makes its receipt keys here.
 */
function receiptKey(agentName, runId, toolCallId) {
  return { agentName, runId: runId === undefined ? null : runId, toolCallId };
}

/** Prunes the shared receipts now and then (never awaited; a failure only delays the next prune). */
function pruneShared(receipts) {
  if (receipts !== shared || shared === undefined) return;
  const now = DateNow();
  if (now - sharedPrunedAt < SHARED_PRUNE_EVERY_MS) return;
  sharedPrunedAt = now;
  shared.prune().then(undefined, () => {});
}

module.exports = { readReceipts, receiptKey, receiptsOfGrants, sharedReceipts, pruneShared, SHARED_RETENTION_MS, MEMORY_RECEIPTS_WARNING };
