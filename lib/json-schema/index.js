'use strict';
// fromJsonSchema: a JSON Schema as a tool schema. MCP tools, the AI SDK's jsonSchema(),
// OpenAI strict function tools and LangChain tools describe their input with JSON Schema;
// this turns one into a Standard Schema v1 (`~standard.validate`) that prepareToolCall
// runs once per attempt, validated by Ajv 8 (the validator the MCP SDK itself uses).
//
// - The schema compiles when fromJsonSchema is called (a tool's registration): a schema
//   Ajv cannot compile, an unknown `$schema` or an unknown format throws there, never at
//   the first call.
// - validate() never changes the value it is given. Without defaults Ajv only reads it,
//   and it is the output (prepareToolCall gives it the package's own decoded copy, and the
//   snapshot detaches what it returns). With defaults Ajv inserts values, so it validates
//   a copy the package makes (new records and arrays of the value's own data), and that
//   copy is the output the snapshot is made of. Copies have Object.prototype, as
//   JSON.parse's do: the deep equality Ajv's code uses for const, enum and uniqueItems
//   reads `constructor` and `valueOf` of records. Ajv reads own properties only, so no
//   inherited `constructor` satisfies `required` or meets `properties`.
// - Issues carry Ajv's message and the path as keys; the pipeline keeps them out of every
//   error message (lib/run/schemas.js): only their count and, with includePath, their
//   paths reach a ToolArgumentsValidationError.
// - Ajv compiles each schema to JavaScript (`new Function`). That generated code calls
//   the built-ins it finds when it runs (hasOwnProperty, Array.isArray, RegExp, string
//   length): it is outside the package's "built-ins captured at load" guarantee. The code
//   in this file captures its own.
//
// This folder: index.js (options, dialects, fromJsonSchema), ajv.js (the peer and its kept
// instances), copy.js (schema and value copies), issues.js (errors as issues, results).

const { invalidArgument } = require('../errors');
const { own, optionalInput } = require('../input');
const P = require('../primordials');
const { ajvFor, compile } = require('./ajv');
const { defineData, copySchema, deepFreeze, cloneSchema, copyValue } = require('./copy');
const { issuesOf, DEPTH_ISSUES, Success, Failure } = require('./issues');

const { ObjectFreeze, ObjectHasOwn, ReflectOwnKeys, ArrayIsArray, StringPrototypeSlice, StringPrototypeCharCodeAt, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { RegExpPrototypeTest, ReflectApply } = P;
const isRegExp = P.isRegExp;

/** The Standard Schema vendor of the schemas fromJsonSchema makes. */
const VENDOR = 'tool-argument-snapshot';

// The dialects, by `$schema` (with or without the trailing `#`). A schema without
// `$schema` is draft 2020-12: the dialect the MCP specification names for tool schemas.
const DIALECTS = ObjectFreeze({
  __proto__: null,
  'https://json-schema.org/draft/2020-12/schema': 'draft-2020-12',
  'https://json-schema.org/draft/2019-09/schema': 'draft-2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
  'http://json-schema.org/draft-06/schema': 'draft-06',
  'https://json-schema.org/draft-06/schema': 'draft-06',
});
const DEFAULT_DIALECT = 'draft-2020-12';

const USAGE = 'fromJsonSchema expects (schema, { defaults?, formats? }): a JSON Schema object or boolean';

// ---------------------------------------------------------------------------------
// Options.

/** `formats`: undefined (assert the formats ajv-formats knows), 'ignore', or custom formats. */
function readFormats(formats) {
  if (formats === undefined || formats === null) return { mode: 'assert', custom: null };
  if (formats === 'ignore') return { mode: 'ignore', custom: null };
  if (typeof formats !== 'object' || isProxy(formats) || ArrayIsArray(formats)) {
    throw invalidArgument("options.formats must be 'ignore' or an object of formats (RegExp, (value: string) => boolean, or true)");
  }
  const custom = [];
  const keys = ReflectOwnKeys(formats);
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i];
    if (typeof name !== 'string') continue;
    const check = own(formats, name);
    let definition;
    if (check === true) {
      // Known by name, never checked: an annotation.
      definition = true;
    } else if (isRegExp(check)) {
      const pattern = check;
      definition = { type: 'string', validate: (value) => RegExpPrototypeTest(pattern, value) };
    } else if (typeof check === 'function') {
      definition = { type: 'string', validate: (value) => ReflectApply(check, undefined, [value]) === true };
    } else {
      throw invalidArgument(`options.formats.${name} must be a RegExp, a function (value: string) => boolean, or true`);
    }
    defineData(custom, custom.length, [name, check, definition]);
  }
  return { mode: 'assert', custom: custom.length === 0 ? null : custom };
}

/** The dialect of a copied schema, by its `$schema` (none: draft 2020-12). */
function dialectOf(schema) {
  if (schema === null || typeof schema !== 'object' || !ObjectHasOwn(schema, '$schema')) return DEFAULT_DIALECT;
  let uri = schema.$schema;
  if (typeof uri !== 'string') throw invalidArgument('fromJsonSchema: $schema must be a string');
  if (uri.length > 0 && StringPrototypeCharCodeAt(uri, uri.length - 1) === 0x23) uri = StringPrototypeSlice(uri, 0, uri.length - 1);
  const dialect = DIALECTS[uri];
  if (dialect === undefined) {
    throw invalidArgument('fromJsonSchema: unsupported $schema (supported: draft 2020-12, 2019-09, draft-07, draft-06)');
  }
  return dialect;
}

/**
 * A Standard Schema v1 of a JSON Schema, validated by Ajv 8. `schema` is read once, as
 * JSON data (own data properties; a Proxy, a getter or a non-JSON value is a TypeError),
 * and compiled now: a schema that does not compile throws here.
 */
function fromJsonSchema(schema, options) {
  if (schema === undefined || typeof schema === 'function' || typeof schema === 'symbol' || typeof schema === 'bigint') throw invalidArgument(USAGE);
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || isProxy(schema) || ArrayIsArray(schema))) throw invalidArgument(USAGE);
  const opts = optionalInput(options, 'fromJsonSchema options must be an object');
  let defaults = false;
  let formats = { mode: 'assert', custom: null };
  if (opts !== null) {
    const d = own(opts, 'defaults');
    if (d !== undefined && typeof d !== 'boolean') throw invalidArgument('options.defaults must be a boolean');
    defaults = d === true;
    formats = readFormats(own(opts, 'formats'));
  }
  const copy = copySchema(schema, '', 0);
  const dialect = dialectOf(copy);
  const ajv = ajvFor(dialect, defaults, formats.mode, formats.custom);
  const check = compile(ajv, copy, fromJsonSchema);
  const frozen = deepFreeze(cloneSchema(copy));

  // Without defaults Ajv only reads, and the value it read is the output: the snapshot
  // detaches it. With defaults Ajv writes into what it validates: a copy the package owns.
  const validate = defaults
    ? function validate(value) {
        const data = copyValue(value, 0);
        if (data === undefined && value !== undefined) return new Failure(DEPTH_ISSUES);
        // Generated code: outside the built-ins-captured-at-load guarantee (see the header).
        if (check(data) === true) return new Success(data);
        return new Failure(issuesOf(check.errors));
      }
    : function validate(value) {
        if (check(value) === true) return new Success(value);
        return new Failure(issuesOf(check.errors));
      };

  const jsonSchemaOf = ObjectFreeze({
    /** A new copy of the schema as given (no conversion between dialects). */
    input() {
      return cloneSchema(copy);
    },
    output() {
      return cloneSchema(copy);
    },
  });
  const standard = ObjectFreeze({ version: 1, vendor: VENDOR, validate, jsonSchema: jsonSchemaOf });
  return ObjectFreeze({ '~standard': standard, jsonSchema: frozen, dialect, defaults });
}

module.exports = { fromJsonSchema };
