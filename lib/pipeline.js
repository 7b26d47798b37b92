'use strict';
// The RFC-0016 run-loop steps: strict request decoding, one schema parse, the snapshot,
// isolated policy and execution views, the mutation check, suspended proposals.
// A run loop adopts it with three calls: prepareToolCall, evaluateToolCall (then it
// records the decision), executeToolCall; or with authorizeToolCall, which does the last
// two at once.

const { types } = require('node:util');
const { binding } = require('./native');
const { ToolArgumentsValidationError, ToolCallNotAllowedError, invalidArgument, nativeFailure, FAILED } = require('./errors');
const { canonicalize, createSnapshot, decodeView } = require('./snapshot');
const P = require('./primordials');

const {
  ObjectFreeze, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectGetOwnPropertyNames,
  ObjectHasOwn, JSONParse, ArrayIsArray, WeakMapPrototypeGet, WeakMapPrototypeSet,
  StringPrototypeIsWellFormed, StringPrototypeCharCodeAt, StringPrototypeSlice, isProxy,
} = P;

// Built-ins this file needs beyond lib/primordials.js, captured at load the same way.
const ReflectOwnKeys = Reflect.ownKeys;
const isPromise = types.isPromise;
const SafePromise = Promise;

// Native flags: the constants of src/binding.rs.
const FLAG_PATH = 2;
// checkJson results: the constants of src/binding.rs.
const JSON_BLANK = 1;

/** The reasons of a deny the runtime decided (decidedBy: 'runtime'), in a frozen array. */
const RUNTIME_REASONS = ObjectFreeze(['policy_mutated_arguments', 'policy_error', 'invalid_policy_result', 'policy_not_configured']);

/** PreparedToolCall objects made here, each with its snapshot: nothing else is evaluated. */
const PREPARED = new P.SafeWeakMap();
/** Decisions made by evaluateToolCall, each with its execution state. */
const DECISIONS = new P.SafeWeakMap();

/**
 * The value of an own data property, or undefined: an inherited field, an accessor (never
 * called) and a missing field all read as absent. `object` must not be a Proxy.
 */
function own(object, key) {
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

/** A new value of checked provider text; `{}` for empty or whitespace-only text. */
function parseRequest(rawArguments, blank) {
  return blank ? {} : JSONParse(rawArguments);
}

/**
 * Freezes a value JSON.parse made, at every depth (iteratively: it can be MAX_DEPTH deep).
 * Such a value holds only plain objects and arrays with own data properties.
 */
function deepFreeze(root) {
  if (root === null || typeof root !== 'object') return root;
  const stack = [root];
  let length = 1;
  while (length > 0) {
    const value = stack[--length];
    ObjectFreeze(value);
    const keys = ObjectGetOwnPropertyNames(value);
    for (let i = 0; i < keys.length; i++) {
      const member = own(value, keys[i]);
      if (member !== null && typeof member === 'object') {
        ObjectDefineProperty(stack, length++, { __proto__: null, value: member, writable: true, enumerable: true, configurable: true });
      }
    }
  }
  return root;
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
  if (!types.isNativeError(error) || isProxy(error)) return false;
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

class PreparedToolCall {
  // Fields are defined, not assigned, before the constructor body runs, so setters on
  // Object.prototype never see them.
  agentName;
  toolName;
  rawArguments;
  requestedArguments;
  snapshot;
  argsCanonicalJson;
  proposalHash;

  constructor(agentName, toolName, rawArguments, requestedArguments, snapshot) {
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.requestedArguments = requestedArguments;
    this.snapshot = snapshot;
    this.argsCanonicalJson = snapshot.argsCanonicalJson;
    this.proposalHash = snapshot.proposalHash;
    ObjectFreeze(this);
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

/** The checked fields of a prepare input, the decoded request and the schema's input. */
function readPrepare(input, async) {
  requireInput(input, PREPARE_USAGE);
  const agentName = requireString(own(input, 'agentName'), 'agentName', true);
  const toolName = requireString(own(input, 'toolName'), 'toolName', true);
  const rawArguments = requireString(own(input, 'rawArguments'), 'rawArguments', false);
  const includePath = own(input, 'includePath') === true;
  const schema = own(input, 'schema');
  const kind = schemaKind(schema, async);
  const blank = checkRequest(toolName, rawArguments, includePath);
  // Diagnostic evidence, frozen at every depth: no policy can change what another
  // policy, the proposal or the prepared call shows.
  const requestedArguments = deepFreeze(parseRequest(rawArguments, blank));
  // The schema gets its own decoded copy, so that a schema returning its input (or
  // part of it) cannot alias the requestedArguments evidence handed to policy.
  const schemaInput = parseRequest(rawArguments, blank);
  return { __proto__: null, agentName, toolName, rawArguments, includePath, schema, kind, requestedArguments, schemaInput };
}

/** Snapshots the schema output (not referenced afterwards) into a registered prepared call. */
function finishPrepare(read, schemaOutput) {
  const { agentName, toolName, includePath } = read;
  let snapshot;
  try {
    snapshot = createSnapshot({ agentName, toolName, value: schemaOutput, includePath });
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
  const prepared = new PreparedToolCall(agentName, toolName, read.rawArguments, read.requestedArguments, snapshot);
  WeakMapPrototypeSet(PREPARED, prepared, snapshot);
  return prepared;
}

function prepareToolCall(input) {
  const read = readPrepare(input, false);
  return finishPrepare(read, runSchema(read.kind, read.schema, read.schemaInput, read.toolName, read.includePath));
}

/**
 * prepareToolCall for asynchronous schemas: awaits safeParseAsync, parseAsync or
 * ~standard.validate, so the schema's code runs exactly once per attempt.
 */
async function prepareToolCallAsync(input) {
  const read = readPrepare(input, true);
  const output = await ours(runSchemaAsync(read.kind, read.schema, read.schemaInput, read.toolName, read.includePath));
  return finishPrepare(read, output.value);
}

/**
 * Calls `fn(argument)` and settles to a box: `{ ok: true, value }` with what it returned
 * (a native promise is awaited; any other value, a thenable or a Proxy included, is taken
 * as it is, its `then` never read), or `{ ok: false, value: error }` if it threw or the
 * promise rejected.
 */
async function settle(fn, argument) {
  let result;
  try {
    result = fn(argument);
  } catch (error) {
    return box(false, error);
  }
  if (!isPromise(result)) return box(true, result);
  return await settleNative(result);
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

/** The policy input: the context's own enumerable data fields, then the argument fields. */
function policyInputOf(prepared, snapshot, policyContext, parsedArguments) {
  const input = {};
  if (policyContext !== undefined) {
    const keys = ReflectOwnKeys(policyContext);
    for (let i = 0; i < keys.length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(policyContext, keys[i]);
      if (descriptor !== undefined && descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
        defineField(input, keys[i], descriptor.value);
      }
    }
  }
  defineField(input, 'agentName', snapshot.agentName);
  defineField(input, 'toolName', snapshot.toolName);
  defineField(input, 'rawArguments', prepared.rawArguments);
  defineField(input, 'requestedArguments', prepared.requestedArguments);
  defineField(input, 'parsedArguments', parsedArguments);
  defineField(input, 'argsCanonicalJson', snapshot.argsCanonicalJson);
  defineField(input, 'proposalHash', snapshot.proposalHash);
  return input;
}

/** A frozen decision, registered so that executeToolCall accepts it (and nothing else). */
function makeDecision(snapshot, decision, reason, decidedBy, extra) {
  const made = {
    decision,
    reason,
    decidedBy,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
  };
  if (extra !== undefined) {
    if (ObjectHasOwn(extra, 'policyResult')) defineField(made, 'policyResult', extra.policyResult);
    if (ObjectHasOwn(extra, 'error')) defineField(made, 'error', extra.error);
    if (ObjectHasOwn(extra, 'proposal')) defineField(made, 'proposal', extra.proposal);
  }
  ObjectFreeze(made);
  WeakMapPrototypeSet(DECISIONS, made, { __proto__: null, snapshot, decision, executed: false });
  return made;
}

const EVALUATE_USAGE = 'evaluateToolCall expects { prepared, policy?, policyContext? }';

/** Reads and checks the fields evaluateToolCall and authorizeToolCall share. */
function readEvaluation(input, usage) {
  requireInput(input, usage);
  const prepared = own(input, 'prepared');
  const snapshot = prepared === null || typeof prepared !== 'object' ? undefined : WeakMapPrototypeGet(PREPARED, prepared);
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

/** The decision of one evaluation, in a box (see box): policy on its own view, then the runtime's checks. */
async function decide(read) {
  const { prepared, snapshot, policy, policyContext } = read;
  if (policy === undefined) {
    return box(true, makeDecision(snapshot, 'deny', 'policy_not_configured', 'runtime', undefined));
  }
  const parsedArguments = decodeView(snapshot);
  const settled = await ours(settle(policy, policyInputOf(prepared, snapshot, policyContext, parsedArguments)));
  if (!settled.ok) {
    return box(true, makeDecision(snapshot, 'deny', 'policy_error', 'runtime', { __proto__: null, error: settled.value }));
  }
  const policyResult = settled.value;
  if (!viewUnchanged(parsedArguments, snapshot.argsCanonicalJson)) {
    return box(true, makeDecision(snapshot, 'deny', 'policy_mutated_arguments', 'runtime', { __proto__: null, policyResult }));
  }
  const read2 = readPolicyResult(policyResult);
  if (read2 === null) {
    return box(true, makeDecision(snapshot, 'deny', 'invalid_policy_result', 'runtime', { __proto__: null, policyResult }));
  }
  const { decision, reason } = read2;
  if (decision !== 'require_approval') {
    return box(true, makeDecision(snapshot, decision, reason, 'policy', { __proto__: null, policyResult }));
  }
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
  return box(true, makeDecision(snapshot, decision, reason, 'policy', { __proto__: null, proposal, policyResult }));
}

/**
 * Runs policy on a fresh view of the prepared call and returns the frozen decision. It
 * never rejects for anything the policy does (a throw, a rejection, a mutated view, a
 * malformed result): those are runtime denies. No policy is a runtime deny too.
 */
function evaluateToolCall(input) {
  let read;
  try {
    read = readEvaluation(input, EVALUATE_USAGE);
  } catch (error) {
    return SafePromise.reject(error);
  }
  return unbox(decide(read));
}

/** The decision of a boxed evaluation (the caller's own await looks up its `then`). */
async function unbox(promise) {
  return (await ours(promise)).value;
}

/** Why a decision cannot run, as a ToolCallNotAllowedError code, or undefined if it can. */
function refusal(state) {
  if (state.executed) return 'already_executed';
  if (state.decision !== 'allow') return 'not_allowed';
  return undefined;
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

/** Whether the grants object lets the decision run: only `true` (or a promise of it) does. */
async function grantAvailable(grants, decision) {
  if (grants === undefined) return true;
  const settled = await ours(settle((d) => grants.spend(d), decision));
  return settled.ok && settled.value === true;
}

/**
 * Spends a decision and, if it may run, runs the handler on a new execution view. Returns
 * a box: `{ ok: true, value: result }`, or `{ ok: false, value: error }` when nothing ran
 * (a ToolCallNotAllowedError). Errors of the handler itself propagate.
 */
async function run(decision, handler, grants) {
  const state = WeakMapPrototypeGet(DECISIONS, decision);
  const code = refusal(state);
  if (code !== undefined) return box(false, new ToolCallNotAllowedError(code, state.snapshot.toolName, state.decision));
  // Spent before anything else can run: a second call, even a concurrent one, is refused.
  state.executed = true;
  if (!(await ours(grantAvailable(grants, decision)))) {
    return box(false, new ToolCallNotAllowedError('grant_unavailable', state.snapshot.toolName, state.decision));
  }
  return box(true, await handler(decodeView(state.snapshot)));
}

function checkDecision(decision) {
  if (decision === null || typeof decision !== 'object' || WeakMapPrototypeGet(DECISIONS, decision) === undefined) {
    throw new ToolCallNotAllowedError('not_a_decision', undefined, undefined);
  }
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
  const ran = await ours(run(decision, handler, grants));
  if (!ran.ok) throw ran.value;
  return ran.value;
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
  const decision = (await ours(decide(read))).value;
  const outcome = outcomeOf(decision);
  if (decision.decision !== 'allow') return outcome;
  const ran = await ours(run(decision, execute, grants));
  if (!ran.ok) {
    // Only a refused grant reaches here: the decision was fresh and an allow.
    return outcomeOf(makeDecision(read.snapshot, 'deny', ran.value.code, 'runtime', ObjectHasOwn(decision, 'policyResult') ? { __proto__: null, policyResult: decision.policyResult } : undefined));
  }
  defineField(outcome, 'result', ran.value);
  return outcome;
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
