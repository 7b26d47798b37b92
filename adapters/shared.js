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
const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
const StringPrototypeSlice = uncurryThis(String.prototype.slice);
const StringPrototypeSplit = uncurryThis(String.prototype.split);
const StringPrototypeReplaceAll = uncurryThis(String.prototype.replaceAll);
const DecodeURIComponent = decodeURIComponent;
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

// JSON Schema: whether a schema refuses `null` for certain, read without running schema
// code (own data properties, no Proxy). Used where a framework shows the model optional
// properties as required and nullable (OpenAI strict mode, Mastra's OpenAI compat layer)
// and the model sends `null` for one it omits: such a null is removed only where the
// property's schema refuses null for certain; anything that cannot be told keeps it and
// the schema decides.

const MAX_SCHEMA_DEPTH = 64;
const BRANCH_KEYWORDS = ObjectFreeze(['anyOf', 'oneOf']);

function isSchemaRecord(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value) && !isProxy(value);
}

function isPlainArray(value) {
  return ArrayIsArray(value) && !isProxy(value);
}

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

/** The schema a local `$ref` ("#", "#/a/b", JSON Pointer, URI-escaped) points to within `root`, or undefined. */
function jsonSchemaLocalRef(root, ref) {
  if (typeof ref !== 'string' || !StringPrototypeStartsWith(ref, '#')) return undefined;
  if (ref === '#') return root;
  if (!StringPrototypeStartsWith(ref, '#/')) return undefined;
  const tokens = StringPrototypeSplit(StringPrototypeSlice(ref, 2), '/');
  let current = root;
  for (let i = 0; i < tokens.length; i++) {
    let token;
    try {
      token = DecodeURIComponent(tokens[i]);
    } catch {
      return undefined;
    }
    token = StringPrototypeReplaceAll(StringPrototypeReplaceAll(token, '~1', '/'), '~0', '~');
    if (!isSchemaRecord(current) && !isPlainArray(current)) return undefined;
    current = own(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}

/**
 * Whether a JSON Schema refuses `null` for certain: `false`; `nullable: true` (OpenAPI 3.0,
 * honoured by Ajv and so by fromJsonSchema) never refuses; a local `$ref` as its target
 * (its siblings are not counted: drafts disagree on them); else `type` without "null",
 * `const` other than null, `enum` without null, `anyOf`/`oneOf` whose every branch refuses,
 * `allOf` with a branch that refuses. Anything else (unknown, remote refs, too deep): false.
 */
function jsonSchemaRefusesNull(schema, root, depth = 0) {
  if (schema === false) return true;
  if (!isSchemaRecord(schema) || depth > MAX_SCHEMA_DEPTH) return false;
  if (own(schema, 'nullable') === true) return false;
  const ref = own(schema, '$ref');
  if (ref !== undefined) return jsonSchemaRefusesNull(jsonSchemaLocalRef(root, ref), root, depth + 1);
  const type = own(schema, 'type');
  if (typeof type === 'string' && type !== 'null') return true;
  if (isPlainArray(type) && type.length > 0 && !includes(type, 'null')) return true;
  if (ObjectHasOwn(schema, 'const') && own(schema, 'const') !== null) return true;
  const values = own(schema, 'enum');
  if (isPlainArray(values) && !includes(values, null)) return true;
  for (let k = 0; k < BRANCH_KEYWORDS.length; k++) {
    const branches = own(schema, BRANCH_KEYWORDS[k]);
    if (!isPlainArray(branches) || branches.length === 0) continue;
    let all = true;
    for (let i = 0; i < branches.length && all; i++) all = jsonSchemaRefusesNull(branches[i], root, depth + 1);
    if (all) return true;
  }
  const allOf = own(schema, 'allOf');
  if (isPlainArray(allOf)) {
    for (let i = 0; i < allOf.length; i++) if (jsonSchemaRefusesNull(allOf[i], root, depth + 1)) return true;
  }
  return false;
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
  jsonSchemaRefusesNull,
  jsonSchemaLocalRef,
});
