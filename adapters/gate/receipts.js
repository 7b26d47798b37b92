'use strict';
// The receipts every gate executes with (docs/receipts.md): the application's
// createExecutionReceipts() object, none with `receipts: false`, or by default one
// process-wide memory receipts object shared by every gate of the process, so a replay in
// the same process never runs a call twice. Its retention is bounded and it is pruned as
// calls go by, so a long-lived process does not keep every call it ever ran.

const { createExecutionReceipts } = require('tool-argument-snapshot');
const { isProxy } = require('./primordials');
const { invalidArgument, own } = require('./read');

const DateNow = Date.now;

/** How long the shared memory receipts keep a call (one hour), and how often they are pruned. */
const SHARED_RETENTION_MS = 60 * 60 * 1000;
const SHARED_PRUNE_EVERY_MS = 60 * 1000;

let shared;
let sharedPrunedAt = 0;

/** The process-wide memory receipts object of the gates (made on first use). */
function sharedReceipts() {
  if (shared === undefined) shared = createExecutionReceipts({ retentionMs: SHARED_RETENTION_MS });
  return shared;
}

/**
 * `options.receipts`: undefined (the shared memory receipts), `false` (none: undefined is
 * returned), or an object made by createExecutionReceipts (executeToolCall checks it is
 * one; here it must at least be an object that is not a Proxy).
 */
function readReceipts(opts) {
  const given = own(opts, 'receipts');
  if (given === undefined) return sharedReceipts();
  if (given === false) return undefined;
  if (given === null || typeof given !== 'object' || isProxy(given) || typeof own(given, 'get') !== 'function' || typeof own(given, 'forget') !== 'function') {
    throw invalidArgument('options.receipts must be an object made by createExecutionReceipts, or false');
  }
  return given;
}

/** Prunes the shared receipts now and then (never awaited; a failure only delays the next prune). */
function pruneShared(receipts) {
  if (receipts !== shared || shared === undefined) return;
  const now = DateNow();
  if (now - sharedPrunedAt < SHARED_PRUNE_EVERY_MS) return;
  sharedPrunedAt = now;
  shared.prune().then(undefined, () => {});
}

module.exports = { readReceipts, sharedReceipts, pruneShared, SHARED_RETENTION_MS };
