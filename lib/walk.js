'use strict';
// The strict walk. It visits a value once, without running any of its code (no getter,
// setter, toJSON, toString or Proxy trap), checks every rule of the strict snapshot
// domain that needs the JavaScript object model, and writes the value to a compact tape
// (see src/jcs/tape.rs). One native call then validates strings, formats numbers,
// escapes, sorts keys by UTF-16 code units and hashes. The walk is iterative, so no
// value can exhaust the stack, and it stops at the same depth limit as the native side.
//
// Re-entry fails closed. The walk keeps its tape and stack in module state, reused from
// call to call. A value can run no code during a walk, with one exception no check in
// Node can see beforehand (the global object of a node:vm context whose prototype was
// reset: listing its keys runs its sandbox's Proxy traps, see the README's limits). If
// such code calls the package again, the inner call fails at once with
// `reentrant_call`, touching nothing, and the outer call fails with `reentrant_call`
// too when it ends, whatever it would have returned: no result is ever made from a walk
// during which another call was attempted. The agent and tool names never pass through
// that state: they go to the native call as arguments, which hashes exactly them.

const { binding } = require('./native');
const { WalkFailure, nativeFailure } = require('./errors');
const P = require('./primordials');

const {
  ObjectGetPrototypeOf, ObjectGetOwnPropertyNames, ObjectGetOwnPropertySymbols, ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn, ObjectKeys, ReflectOwnKeys, ObjectPrototype, ObjectPrototypeToString, ObjectPrototypeLookupGetter, SymbolToStringTag,
  JSONParse, FunctionPrototypeToString, StringPrototypeEndsWith, ArrayIsArray, ArrayPrototype, StringPrototypeSlice, StringPrototypeCharCodeAt, StringFromCharCode, TypedArrayPrototypeSet,
  isProxy, structuredClone, isDate, isRegExp, isMap, isSet, isWeakMap, isWeakSet, isAnyArrayBuffer, isArrayBufferView,
  isBoxedPrimitive, isNativeError, isPromise, isGeneratorObject, isMapIterator, isSetIterator, isModuleNamespaceObject,
  isArgumentsObject,
} = P;

// A runtime without util.types.isExternal (Deno) asks napi_typeof through the binding:
// the check is never dropped.
const isExternal = typeof P.isExternal === 'function' ? P.isExternal : binding.isExternal;
const encodeTape = binding.encodeTape;
const canonicalizeText = binding.canonicalizeText;

const MAX_DEPTH = binding.maxDepth();
const { MAX_STRING_LENGTH } = require('node:buffer').constants;

// Tape op codes, flags and header words: the constants of src/binding.rs.
const {
  OP_NULL, OP_FALSE, OP_TRUE, OP_NUMBER, OP_STRING, OP_ARRAY, OP_OBJECT, OP_BIG_STRING, FLAG_PATH, FAILED_SNAPSHOT,
  TAPE_HEADER_WORDS, TAPE_OPS_LEN, TAPE_NUMS_LEN, TAPE_LENS_LEN, TAPE_TEXT_LEN, TAPE_BIGS_LEN, TAPE_FLAGS,
  TAPE_NUMS_OFFSET, TAPE_LENS_OFFSET, TAPE_OPS_OFFSET,
} = binding;

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
// The tape: one buffer (header, numbers, lengths, op codes), reused from call to call.
// Capacities are tracked here rather than read from the typed arrays, whose `length`
// getter lives on a patchable prototype.

const HEADER_BYTES = TAPE_HEADER_WORDS * 4;
const INITIAL = 1024;
const KEEP = 1 << 20;
let numsCap = 0;
let lensCap = 0;
let opsCap = 0;
let tapeBuffer;
let bytes;
let header;
let nums;
let lens;
let ops;
let opsLen = 0;
let numsLen = 0;
let lensLen = 0;
let text = '';

/** Lays the tape out anew with these capacities, keeping what was written. */
function layout(newNums, newLens, newOps) {
  const numsOffset = HEADER_BYTES;
  const lensOffset = numsOffset + newNums * 8;
  const opsOffset = lensOffset + newLens * 4;
  const buffer = new P.SafeArrayBuffer(opsOffset + newOps);
  const nextNums = new P.SafeFloat64Array(buffer, numsOffset, newNums);
  const nextLens = new P.SafeUint32Array(buffer, lensOffset, newLens);
  const nextOps = new P.SafeUint8Array(buffer, opsOffset, newOps);
  if (tapeBuffer !== undefined) {
    TypedArrayPrototypeSet(nextNums, new P.SafeFloat64Array(tapeBuffer, HEADER_BYTES, numsLen));
    TypedArrayPrototypeSet(nextLens, new P.SafeUint32Array(tapeBuffer, HEADER_BYTES + numsCap * 8, lensLen));
    TypedArrayPrototypeSet(nextOps, new P.SafeUint8Array(tapeBuffer, HEADER_BYTES + numsCap * 8 + lensCap * 4, opsLen));
  }
  tapeBuffer = buffer;
  bytes = new P.SafeUint8Array(buffer);
  header = new P.SafeUint32Array(buffer, 0, TAPE_HEADER_WORDS);
  header[TAPE_NUMS_OFFSET] = numsOffset;
  header[TAPE_LENS_OFFSET] = lensOffset;
  header[TAPE_OPS_OFFSET] = opsOffset;
  nums = nextNums;
  lens = nextLens;
  ops = nextOps;
  numsCap = newNums;
  lensCap = newLens;
  opsCap = newOps;
}
layout(INITIAL, INITIAL, INITIAL);

function pushOp(op) {
  if (opsLen === opsCap) layout(numsCap, lensCap, opsCap * 2);
  ops[opsLen++] = op;
}

function pushLen(len) {
  if (lensLen === lensCap) layout(numsCap, lensCap * 2, opsCap);
  lens[lensLen++] = len;
}

function pushNum(num) {
  if (numsLen === numsCap) layout(numsCap * 2, lensCap, opsCap);
  nums[numsLen++] = num;
}

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

/** Appends a key or a short string to the text, or fails before the engine would. */
function appendText(value) {
  if (value.length > MAX_STRING_LENGTH - text.length) throw new WalkFailure('size_limit', undefined);
  text += value;
}

// ---------------------------------------------------------------------------------
// The explicit stack: per level the container, its keys (null for an array), the next
// member index, the member count, and how members are read.

/** Members are read through their descriptors. */
const READ_DESCRIPTORS = 0;
/** An array proven dense, with every index enumerable: elements are read directly. */
const READ_ELEMENTS = 1;
/** A small object whose own keys are all enumerable: members are read directly. */
const READ_MEMBERS = 2;

/** The index strings of short arrays, made once (the last-key test compares with one). */
const INDEX_STRINGS = ownSlots(0);
for (let i = 0; i < 256; i++) P.ObjectDefineProperty(INDEX_STRINGS, i, { __proto__: null, value: `${i}`, enumerable: true });

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

/** The engine types an object's prototype cannot tell and that must precede key listing. */
function hasSlotsBeforeKeys(value) {
  return isMap(value) || isSet(value) || isWeakMap(value) || isWeakSet(value) || isAnyArrayBuffer(value) ||
    isArrayBufferView(value) || isBoxedPrimitive(value) || isPromise(value) || isGeneratorObject(value) ||
    isMapIterator(value) || isSetIterator(value) || isModuleNamespaceObject(value) || isExternal(value);
}

/** The four engine types Object.prototype.toString also names. */
function hasTaggedSlots(value) {
  return isDate(value) || isRegExp(value) || isNativeError(value) || isArgumentsObject(value);
}

// The well-known symbols: no structured clone implementation looks a hook up under
// one of them (Object.prototype[Symbol.toPrimitive] or [Symbol.iterator] are common
// polyfill territory and must not make every empty object fail).
const WELL_KNOWN_SYMBOLS = ownSlots(0);
{
  const names = ObjectGetOwnPropertyNames(P.SafeSymbol);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(P.SafeSymbol, names[i]);
    if (ObjectHasOwn(descriptor, 'value') && typeof descriptor.value === 'symbol') {
      P.ObjectDefineProperty(WELL_KNOWN_SYMBOLS, WELL_KNOWN_SYMBOLS.length, { __proto__: null, value: descriptor.value, enumerable: true });
    }
  }
  P.ObjectFreeze(WELL_KNOWN_SYMBOLS);
}

/**
 * Whether this runtime's structuredClone is written in JavaScript (Deno's is). Called
 * with one argument, Deno's converts the default `transfer: []` with the live
 * Array.prototype[Symbol.iterator] and %ArrayIteratorPrototype%.next; handed a transfer
 * list that is an iterable of its own (its own iterator method and `next`, yielding
 * nothing), it converts that instead and clones with the native operation, calling no
 * built-in an application could have replaced. Node's and Bun's are native code.
 */
const CLONE_IN_JAVASCRIPT = !StringPrototypeEndsWith(FunctionPrototypeToString(structuredClone), '{ [native code] }');
const NO_TRANSFER = { __proto__: null };
{
  const done = { __proto__: null, done: true, value: undefined };
  const iterator = { __proto__: null };
  P.ObjectDefineProperty(iterator, 'next', { __proto__: null, value: () => done });
  P.ObjectDefineProperty(NO_TRANSFER, P.SymbolIterator, { __proto__: null, value: () => iterator });
  P.ObjectFreeze(iterator);
  P.ObjectFreeze(done);
  P.ObjectFreeze(NO_TRANSFER);
}
const CLONE_OPTIONS = P.ObjectFreeze({ __proto__: null, transfer: NO_TRANSFER });

function isWellKnown(symbol) {
  for (let i = 0; i < WELL_KNOWN_SYMBOLS.length; i++) {
    if (WELL_KNOWN_SYMBOLS[i] === symbol) return true;
  }
  return false;
}

/**
 * Whether structured cloning can classify an empty object without running code: the
 * object has no own property (so no getter to call), and the clone hooks a runtime looks
 * up on a host object's prototype chain (Node's messaging symbols, Deno's host-object
 * brand: all symbol-keyed, none well-known) can find nothing callable on
 * Object.prototype, the only object left on that chain.
 */
function cloneRunsNoCode() {
  const symbols = ObjectGetOwnPropertySymbols(ObjectPrototype);
  for (let i = 0; i < symbols.length; i++) {
    if (isWellKnown(symbols[i])) continue;
    const descriptor = ObjectGetOwnPropertyDescriptor(ObjectPrototype, symbols[i]);
    if (!ObjectHasOwn(descriptor, 'value') || typeof descriptor.value === 'function') return false;
  }
  return true;
}

/**
 * For an object without own properties whose prototype is Object.prototype or null,
 * whether it is an ordinary object. Engine objects that no other check names (WeakRef,
 * FinalizationRegistry, Intl objects, iterators, every WebAssembly object, Node host
 * objects) either refuse structured cloning or clone into an object of their own kind,
 * with their type's prototype; an ordinary object clones into a plain `{}`. When
 * Object.prototype carries a function or an accessor under a symbol key that is not a
 * well-known symbol, cloning could call it: the object is then refused (fail closed)
 * instead of classified.
 */
function isOrdinaryWhenEmpty(value) {
  if (!cloneRunsNoCode()) return false;
  try {
    const clone = CLONE_IN_JAVASCRIPT ? structuredClone(value, CLONE_OPTIONS) : structuredClone(value);
    return ObjectGetPrototypeOf(clone) === ObjectPrototype;
  } catch {
    return false;
  }
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
  // Object.keys lists the enumerable ones among these names: as many means all of them.
  push(value, keys, count, count <= SMALL_OBJECT_KEYS && ObjectKeys(value).length === count ? READ_MEMBERS : READ_DESCRIPTORS);
}

/** Writes `root` to the tape, or throws a WalkFailure. */
function walk(root) {
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
      break;
    }
  }
}

// ---------------------------------------------------------------------------------

let busy = false;
let reentered = false;

/** Releases every reference to the walked value and oversized buffers. */
function reset() {
  for (let level = 0; level < sp; level++) {
    stackValue[level] = undefined;
    stackKeys[level] = undefined;
  }
  sp = 0;
  for (let i = 0; i < seenLen; i++) seenList[i] = undefined;
  seenLen = 0;
  seenSet = null;
  text = '';
  for (let i = 0; i < bigsLen; i++) bigs[i] = undefined;
  bigsLen = 0;
  bigsTotal = 0;
  opsLen = 0;
  numsLen = 0;
  lensLen = 0;
  if (numsCap > KEEP || lensCap > KEEP || opsCap > KEEP) layout(INITIAL, INITIAL, INITIAL);
}

function encode(agentName, toolName) {
  // Canonical JSON holds at least every character of every string: when they alone
  // exceed the longest string V8 can make, fail before copying any of them.
  if (text.length + bigsTotal > MAX_STRING_LENGTH) throw new WalkFailure('size_limit', undefined);
  header[TAPE_OPS_LEN] = opsLen;
  header[TAPE_NUMS_LEN] = numsLen;
  header[TAPE_LENS_LEN] = lensLen;
  header[TAPE_TEXT_LEN] = text.length;
  header[TAPE_BIGS_LEN] = bigsLen;
  header[TAPE_FLAGS] = includePath ? FLAG_PATH : 0;
  const big = bigsLen === 0 ? undefined : bigs;
  const result = agentName === undefined ? encodeTape(bytes, text, big) : encodeTape(bytes, text, big, agentName, toolName);
  if (typeof result !== 'string') throw nativeFailure(includePath);
  return result;
}

/**
 * RFC 8785 JSON of `value`, or a WalkFailure. With names, the 64-character proposal
 * hash of exactly those names and the JSON, a template character, then the JSON.
 */
function run(value, withPath, agentName, toolName) {
  if (busy) {
    reentered = true;
    throw new WalkFailure('reentrant_call', undefined);
  }
  busy = true;
  reentered = false;
  includePath = withPath;
  toStringDecides = !ObjectHasOwn(ObjectPrototype, SymbolToStringTag);
  let result;
  let failed = false;
  let failure;
  try {
    walk(value);
    result = encode(agentName, toolName);
  } catch (error) {
    // Nothing is read from what was thrown: it is passed on as it is.
    failed = true;
    failure = error;
  }
  reset();
  busy = false;
  if (reentered) {
    reentered = false;
    throw new WalkFailure('reentrant_call', undefined);
  }
  if (failed) throw failure;
  return result;
}

/** RFC 8785 JSON of `value`, or a WalkFailure. */
function canonicalJson(value, withPath) {
  return run(value, withPath === true, undefined, undefined);
}

/** `[proposal hash, canonical JSON, whether views should copy a template]` of a native result. */
function splitHashed(result) {
  return [StringPrototypeSlice(result, 0, 64), StringPrototypeSlice(result, 65), StringPrototypeCharCodeAt(result, 64) === 0x31];
}

/**
 * `[proposal hash, canonical JSON, whether views should copy a template]` of a value, or a WalkFailure. The hash is computed
 * by the native side over exactly `agentName`, `toolName` (well-formed strings, checked
 * by the caller) and the JSON returned.
 */
function hashedCanonicalJson(value, withPath, agentName, toolName) {
  // The views' template is never copied from the value: reading it a second time is
  // not the walk's read. A host object whose property reads go through interceptors (a
  // node:vm global, see the README's limits) can answer differently the second time,
  // and a template made from those answers would give views that differ from the hashed
  // JSON. Templates are parsed from the canonical JSON at the first view instead.
  return splitHashed(run(value, withPath === true, agentName, toolName));
}

/** A failure of hashedCanonicalText: `stage` is 'json' or 'snapshot'. */
class TextFailure {
  // Fields are defined, not assigned, before the constructor body runs.
  stage;
  code;
  path;
  constructor(stage, failure) {
    this.stage = stage;
    this.code = failure.code;
    this.path = failure.path;
  }
}

/**
 * The snapshot of provider text that no schema transforms, in one native pass: strict
 * decoding (stage json), RFC 8785 and the proposal hash over exactly `agentName` and
 * `toolName`. Empty or whitespace-only text is `{}`. Returns what hashedCanonicalJson
 * returns, or throws a TextFailure. A value outside the snapshot domain (negative zero)
 * is then walked as JSON.parse builds it, so that its failure has the code and the path
 * the walk of the parsed text gives (the walk reports the first failure in the order
 * JSON.parse makes the keys; the encoder sees them sorted).
 */
function hashedCanonicalText(rawText, agentName, toolName, withPath) {
  const includes = withPath === true;
  const result = canonicalizeText(rawText, agentName, toolName, includes ? FLAG_PATH : 0);
  if (typeof result === 'string') return splitHashed(result);
  if (result !== FAILED_SNAPSHOT) throw new TextFailure('json', nativeFailure(includes));
  try {
    return hashedCanonicalJson(JSONParse(rawText), includes, agentName, toolName);
  } catch (error) {
    if (error instanceof WalkFailure) throw new TextFailure('snapshot', error);
    throw error;
  }
}

module.exports = { canonicalJson, hashedCanonicalJson, hashedCanonicalText, TextFailure, MAX_DEPTH };
