'use strict';
// What every framework adapter needs and the package's public API does not give: loading
// an optional peer with an error that names it, reading a framework's objects as own data
// properties, and the warning for an approval given the framework's own way. Not exported
// from package.json: adapters require it as './shared'. Built-ins are captured when the
// first adapter loads.

const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectHasOwn = Object.hasOwn;
const ObjectDefineProperty = Object.defineProperty;
const ObjectFreeze = Object.freeze;
const ArrayIsArray = Array.isArray;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const StringPrototypeIsWellFormed = uncurryThis(String.prototype.isWellFormed);
const SafeError = Error;
const { isProxy } = require('node:util').types;
const emitWarning = process.emitWarning;

/**
 * Requires an optional peer dependency of an adapter. When it is not installed, throws an
 * Error with `code: 'MODULE_NOT_FOUND'` whose message names the adapter and the package to
 * install; any other failure of the peer (a broken install) is rethrown as it is.
 */
function requirePeer(adapter, name, what, load) {
  try {
    return load();
  } catch (error) {
    if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
    const missing = new Error(`tool-argument-snapshot/${adapter} needs ${what} (an optional peer dependency): npm install ${name}`);
    ObjectDefineProperty(missing, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
    ObjectDefineProperty(missing, 'packageName', { __proto__: null, value: name, enumerable: true, writable: false, configurable: true });
    throw missing;
  }
}

/** A TypeError for a bad argument of an adapter (never about the payload). */
function invalidArgument(message) {
  const error = new TypeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_TYPE', enumerable: true, writable: false, configurable: true });
  return error;
}

/** An own data property of `object`, or undefined (getters, inherited values and Proxies never count). */
function own(object, key) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function') || isProxy(object)) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** The elements of an own data array property, or an empty list. */
function ownArray(object, key) {
  const value = own(object, key);
  return ArrayIsArray(value) && !isProxy(value) ? value : [];
}

/** Defines a data property (an assignment could reach a setter on Object.prototype). */
function setData(object, key, value) {
  ObjectDefineProperty(object, key, { __proto__: null, value, enumerable: true, writable: true, configurable: true });
}

/** A new record of the own enumerable data properties of `object` (no getter runs). */
function ownDataCopy(object) {
  const copy = {};
  if (object === null || typeof object !== 'object' || isProxy(object)) return copy;
  const names = ObjectGetOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, names[i]);
    if (descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) setData(copy, names[i], descriptor.value);
  }
  return copy;
}

/** An options object of an adapter: undefined or null (none), else an object that is not a Proxy. */
function readOptions(options, what) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object' || isProxy(options)) throw invalidArgument(`${what} must be an object`);
  return options;
}

function isWellFormedString(value) {
  return typeof value === 'string' && StringPrototypeIsWellFormed(value);
}

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

/** The reason of a call approved the framework's own way, without a grant. */
const APPROVED_WITHOUT_GRANT = 'approved_without_grant';
const WARNING_CODE = 'TAS_APPROVED_WITHOUT_GRANT';

/**
 * A per-gate notice for approvals given the framework's own way (the framework's approve
 * call, a plain approval response) while no grant exists for the call: such a call is
 * refused with reason `approved_without_grant`, and, unless NODE_ENV is `production`, the
 * first one of a gate emits one process warning (code TAS_APPROVED_WITHOUT_GRANT) saying
 * how to approve instead. The message names the adapter and the tool only.
 */
function approvedWithoutGrantNotice(adapter, howToApprove) {
  let warned = false;
  return function notice() {
    if (warned) return;
    warned = true;
    if (nodeEnv() === 'production') return;
    emitWarning(
      `tool-argument-snapshot/${adapter}: a tool call was approved the framework's own way, without a grant; ` +
        `it was not executed (reason ${APPROVED_WITHOUT_GRANT}). Approve through the package instead: ${howToApprove}`,
      { type: 'Warning', code: WARNING_CODE },
    );
  };
}

/** The code of the error every adapter's approve (and decline) answers when nothing waits for the call. */
const NO_PENDING_PROPOSAL = 'TAS_NO_PENDING_PROPOSAL';

/**
 * The Error an adapter's `approve` rejects with when no proposal waits for approval of the
 * call (approved or declined before, run, expired, never asked under this agent and scope,
 * or a second approval of the same request): `code: 'TAS_NO_PENDING_PROPOSAL'`. The
 * message says what the adapter looked for, never a payload.
 */
function noPendingProposalError(message) {
  const error = new SafeError(message ?? 'no proposal is waiting for approval for this tool call (approved or declined before, expired, or never asked)');
  ObjectDefineProperty(error, 'code', { __proto__: null, value: NO_PENDING_PROPOSAL, enumerable: true, writable: true, configurable: true });
  return error;
}

module.exports = ObjectFreeze({
  requirePeer,
  invalidArgument,
  own,
  ownArray,
  setData,
  ownDataCopy,
  readOptions,
  isWellFormedString,
  approvedWithoutGrantNotice,
  APPROVED_WITHOUT_GRANT,
  WARNING_CODE,
  noPendingProposalError,
  NO_PENDING_PROPOSAL,
});
