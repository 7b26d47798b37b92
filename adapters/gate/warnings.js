'use strict';
// The warning a gate gives, once, when a call was approved the framework's own way without
// a grant (such a call is refused with reason `approved_without_grant`), and the runtime's
// NODE_ENV that silences it in production.

const { isProxy, ProcessEmitWarning } = require('./primordials');
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

module.exports = { APPROVED_WITHOUT_GRANT, WARNING_CODE, nodeEnv, approvedWithoutGrantNotice };
