'use strict';
// The warning a gate gives, once, when a call was approved the framework's own way without
// a grant (such a call is refused with reason `approved_without_grant`), the warnings given
// once per process (receipts in memory: receipts.js, durable/calls.js), and the runtime's
// NODE_ENV that silences them in production.

const { isProxy, ProcessEmitWarning, SafeSet, SetPrototypeAdd, SetPrototypeHas } = require('./primordials');
const { own } = require('./read');

/** The reason of a call approved the framework's own way, without a grant. */
const APPROVED_WITHOUT_GRANT = 'approved_without_grant';
const WARNING_CODE = 'TAS_APPROVED_WITHOUT_GRANT';

/**
 * The runtime's NODE_ENV. Node's and Bun's process.env is an ordinary object, read as an
 * own data property (a value planted on Object.prototype never counts). Deno's is a Proxy
 * over its environment, which own() refuses unread: there, and only for process.env (the
 * runtime's object, never an input), the variable is read through the Proxy.
 */
function nodeEnv() {
  const env = process.env;
  if (env === undefined || env === null || typeof env !== 'object') return undefined;
  if (!isProxy(env)) return own(env, 'NODE_ENV');
  try {
    const value = env.NODE_ENV;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A per-gate notice for approvals given the framework's own way (the framework's approve
 * call, a plain approval response) while no grant exists for the call: unless NODE_ENV is
 * `production`, the first one of a gate emits one process warning (code
 * TAS_APPROVED_WITHOUT_GRANT) saying how to approve instead. It names the adapter only.
 */
function approvedWithoutGrantNotice(adapter, howToApprove) {
  let warned = false;
  return function notice() {
    if (warned) return;
    warned = true;
    if (nodeEnv() === 'production') return;
    ProcessEmitWarning(
      `tool-argument-snapshot/${adapter}: a tool call was approved the framework's own way, without a grant; ` +
        `it was not executed (reason ${APPROVED_WITHOUT_GRANT}). Approve through the package instead: ${howToApprove}`,
      { type: 'Warning', code: WARNING_CODE },
    );
  };
}

/** The codes warnOncePerProcess has warned with (or passed over in production). */
const warnedCodes = new SafeSet();

/**
 * Emits the process warning `code` once per process (never with NODE_ENV=production): its
 * message names the adapter, then says `what` (never a payload).
 */
function warnOncePerProcess(code, adapter, what) {
  if (SetPrototypeHas(warnedCodes, code)) return;
  SetPrototypeAdd(warnedCodes, code);
  if (nodeEnv() === 'production') return;
  ProcessEmitWarning(`tool-argument-snapshot/${adapter}: ${what}`, { type: 'Warning', code });
}

module.exports = { APPROVED_WITHOUT_GRANT, WARNING_CODE, nodeEnv, approvedWithoutGrantNotice, warnOncePerProcess };
