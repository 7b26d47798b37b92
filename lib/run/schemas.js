'use strict';
// Schemas: a function, an object with `parse` (zod 3, zod 4), or a Standard Schema v1
// (`~standard.validate`: zod 3.24+, zod 4, valibot, arktype). Their methods may be
// inherited or getters (valibot and zod 4 define `~standard` as a getter): the schema
// runs anyway. Each runs once per attempt; what it reports becomes a stage-schema error
// that carries no issue message or input.

const { ToolArgumentsValidationError, invalidArgument } = require('../errors');
const { own, defineField } = require('../input');
const { handleRejection, ours, box, isThenable, settleNative, thenIsHookFree, isPromise } = require('../promises');
const P = require('../primordials');

const { ObjectFreeze, ArrayIsArray, StringPrototypeCharCodeAt, StringPrototypeSlice, isProxy } = P;
// Captured when the package loaded (the run loop loads at its first use).
const { isNativeError } = P;

const KIND_NONE = 0;
const KIND_FUNCTION = 1;
const KIND_PARSE = 2;
const KIND_STANDARD = 3;
const KIND_SAFE_PARSE_ASYNC = 4;
const KIND_PARSE_ASYNC = 5;

const SCHEMA_USAGE = 'schema must be a function, an object with a parse method, or a Standard Schema (~standard.validate)';

/** The Standard Schema v1 interface of a schema, or undefined. */
function standardOf(schema) {
  const standard = schema['~standard'];
  return standard !== null && typeof standard === 'object' && typeof standard.validate === 'function' ? standard : undefined;
}

/**
 * How a schema is run. Synchronously: `parse`, else `~standard.validate`, else the
 * function itself. Asynchronously: `safeParseAsync`, else `parseAsync`, else
 * `~standard.validate`, else the function, else `parse`: the schema's own code runs
 * once per attempt (zod's `~standard.validate` would run an async refinement twice).
 */
function schemaKind(schema, async) {
  if (schema === undefined || schema === null) return KIND_NONE;
  if (typeof schema !== 'object' && typeof schema !== 'function') throw invalidArgument(SCHEMA_USAGE);
  if (async) {
    if (typeof schema.safeParseAsync === 'function') return KIND_SAFE_PARSE_ASYNC;
    if (typeof schema.parseAsync === 'function') return KIND_PARSE_ASYNC;
  }
  if (!async && typeof schema.parse === 'function') return KIND_PARSE;
  if (standardOf(schema) !== undefined) return KIND_STANDARD;
  if (typeof schema === 'function') return KIND_FUNCTION;
  if (typeof schema.parse === 'function') return KIND_PARSE;
  throw invalidArgument(SCHEMA_USAGE);
}

// What zod 3 and zod 4 throw from a synchronous parse of an asynchronous schema.
const ZOD_ASYNC_MESSAGES = [
  'Async refinement encountered during synchronous parse operation. Use .parseAsync instead.',
  'Asynchronous transform encountered during synchronous parse operation. Use .parseAsync instead.',
  'Synchronous parse encountered promise.',
  'Encountered Promise during synchronous parse. Use .parseAsync() instead.',
];

/** Whether a schema's synchronous parse threw because the schema is asynchronous. */
function isAsyncParseError(error) {
  if (!isNativeError(error) || isProxy(error)) return false;
  const message = own(error, 'message');
  for (let i = 0; i < ZOD_ASYNC_MESSAGES.length; i++) if (message === ZOD_ASYNC_MESSAGES[i]) return true;
  return false;
}

// The issue codes of zod 3 and zod 4: a fixed vocabulary, so they cannot carry payload.
const ZOD_ISSUE_CODES = ObjectFreeze({
  __proto__: null,
  invalid_type: true,
  invalid_literal: true,
  custom: true,
  invalid_union: true,
  invalid_union_discriminator: true,
  invalid_enum_value: true,
  unrecognized_keys: true,
  invalid_arguments: true,
  invalid_return_type: true,
  invalid_date: true,
  invalid_string: true,
  too_small: true,
  too_big: true,
  invalid_intersection_types: true,
  not_multiple_of: true,
  not_finite: true,
  invalid_format: true,
  invalid_key: true,
  invalid_element: true,
  invalid_value: true,
});
/** At most this many issue codes and paths are listed; issueCount counts them all. */
const MAX_LISTED_ISSUES = 100;

/** Whether a schema is zod's (its Standard Schema vendor is "zod"). Never throws. */
// The JSON Schema keywords fromJsonSchema's issues name (its validator's, Ajv 8 with
// ajv-formats): a fixed vocabulary too.
const JSON_SCHEMA_KEYWORDS = ObjectFreeze({
  __proto__: null,
  type: true,
  required: true,
  enum: true,
  const: true,
  format: true,
  pattern: true,
  minimum: true,
  maximum: true,
  exclusiveMinimum: true,
  exclusiveMaximum: true,
  multipleOf: true,
  minLength: true,
  maxLength: true,
  minItems: true,
  maxItems: true,
  uniqueItems: true,
  minProperties: true,
  maxProperties: true,
  additionalProperties: true,
  unevaluatedProperties: true,
  unevaluatedItems: true,
  propertyNames: true,
  dependentRequired: true,
  dependentSchemas: true,
  dependencies: true,
  if: true,
  not: true,
  anyOf: true,
  oneOf: true,
  allOf: true,
  contains: true,
  minContains: true,
  maxContains: true,
  items: true,
  prefixItems: true,
  additionalItems: true,
  'false schema': true,
  formatMinimum: true,
  formatMaximum: true,
  formatExclusiveMinimum: true,
  formatExclusiveMaximum: true,
});

/**
 * Where a schema's issues name their kind, from a fixed vocabulary: zod's `code`, the
 * JSON Schema `keyword` of fromJsonSchema's issues; undefined for other schemas. Never throws.
 */
function issueVocabulary(schema) {
  try {
    const standard = standardOf(schema);
    if (standard === undefined) return undefined;
    const vendor = standard.vendor;
    if (vendor === 'zod') return ZOD_VOCABULARY;
    if (vendor === 'tool-argument-snapshot') return JSON_SCHEMA_VOCABULARY;
    return undefined;
  } catch {
    return undefined;
  }
}
const ZOD_VOCABULARY = ObjectFreeze({ __proto__: null, field: 'code', words: ZOD_ISSUE_CODES });
const JSON_SCHEMA_VOCABULARY = ObjectFreeze({ __proto__: null, field: 'keyword', words: JSON_SCHEMA_KEYWORDS });

/** An RFC 6901 segment: `~` as `~0`, `/` as `~1`. */
function pointerSegment(segment) {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = StringPrototypeCharCodeAt(segment, i);
    out += c === 0x7e ? '~0' : c === 0x2f ? '~1' : StringPrototypeSlice(segment, i, i + 1);
  }
  return out;
}

/** The JSON Pointer of an issue's path (zod: keys; Standard Schema: keys or { key }). */
function issuePointer(path) {
  if (!ArrayIsArray(path) || isProxy(path)) return '';
  const length = own(path, 'length');
  let pointer = '';
  for (let i = 0; i < length; i++) {
    let segment = own(path, i);
    if (segment !== null && typeof segment === 'object' && !isProxy(segment)) segment = own(segment, 'key');
    if (typeof segment === 'number') segment = `${segment}`;
    pointer += typeof segment === 'string' ? `/${pointerSegment(segment)}` : '/';
  }
  return pointer;
}

/**
 * What a log may hold of a schema's issues: their number, their codes (zod's issue codes,
 * fromJsonSchema's keywords; each from a fixed vocabulary, else `unknown`), and their
 * paths (with includePath only). Never an issue's message or input.
 */
function issueDetail(detail, issues, vocabulary, includePath) {
  if (!ArrayIsArray(issues) || isProxy(issues)) return;
  const count = own(issues, 'length');
  if (typeof count !== 'number') return;
  detail.issueCount = count;
  const listed = count < MAX_LISTED_ISSUES ? count : MAX_LISTED_ISSUES;
  const codes = vocabulary !== undefined ? [] : undefined;
  const paths = includePath ? [] : undefined;
  for (let i = 0; i < listed; i++) {
    let issue = own(issues, i);
    if (issue === null || typeof issue !== 'object' || isProxy(issue)) issue = undefined;
    if (codes !== undefined) {
      const code = issue === undefined ? undefined : own(issue, vocabulary.field);
      defineField(codes, i, typeof code === 'string' && vocabulary.words[code] === true ? code : 'unknown');
    }
    if (paths !== undefined) defineField(paths, i, issue === undefined ? '' : issuePointer(own(issue, 'path')));
  }
  if (codes !== undefined) detail.issueCodes = ObjectFreeze(codes);
  if (paths !== undefined) detail.issuePaths = ObjectFreeze(paths);
}

/** The stage-schema error for what a schema threw, rejected with, or reported as issues. */
function schemaFailure(toolName, includePath, schema, schemaError, issues) {
  const detail = { __proto__: null, hasSchemaError: true, schemaError, issueCount: undefined, issueCodes: undefined, issuePaths: undefined };
  try {
    if (issues === undefined && schemaError !== null && typeof schemaError === 'object' && !isProxy(schemaError)) {
      issues = own(schemaError, 'issues');
    }
    issueDetail(detail, issues, issueVocabulary(schema), includePath);
  } catch {
    // An exotic error object: it keeps what was read before.
  }
  return new ToolArgumentsValidationError('schema', toolName, 'schema_error', undefined, detail);
}

/** A schema that is asynchronous where a synchronous one is needed. */
function asyncSchema(stage, toolName, includePath) {
  return new ToolArgumentsValidationError(stage, toolName, 'async_schema', stage === 'snapshot' && includePath ? '' : undefined, undefined);
}

/**
 * The output of a Standard Schema result, or a stage-schema error. The result is the
 * schema library's own object (arktype's failure result is its error list, whose
 * `issues` is a getter): its fields are read as the library defines them.
 */
function standardOutput(result, toolName, includePath, schema) {
  if (result === null || typeof result !== 'object') throw schemaFailure(toolName, includePath, schema, result, undefined);
  let issues;
  let value;
  try {
    issues = result.issues;
    if (issues === undefined) value = result.value;
  } catch (error) {
    throw schemaFailure(toolName, includePath, schema, error, undefined);
  }
  if (issues !== undefined) throw schemaFailure(toolName, includePath, schema, issues, issues);
  return value;
}

/** The output of a zod safeParse result ({ success, data, error }), or a stage-schema error. */
function safeParseOutput(result, toolName, includePath, schema) {
  if (result === null || typeof result !== 'object') throw schemaFailure(toolName, includePath, schema, result, undefined);
  let success;
  let payload;
  try {
    // zod 3 defines `error` as a getter of the result: the schema library's own code.
    success = result.success === true;
    payload = success ? result.data : result.error;
  } catch (error) {
    throw schemaFailure(toolName, includePath, schema, error, undefined);
  }
  if (!success) throw schemaFailure(toolName, includePath, schema, payload, undefined);
  return payload;
}

/** Runs a schema synchronously, once. Throws ToolArgumentsValidationError at stage schema. */
function runSchema(kind, schema, value, toolName, includePath) {
  if (kind === KIND_NONE) return value;
  let output;
  try {
    if (kind === KIND_PARSE) output = schema.parse(value);
    else if (kind === KIND_FUNCTION) output = schema(value);
    else output = standardOf(schema).validate(value);
  } catch (error) {
    if (kind === KIND_PARSE && isAsyncParseError(error)) throw asyncSchema('schema', toolName, includePath);
    throw schemaFailure(toolName, includePath, schema, error, undefined);
  }
  if (kind !== KIND_STANDARD) return output;
  // A Standard Schema reporting that it is asynchronous.
  if (isPromise(output)) {
    handleRejection(output);
    throw asyncSchema('schema', toolName, includePath);
  }
  if (isThenable(output)) throw asyncSchema('schema', toolName, includePath);
  return standardOutput(output, toolName, includePath, schema);
}

/**
 * Runs a schema asynchronously, once. Settles to a box of its output (a box, so that no
 * `then` of the output is ever looked up); rejects with ToolArgumentsValidationError at
 * stage schema.
 */
async function runSchemaAsync(kind, schema, value, toolName, includePath) {
  if (kind === KIND_NONE) return box(true, value);
  if (kind === KIND_PARSE) return box(true, runSchema(kind, schema, value, toolName, includePath));
  let result;
  try {
    if (kind === KIND_SAFE_PARSE_ASYNC) result = schema.safeParseAsync(value);
    else if (kind === KIND_PARSE_ASYNC) result = schema.parseAsync(value);
    else if (kind === KIND_FUNCTION) result = schema(value);
    else result = standardOf(schema).validate(value);
  } catch (error) {
    throw schemaFailure(toolName, includePath, schema, error, undefined);
  }
  // What the schema returned, settled running none of its code: a native promise whose
  // `then` would run only engine code (thenIsHookFree) awaited directly, any other native
  // promise through settleNative, anything else taken as it is.
  let output;
  if (!isPromise(result)) {
    output = result;
  } else if (thenIsHookFree(result)) {
    try {
      output = await result;
    } catch (error) {
      throw schemaFailure(toolName, includePath, schema, error, undefined);
    }
  } else {
    const outcome = await ours(settleNative(result));
    if (!outcome.ok) throw schemaFailure(toolName, includePath, schema, outcome.value, undefined);
    output = outcome.value;
  }
  if (kind === KIND_SAFE_PARSE_ASYNC) return box(true, safeParseOutput(output, toolName, includePath, schema));
  if (kind === KIND_STANDARD) return box(true, standardOutput(output, toolName, includePath, schema));
  return box(true, output);
}

module.exports = { schemaKind, runSchema, runSchemaAsync, asyncSchema, pointerSegment, KIND_NONE };
