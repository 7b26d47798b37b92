'use strict';
// The RFC-0016 run-loop steps: strict request decoding, one schema parse, the snapshot,
// isolated policy and execution views, the mutation check, suspended proposals.
// A run loop adopts it with three calls: prepareToolCall, evaluateToolCall (then it
// records the decision), executeToolCall; or with authorizeToolCall, which does the last
// two at once.

const { types } = require('node:util');
const { binding } = require('./native');
const { ToolArgumentsValidationError, ToolCallNotAllowedError, invalidArgument, nativeFailure, FAILED } = require('./errors');
const { canonicalize, snapshotOf, createSnapshotFromText, decodeView } = require('./snapshot');
const P = require('./primordials');
const { grantIssuer } = require('./grants');

const {
  ObjectFreeze, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, JSONParse, ArrayIsArray,
  StringPrototypeIsWellFormed, StringPrototypeCharCodeAt, StringPrototypeSlice, isProxy,
} = P;

// Built-ins this file needs beyond lib/primordials.js, captured at load the same way.
const ReflectOwnKeys = Reflect.ownKeys;
const isPromise = types.isPromise;
const isNativeError = types.isNativeError;
const SafePromise = Promise;

// Native flags and checkJson results: the constants src/binding.rs exports.
const { FLAG_PATH, JSON_BLANK } = binding;

/** The reasons of a deny the runtime decided (decidedBy: 'runtime'), in a frozen array. */
const RUNTIME_REASONS = ObjectFreeze(['policy_mutated_arguments', 'policy_error', 'invalid_policy_result', 'policy_not_configured']);

/** Returns the object it is given, so that a subclass can stamp private fields onto it. */
class Stamp {
  constructor(object) {
    return object;
  }
}

/**
 * The decisions evaluateToolCall made, each with its execution state, as a private field
 * stamped on the decision object (no WeakMap entry per decision for the collector to
 * trace; a copy of a decision has no such field).
 */
class DecisionState extends Stamp {
  #state;
  constructor(decision, state) {
    super(decision);
    this.#state = state;
  }

  /** The state of a decision, or undefined for anything evaluateToolCall did not return. */
  static of(value) {
    return value !== null && typeof value === 'object' && #state in value ? value.#state : undefined;
  }
}

/**
 * The value of an own data property, or undefined: an inherited field, an accessor (never
 * called) and a missing field all read as absent. `object` must not be a Proxy.
 */
function own(object, key) {
  // An absent field (the common case for options) costs no descriptor object.
  if (!ObjectHasOwn(object, key)) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** An input or options object of the API, or a TypeError: a Proxy is refused unread. */
function requireInput(input, message) {
  if (input === null || typeof input !== 'object' || isProxy(input)) throw invalidArgument(message);
  return input;
}

function requireString(value, what, wellFormed) {
  if (typeof value !== 'string' || (wellFormed && !StringPrototypeIsWellFormed(value))) {
    throw invalidArgument(`${what} must be a ${wellFormed ? 'well-formed ' : ''}string`);
  }
  return value;
}

/** Strict check of provider text: true when it is empty or whitespace only. */
function checkRequest(toolName, rawArguments, includePath) {
  const status = binding.checkJson(rawArguments, includePath ? FLAG_PATH : 0);
  if (status === FAILED) {
    const failure = nativeFailure(includePath);
    throw new ToolArgumentsValidationError('json', toolName, failure.code, failure.path);
  }
  return status === JSON_BLANK;
}

/** Whether text is empty or JSON whitespace only (space, tab, line feed, carriage return). */
function isBlank(text) {
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

/**
 * A new value of checked provider text; `{}` for empty or whitespace-only text (`blank`
 * undefined: not known yet, told from the text).
 */
function parseRequest(rawArguments, blank) {
  return (blank === undefined ? isBlank(rawArguments) : blank) ? {} : JSONParse(rawArguments);
}

function decodeRequest(rawArguments, options) {
  requireString(rawArguments, 'rawArguments', false);
  let toolName = '';
  let includePath = false;
  if (options !== undefined && options !== null) {
    requireInput(options, 'options must be an object');
    const name = own(options, 'toolName');
    if (typeof name === 'string') toolName = name;
    includePath = own(options, 'includePath') === true;
  }
  return parseRequest(rawArguments, checkRequest(toolName, rawArguments, includePath));
}

// ---------------------------------------------------------------------------------
// Promises the package receives (from a schema, a policy, a grants object). The engine's
// `then` looks up `constructor` and then `Symbol.species` on the promise: a getter or a
// Proxy there would run code. A promise is only ever attached to when that lookup is
// answered by data the engine put there (or by an own `constructor: undefined` the
// package defines for the duration of the call); a non-native thenable's `then` is
// never called.

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
const promiseSpeciesGetter = ObjectGetOwnPropertyDescriptor(Promise, Symbol.species).get;
const SymbolSpecies = Symbol.species;
const ObjectIsExtensible = Object.isExtensible;
const ReflectDeleteProperty = Reflect.deleteProperty;
const { ObjectGetPrototypeOf } = P;

/** Whether Promise.prototype.then on this native promise would run only engine code. */
function thenIsHookFree(promise) {
  let object = promise;
  // SpeciesConstructor(promise): the first `constructor` on the chain, then its species.
  for (let depth = 0; depth < 1024; depth++) {
    if (object === null) return true; // no constructor: the default, %Promise%
    if (isProxy(object)) return false;
    const descriptor = ObjectGetOwnPropertyDescriptor(object, 'constructor');
    if (descriptor !== undefined) {
      if (!ObjectHasOwn(descriptor, 'value')) return false;
      const constructor = descriptor.value;
      if (constructor === undefined) return true;
      if (constructor !== SafePromise) return false;
      const species = ObjectGetOwnPropertyDescriptor(SafePromise, SymbolSpecies);
      return species !== undefined && species.get === promiseSpeciesGetter;
    }
    object = ObjectGetPrototypeOf(object);
  }
  return false;
}

/**
 * Attaches reactions to a native promise without running any code of it. When the
 * constructor lookup could reach code, an own `constructor: undefined` shadows it for the
 * duration of the call (then the promise's own property, if any, is put back as it was):
 * `then` then uses the engine's %Promise%. Returns false, attaching nothing, when even
 * that is impossible: a non-extensible promise without an own configurable `constructor`,
 * or one with a non-configurable own accessor, whose lookup would run code.
 */
function attach(promise, onFulfilled, onRejected) {
  if (thenIsHookFree(promise)) {
    PromisePrototypeThen(promise, onFulfilled, onRejected);
    return true;
  }
  const saved = ObjectGetOwnPropertyDescriptor(promise, 'constructor');
  if (saved === undefined ? !ObjectIsExtensible(promise) : !saved.configurable) return false;
  ObjectDefineProperty(promise, 'constructor', { __proto__: null, value: undefined, writable: false, enumerable: false, configurable: true });
  try {
    PromisePrototypeThen(promise, onFulfilled, onRejected);
  } finally {
    if (saved === undefined) ReflectDeleteProperty(promise, 'constructor');
    else ObjectDefineProperty(promise, 'constructor', nullPrototype(saved));
  }
  return true;
}

/** A copy of a property descriptor with no prototype (defineProperty reads no inherited field). */
function nullPrototype(descriptor) {
  const copy = { __proto__: null, enumerable: descriptor.enumerable, configurable: descriptor.configurable };
  if (ObjectHasOwn(descriptor, 'value')) {
    copy.value = descriptor.value;
    copy.writable = descriptor.writable;
  } else {
    copy.get = descriptor.get;
    copy.set = descriptor.set;
  }
  return copy;
}

function ignore() {}

/** Handles a native promise's rejection (and ignores its value) without running its code. */
function handleRejection(promise) {
  return attach(promise, ignore, ignore);
}

/**
 * A promise of the package's own that `await` adopts without looking anything up: its
 * own `constructor` is %Promise%, so PromiseResolve returns it as it is.
 */
function ours(promise) {
  ObjectDefineProperty(promise, 'constructor', { __proto__: null, value: SafePromise, writable: false, enumerable: false, configurable: false });
  return promise;
}

/** A null-prototype box: resolving a promise with it looks up no `then`. */
function box(ok, value) {
  return { __proto__: null, ok, value };
}

const UNATTACHABLE = 'the promise cannot be awaited without running code of its prototype chain';

/** Settles a native promise to a box ({ ok, value }), running none of its code. */
function settleNative(promise) {
  return ours(new SafePromise((resolve) => {
    const attached = attach(promise, (value) => resolve(box(true, value)), (error) => resolve(box(false, error)));
    if (!attached) resolve(box(false, invalidArgument(UNATTACHABLE)));
  }));
}

/**
 * Whether a value is a thenable other than a native promise, told without running code:
 * a function-valued data property `then` on it or its prototype chain (no Proxy on it).
 */
function isThenable(value) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  let object = value;
  for (let depth = 0; depth < 1024 && object !== null; depth++) {
    if (isProxy(object)) return false;
    const descriptor = ObjectGetOwnPropertyDescriptor(object, 'then');
    if (descriptor !== undefined) return ObjectHasOwn(descriptor, 'value') && typeof descriptor.value === 'function';
    object = ObjectGetPrototypeOf(object);
  }
  return false;
}

// ---------------------------------------------------------------------------------
// Schemas: a function, an object with `parse` (zod 3, zod 4), or a Standard Schema v1
// (`~standard.validate`: zod 3.24+, zod 4, valibot, arktype). Their methods may be
// inherited or getters (valibot and zod 4 define `~standard` as a getter): the schema
// runs anyway.

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
  invalid_type: true, invalid_literal: true, custom: true, invalid_union: true, invalid_union_discriminator: true,
  invalid_enum_value: true, unrecognized_keys: true, invalid_arguments: true, invalid_return_type: true,
  invalid_date: true, invalid_string: true, too_small: true, too_big: true, invalid_intersection_types: true,
  not_multiple_of: true, not_finite: true, invalid_format: true, invalid_key: true, invalid_element: true,
  invalid_value: true,
});
/** At most this many issue codes and paths are listed; issueCount counts them all. */
const MAX_LISTED_ISSUES = 100;

/** Whether a schema is zod's (its Standard Schema vendor is "zod"). Never throws. */
function isZod(schema) {
  try {
    const standard = standardOf(schema);
    return standard !== undefined && standard.vendor === 'zod';
  } catch {
    return false;
  }
}

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
 * What a log may hold of a schema's issues: their number, zod's issue codes (zod only),
 * and their paths (with includePath only). Never an issue's message or input.
 */
function issueDetail(detail, issues, zod, includePath) {
  if (!ArrayIsArray(issues) || isProxy(issues)) return;
  const count = own(issues, 'length');
  if (typeof count !== 'number') return;
  detail.issueCount = count;
  const listed = count < MAX_LISTED_ISSUES ? count : MAX_LISTED_ISSUES;
  const codes = zod ? [] : undefined;
  const paths = includePath ? [] : undefined;
  for (let i = 0; i < listed; i++) {
    let issue = own(issues, i);
    if (issue === null || typeof issue !== 'object' || isProxy(issue)) issue = undefined;
    if (codes !== undefined) {
      const code = issue === undefined ? undefined : own(issue, 'code');
      defineField(codes, i, typeof code === 'string' && ZOD_ISSUE_CODES[code] === true ? code : 'unknown');
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
    issueDetail(detail, issues, isZod(schema), includePath);
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

/** Awaits what a schema method returned (a native promise; anything else as it is). */
async function settled(result) {
  return isPromise(result) ? await settleNative(result) : box(true, result);
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
  const outcome = await ours(settled(result));
  if (!outcome.ok) throw schemaFailure(toolName, includePath, schema, outcome.value, undefined);
  const output = outcome.value;
  if (kind === KIND_SAFE_PARSE_ASYNC) return box(true, safeParseOutput(output, toolName, includePath, schema));
  if (kind === KIND_STANDARD) return box(true, standardOutput(output, toolName, includePath, schema));
  return box(true, output);
}

let requestedArgumentsGetter;
// The accessor of every prepared call's requestedArguments: one frozen descriptor made at
// load (a null-prototype literal per call is a dictionary-mode allocation, ~60 ns).
let REQUESTED_ARGUMENTS;

/**
 * The provider text of a prepared call and whether it was blank (undefined: not known
 * yet). A class, not a null-prototype literal (dictionary mode, ~60 ns each): both fields
 * are always own data properties, defined before the constructor body runs, so no read
 * of them reaches a prototype and no setter on Object.prototype sees them.
 */
class ProviderText {
  rawArguments;
  blank;
  constructor(rawArguments, blank) {
    this.rawArguments = rawArguments;
    this.blank = blank;
  }
}

class PreparedToolCall {
  // Fields are defined, not assigned, before the constructor body runs, so setters on
  // Object.prototype never see them.
  agentName;
  toolName;
  rawArguments;
  snapshot;
  argsCanonicalJson;
  proposalHash;

  // What the pipeline reads: private, so a prepared call cannot be forged or copied.
  #snapshot;
  #request;

  constructor(agentName, toolName, rawArguments, request, snapshot) {
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.#snapshot = snapshot;
    this.#request = request;
    // A new decoded copy of the provider text on every read (each policy input gets its
    // own copy too), so no policy can change what another policy, the proposal or the
    // prepared call shows. Nothing is decoded unless read.
    ObjectDefineProperty(this, 'requestedArguments', REQUESTED_ARGUMENTS);
    this.snapshot = snapshot;
    this.argsCanonicalJson = snapshot.argsCanonicalJson;
    this.proposalHash = snapshot.proposalHash;
    ObjectFreeze(this);
  }

  /** The snapshot of a prepared call, or undefined for anything prepareToolCall did not return. */
  static snapshotOf(value) {
    return value !== null && typeof value === 'object' && #snapshot in value ? value.#snapshot : undefined;
  }

  /** The provider text of a prepared call, and whether it was blank. */
  static requestOf(value) {
    return value.#request;
  }

  static {
    requestedArgumentsGetter = function requestedArguments() {
      if (this === null || typeof this !== 'object' || !(#request in this)) return undefined;
      return parseRequest(this.#request.rawArguments, this.#request.blank);
    };
    REQUESTED_ARGUMENTS = ObjectFreeze({ __proto__: null, get: requestedArgumentsGetter, enumerable: true, configurable: false });
  }

  /** A new decoded view for policy evaluation. */
  policyView() {
    return decodeView(this.snapshot);
  }

  /** A new decoded view for the tool handler. */
  executionView() {
    return decodeView(this.snapshot);
  }
}
// The pipeline never calls these methods (it decodes the snapshot itself), and
// freezing the class keeps every prepared call's methods what they are here.
ObjectFreeze(PreparedToolCall.prototype);
ObjectFreeze(PreparedToolCall);

const PREPARE_USAGE = 'prepareToolCall expects { agentName, toolName, rawArguments, schema? }';

/**
 * The checked fields of a prepare input. A class for the reason ProviderText is one:
 * every field is an own data property, defined before the constructor body runs.
 */
class PrepareFields {
  agentName;
  toolName;
  rawArguments;
  includePath;
  schema;
  kind;
  constructor(agentName, toolName, rawArguments, includePath, schema, kind) {
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.includePath = includePath;
    this.schema = schema;
    this.kind = kind;
  }
}

/** The checked fields of a prepare input. */
function readPrepareFields(input, async) {
  requireInput(input, PREPARE_USAGE);
  const agentName = requireString(own(input, 'agentName'), 'agentName', true);
  const toolName = requireString(own(input, 'toolName'), 'toolName', true);
  const rawArguments = requireString(own(input, 'rawArguments'), 'rawArguments', false);
  const includePath = own(input, 'includePath') === true;
  const schema = own(input, 'schema');
  return new PrepareFields(agentName, toolName, rawArguments, includePath, schema, schemaKind(schema, async));
}

/**
 * A prepared call of provider text no schema transforms: strict decoding, RFC 8785 and
 * the hash in one native pass (the codes and paths of the two-step path).
 */
function prepareWithoutSchema(fields) {
  const { agentName, toolName, rawArguments } = fields;
  const snapshot = createSnapshotFromText(agentName, toolName, rawArguments, fields.includePath);
  return new PreparedToolCall(agentName, toolName, rawArguments, new ProviderText(rawArguments, undefined), snapshot);
}

/** The decoded request and the schema's input of prepare fields with a schema. */
function readPrepare(fields) {
  const { agentName, toolName, rawArguments, includePath, schema, kind } = fields;
  const blank = checkRequest(toolName, rawArguments, includePath);
  // The schema gets its own decoded copy; requestedArguments, the diagnostic evidence, is
  // decoded again on every read, so nothing the schema returns can alias it.
  const request = new ProviderText(rawArguments, blank);
  const schemaInput = parseRequest(rawArguments, blank);
  return { __proto__: null, agentName, toolName, rawArguments, includePath, schema, kind, request, schemaInput };
}

/** Snapshots the schema output (not referenced afterwards) into a registered prepared call. */
function finishPrepare(read, schemaOutput) {
  const { agentName, toolName, includePath } = read;
  let snapshot;
  try {
    snapshot = snapshotOf(agentName, toolName, schemaOutput, includePath);
  } catch (error) {
    // Schema output that is a promise or another thenable is outside the snapshot
    // domain (RFC-0016), with its own code; a native promise's rejection is handled.
    if (isPromise(schemaOutput)) {
      handleRejection(schemaOutput);
      throw asyncSchema('snapshot', toolName, includePath);
    }
    if (isThenable(schemaOutput)) throw asyncSchema('snapshot', toolName, includePath);
    throw error;
  }
  return new PreparedToolCall(agentName, toolName, read.rawArguments, read.request, snapshot);
}

function prepareToolCall(input) {
  const fields = readPrepareFields(input, false);
  if (fields.kind === KIND_NONE) return prepareWithoutSchema(fields);
  const read = readPrepare(fields);
  return finishPrepare(read, runSchema(read.kind, read.schema, read.schemaInput, read.toolName, read.includePath));
}

/**
 * prepareToolCall for asynchronous schemas: awaits safeParseAsync, parseAsync or
 * ~standard.validate, so the schema's code runs exactly once per attempt.
 */
async function prepareToolCallAsync(input) {
  const fields = readPrepareFields(input, true);
  if (fields.kind === KIND_NONE) return prepareWithoutSchema(fields);
  const read = readPrepare(fields);
  const output = await ours(runSchemaAsync(read.kind, read.schema, read.schemaInput, read.toolName, read.includePath));
  return finishPrepare(read, output.value);
}

/**
 * Calls `fn(argument)`: a box `{ ok: true, value }` with what it returned, or
 * `{ ok: false, value: error }` if it threw; a native promise it returned becomes a
 * promise of such a box (settled without running any of its code). Any other value, a
 * thenable or a Proxy included, is taken as it is: its `then` is never read.
 */
function settle(fn, argument) {
  let result;
  try {
    result = fn(argument);
  } catch (error) {
    return box(false, error);
  }
  return isPromise(result) ? settleNative(result) : box(true, result);
}

/** The decision and reason of a policy result, or null when it is not a valid result. */
function readPolicyResult(result) {
  if (result === null || typeof result !== 'object' || isProxy(result)) return null;
  const decision = own(result, 'decision');
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'require_approval') return null;
  const reason = own(result, 'reason');
  if (typeof reason !== 'string' || reason === '') return null;
  return { __proto__: null, decision, reason };
}

/** Whether the policy's view still canonicalizes to the authorized JSON. */
function viewUnchanged(view, argsCanonicalJson) {
  try {
    return canonicalize(view) === argsCanonicalJson;
  } catch {
    return false;
  }
}

/** Defines a writable, enumerable data field: setters on Object.prototype are never reached. */
function defineField(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

/**
 * The policy input: the context's own enumerable data fields, then the argument fields
 * (an object literal: its fields are defined, never assigned, so no setter runs). Its
 * `requestedArguments` is its own decoded copy, made when first read (an accessor that
 * then replaces itself with the data field; assigning to it defines the data field).
 */
function policyInputOf(prepared, snapshot, policyContext, parsedArguments) {
  const request = PreparedToolCall.requestOf(prepared);
  let context;
  if (policyContext !== undefined) {
    context = { __proto__: null };
    const keys = ReflectOwnKeys(policyContext);
    for (let i = 0; i < keys.length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(policyContext, keys[i]);
      if (descriptor !== undefined && descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
        defineField(context, keys[i], descriptor.value);
      }
    }
  }
  return {
    // Spreading the package's own null-prototype copy defines each field (CreateDataProperty).
    ...context,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    rawArguments: request.rawArguments,
    get requestedArguments() {
      const value = parseRequest(request.rawArguments, request.blank);
      defineField(this, 'requestedArguments', value);
      return value;
    },
    set requestedArguments(value) {
      defineField(this, 'requestedArguments', value);
    },
    parsedArguments,
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
  };
}

/**
 * A frozen decision, registered so that executeToolCall accepts it (and nothing else).
 * Object literals define their fields (no setter runs), one literal per shape.
 */
function makeDecision(snapshot, decision, reason, decidedBy, policyResult, hasPolicyResult, error, proposal) {
  const { agentName, toolName, argsCanonicalJson, proposalHash } = snapshot;
  let made;
  if (proposal !== undefined) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, policyResult, proposal };
  } else if (hasPolicyResult) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, policyResult };
  } else if (error !== NONE) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, error };
  } else {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash };
  }
  new DecisionState(made, { __proto__: null, snapshot, decision, executed: false });
  ObjectFreeze(made);
  return made;
}

/** Marks an absent `error` (a policy may throw undefined). */
const NONE = Symbol('none');

function runtimeDeny(snapshot, reason, policyResult, hasPolicyResult, error) {
  return makeDecision(snapshot, 'deny', reason, 'runtime', policyResult, hasPolicyResult, error, undefined);
}

const EVALUATE_USAGE = 'evaluateToolCall expects { prepared, policy?, policyContext? }';

/** Reads and checks the fields evaluateToolCall and authorizeToolCall share. */
function readEvaluation(input, usage) {
  requireInput(input, usage);
  const prepared = own(input, 'prepared');
  const snapshot = PreparedToolCall.snapshotOf(prepared);
  if (snapshot === undefined) throw invalidArgument('prepared must be a PreparedToolCall returned by prepareToolCall');
  let policy = own(input, 'policy');
  if (policy === null) policy = undefined;
  if (policy !== undefined && typeof policy !== 'function') throw invalidArgument('policy must be a function');
  let policyContext = own(input, 'policyContext');
  if (policyContext === null) policyContext = undefined;
  if (policyContext !== undefined && (typeof policyContext !== 'object' || isProxy(policyContext))) {
    throw invalidArgument('policyContext must be an object');
  }
  return { __proto__: null, prepared, snapshot, policy, policyContext };
}

/** The decision once the policy has answered (`settled`): the runtime's checks, in order. */
function conclude(read, settled, parsedArguments) {
  const { prepared, snapshot } = read;
  if (!settled.ok) return runtimeDeny(snapshot, 'policy_error', undefined, false, settled.value);
  const policyResult = settled.value;
  if (!viewUnchanged(parsedArguments, snapshot.argsCanonicalJson)) {
    return runtimeDeny(snapshot, 'policy_mutated_arguments', policyResult, true, NONE);
  }
  const valid = readPolicyResult(policyResult);
  if (valid === null) return runtimeDeny(snapshot, 'invalid_policy_result', policyResult, true, NONE);
  const { decision, reason } = valid;
  if (decision !== 'require_approval') return makeDecision(snapshot, decision, reason, 'policy', policyResult, true, NONE, undefined);
  // require_approval: the fingerprint policy evaluated, reused, with its own view.
  const proposal = ObjectFreeze({
    kind: 'tool',
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    rawArguments: prepared.rawArguments,
    parsedArguments: decodeView(snapshot),
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
    reason,
  });
  return makeDecision(snapshot, decision, reason, 'policy', policyResult, true, NONE, proposal);
}

/**
 * Calls the policy on its own view: a box of what it answered, or a promise of that box.
 * The caller awaits it either way, so at least one microtask turn passes between the
 * policy's answer and the mutation check: a mutation the policy queued is then seen.
 */
function askPolicy(read, parsedArguments) {
  return settle(read.policy, policyInputOf(read.prepared, read.snapshot, read.policyContext, parsedArguments));
}

/**
 * Runs policy on a fresh view of the prepared call and returns the frozen decision. It
 * never rejects for anything the policy does (a throw, a rejection, a mutated view, a
 * malformed result): those are runtime denies. No policy is a runtime deny too.
 */
async function evaluateToolCall(input) {
  const read = readEvaluation(input, EVALUATE_USAGE);
  if (read.policy === undefined) return runtimeDeny(read.snapshot, 'policy_not_configured', undefined, false, NONE);
  const parsedArguments = decodeView(read.snapshot);
  return conclude(read, await askPolicy(read, parsedArguments), parsedArguments);
}

/** Reads `options.grants`: undefined, or an object with a spend method. */
function readGrants(options) {
  if (options === undefined || options === null) return undefined;
  requireInput(options, 'options must be an object');
  const grants = own(options, 'grants');
  if (grants === undefined || grants === null) return undefined;
  // `spend` is a method of the grants object, called by design: it may be inherited.
  if ((typeof grants !== 'object' && typeof grants !== 'function') || typeof grants.spend !== 'function') {
    throw invalidArgument('options.grants must be an object with a spend(decision) method');
  }
  return grants;
}

/**
 * Spends a decision: a ToolCallNotAllowedError when it may not run (nothing runs), else
 * undefined. Spent before anything else can run, so a second call, even a concurrent
 * one, is refused.
 */
function spend(decision) {
  const state = DecisionState.of(decision);
  if (state.executed) return new ToolCallNotAllowedError('already_executed', state.snapshot.toolName, state.decision);
  if (state.decision !== 'allow') return new ToolCallNotAllowedError('not_allowed', state.snapshot.toolName, state.decision);
  state.executed = true;
  return undefined;
}

/** Whether the grants object lets the decision run: only `true` (or a promise of it) does. */
async function grantAvailable(grants, decision) {
  // `spend` is the grants object's own method, called by design.
  let settled = settle((d) => grants.spend(d), decision);
  if (isPromise(settled)) settled = await settled;
  return settled.ok && settled.value === true;
}

/** The execution view of a spent decision. */
function executionViewOf(decision) {
  return decodeView(DecisionState.of(decision).snapshot);
}

function checkDecision(decision) {
  if (DecisionState.of(decision) === undefined) {
    throw new ToolCallNotAllowedError('not_a_decision', undefined, undefined);
  }
}

function grantRefused(decision) {
  const state = DecisionState.of(decision);
  return new ToolCallNotAllowedError('grant_unavailable', state.snapshot.toolName, state.decision);
}

/**
 * Runs `handler` with a new execution view, only for an allow decision evaluateToolCall
 * made, and at most once per decision; otherwise rejects with ToolCallNotAllowedError and
 * runs nothing. `options.grants.spend(decision)` is asked right before the handler.
 */
async function executeToolCall(decision, handler, options) {
  checkDecision(decision);
  if (typeof handler !== 'function') throw invalidArgument('handler must be a function');
  const grants = readGrants(options);
  const refused = spend(decision);
  if (refused !== undefined) throw refused;
  if (!(await grantsAllow(grants, decision))) throw grantRefused(decision);
  return handler(executionViewOf(decision));
}

/**
 * Whether the grants let an allow decision run: the grants object whose policy helper made
 * the decision's policy result spends it (whether or not the caller passed it), and the
 * `grants` option, when it is another object, is asked too.
 */
async function grantsAllow(grants, decision) {
  const issuer = ObjectHasOwn(decision, 'policyResult') ? grantIssuer(decision.policyResult) : undefined;
  if (issuer !== undefined && !(await ours(grantAvailable(issuer, decision)))) return false;
  if (grants !== undefined && grants !== issuer && !(await ours(grantAvailable(grants, decision)))) return false;
  return true;
}

const AUTHORIZE_USAGE = 'authorizeToolCall expects { prepared, policy, execute, policyContext?, grants? }';

/** The outcome of a decision: its decision, reason and decidedBy, and what it carries. */
function outcomeOf(decision) {
  const outcome = { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
  if (ObjectHasOwn(decision, 'policyResult')) defineField(outcome, 'policyResult', decision.policyResult);
  if (ObjectHasOwn(decision, 'error')) defineField(outcome, 'error', decision.error);
  if (ObjectHasOwn(decision, 'proposal')) defineField(outcome, 'proposal', decision.proposal);
  return outcome;
}

/** evaluateToolCall, then, on allow, executeToolCall: one call for the whole attempt. */
async function authorizeToolCall(input) {
  const read = readEvaluation(input, AUTHORIZE_USAGE);
  const execute = own(input, 'execute');
  if (typeof execute !== 'function') throw invalidArgument('execute must be a function');
  const grants = readGrants(input);
  let decision;
  if (read.policy === undefined) {
    decision = runtimeDeny(read.snapshot, 'policy_not_configured', undefined, false, NONE);
  } else {
    const parsedArguments = decodeView(read.snapshot);
    decision = conclude(read, await askPolicy(read, parsedArguments), parsedArguments);
  }
  if (decision.decision !== 'allow') return outcomeOf(decision);
  spend(decision);
  if (!(await grantsAllow(grants, decision))) {
    // The decision was fresh and an allow: only the grant can refuse it.
    const hasResult = ObjectHasOwn(decision, 'policyResult');
    return outcomeOf(runtimeDeny(read.snapshot, 'grant_unavailable', hasResult ? decision.policyResult : undefined, hasResult, NONE));
  }
  const result = await execute(executionViewOf(decision));
  return { decision: 'allow', reason: decision.reason, decidedBy: 'policy', policyResult: decision.policyResult, result };
}

module.exports = {
  decodeRequest,
  prepareToolCall,
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  PreparedToolCall,
  RUNTIME_REASONS,
};
