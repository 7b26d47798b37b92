'use strict';
// A strict JavaScript implementation of RFC-0016's snapshot rules, written the plain way
// a TypeScript runtime core does it: one recursive walk that validates each property
// descriptor and writes RFC 8785 text as it goes, with V8's own formatting (JSON.stringify
// for strings, String(n) for numbers, the default sort for keys, which compares UTF-16
// code units) and node:crypto SHA-256 for the proposal hash; views are JSON.parse of the
// canonical text. It is the baseline `npm run bench` compares against (the stand-in for
// the core this package replaces) and the differential oracle of the tests. It is written
// from the rules (RFC-0016 "Strict Snapshot Domain", the error table of docs/api.md), shares no
// code with the package and never calls it.
//
// The rules, in the order they are checked (the first rule a value breaks decides its
// code, in own-key order: integer keys ascending, then string keys in insertion order):
// - string: any; a lone surrogate (in a string or a key) is reported only when the whole
//   value breaks no other rule (the package checks surrogates on its native side, after
//   the walk), as `lone_surrogate`;
// - number: finite (`non_finite_number`), not -0 (`negative_zero`);
// - boolean, null: as they are;
// - a function: `non_plain_object` if it is a Proxy, else `unsupported_type`; undefined,
//   bigint, symbol: `unsupported_type`;
// - an object or array: a Proxy (util.types.isProxy, which runs no trap) is
//   `non_plain_object`; one already on the path from the root is a `cycle`, one seen
//   elsewhere a `repeated_reference`; past MAX_DEPTH nested containers `depth_limit`;
// - an array: its prototype is this realm's Array.prototype (else `non_plain_object`),
//   no symbol key (`symbol_key`), no hole (`sparse_array`, checked for the whole array
//   before its elements whenever its own names are not exactly its indices and
//   `length`) and no other own property (`array_extra_property`), then each element an
//   own enumerable data property (`accessor_property`, `non_enumerable_property`);
// - an object: its prototype is this realm's Object.prototype or null and it has no
//   internal slots a util.types check can name (else `non_plain_object`), no symbol key
//   (`symbol_key`); without own properties (so without a getter), it must clone
//   (structuredClone) into a plain {}, and is cloned only while Object.prototype holds no
//   function or accessor under a symbol that is not well-known, where a runtime could
//   find a clone hook (else `non_plain_object`: WeakRef, FinalizationRegistry, Intl,
//   iterator, WebAssembly and host objects under a reset prototype, and any empty object
//   while such a hook is planted, as the package decides); then each own property, in
//   own-key order, an enumerable data property (`accessor_property`,
//   `non_enumerable_property`);
// - the canonical text must fit in a V8 string, else `size_limit`.
//
// No code of the value runs: properties are read only through
// Object.getOwnPropertyDescriptor (never a get, never a lookup on a prototype), nothing is
// written to an object the value could reach through its prototype chain, and every
// built-in used on any path (success or failure) is captured below when this file loads,
// so a later monkey-patch cannot run or change anything. Errors are defined with
// null-prototype descriptors, so a setter planted on Object.prototype is never reached.
// The one exception is the package's too (see docs/security.md, Limits): the global object of
// a node:vm context whose prototype was reset runs its sandbox's Proxy traps when its
// keys are listed, and no check in Node 20 can tell such an object beforehand.
//
// Where the reference knowingly differs from the package (__test__/core/strict-reference.test.js
// pins both):
// - when such a vm global's traps call the package during the walk, the package fails
//   closed with `reentrant_call`; the reference keeps no state from call to call, so an
//   inner call cannot disturb it and it gives the outcome it gives without one;
// - when a value's canonical text does not fit in a V8 string (about 512 M UTF-16 units)
//   *and* the value breaks another rule, the two may name different codes (size_limit or
//   the other one), because each meets the string limit at a different point of its walk.

const crypto = require('node:crypto');
const { types } = require('node:util');

// ---------------------------------------------------------------------------------
// Built-ins, captured at load.

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);

const getPrototypeOf = Object.getPrototypeOf;
const getOwnPropertyNames = Object.getOwnPropertyNames;
const getOwnPropertySymbols = Object.getOwnPropertySymbols;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const hasOwn = Object.hasOwn;
const isArray = Array.isArray;
const OBJECT_PROTOTYPE = Object.prototype;
const ARRAY_PROTOTYPE = Array.prototype;
const RANGE_ERROR_PROTOTYPE = RangeError.prototype;
const SafeTypeError = TypeError;
const stringify = JSON.stringify;
const parse = JSON.parse;
const numberToString = String;
const sort = uncurryThis(Array.prototype.sort);
const isWellFormed = uncurryThis(String.prototype.isWellFormed);
const includes = uncurryThis(String.prototype.includes);
const SafeSet = Set;
const setHas = uncurryThis(Set.prototype.has);
const setAdd = uncurryThis(Set.prototype.add);
const setDelete = uncurryThis(Set.prototype.delete);
const createHash = crypto.createHash;
const HashPrototype = getPrototypeOf(createHash('sha256'));
const hashUpdate = uncurryThis(HashPrototype.update);
const hashDigest = uncurryThis(HashPrototype.digest);
const clone = globalThis.structuredClone;
const { isProxy } = types;

// Objects with internal slots: something other than a plain record even when their
// prototype was reset to Object.prototype or null. Each util.types check reads only the
// object's engine type, never a property.
const {
  isDate,
  isRegExp,
  isMap,
  isSet,
  isWeakMap,
  isWeakSet,
  isAnyArrayBuffer,
  isArrayBufferView,
  isBoxedPrimitive,
  isNativeError,
  isPromise,
  isGeneratorObject,
  isMapIterator,
  isSetIterator,
  isModuleNamespaceObject,
  isArgumentsObject,
} = types;
// Deno's node:util has no isExternal. Only native code can make an External (the
// package asks its addon there), so on Deno this reference, plain JavaScript, has
// nothing to tell apart and skips the check.
const isExternal = typeof types.isExternal === 'function' ? types.isExternal : () => false;

function hasInternalSlots(o) {
  return (
    isDate(o) ||
    isRegExp(o) ||
    isMap(o) ||
    isSet(o) ||
    isWeakMap(o) ||
    isWeakSet(o) ||
    isAnyArrayBuffer(o) ||
    isArrayBufferView(o) ||
    isBoxedPrimitive(o) ||
    isNativeError(o) ||
    isPromise(o) ||
    isGeneratorObject(o) ||
    isMapIterator(o) ||
    isSetIterator(o) ||
    isModuleNamespaceObject(o) ||
    isArgumentsObject(o) ||
    isExternal(o)
  );
}

// The symbols the engine itself defines (Symbol.iterator, Symbol.toPrimitive, ...).
const WELL_KNOWN_SYMBOLS = new SafeSet();
for (const name of getOwnPropertyNames(Symbol)) {
  const descriptor = getOwnPropertyDescriptor(Symbol, name);
  if (typeof descriptor.value === 'symbol') setAdd(WELL_KNOWN_SYMBOLS, descriptor.value);
}

/**
 * Whether structured cloning could call code planted on Object.prototype: a runtime looks
 * its clone hooks for host objects up on the prototype chain, under symbols of its own
 * (never a well-known one), and calls what it finds there.
 */
function cloneCouldRunCode() {
  const symbols = getOwnPropertySymbols(OBJECT_PROTOTYPE);
  for (let i = 0; i < symbols.length; i++) {
    if (setHas(WELL_KNOWN_SYMBOLS, symbols[i])) continue;
    const descriptor = getOwnPropertyDescriptor(OBJECT_PROTOTYPE, symbols[i]);
    if (!hasOwn(descriptor, 'value') || typeof descriptor.value === 'function') return true;
  }
  return false;
}

/**
 * For an object without own properties (so without a getter either) whose prototype is
 * Object.prototype or null: whether it is an ordinary object. Engine and host objects that
 * util.types cannot name (WeakRef, FinalizationRegistry, Intl objects, iterators,
 * WebAssembly objects, Node's host objects) either refuse structured cloning or clone into
 * an object of their own kind; an ordinary object clones into a plain {}. When cloning
 * could run planted code, the object is refused unclassified.
 */
function isOrdinaryWhenEmpty(object) {
  if (cloneCouldRunCode()) return false;
  try {
    return getPrototypeOf(clone(object)) === OBJECT_PROTOTYPE;
  } catch {
    return false;
  }
}

/** The package's limit, from docs/api.md: `MAX_DEPTH` = 1024 nested containers. */
const MAX_DEPTH = 1024;

// ---------------------------------------------------------------------------------
// Errors

class StrictReferenceError extends Error {
  constructor(code) {
    super(code);
    defineProperty(this, 'code', { __proto__: null, value: code, enumerable: true, writable: true, configurable: true });
  }
}
defineProperty(StrictReferenceError.prototype, 'name', { __proto__: null, value: 'StrictReferenceError', writable: true, configurable: true });

function fail(code) {
  throw new StrictReferenceError(code);
}

/** V8's refusal to make a string longer than its maximum length. */
function isStringLengthError(error) {
  if (error === null || typeof error !== 'object' || isProxy(error) || getPrototypeOf(error) !== RANGE_ERROR_PROTOTYPE) return false;
  const message = getOwnPropertyDescriptor(error, 'message');
  return message !== undefined && typeof message.value === 'string' && includes(message.value, 'string length');
}

// ---------------------------------------------------------------------------------
// The walk: returns the RFC 8785 text of `value` or throws a StrictReferenceError.

/** One canonicalization: the containers on the path, every container seen, a surrogate flag. */
function newWalk() {
  return { path: new SafeSet(), seen: new SafeSet(), loneSurrogate: false };
}

function serialize(value, depth, walk) {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) walk.loneSurrogate = true;
      return stringify(value);
    case 'number':
      if (value !== value || value === Infinity || value === -Infinity) fail('non_finite_number'); // eslint-disable-line no-self-compare
      if (value === 0 && 1 / value < 0) fail('negative_zero');
      return numberToString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    case 'function':
      return fail(isProxy(value) ? 'non_plain_object' : 'unsupported_type');
    default:
      return fail('unsupported_type');
  }
  if (isProxy(value)) fail('non_plain_object');
  if (setHas(walk.path, value)) fail('cycle');
  if (setHas(walk.seen, value)) fail('repeated_reference');
  if (depth >= MAX_DEPTH) fail('depth_limit');
  setAdd(walk.path, value);
  setAdd(walk.seen, value);
  const json = isArray(value) ? serializeArray(value, depth, walk) : serializeObject(value, depth, walk);
  setDelete(walk.path, value);
  return json;
}

/** The value of an own property, or the code of the rule its descriptor breaks. */
function memberValue(descriptor) {
  if (!hasOwn(descriptor, 'value')) fail('accessor_property');
  if (!descriptor.enumerable) fail('non_enumerable_property');
  return descriptor.value;
}

function serializeArray(array, depth, walk) {
  if (getPrototypeOf(array) !== ARRAY_PROTOTYPE) fail('non_plain_object');
  if (getOwnPropertySymbols(array).length !== 0) fail('symbol_key');
  const length = array.length;
  // A dense array without other own properties has exactly its indices and `length`.
  if (getOwnPropertyNames(array).length !== length + 1) {
    for (let i = 0; i < length; i++) {
      if (!hasOwn(array, i)) fail('sparse_array');
    }
    fail('array_extra_property');
  }
  let json = '[';
  for (let i = 0; i < length; i++) {
    const descriptor = getOwnPropertyDescriptor(array, i);
    if (descriptor === undefined) fail('sparse_array');
    json += (i === 0 ? '' : ',') + serialize(memberValue(descriptor), depth + 1, walk);
  }
  return json + ']';
}

function serializeObject(object, depth, walk) {
  const proto = getPrototypeOf(object);
  if ((proto !== OBJECT_PROTOTYPE && proto !== null) || hasInternalSlots(object)) fail('non_plain_object');
  if (getOwnPropertySymbols(object).length !== 0) fail('symbol_key');
  const keys = getOwnPropertyNames(object);
  if (keys.length === 0 && !isOrdinaryWhenEmpty(object)) fail('non_plain_object');
  // Member texts by key, in a record without a prototype: `__proto__` is a key like any other.
  const members = { __proto__: null };
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (!isWellFormed(key)) walk.loneSurrogate = true;
    members[key] = serialize(memberValue(getOwnPropertyDescriptor(object, key)), depth + 1, walk);
  }
  sort(keys);
  let json = '{';
  for (let i = 0; i < keys.length; i++) {
    json += (i === 0 ? '' : ',') + stringify(keys[i]) + ':' + members[keys[i]];
  }
  return json + '}';
}

// ---------------------------------------------------------------------------------
// The API the benchmark (benches/contenders.js) and the tests use.

/** RFC 8785 text of a value in the strict snapshot domain; throws StrictReferenceError. */
function canonicalize(value) {
  const walk = newWalk();
  let json;
  try {
    json = serialize(value, 0, walk);
  } catch (error) {
    if (isStringLengthError(error)) fail('size_limit');
    throw error;
  }
  if (walk.loneSurrogate) fail('lone_surrogate');
  return json;
}

function requireName(name, what) {
  if (typeof name !== 'string' || !isWellFormed(name)) throw new SafeTypeError(`${what} must be a well-formed string`);
  return name;
}

/** SHA-256 (hex) of the RFC 8785 text of { agentName, argsCanonicalJson, kind: 'tool', toolName }. */
function proposalHash(agentName, toolName, argsCanonicalJson) {
  const envelope = `{"agentName":${stringify(agentName)},"argsCanonicalJson":${stringify(argsCanonicalJson)},"kind":"tool","toolName":${stringify(toolName)}}`;
  return hashDigest(hashUpdate(createHash('sha256'), envelope, 'utf8'), 'hex');
}

/** An input field, read as an own data property only (inherited values never count). */
function field(input, key) {
  const descriptor = getOwnPropertyDescriptor(input, key);
  return descriptor !== undefined && hasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** { agentName, toolName, argsCanonicalJson, proposalHash } of a tool call, frozen. */
function createSnapshot(input) {
  if (input === null || typeof input !== 'object' || isProxy(input)) throw new SafeTypeError('createSnapshot expects { agentName, toolName, value }');
  const agentName = requireName(field(input, 'agentName'), 'agentName');
  const toolName = requireName(field(input, 'toolName'), 'toolName');
  const argsCanonicalJson = canonicalize(field(input, 'value'));
  return freeze({ agentName, toolName, argsCanonicalJson, proposalHash: proposalHash(agentName, toolName, argsCanonicalJson) });
}

/** A fresh view of a snapshot (or of its canonical text): JSON.parse, nothing shared. */
function decodeView(snapshot) {
  return parse(typeof snapshot === 'string' ? snapshot : field(snapshot, 'argsCanonicalJson'));
}

module.exports = { canonicalize, createSnapshot, proposalHash, decodeView, MAX_DEPTH, ReferenceError: StrictReferenceError, StrictReferenceError };
