'use strict';
// The strict walk. It visits a value once, without running any of its code (no getter,
// setter, toJSON, toString or Proxy trap), checks every rule of the strict snapshot
// domain that needs the JavaScript object model, and writes the value to a compact tape
// (see src/jcs/tape.rs). One native call then validates strings, formats numbers,
// escapes, sorts keys by UTF-16 code units and hashes. The walk is iterative, so no
// value can exhaust the stack, and it stops at the same depth limit as the native side.

const { binding } = require('./native');
const { WalkFailure, nativeFailure } = require('./errors');
const { COPYABLE_KEYS } = require('./view');
const P = require('./primordials');

const {
  ObjectGetPrototypeOf, ObjectGetOwnPropertyNames, ObjectGetOwnPropertySymbols,
  ObjectGetOwnPropertyDescriptor, ObjectHasOwn, ObjectPrototype, ArrayIsArray, ArrayPrototype,
  SetPrototypeHas, SetPrototypeAdd, SetPrototypeClear, StringPrototypeSlice, StringPrototypeCharCodeAt,
  StringFromCharCode, TypedArrayPrototypeSet, isProxy, slotChecks, structuredClone,
} = P;

const MAX_DEPTH = binding.maxDepth();
const { MAX_STRING_LENGTH } = require('node:buffer').constants;
const RE_STRING_LENGTH = /string length/;

// Tape op codes: the constants of src/jcs/tape.rs.
const NULL = 0;
const FALSE = 1;
const TRUE = 2;
const NUMBER = 3;
const STRING = 4;
const ARRAY = 5;
const OBJECT = 6;
const BIG_STRING = 7;

/** Strings at least this long are handed to the native side as they are. */
const BIG_STRING_MIN = 1024;

// Native flags: the constants of src/binding.rs.
const FLAG_HASH = 1;
const FLAG_PATH = 2;

// Tape buffers, reused from call to call (a walk never runs foreign code, so it cannot
// be re-entered). Capacities are tracked here rather than read from the typed arrays,
// whose `length` getter lives on a patchable prototype.
const INITIAL = 1024;
const KEEP = 1 << 20;
let ops = new P.SafeUint8Array(INITIAL);
let opsCap = INITIAL;
let opsLen = 0;
let nums = new P.SafeFloat64Array(INITIAL);
let numsCap = INITIAL;
let numsLen = 0;
let lens = new P.SafeUint32Array(INITIAL);
let lensCap = INITIAL;
let lensLen = 0;
let text = '';

/**
 * Stores into arrays the walk owns without ever reaching a setter an application may
 * have put on Array.prototype: a slot is defined as an own data property the first
 * time, and plain stores only ever hit own slots after that.
 */
const SLOT = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };
function ownSlots(count) {
  const array = [];
  for (let i = 0; i < count; i++) P.ObjectDefineProperty(array, i, SLOT);
  return array;
}

// Long strings of the tape, by reference: copying them into `text` would make the
// engine flatten one more large string on every call.
const bigs = ownSlots(16);
let bigsOwned = 16;
let bigsLen = 0;
let bigsTotal = 0;

function pushBig(value) {
  bigsTotal += value.length;
  if (bigsLen === bigsOwned) {
    P.ObjectDefineProperty(bigs, bigsLen, SLOT);
    bigsOwned++;
  }
  bigs[bigsLen++] = value;
}

// The walk's explicit stack: the container, its keys (null for an array), the next
// member index and the member count, per level.
const stackValue = ownSlots(MAX_DEPTH + 1);
const stackKeys = ownSlots(MAX_DEPTH + 1);
const stackNext = new P.SafeFloat64Array(MAX_DEPTH + 1);
const stackCount = new P.SafeFloat64Array(MAX_DEPTH + 1);
let sp = 0;
const seen = new P.SafeSet();
// The shape of the last value walked, for deciding how its views are made.
let containers = 0;
let members = 0;
let widestObject = 0;

function growOps() {
  const next = new P.SafeUint8Array(opsCap * 2);
  TypedArrayPrototypeSet(next, ops);
  ops = next;
  opsCap *= 2;
}

function growNums() {
  const next = new P.SafeFloat64Array(numsCap * 2);
  TypedArrayPrototypeSet(next, nums);
  nums = next;
  numsCap *= 2;
}

function growLens() {
  const next = new P.SafeUint32Array(lensCap * 2);
  TypedArrayPrototypeSet(next, lens);
  lens = next;
  lensCap *= 2;
}

function pushOp(op) {
  if (opsLen === opsCap) growOps();
  ops[opsLen++] = op;
}

function pushLen(len) {
  if (lensLen === lensCap) growLens();
  lens[lensLen++] = len;
}

function escapePointerSegment(segment) {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const unit = StringPrototypeCharCodeAt(segment, i);
    out += unit === 0x7e ? '~0' : unit === 0x2f ? '~1' : StringFromCharCode(unit);
  }
  return out;
}

/** The JSON Pointer of the member being visited at each level of the stack. */
function currentPath() {
  let path = '';
  for (let level = 0; level < sp; level++) {
    const index = stackNext[level] - 1;
    const keys = stackKeys[level];
    path += '/' + (keys === null ? `${index}` : escapePointerSegment(keys[index]));
  }
  return path;
}

let includePath = false;

function fail(code) {
  throw new WalkFailure(code, includePath ? currentPath() : undefined);
}

/** Fails at a member of the container being entered (not yet on the stack). */
function failAt(code, index) {
  throw new WalkFailure(code, includePath ? `${currentPath()}/${index}` : undefined);
}

function hasInternalSlots(value) {
  for (let i = 0; i < slotChecks.length; i++) {
    if (slotChecks[i](value)) return true;
  }
  return false;
}

/**
 * For an object without own properties, whether it is an ordinary object. Engine
 * objects that util.types cannot name (WeakRef, FinalizationRegistry, Intl objects,
 * iterators) refuse structured cloning; cloning an object without own properties reads
 * nothing from it, so no code of the value can run.
 */
function isOrdinaryWhenEmpty(value) {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

function isAncestor(value) {
  for (let level = 0; level < sp; level++) {
    if (stackValue[level] === value) return true;
  }
  return false;
}

/** Checks a container and pushes it on the stack; writes its tape header. */
function enter(value) {
  if (isProxy(value)) fail('non_plain_object');
  if (SetPrototypeHas(seen, value)) fail(isAncestor(value) ? 'cycle' : 'repeated_reference');
  if (sp >= MAX_DEPTH) fail('depth_limit');
  SetPrototypeAdd(seen, value);
  let keys = null;
  let count;
  if (ArrayIsArray(value)) {
    if (ObjectGetPrototypeOf(value) !== ArrayPrototype) fail('non_plain_object');
    count = value.length;
    if (ObjectGetOwnPropertySymbols(value).length !== 0) fail('symbol_key');
    if (ObjectGetOwnPropertyNames(value).length !== count + 1) {
      // Either holes (fewer names) or extra properties (more names, or as many names
      // as a dense array would have but some of them not indices).
      for (let i = 0; i < count; i++) {
        if (!ObjectHasOwn(value, i)) failAt('sparse_array', i);
      }
      fail('array_extra_property');
    }
    pushOp(ARRAY);
  } else {
    const proto = ObjectGetPrototypeOf(value);
    if ((proto !== ObjectPrototype && proto !== null) || hasInternalSlots(value)) fail('non_plain_object');
    if (ObjectGetOwnPropertySymbols(value).length !== 0) fail('symbol_key');
    keys = ObjectGetOwnPropertyNames(value);
    count = keys.length;
    if (count > widestObject) widestObject = count;
    if (count === 0 && !isOrdinaryWhenEmpty(value)) fail('non_plain_object');
    pushOp(OBJECT);
  }
  pushLen(count);
  containers++;
  members += count;
  stackValue[sp] = value;
  stackKeys[sp] = keys;
  stackNext[sp] = 0;
  stackCount[sp] = count;
  sp++;
}

/** Writes `root` to the tape, or throws a WalkFailure. */
function walk(root) {
  let value = root;
  for (;;) {
    switch (typeof value) {
      case 'string':
        if (value.length >= BIG_STRING_MIN) {
          pushOp(BIG_STRING);
          pushBig(value);
        } else {
          pushOp(STRING);
          pushLen(value.length);
          text += value;
        }
        break;
      case 'number':
        if (value - value !== 0) fail('non_finite_number');
        if (value === 0 && 1 / value < 0) fail('negative_zero');
        pushOp(NUMBER);
        if (numsLen === numsCap) growNums();
        nums[numsLen++] = value;
        break;
      case 'boolean':
        pushOp(value ? TRUE : FALSE);
        break;
      case 'object':
        if (value === null) pushOp(NULL);
        else enter(value);
        break;
      case 'function':
        fail(isProxy(value) ? 'non_plain_object' : 'unsupported_type');
        break;
      default:
        fail('unsupported_type');
    }
    // Move to the next member to visit, leaving finished containers.
    for (;;) {
      if (sp === 0) return;
      const level = sp - 1;
      const index = stackNext[level];
      if (index === stackCount[level]) {
        sp = level;
        stackValue[level] = undefined;
        stackKeys[level] = undefined;
        continue;
      }
      stackNext[level] = index + 1;
      const keys = stackKeys[level];
      let descriptor;
      if (keys === null) {
        descriptor = ObjectGetOwnPropertyDescriptor(stackValue[level], index);
        if (descriptor === undefined) fail('sparse_array');
      } else {
        const key = keys[index];
        descriptor = ObjectGetOwnPropertyDescriptor(stackValue[level], key);
        pushLen(key.length);
        text += key;
      }
      if (!ObjectHasOwn(descriptor, 'value')) fail('accessor_property');
      if (!descriptor.enumerable) fail('non_enumerable_property');
      value = descriptor.value;
      break;
    }
  }
}

/** Releases every reference to the walked value and oversized buffers. */
function reset() {
  for (let level = 0; level < sp; level++) {
    stackValue[level] = undefined;
    stackKeys[level] = undefined;
  }
  sp = 0;
  SetPrototypeClear(seen);
  text = '';
  for (let i = 0; i < bigsLen; i++) bigs[i] = undefined;
  bigsLen = 0;
  bigsTotal = 0;
  opsLen = 0;
  numsLen = 0;
  lensLen = 0;
  if (opsCap > KEEP) { ops = new P.SafeUint8Array(INITIAL); opsCap = INITIAL; }
  if (numsCap > KEEP) { nums = new P.SafeFloat64Array(INITIAL); numsCap = INITIAL; }
  if (lensCap > KEEP) { lens = new P.SafeUint32Array(INITIAL); lensCap = INITIAL; }
}

function encodeTape(flags) {
  // Canonical JSON holds at least every character of every string: when they alone
  // exceed the longest string V8 can make, fail before copying any of them.
  if (text.length + bigsTotal > MAX_STRING_LENGTH) throw new WalkFailure('size_limit', undefined);
  const result = binding.encodeTape(ops, opsLen, nums, numsLen, lens, lensLen, text, bigs, bigsLen, flags);
  if (typeof result !== 'string') throw nativeFailure(includePath);
  return result;
}

/**
 * RFC 8785 JSON of `value`, or a WalkFailure. With names, returns the 64-character
 * proposal hash followed by the JSON.
 */
function run(value, withPath, agentName, toolName) {
  includePath = withPath;
  containers = 0;
  members = 0;
  widestObject = 0;
  let flags = withPath ? FLAG_PATH : 0;
  try {
    if (agentName !== undefined) {
      flags |= FLAG_HASH;
      pushLen(agentName.length);
      pushLen(toolName.length);
      text = agentName + toolName;
    }
    walk(value);
    return encodeTape(flags);
  } catch (error) {
    // The engine refuses strings past its maximum length: the canonical JSON could not
    // be held either. Anything else (memory, a caller's exhausted stack) stays as it is.
    if (error instanceof RangeError && RE_STRING_LENGTH.test(error.message)) {
      throw new WalkFailure('size_limit', undefined);
    }
    throw error;
  } finally {
    reset();
  }
}

function canonicalJson(value, withPath) {
  return run(value, withPath, undefined, undefined);
}

/**
 * Whether copying a parsed template is cheaper than parsing the JSON again, for a value
 * of this shape. Measured on this package's benchmark payloads: a copy costs about 100 ns
 * per container and 5 ns per member, parsing about 3.5 ns per byte of JSON, and a
 * template costs a parse plus two copies' worth of work before its first view. With two
 * or more views per snapshot (policy, execution) it pays off for long strings and long
 * arrays of numbers, not for small or container-heavy values, nor for objects with
 * hundreds of keys (V8 keeps those as dictionaries, which spread copies slowly).
 */
function worthATemplate(jsonLength) {
  return widestObject <= COPYABLE_KEYS && jsonLength > 90 * containers + 5 * members;
}

/** [proposal hash, canonical JSON, whether views should copy a template]. */
function hashedCanonicalJson(value, withPath, agentName, toolName) {
  const result = run(value, withPath, agentName, toolName);
  const json = StringPrototypeSlice(result, 64);
  return [StringPrototypeSlice(result, 0, 64), json, worthATemplate(json.length)];
}

module.exports = { canonicalJson, hashedCanonicalJson, MAX_DEPTH };
