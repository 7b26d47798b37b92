'use strict';
// The strict walk. It visits a value once, without running any of its code (no getter,
// setter, toJSON, toString or Proxy trap), checks every rule of the strict snapshot
// domain that needs the JavaScript object model, and writes the value to the tape
// (./tape-writer.js). The walk is iterative, so no value can exhaust the stack, and it stops at
// the same depth limit as the native side. Its stack and the containers it has seen are
// module state, reused from call to call; ./canonical.js makes sure only one walk runs
// at a time.

const { binding } = require('../native');
const { WalkFailure } = require('../errors');
const P = require('../primordials');
const { pushOp, pushLen, pushNum, pushBig, appendText, ownSlots } = require('./tape-writer');
const { hasSlotsBeforeKeys, hasTaggedSlots, isOrdinaryWhenEmpty } = require('./classify');

const {
  ObjectGetPrototypeOf,
  ObjectGetOwnPropertyNames,
  ObjectGetOwnPropertySymbols,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  ObjectKeys,
  ReflectOwnKeys,
  ObjectPrototype,
  ObjectPrototypeToString,
  ObjectPrototypeLookupGetter,
  SymbolToStringTag,
  ArrayIsArray,
  ArrayPrototype,
  StringPrototypeCharCodeAt,
  StringFromCharCode,
  isProxy,
} = P;

const MAX_DEPTH = binding.maxDepth();
const { MAX_STRING_LENGTH } = require('node:buffer').constants;

// Tape op codes: the constants of src/binding/mod.rs.
const { OP_NULL, OP_FALSE, OP_TRUE, OP_NUMBER, OP_STRING, OP_ARRAY, OP_OBJECT, OP_BIG_STRING } = binding;

/** Strings at least this long are handed to the native side as they are. */
const BIG_STRING_MIN = 1024;
/** The first containers of a walk are tracked in a list; the rest in a Set. */
const SEEN_LIST = 16;
/**
 * Objects with at most this many keys, all enumerable, are read without descriptor
 * objects (a getter check and a plain read per member); wider ones through descriptors,
 * which cost less per key once V8 keeps the object as a dictionary.
 */
const SMALL_OBJECT_KEYS = 64;

// ---------------------------------------------------------------------------------
// The explicit stack: per level the container, its keys (null for an array), the next
// member index, the member count, and how members are read.

/** Members are read through their descriptors. */
const READ_DESCRIPTORS = 0;
/** An array proven dense, with every index enumerable: elements are read directly. */
const READ_ELEMENTS = 1;
/** A small object whose own keys are all enumerable: members are read directly. */
const READ_MEMBERS = 2;

/**
 * The index strings of short arrays, made once (the last-key test compares with one):
 * Array.from of an array-like with no prototype defines each element as an own data
 * property (no setter on Array.prototype is reached), frozen (one definition per element
 * costs about ten times as long at load).
 */
const INDEX_STRINGS = P.ObjectFreeze(P.ArrayFrom({ __proto__: null, length: 256 }, (_, i) => `${i}`));

const stackValue = ownSlots(MAX_DEPTH + 1);
const stackKeys = ownSlots(MAX_DEPTH + 1);
const stackNext = new P.SafeFloat64Array(MAX_DEPTH + 1);
const stackCount = new P.SafeFloat64Array(MAX_DEPTH + 1);
const stackMode = new P.SafeUint8Array(MAX_DEPTH + 1);
let sp = 0;

// Containers seen so far: the first SEEN_LIST in a list (a scan is cheaper than a Set
// for small values), the rest in a Set made for the walk.
const seenList = ownSlots(SEEN_LIST);
let seenLen = 0;
let seenSet = null;

// A wide root object whose members are all primitives (flat): the walk keeps what it read
// of each member, in the order of its keys, so that the snapshot's views can be built from
// the walk's own reads instead of parsing the canonical JSON (see ./view.js FlatTemplate).
/** Root objects with more keys than this are recorded (the native side's COPYABLE_KEYS). */
const FLAT_MIN_KEYS = 512;
let flat = false;
let flatKeys = null;
let flatValues = ownSlots(0);
let flatOwned = 0;

/** Whether Object.prototype.toString can stand in for four brand checks (see enterObject). */
let toStringDecides = false;
let includePath = false;

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
  // Escaping at most doubles a key: a pointer that could pass the engine's longest
  // string fails like the canonical JSON would.
  let bound = 0;
  for (let level = 0; level < sp; level++) {
    const keys = stackKeys[level];
    bound += keys === null ? 11 : 1 + 2 * keys[stackNext[level] - 1].length;
  }
  if (bound > MAX_STRING_LENGTH) throw new WalkFailure('size_limit', undefined);
  let path = '';
  for (let level = 0; level < sp; level++) {
    const index = stackNext[level] - 1;
    const keys = stackKeys[level];
    path += '/' + (keys === null ? `${index}` : escapePointerSegment(keys[index]));
  }
  return path;
}

function fail(code) {
  throw new WalkFailure(code, includePath ? currentPath() : undefined);
}

/** Fails at a member of the container being entered (not yet on the stack). */
function failAt(code, index) {
  throw new WalkFailure(code, includePath ? `${currentPath()}/${index}` : undefined);
}

function isAncestor(value) {
  for (let level = 0; level < sp; level++) {
    if (stackValue[level] === value) return true;
  }
  return false;
}

/** Records a container, failing if the walk has reached it before. */
function see(value) {
  if (seenSet === null) {
    for (let i = 0; i < seenLen; i++) {
      if (seenList[i] === value) fail(isAncestor(value) ? 'cycle' : 'repeated_reference');
    }
    if (sp >= MAX_DEPTH) fail('depth_limit');
    if (seenLen < SEEN_LIST) {
      seenList[seenLen++] = value;
      return;
    }
    seenSet = new P.SafeSet();
    for (let i = 0; i < SEEN_LIST; i++) seenSet.add(seenList[i]);
    seenSet.add(value);
    return;
  }
  // One hash operation instead of has and add: a value seen before leaves the size as
  // it is.
  const size = seenSet.size;
  seenSet.add(value);
  if (seenSet.size === size) fail(isAncestor(value) ? 'cycle' : 'repeated_reference');
  if (sp >= MAX_DEPTH) fail('depth_limit');
}

function push(value, keys, count, mode) {
  stackValue[sp] = value;
  stackKeys[sp] = keys;
  stackNext[sp] = 0;
  stackCount[sp] = count;
  stackMode[sp] = mode;
  sp++;
}

function enterArray(value) {
  if (ObjectGetPrototypeOf(value) !== ArrayPrototype) fail('non_plain_object');
  const count = value.length;
  // Object.keys lists indices in ascending order before any other key: as many
  // enumerable keys as elements, the last of them the last index, means every index is
  // an own enumerable property and no other key is enumerable.
  const keys = ObjectKeys(value);
  if (keys.length === count && (count === 0 || keys[count - 1] === (count <= 256 ? INDEX_STRINGS[count - 1] : `${count - 1}`))) {
    // Left to rule out: symbol keys and non-enumerable extras. Reflect.ownKeys lists
    // both with the indices and "length" (one call: cheaper than names plus symbols).
    if (ReflectOwnKeys(value).length !== count + 1) {
      if (ObjectGetOwnPropertySymbols(value).length !== 0) fail('symbol_key');
      fail('array_extra_property');
    }
    pushOp(OP_ARRAY);
    pushLen(count);
    push(value, null, count, READ_ELEMENTS);
    return;
  }
  if (ObjectGetOwnPropertySymbols(value).length !== 0) fail('symbol_key');
  if (ObjectGetOwnPropertyNames(value).length !== count + 1) {
    // Either holes (fewer names) or extra properties (more names, or as many names as a
    // dense array would have but some of them not indices).
    for (let i = 0; i < count; i++) {
      if (!ObjectHasOwn(value, i)) failAt('sparse_array', i);
    }
    fail('array_extra_property');
  }
  pushOp(OP_ARRAY);
  pushLen(count);
  push(value, null, count, READ_DESCRIPTORS);
}

function enterObject(value) {
  const proto = ObjectGetPrototypeOf(value);
  if ((proto !== ObjectPrototype && proto !== null) || hasSlotsBeforeKeys(value)) fail('non_plain_object');
  if (ObjectGetOwnPropertySymbols(value).length !== 0) {
    if (hasTaggedSlots(value)) fail('non_plain_object');
    fail('symbol_key');
  }
  // With no own symbol key, and no @@toStringTag on Object.prototype, the tag lookup of
  // Object.prototype.toString finds nothing and runs nothing: the result is the
  // engine's own tag, "Object" unless the value is a Date, RegExp, Error or arguments.
  if (toStringDecides ? ObjectPrototypeToString(value) !== '[object Object]' : hasTaggedSlots(value)) {
    fail('non_plain_object');
  }
  const keys = ObjectGetOwnPropertyNames(value);
  const count = keys.length;
  if (count === 0 && !isOrdinaryWhenEmpty(value)) fail('non_plain_object');
  pushOp(OP_OBJECT);
  pushLen(count);
  if (sp === 0 && count > FLAT_MIN_KEYS) {
    flat = true;
    flatKeys = keys;
    if (flatOwned < count) {
      flatValues = ownSlots(count);
      flatOwned = count;
    }
  }
  // Object.keys lists the enumerable ones among these names: as many means all of them.
  push(value, keys, count, count <= SMALL_OBJECT_KEYS && ObjectKeys(value).length === count ? READ_MEMBERS : READ_DESCRIPTORS);
}

/** Writes `root` to the tape, or throws a WalkFailure; `withPath`: failures carry their JSON Pointer. */
function walk(root, withPath) {
  includePath = withPath;
  flat = false;
  flatKeys = null;
  toStringDecides = !ObjectHasOwn(ObjectPrototype, SymbolToStringTag);
  let value = root;
  for (;;) {
    switch (typeof value) {
      case 'string':
        if (value.length >= BIG_STRING_MIN) {
          pushOp(OP_BIG_STRING);
          pushBig(value);
        } else {
          pushOp(OP_STRING);
          pushLen(value.length);
          appendText(value);
        }
        break;
      case 'number':
        if (value - value !== 0) fail('non_finite_number');
        if (value === 0 && 1 / value < 0) fail('negative_zero');
        pushOp(OP_NUMBER);
        pushNum(value);
        break;
      case 'boolean':
        pushOp(value ? OP_TRUE : OP_FALSE);
        break;
      case 'object':
        if (value === null) {
          pushOp(OP_NULL);
        } else {
          if (isProxy(value)) fail('non_plain_object');
          see(value);
          if (ArrayIsArray(value)) enterArray(value);
          else enterObject(value);
        }
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
      const container = stackValue[level];
      if (stackMode[level] === READ_ELEMENTS) {
        // An own enumerable element: a getter is the only code a read could run. A
        // setter-only accessor reads as undefined; its descriptor then tells.
        if (ObjectPrototypeLookupGetter(container, index) !== undefined) fail('accessor_property');
        value = container[index];
        if (value === undefined) {
          const descriptor = ObjectGetOwnPropertyDescriptor(container, index);
          if (descriptor === undefined) fail('sparse_array');
          if (!ObjectHasOwn(descriptor, 'value')) fail('accessor_property');
        }
        break;
      }
      const keys = stackKeys[level];
      if (stackMode[level] === READ_MEMBERS) {
        // An own enumerable member: the same reasoning as for elements.
        const key = keys[index];
        pushLen(key.length);
        appendText(key);
        if (ObjectPrototypeLookupGetter(container, key) !== undefined) fail('accessor_property');
        value = container[key];
        if (value === undefined) {
          const descriptor = ObjectGetOwnPropertyDescriptor(container, key);
          if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value')) fail('accessor_property');
        }
        break;
      }
      let descriptor;
      if (keys === null) {
        descriptor = ObjectGetOwnPropertyDescriptor(container, index);
        if (descriptor === undefined) fail('sparse_array');
      } else {
        const key = keys[index];
        descriptor = ObjectGetOwnPropertyDescriptor(container, key);
        pushLen(key.length);
        appendText(key);
      }
      if (!ObjectHasOwn(descriptor, 'value')) fail('accessor_property');
      if (!descriptor.enumerable) fail('non_enumerable_property');
      value = descriptor.value;
      if (flat && level === 0) {
        if (typeof value === 'object' && value !== null) flat = false;
        else flatValues[index] = value;
      }
      break;
    }
  }
}

/**
 * After a walk that succeeded: the keys of its root object and the value the walk read of
 * each (a new array, in the same order) when the root is an object wider than
 * FLAT_MIN_KEYS whose members are all primitives; else null.
 */
function flatRoot() {
  if (!flat || flatKeys === null) return null;
  // toSpliced makes a plain array without consulting Array's species (slice would).
  return { keys: flatKeys, values: P.ArrayPrototypeToSpliced(flatValues, flatKeys.length, flatValues.length - flatKeys.length) };
}

/** Releases every reference to the walked value. */
function resetWalk() {
  if (flatKeys !== null) {
    for (let i = 0; i < flatKeys.length; i++) flatValues[i] = undefined;
  }
  flat = false;
  flatKeys = null;
  for (let level = 0; level < sp; level++) {
    stackValue[level] = undefined;
    stackKeys[level] = undefined;
  }
  sp = 0;
  for (let i = 0; i < seenLen; i++) seenList[i] = undefined;
  seenLen = 0;
  seenSet = null;
}

module.exports = { walk, resetWalk, flatRoot, MAX_DEPTH };
