'use strict';
// The exported error classes. Messages are built from the error code, the stage and the
// tool name only: never from a key or a value of the payload. The JSON Pointer of the
// offending value is attached as `path` only when the caller passed `includePath: true`.

const { binding } = require('./native');
const P = require('./primordials');

const DESCRIPTIONS = binding.errorMessages();
const MESSAGES = { __proto__: null };
for (const { code, message } of DESCRIPTIONS) MESSAGES[code] = message;
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

function describe(code) {
  return P.ObjectHasOwn(MESSAGES, code) ? MESSAGES[code] : 'the value is outside the strict snapshot domain';
}

function defineData(target, name, value, enumerable) {
  P.ObjectDefineProperty(target, name, { value, enumerable, writable: false, configurable: true });
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
    super(`${toolName === '' ? 'Tool arguments' : `Arguments of tool "${toolName}"`} failed at stage ${stage}: ${reason} [${code}]`);
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
    const fields = [`stage: '${this.stage}'`, `toolName: ${JSON.stringify(this.toolName)}`, `code: '${this.code}'`];
    if (this.path !== undefined) fields.push(`path: ${JSON.stringify(this.path)}`);
    if (this.cause !== undefined) fields.push('cause: [schema error, read error.cause]');
    return `${this.stack} { ${fields.join(', ')} }`;
  }
}

/** The internal failure the walker throws; turned into a public error at the API edge. */
class WalkFailure {
  constructor(code, path) {
    this.code = code;
    this.path = path;
  }
}

/** Converts what the native addon threw into a WalkFailure. */
function fromNative(error, includePath) {
  const code = error !== null && typeof error === 'object' && P.ObjectHasOwn(MESSAGES, error.code) ? error.code : 'internal_error';
  return new WalkFailure(code, includePath ? binding.lastFailurePath() : undefined);
}

module.exports = { SnapshotDomainError, ToolArgumentsValidationError, WalkFailure, fromNative, ERROR_CODES: P.ObjectFreeze(DESCRIPTIONS.map(({ code }) => code)) };
