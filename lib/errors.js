'use strict';
// The exported error classes. Messages are built from the error code, the stage and the
// tool name only: never from a key or a value of the payload. The JSON Pointer of the
// offending value is attached as `path` only when the caller passed `includePath: true`.
//
// Every property is defined with a null-prototype descriptor, never assigned: a setter,
// or a `get`/`set` accessor, planted on Object.prototype is never reached.

const { binding } = require('./native');
const P = require('./primordials');

const { ObjectDefineProperty, ObjectFreeze, ObjectHasOwn } = P;

const DESCRIPTIONS = binding.errorMessages();
const MESSAGES = { __proto__: null };
const CODES = [];
for (let i = 0; i < DESCRIPTIONS.length; i++) {
  const { code, message } = DESCRIPTIONS[i];
  MESSAGES[code] = message;
  ObjectDefineProperty(CODES, i, { __proto__: null, value: code, enumerable: true, writable: false, configurable: false });
}
ObjectFreeze(CODES);

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

function describe(code) {
  return ObjectHasOwn(MESSAGES, code) ? MESSAGES[code] : 'the value is outside the strict snapshot domain';
}

/** Defines a read-only data property without touching anything inherited. */
function defineData(target, name, value, enumerable) {
  ObjectDefineProperty(target, name, { __proto__: null, value, enumerable, writable: false, configurable: true });
}

/** A value outside the strict snapshot domain (or text that is not strict JSON). */
class SnapshotDomainError extends Error {
  constructor(code, path) {
    super(`${describe(code)} [${code}]`);
    defineData(this, 'name', 'SnapshotDomainError', false);
    defineData(this, 'code', code, true);
    if (path !== undefined) defineData(this, 'path', path, true);
  }
}

/** Tool arguments rejected at one stage of RFC-0016's pipeline: json, schema or snapshot. */
class ToolArgumentsValidationError extends Error {
  constructor(stage, toolName, code, path, cause) {
    const reason = stage === 'schema' ? 'the tool schema rejected the arguments' : describe(code);
    const subject = toolName === '' ? 'Tool arguments' : `Arguments of tool "${toolName}"`;
    super(`${subject} failed at stage ${stage}: ${reason} [${code}]`);
    defineData(this, 'name', 'ToolArgumentsValidationError', false);
    defineData(this, 'stage', stage, true);
    defineData(this, 'toolName', toolName, true);
    defineData(this, 'code', code, true);
    if (path !== undefined) defineData(this, 'path', path, true);
    // The schema's own error can quote the payload; keep it reachable for the
    // application but out of enumeration, JSON and inspection.
    if (cause !== undefined) defineData(this, 'cause', cause, false);
  }

  [INSPECT]() {
    let fields = `stage: '${this.stage}', toolName: '${this.toolName}', code: '${this.code}'`;
    if (this.path !== undefined) fields += `, path: '${this.path}'`;
    if (this.cause !== undefined) fields += ', cause: [schema error, read error.cause]';
    return `${this.stack} { ${fields} }`;
  }
}

/** A TypeError for a bad argument of the API itself (never about the payload). */
function invalidArgument(message) {
  const error = new TypeError(message);
  defineData(error, 'code', 'ERR_INVALID_ARG_TYPE', true);
  return error;
}

/** The internal failure the walker throws; turned into a public error at the API edge. */
class WalkFailure {
  // Fields are defined, not assigned, before the constructor body runs.
  code;
  path;
  constructor(code, path) {
    this.code = code;
    this.path = path;
  }
}

/** The failure the native side recorded when a call returned FAILED. */
function nativeFailure(includePath) {
  const code = binding.lastFailureCode();
  return new WalkFailure(ObjectHasOwn(MESSAGES, code) ? code : 'internal_error', includePath ? binding.lastFailurePath() : undefined);
}

/** What a native call returns instead of its result when it failed. */
const FAILED = 0xffffffff;

module.exports = {
  SnapshotDomainError,
  ToolArgumentsValidationError,
  WalkFailure,
  invalidArgument,
  nativeFailure,
  FAILED,
  ERROR_CODES: CODES,
};
