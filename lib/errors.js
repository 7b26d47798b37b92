'use strict';
// The exported error classes. Messages are built from the error code, the stage and the
// tool name only: never from a key or a value of the payload. The JSON Pointer of the
// offending value is attached as `path` only when the caller passed `includePath: true`.
//
// Every property is defined with a null-prototype descriptor, never assigned: a setter,
// or a `get`/`set` accessor, planted on Object.prototype is never reached.

const { binding } = require('./native');
const P = require('./primordials');

const { ObjectDefineProperty, ObjectFreeze, ObjectHasOwn, ObjectGetOwnPropertyDescriptor, StringPrototypeCharCodeAt, StringPrototypeSlice, isProxy } = P;

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
/**
 * The brand of the package's errors: a registered symbol, so that every copy of the
 * package loaded in one process (a runtime that bundles its own) recognizes the others'
 * errors. A brand tells the class, not who made it: any code can put it on an object.
 */
const BRAND = Symbol.for('tool-argument-snapshot.error');

/**
 * The codes adapters give a tool call they cannot pair with its provider text (stage
 * json): what a framework hands over is not what the provider sent, or not unambiguously.
 */
const CALL_MESSAGES = {
  __proto__: null,
  missing_call_id: 'the tool call has no call id',
  duplicate_call_id: 'another tool call of the same response has the same call id',
  unpaired_call: 'the tool call cannot be paired with one provider text',
  no_provider_text: 'no provider text was recorded for the tool call',
  provider_text_mismatch: 'the arguments are not the provider text recorded for the tool call',
};
const CALL_CODES = ObjectFreeze(['missing_call_id', 'duplicate_call_id', 'unpaired_call', 'no_provider_text', 'provider_text_mismatch']);

function describe(code) {
  if (ObjectHasOwn(MESSAGES, code)) return MESSAGES[code];
  if (ObjectHasOwn(CALL_MESSAGES, code)) return CALL_MESSAGES[code];
  return 'the value is outside the strict snapshot domain';
}

const HEX = '0123456789abcdef';

/** Whether UTF-16 unit `c` must not appear raw in a log line (see escapeName). */
function needsEscape(c) {
  return (
    c < 0x20 ||
    c === 0x22 ||
    c === 0x5c ||
    (c >= 0x7f && c <= 0x9f) || // C0, quote, backslash, DEL, C1 (with U+0085)
    c === 0x061c ||
    c === 0x200e ||
    c === 0x200f || // bidi marks
    (c >= 0x2028 && c <= 0x202e) || // line and paragraph separators, bidi embeddings and overrides
    (c >= 0x2066 && c <= 0x2069) || // bidi isolates
    (c >= 0xd800 && c <= 0xdfff) // surrogates: kept when paired, escaped when lone
  );
}

/**
 * A name as it may appear inside double quotes in a message or inspect output: every
 * control character (C0, DEL, C1 including U+0085), U+2028, U+2029, every bidi control,
 * a lone surrogate, the quote and the backslash become `\uXXXX`, so no name can break a
 * log line, reorder what a terminal shows, or close the quotes early.
 */
function escapeName(name) {
  const length = name.length;
  let i = 0;
  for (; i < length; i++) if (needsEscape(StringPrototypeCharCodeAt(name, i))) break;
  if (i === length) return name;
  let out = StringPrototypeSlice(name, 0, i);
  for (; i < length; i++) {
    const c = StringPrototypeCharCodeAt(name, i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const d = StringPrototypeCharCodeAt(name, i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += StringPrototypeSlice(name, i, i + 2);
        i++;
        continue;
      }
    }
    if (needsEscape(c)) {
      out += '\\u' + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
    } else {
      out += StringPrototypeSlice(name, i, i + 1);
    }
  }
  return out;
}

/** Defines a read-only data property without touching anything inherited. */
function defineData(target, name, value, enumerable) {
  ObjectDefineProperty(target, name, { __proto__: null, value, enumerable, writable: false, configurable: true });
}

/**
 * Error, as TypeScript sees it (`npm run typecheck`), with the fields a class below defines
 * as own data properties (defineData, which the checker cannot follow): the fields of its
 * declaration in errors.d.ts, each optional (the checker cannot tell which the constructor
 * defined; its methods are the class's own). Only a type: each class extends Error itself.
 * @template E
 * @typedef {new (message?: string) => Error & Partial<Omit<E, keyof Error | 'getSchemaError'>>} ErrorWithFields
 */

/** A value outside the strict snapshot domain (or text that is not strict JSON). */
class SnapshotDomainError extends Error {
  constructor(code, path) {
    super(`${describe(code)} [${code}]`);
    defineData(this, 'name', 'SnapshotDomainError', false);
    defineData(this, BRAND, 'SnapshotDomainError', false);
    defineData(this, 'code', code, true);
    if (path !== undefined) defineData(this, 'path', path, true);
  }
}

/**
 * The schema's own error (or its Standard Schema issues) of each stage-schema error. It
 * can quote the payload, so it is no property of the error at all: no renderer, no
 * `cause` printer and no structured clone can reach it. getSchemaError() returns it.
 */
const SCHEMA_ERRORS = new P.SafeWeakMap();
const { WeakMapPrototypeGet, WeakMapPrototypeSet } = P;
const { WeakMapPrototypeHas } = P;

/** Tool arguments rejected at one stage of RFC-0016's pipeline: json, schema or snapshot. */
class ToolArgumentsValidationError extends /** @type {ErrorWithFields<import('./errors.d.ts').ToolArgumentsValidationError>} */ (Error) {
  /**
   * `detail` (stage schema only): a null-prototype record of `schemaError` (what the
   * schema threw or reported), `issueCount`, `issueCodes` and `issuePaths`, each optional.
   */
  constructor(stage, toolName, code, path, detail) {
    const reason = stage === 'schema' && code === 'schema_error' ? 'the tool schema rejected the arguments' : describe(code);
    const subject = toolName === '' ? 'Tool arguments' : `Arguments of tool "${escapeName(toolName)}"`;
    super(`${subject} failed at stage ${stage}: ${reason} [${code}]`);
    defineData(this, 'name', 'ToolArgumentsValidationError', false);
    defineData(this, BRAND, 'ToolArgumentsValidationError', false);
    defineData(this, 'stage', stage, true);
    defineData(this, 'toolName', toolName, true);
    defineData(this, 'code', code, true);
    if (path !== undefined) defineData(this, 'path', path, true);
    if (detail !== undefined) {
      if (detail.issueCount !== undefined) defineData(this, 'issueCount', detail.issueCount, true);
      if (detail.issueCodes !== undefined) defineData(this, 'issueCodes', detail.issueCodes, true);
      if (detail.issuePaths !== undefined) defineData(this, 'issuePaths', detail.issuePaths, true);
      if (detail.hasSchemaError) WeakMapPrototypeSet(SCHEMA_ERRORS, this, detail.schemaError);
    }
  }

  /**
   * The schema's own error (what `parse` threw or `parseAsync` rejected with; for a
   * Standard Schema, its `issues`), or undefined. It can quote the payload: never log it.
   */
  getSchemaError() {
    return WeakMapPrototypeGet(SCHEMA_ERRORS, this);
  }

  [INSPECT]() {
    let fields = `stage: '${this.stage}', toolName: "${escapeName(this.toolName)}", code: '${this.code}'`;
    if (this.path !== undefined) fields += `, path: "${escapeName(this.path)}"`;
    if (this.issueCount !== undefined) fields += `, issueCount: ${this.issueCount}`;
    if (this.issueCodes !== undefined) {
      let list = '';
      for (let i = 0; i < this.issueCodes.length; i++) list += `${i === 0 ? '' : ', '}'${this.issueCodes[i]}'`;
      fields += `, issueCodes: [${list}]`;
    }
    if (this.issuePaths !== undefined) {
      let list = '';
      for (let i = 0; i < this.issuePaths.length; i++) list += `${i === 0 ? '' : ', '}"${escapeName(this.issuePaths[i])}"`;
      fields += `, issuePaths: [${list}]`;
    }
    if (WeakMapPrototypeHas(SCHEMA_ERRORS, this)) fields += ', [schema error: error.getSchemaError()]';
    return `${this.stack} { ${fields} }`;
  }
}

const NOT_ALLOWED_REASONS = {
  __proto__: null,
  not_allowed: 'the decision is not an allow',
  already_executed: 'the decision was already executed',
  not_a_decision: 'the value is not a decision made by evaluateToolCall',
  grant_unavailable: 'the grant the decision relied on could not be spent',
  call_id_required: 'execution receipts need a tool call id and the call has none',
  call_already_executed: 'a receipt shows this tool call already ran',
  call_id_conflict: 'the tool call id was already used for another proposal',
  execution_in_progress: 'another attempt of this tool call holds a live lease',
  outcome_unknown: 'an attempt of this tool call started and its lease expired with no outcome recorded',
  receipt_store_unavailable: 'the receipt store failed or timed out at claim',
};

/** The codes of ToolCallNotAllowedError, in a frozen array. */
const NOT_ALLOWED_CODES = ObjectFreeze([
  'not_allowed',
  'already_executed',
  'not_a_decision',
  'grant_unavailable',
  'call_id_required',
  'call_already_executed',
  'call_id_conflict',
  'execution_in_progress',
  'outcome_unknown',
  'receipt_store_unavailable',
]);

/**
 * executeToolCall refused to run the handler: a deny or approval decision
 * (`not_allowed`), a decision already executed (`already_executed`), an object that
 * evaluateToolCall did not make (`not_a_decision`), or a grant that was not available
 * (`grant_unavailable`); with execution receipts (docs/receipts.md), a call without an id
 * (`call_id_required`), a call a receipt shows ran (`call_already_executed`, with a
 * payload-free `receipt`: status, proposalHash, completedAt), a call id used for another
 * proposal (`call_id_conflict`), a live claim of another attempt (`execution_in_progress`),
 * an expired claim with no outcome (`outcome_unknown`), or a receipt store that failed or
 * timed out at claim (`receipt_store_unavailable`). Nothing ran.
 */
class ToolCallNotAllowedError extends /** @type {ErrorWithFields<import('./errors.d.ts').ToolCallNotAllowedError>} */ (Error) {
  constructor(code, toolName, decision, receipt) {
    const subject = toolName === undefined ? 'Tool call' : `Call of tool "${escapeName(toolName)}"`;
    const what = code === 'not_allowed' ? `the decision is ${decision}, not allow` : NOT_ALLOWED_REASONS[code];
    super(`${subject} was not executed: ${what} [${code}]`);
    defineData(this, 'name', 'ToolCallNotAllowedError', false);
    defineData(this, BRAND, 'ToolCallNotAllowedError', false);
    defineData(this, 'code', code, true);
    if (toolName !== undefined) defineData(this, 'toolName', toolName, true);
    if (decision !== undefined) defineData(this, 'decision', decision, true);
    if (receipt !== undefined) defineData(this, 'receipt', receipt, true);
  }

  [INSPECT]() {
    let fields = `code: '${this.code}'`;
    if (this.toolName !== undefined) fields += `, toolName: "${escapeName(this.toolName)}"`;
    if (this.decision !== undefined) fields += `, decision: '${this.decision}'`;
    if (this.receipt !== undefined) fields += `, receipt: { status: '${this.receipt.status}', completedAt: ${this.receipt.completedAt} }`;
    return `${this.stack} { ${fields} }`;
  }
}

const GRANT_REASONS = {
  __proto__: null,
  not_sealed: 'the record is not a sealed proposal (these grants verify sealed proposals only)',
  unknown_key: 'the sealed proposal names a key that is not in the key ring',
  bad_signature: 'the signature of the sealed proposal does not verify',
  seal_expired: 'the sealed proposal has expired',
  seal_used: 'the sealed proposal was granted before',
};

/**
 * A grant refused: with a key ring, grant() accepts only a sealed proposal that verifies
 * (`not_sealed`, `unknown_key`, `bad_signature`), is not expired (`seal_expired`) and was
 * never granted before (`seal_used`). Nothing was granted. The message names the code
 * only: never a field of the record.
 */
class ApprovalGrantError extends /** @type {ErrorWithFields<import('./errors.d.ts').ApprovalGrantError>} */ (Error) {
  constructor(code) {
    super(`Approval not granted: ${GRANT_REASONS[code]} [${code}]`);
    defineData(this, 'name', 'ApprovalGrantError', false);
    defineData(this, BRAND, 'ApprovalGrantError', false);
    defineData(this, 'code', code, true);
  }

  [INSPECT]() {
    return `${this.stack} { code: '${this.code}' }`;
  }
}

/** The codes of ApprovalGrantError, in a frozen array. */
const GRANT_ERROR_CODES = ObjectFreeze(['not_sealed', 'unknown_key', 'bad_signature', 'seal_expired', 'seal_used']);

/** Whether `value` carries the brand `name` as an own data property (no getter, no trap runs). */
function hasBrand(value, name) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || isProxy(value)) return false;
  const descriptor = ObjectGetOwnPropertyDescriptor(value, BRAND);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') && descriptor.value === name;
}

/**
 * The error of a Cedar policy set refused at creation or update (createCedarPolicy,
 * lib/cedar/): codes and policy ids, never argument values. Defined here so that the
 * package exports it without loading Cedar.
 */
class CedarPolicyError extends Error {
  constructor(issues) {
    const first = issues[0];
    const where = first.policyId === null || first.policyId === undefined ? '' : ` (policy "${first.policyId}")`;
    super(`Cedar policy set refused${where}: ${first.message} [${first.code}]`);
    defineData(this, 'name', 'CedarPolicyError', false);
    defineData(this, BRAND, 'CedarPolicyError', false);
    defineData(this, 'code', first.code, true);
    defineData(this, 'policyId', first.policyId ?? undefined, true);
    defineData(this, 'issues', issues, true);
  }
}

/** Whether `value` is a CedarPolicyError of this or any other copy of the package. */
function isCedarPolicyError(value) {
  return value !== null && typeof value === 'object' && hasBrand(value, 'CedarPolicyError');
}

/** Whether `value` is a SnapshotDomainError of this or any other copy of the package. */
function isSnapshotDomainError(value) {
  return hasBrand(value, 'SnapshotDomainError');
}

/** Whether `value` is a ToolArgumentsValidationError of this or any other copy of the package. */
function isToolArgumentsValidationError(value) {
  return hasBrand(value, 'ToolArgumentsValidationError');
}

/** Whether `value` is a ToolCallNotAllowedError of this or any other copy of the package. */
function isToolCallNotAllowedError(value) {
  return hasBrand(value, 'ToolCallNotAllowedError');
}

/** Whether `value` is an ApprovalGrantError of this or any other copy of the package. */
function isApprovalGrantError(value) {
  return hasBrand(value, 'ApprovalGrantError');
}

/** A TypeError for a bad argument of the API itself (never about the payload). */
function invalidArgument(message) {
  const error = new P.SafeTypeError(message);
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

/** What a native call returns instead of its result when it failed (src/binding/). */
const FAILED = binding.FAILED;

/**
 * The reasons of a deny the runtime itself decides (evaluateToolCall, lib/run/decide.js),
 * defined here so that the package exports them without loading the run loop.
 */
const RUNTIME_REASONS = P.ObjectFreeze([
  'policy_mutated_arguments',
  'policy_error',
  'invalid_policy_result',
  'policy_not_configured',
  'grant_store_unavailable',
]);

module.exports = {
  RUNTIME_REASONS,
  CedarPolicyError,
  isCedarPolicyError,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ToolCallNotAllowedError,
  ApprovalGrantError,
  GRANT_ERROR_CODES,
  NOT_ALLOWED_CODES,
  CALL_CODES,
  isApprovalGrantError,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  WalkFailure,
  escapeName,
  invalidArgument,
  nativeFailure,
  FAILED,
  ERROR_CODES: CODES,
};
