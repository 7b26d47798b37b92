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

const { invalidArgument } = require('./errors');
const { own, optionalInput } = require('./input');
const P = require('./primordials');

const {
  ObjectFreeze, ObjectGetPrototypeOf, ObjectGetOwnPropertyDescriptor, ObjectDefineProperty, ObjectHasOwn,
  ObjectPrototype, ReflectOwnKeys, ArrayIsArray, StringPrototypeSlice, StringPrototypeCharCodeAt, isProxy,
} = P;
const StringPrototypeStartsWith = Function.prototype.call.bind(String.prototype.startsWith);
const StringPrototypeIndexOf = Function.prototype.call.bind(String.prototype.indexOf);
const RegExpPrototypeTest = Function.prototype.call.bind(RegExp.prototype.test);
const ReflectApply = Reflect.apply;
const isRegExp = P.isRegExp;
const SafeArray = Array;
const ErrorCaptureStackTrace = Error.captureStackTrace;

/** Deepest nesting of a value validate copies (the strict decoder's limit, MAX_DEPTH). */
const MAX_DEPTH = 1024;
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
// Ajv: an optional peer dependency (the MCP SDK, its v2 client and so the OpenAI Agents
// SDK already install it), required when fromJsonSchema is first called, so requiring the
// package costs nothing and installing it pulls nothing.

/** Requires an optional peer; a missing one is an Error with code MODULE_NOT_FOUND naming it. */
function requirePeer(name, load) {
  try {
    return load();
  } catch (error) {
    if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
    const missing = new Error(`fromJsonSchema needs ${name} (an optional peer dependency of tool-argument-snapshot): npm install ${name}`);
    ObjectDefineProperty(missing, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
    ObjectDefineProperty(missing, 'packageName', { __proto__: null, value: name, enumerable: true, writable: false, configurable: true });
    throw missing;
  }
}

let ajvClasses;
let addFormats;
function ajvClass() {
  if (ajvClasses === undefined) {
    ajvClasses = requirePeer('ajv', () => ({
      __proto__: null,
      // Each class knows one family of dialects; draft-06 is draft-07's with its meta-schema.
      'draft-2020-12': require('ajv/dist/2020').default,
      'draft-2019-09': require('ajv/dist/2019').default,
      'draft-07': require('ajv').default,
      draft06Meta: require('ajv/dist/refs/json-schema-draft-06.json'),
    }));
  }
  return ajvClasses;
}
/** ajv-formats, needed only where formats are asserted (not with formats: 'ignore'). */
function formatsPlugin() {
  if (addFormats === undefined) addFormats = requirePeer('ajv-formats', () => require('ajv-formats').default);
  return addFormats;
}

// What Ajv reports while compiling: an unknown format is a warning there (strict mode off,
// so that unknown keywords stay annotations as JSON Schema says), an error here.
let compileWarnings = null;
const LOGGER = ObjectFreeze({
  log() {},
  warn(message) {
    if (compileWarnings !== null && typeof message === 'string') defineData(compileWarnings, compileWarnings.length, message);
  },
  error() {},
});

/**
 * Ajv instances, one per configuration (dialect, defaults, formats), made when first
 * needed and kept: a new instance compiles its meta-schemas (tens of milliseconds), a
 * schema on a kept one takes a few. Each schema is removed from its instance once
 * compiled, so two tools may use the same `$id` and nothing accumulates.
 */
const instances = [];

function sameFormats(a, b) {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1]) return false;
  return true;
}

function ajvFor(dialect, defaults, formatMode, customFormats) {
  for (let i = 0; i < instances.length; i++) {
    const entry = instances[i];
    if (entry.dialect === dialect && entry.defaults === defaults && entry.formatMode === formatMode && sameFormats(entry.customFormats, customFormats)) {
      return entry.ajv;
    }
  }
  const classes = ajvClass();
  const Ajv = dialect === 'draft-06' ? classes['draft-07'] : classes[dialect];
  const plugin = formatMode === 'ignore' ? undefined : formatsPlugin();
  const ajv = new Ajv({
    // Unknown keywords are annotations (JSON Schema); the meta-schema still checks every
    // keyword Ajv knows, so a misspelt type fails when the tool is registered.
    strict: false,
    // `required: ["constructor"]` is not met by Object.prototype.constructor. (A `default`
    // of a property named like an Object.prototype member is not inserted: Ajv tests
    // `data[key] === undefined`, which the inherited member answers.)
    ownProperties: true,
    // 0.07 is a multiple of 0.01 (JSON Schema means the real numbers; a double division
    // gives 7.000000000000001).
    multipleOfPrecision: 9,
    allErrors: false,
    useDefaults: defaults,
    validateFormats: formatMode !== 'ignore',
    logger: LOGGER,
  });
  if (dialect === 'draft-06') ajv.addMetaSchema(classes.draft06Meta);
  if (plugin !== undefined) plugin(ajv);
  if (customFormats !== null) {
    for (let i = 0; i < customFormats.length; i++) ajv.addFormat(customFormats[i][0], customFormats[i][2]);
  }
  defineData(instances, instances.length, { __proto__: null, dialect, defaults, formatMode, customFormats, ajv });
  return ajv;
}

// ---------------------------------------------------------------------------------
// Copies: the schema is read once, as data; every validated value is the package's own.

/** A plain object: Object.prototype or null as prototype, not a Proxy. */
function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || isProxy(value) || ArrayIsArray(value)) return false;
  const proto = ObjectGetPrototypeOf(value);
  return proto === ObjectPrototype || proto === null;
}

function defineData(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

/**
 * A JSON copy of a schema (own enumerable data properties of plain objects and arrays;
 * strings, finite numbers, booleans, null), or a TypeError naming where it is not one.
 * No getter runs; a Proxy is refused unread.
 */
function copySchema(value, where, depth) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (value !== value || value === Infinity || value === -Infinity) throw invalidArgument(`fromJsonSchema: the schema holds a non-finite number at ${where}`);
    return value;
  }
  if (depth > MAX_DEPTH) throw invalidArgument('fromJsonSchema: the schema is nested too deeply');
  if (ArrayIsArray(value) && !isProxy(value)) {
    const length = value.length;
    const out = new SafeArray(length);
    for (let i = 0; i < length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(value, i);
      if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value')) throw invalidArgument(`fromJsonSchema: the schema holds a hole or an accessor at ${where}/${i}`);
      defineData(out, i, copySchema(descriptor.value, `${where}/${i}`, depth + 1));
    }
    return out;
  }
  if (!isPlainObject(value)) throw invalidArgument(`fromJsonSchema: the schema holds a value that is not JSON at ${where || '/'}`);
  const out = {};
  const keys = ReflectOwnKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(value, key);
    if (!descriptor.enumerable) continue;
    if (typeof key !== 'string' || !ObjectHasOwn(descriptor, 'value')) throw invalidArgument(`fromJsonSchema: the schema holds a symbol key or an accessor at ${where || '/'}`);
    defineData(out, key, copySchema(descriptor.value, `${where}/${pointerSegment(key)}`, depth + 1));
  }
  return out;
}

/** A frozen deep copy of a copied schema (for `jsonSchema`). */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    const keys = ReflectOwnKeys(value);
    for (let i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    ObjectFreeze(value);
  }
  return value;
}

/** A new mutable copy of a copied schema. */
function cloneSchema(value) {
  if (value === null || typeof value !== 'object') return value;
  if (ArrayIsArray(value)) {
    const out = new SafeArray(value.length);
    for (let i = 0; i < value.length; i++) defineData(out, i, cloneSchema(value[i]));
    return out;
  }
  const out = {};
  const keys = ReflectOwnKeys(value);
  for (let i = 0; i < keys.length; i++) defineData(out, keys[i], cloneSchema(value[keys[i]]));
  return out;
}

/**
 * The package's own copy of a value to validate: plain objects become new records of
 * their own enumerable data properties, dense arrays new arrays. Anything
 * else (a number, a string, and also a Date, a Map, an accessor, a sparse array) stays
 * as it is, for Ajv to judge and, if it passes, for the snapshot to refuse as RFC-0016
 * says. `undefined` when nested deeper than MAX_DEPTH.
 */
function copyValue(value, depth) {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return undefined;
  if (isProxy(value)) return value;
  if (ArrayIsArray(value)) {
    const length = value.length;
    const keys = ReflectOwnKeys(value);
    // Own keys of a dense array without extras: its indices and `length`.
    if (keys.length !== length + 1) return value;
    const out = new SafeArray(length);
    for (let i = 0; i < length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(value, i);
      if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value')) return value;
      const item = copyValue(descriptor.value, depth + 1);
      if (item === undefined && descriptor.value !== undefined) return undefined;
      defineData(out, i, item);
    }
    return out;
  }
  const proto = ObjectGetPrototypeOf(value);
  if (proto !== ObjectPrototype && proto !== null) return value;
  const keys = ReflectOwnKeys(value);
  const out = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(value, key);
    if (typeof key !== 'string' || !descriptor.enumerable || !ObjectHasOwn(descriptor, 'value')) return value;
    const item = copyValue(descriptor.value, depth + 1);
    if (item === undefined && descriptor.value !== undefined) return undefined;
    defineData(out, key, item);
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Issues: Ajv's errors as Standard Schema issues (message and path of keys).

/** An RFC 6901 segment: `~` as `~0`, `/` as `~1`. */
function pointerSegment(segment) {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = StringPrototypeCharCodeAt(segment, i);
    out += c === 0x7e ? '~0' : c === 0x2f ? '~1' : StringPrototypeSlice(segment, i, i + 1);
  }
  return out;
}

/** The keys of a JSON Pointer ("/a/0" -> ["a", "0"]). */
function pointerKeys(pointer) {
  const keys = [];
  if (typeof pointer !== 'string' || pointer === '') return keys;
  let start = 1;
  for (;;) {
    const slash = StringPrototypeIndexOf(pointer, '/', start);
    const raw = StringPrototypeSlice(pointer, start, slash === -1 ? pointer.length : slash);
    let key = '';
    for (let i = 0; i < raw.length; i++) {
      const c = StringPrototypeCharCodeAt(raw, i);
      if (c === 0x7e && i + 1 < raw.length) {
        const next = StringPrototypeCharCodeAt(raw, i + 1);
        key += next === 0x31 ? '/' : '~';
        i++;
      } else {
        key += StringPrototypeSlice(raw, i, i + 1);
      }
    }
    defineData(keys, keys.length, key);
    if (slash === -1) return keys;
    start = slash + 1;
  }
}

class JsonSchemaIssue {
  message;
  path;
  /** The JSON Schema keyword that failed (`type`, `required`, `format`, ...). */
  keyword;
  constructor(message, path, keyword) {
    this.message = message;
    this.path = path;
    this.keyword = keyword;
    ObjectFreeze(path);
    ObjectFreeze(this);
  }
}

function issuesOf(errors) {
  const issues = [];
  if (!ArrayIsArray(errors)) return ObjectFreeze([new JsonSchemaIssue('invalid', [], 'unknown')]);
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i];
    const path = pointerKeys(error.instancePath);
    const params = error.params;
    // A missing property is reported at its object; the issue names the property, as zod's do.
    if (error.keyword === 'required' && params !== null && typeof params === 'object' && typeof params.missingProperty === 'string') {
      defineData(path, path.length, params.missingProperty);
    }
    const message = typeof error.message === 'string' ? error.message : 'invalid';
    defineData(issues, issues.length, new JsonSchemaIssue(message, path, typeof error.keyword === 'string' ? error.keyword : 'unknown'));
  }
  return ObjectFreeze(issues);
}

const DEPTH_ISSUES = ObjectFreeze([new JsonSchemaIssue(`nested deeper than ${MAX_DEPTH}`, [], 'depth')]);

class Success {
  value;
  constructor(value) {
    this.value = value;
    ObjectFreeze(this);
  }
}

class Failure {
  issues;
  constructor(issues) {
    this.issues = issues;
    ObjectFreeze(this);
  }
}

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

/** The compile error of Ajv as a TypeError raised at registration. */
function compileError(error) {
  const detail = error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message : 'unknown error';
  const wrapped = invalidArgument(`fromJsonSchema: the schema does not compile: ${detail}`);
  ObjectDefineProperty(wrapped, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_VALUE', enumerable: true, writable: false, configurable: true });
  if (ErrorCaptureStackTrace !== undefined) ErrorCaptureStackTrace(wrapped, fromJsonSchema);
  return wrapped;
}

/** Compiles a copied schema on a kept instance; unknown formats are compile errors. */
function compile(ajv, schema) {
  compileWarnings = [];
  let validate;
  let failure;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    failure = error;
  }
  const warnings = compileWarnings;
  compileWarnings = null;
  // The instance is shared: forget this schema (and any `$id` it registered) once compiled.
  try {
    ajv.removeSchema(schema);
  } catch {
    // Nothing was registered.
  }
  if (failure !== undefined) throw compileError(failure);
  for (let i = 0; i < warnings.length; i++) {
    if (StringPrototypeStartsWith(warnings[i], 'unknown format')) {
      throw compileError({ message: `${warnings[i]} (name it in options.formats, or pass formats: 'ignore')` });
    }
  }
  return validate;
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
  const check = compile(ajv, copy);
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
