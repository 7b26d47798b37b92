'use strict';
// What a gate does with execution receipts beside executing (docs/receipts.md): the
// options it executes with (the shared receipts pruned now and then), the code of a
// refusal by a receipt, and, for a resumed call that nothing allows any more, what the
// receipt of its key says (a replay of a call that already ran is named by the receipt's
// code, never as an approval given the framework's own way).

const { isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { ObjectFreeze, ReflectApply } = require('./primordials');
const { own } = require('./read');
const { pruneShared } = require('./receipts');

/** The codes with which executeToolCall refuses a call because of its receipt. */
const RECEIPT_CODES = ObjectFreeze([
  'call_id_required',
  'call_already_executed',
  'call_id_conflict',
  'execution_in_progress',
  'outcome_unknown',
  'receipt_store_unavailable',
]);

/** executeDecision's options for `receipts` (undefined: none); the shared receipts are pruned now and then. */
function executeOptions(receipts) {
  if (receipts === undefined) return undefined;
  pruneShared(receipts);
  return { receipts };
}

/** Whether `code` is one with which executeToolCall refuses a call because of its receipt. */
function isReceiptCode(code) {
  for (let i = 0; i < RECEIPT_CODES.length; i++) if (RECEIPT_CODES[i] === code) return true;
  return false;
}

/** The receipt code of an error executeToolCall rejected with, or undefined for any other error. */
function receiptRefusalCode(error) {
  if (!isToolCallNotAllowedError(error)) return undefined;
  const code = own(error, 'code');
  return isReceiptCode(code) ? code : undefined;
}

/**
 * What the receipt of `key` says of a call with `proposalHash` that its decision no longer
 * allows: undefined when there is no receipt (or no receipts), `call_id_conflict` when the
 * key ran with other arguments, else `execution_in_progress`, `outcome_unknown` or
 * `call_already_executed`; `receipt_store_unavailable` when the store cannot be read.
 */
async function replayCode(receipts, key, proposalHash) {
  if (receipts === undefined) return undefined;
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

module.exports = { RECEIPT_CODES, executeOptions, receiptRefusalCode, replayCode, isReceiptCode };
