'use strict';
// The tape the walk writes (see src/jcs/tape.rs): one buffer of header, numbers, lengths
// and op codes, the text of keys and short strings, and long strings by reference. It is
// reused from call to call; one native call encodes it (RFC 8785, and the proposal hash
// when names are given).

const { binding } = require('../native');
const { WalkFailure, nativeFailure } = require('../errors');
const P = require('../primordials');

const { templateFromSkeleton, NO_SKELETON_TEMPLATE } = require('./view');

const { TypedArrayPrototypeSet } = P;
const { MAX_STRING_LENGTH } = require('node:buffer').constants;
const encodeTape = binding.encodeTape;
const takeSkeleton = binding.takeSkeleton;

// Tape header words and the path flag: the constants of src/binding/mod.rs.
const {
  FLAG_PATH,
  TAPE_HEADER_WORDS,
  TAPE_OPS_LEN,
  TAPE_NUMS_LEN,
  TAPE_LENS_LEN,
  TAPE_TEXT_LEN,
  TAPE_BIGS_LEN,
  TAPE_FLAGS,
  TAPE_NUMS_OFFSET,
  TAPE_LENS_OFFSET,
  TAPE_OPS_OFFSET,
} = binding;

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
 * time, and plain stores only ever hit own slots after that. Array.from of a
 * null-prototype array-like (no iterator, no inherited index to read) defines each slot
 * (CreateDataProperty) in one call: defining 2,000 of them one by one cost 2-5 ms of
 * the package's load.
 */
const SLOT = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };
function ownSlots(count) {
  return P.ArrayFrom({ __proto__: null, length: count });
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

/** Forgets what was written and releases long strings and oversized buffers. */
function resetTape() {
  text = '';
  for (let i = 0; i < bigsLen; i++) bigs[i] = undefined;
  bigsLen = 0;
  bigsTotal = 0;
  opsLen = 0;
  numsLen = 0;
  lensLen = 0;
  if (numsCap > KEEP || lensCap > KEEP || opsCap > KEEP) layout(INITIAL, INITIAL, INITIAL);
}

/**
 * Encodes what was written: RFC 8785 JSON, or with names the 64-character proposal hash
 * of exactly those names and the JSON, a template character, then the JSON. Throws a
 * WalkFailure (size_limit) or the native failure.
 */
function encode(includePath, agentName, toolName) {
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
 * The views' template of what encode just wrote, when its template character was `2`:
 * made from the skeleton the native side left and this tape's own numbers and long
 * strings (see ./view.js templateFromSkeleton). Call before resetTape. Returns
 * NO_SKELETON_TEMPLATE when there is none to make.
 */
function skeletonTemplate() {
  let skeleton;
  try {
    skeleton = takeSkeleton();
  } catch {
    // A panic in the binding (which never should happen): no template, views parse.
    return NO_SKELETON_TEMPLATE;
  }
  if (typeof skeleton !== 'string') return NO_SKELETON_TEMPLATE;
  return templateFromSkeleton(skeleton, nums, bigs);
}

module.exports = { pushOp, pushLen, pushNum, pushBig, appendText, ownSlots, resetTape, encode, skeletonTemplate };
