'use strict';
// Ajv for fromJsonSchema (lib/json-schema/index.js): the optional peer loaded when first
// needed, a new instance per tool, and compiling a schema on it with unknown
// formats and compile failures raised at registration.

const { invalidArgument } = require('../errors');
const P = require('../primordials');
const { defineData } = require('./copy');

const { ObjectFreeze, ObjectDefineProperty } = P;
// Captured when the package loaded (this module loads at first use).
const { StringPrototypeStartsWith, ErrorCaptureStackTrace, SafeError } = P;

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
    const missing = new SafeError(`fromJsonSchema needs ${name} (an optional peer dependency of tool-argument-snapshot): npm install ${name}`);
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
 * Per tool, a new Ajv instance compiles the schema: nothing is shared between tools, so a
 * schema's `$ref` resolves only within that schema. (One kept instance kept every nested
 * `$id` and the empty-URI root that removeSchema leaves behind: a tool's unresolvable
 * `$ref` could resolve against another tool's schema, and a tool's `$id` could collide with
 * another's nested one.) Checking a schema against its meta-schema is what makes a new
 * instance slow (the meta-schema compiles first), and it registers nothing: that check
 * runs on a kept instance per configuration (`validateSchema`), the compile on the new one
 * with its own check off.
 */
const checkers = [];

function sameFormats(a, b) {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1]) return false;
  return true;
}

function newAjv(dialect, defaults, formatMode, customFormats, checksSchemas) {
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
    validateSchema: checksSchemas,
    logger: LOGGER,
  });
  if (dialect === 'draft-06') ajv.addMetaSchema(classes.draft06Meta);
  if (plugin !== undefined) plugin(ajv);
  if (customFormats !== null) {
    for (let i = 0; i < customFormats.length; i++) ajv.addFormat(customFormats[i][0], customFormats[i][2]);
  }
  return ajv;
}

/** The kept instance that checks schemas against their meta-schema (it compiles none). */
function checkerFor(dialect, defaults, formatMode, customFormats) {
  for (let i = 0; i < checkers.length; i++) {
    const entry = checkers[i];
    if (entry.dialect === dialect && entry.defaults === defaults && entry.formatMode === formatMode && sameFormats(entry.customFormats, customFormats)) {
      return entry.ajv;
    }
  }
  const ajv = newAjv(dialect, defaults, formatMode, customFormats, true);
  defineData(checkers, checkers.length, { __proto__: null, dialect, defaults, formatMode, customFormats, ajv });
  return ajv;
}

/** The instances for one tool: a kept checker and a new compiler. */
function ajvFor(dialect, defaults, formatMode, customFormats) {
  return ObjectFreeze({
    checker: checkerFor(dialect, defaults, formatMode, customFormats),
    compiler: newAjv(dialect, defaults, formatMode, customFormats, false),
  });
}

/** The compile error of Ajv as a TypeError raised at registration. */
function compileError(error, caller) {
  const detail = error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message : 'unknown error';
  const wrapped = invalidArgument(`fromJsonSchema: the schema does not compile: ${detail}`);
  ObjectDefineProperty(wrapped, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_VALUE', enumerable: true, writable: false, configurable: true });
  if (ErrorCaptureStackTrace !== undefined) ErrorCaptureStackTrace(wrapped, caller);
  return wrapped;
}

/** Compiles a copied schema on its own instance; unknown formats are compile errors. */
function compile(ajv, schema, caller) {
  compileWarnings = [];
  let validate;
  let failure;
  try {
    // Throws "schema is invalid: ..." as Ajv's own compile does; registers nothing.
    ajv.checker.validateSchema(schema, true);
    validate = ajv.compiler.compile(schema);
  } catch (error) {
    failure = error;
  }
  const warnings = compileWarnings;
  compileWarnings = null;
  if (failure !== undefined) throw compileError(failure, caller);
  for (let i = 0; i < warnings.length; i++) {
    if (StringPrototypeStartsWith(warnings[i], 'unknown format')) {
      throw compileError({ message: `${warnings[i]} (name it in options.formats, or pass formats: 'ignore')` }, caller);
    }
  }
  return validate;
}

module.exports = { ajvFor, compile };
