'use strict';
// The canonical JSON of a JavaScript value (the walk, then one native call) and of
// provider text (one native call, no walk), with the proposal hash when names are given.
//
// Re-entry fails closed. The walk and the tape are module state, reused from call to
// call. A value can run no code during a walk, with one exception no check in Node can
// see beforehand (the global object of a node:vm context whose prototype was reset:
// listing its keys runs its sandbox's Proxy traps, see the security docs' limits). If
// such code calls the package again, the inner call fails at once with
// `reentrant_call`, touching nothing, and the outer call fails with `reentrant_call`
// too when it ends, whatever it would have returned: no result is ever made from a walk
// during which another call was attempted. The agent and tool names never pass through
// that state: they go to the native call as arguments, which hashes exactly them.

const { binding } = require('../native');
const { WalkFailure, nativeFailure } = require('../errors');
const P = require('../primordials');
const { walk, resetWalk, flatRoot, MAX_DEPTH } = require('./walk');
const { encode, resetTape, skeletonTemplate } = require('./tape-writer');
const { NO_SKELETON_TEMPLATE, FlatTemplate } = require('./view');

const { JSONParse, StringPrototypeSlice, StringPrototypeCharCodeAt, ArrayPrototypeToSpliced } = P;
const canonicalizeText = binding.canonicalizeText;
const takeRootOrder = binding.takeRootOrder;
const { FLAG_PATH, FAILED_SNAPSHOT } = binding;

// Where takeRootOrder puts a wide root object's key order; its capacity is tracked here
// (a typed array's length getter lives on a patchable prototype).
let orderBuffer = new P.SafeUint32Array(0);
let orderCapacity = 0;

/**
 * The views' FlatTemplate of a wide flat root (./view.js) from the walk's keys and reads
 * and the key order the native side just sorted them in; NO_SKELETON_TEMPLATE when there
 * is none (the views are then parsed). Call right after encode, before the tape is reset.
 */
function flatTemplate(keys, values) {
  const count = keys.length;
  if (orderCapacity < count) {
    orderBuffer = new P.SafeUint32Array(count);
    orderCapacity = count;
  }
  let taken;
  try {
    taken = takeRootOrder(orderBuffer);
  } catch {
    // A panic in the binding (which never should happen): no template, views parse.
    return NO_SKELETON_TEMPLATE;
  }
  if (taken !== count) return NO_SKELETON_TEMPLATE;
  // Copies of the walk's own packed arrays (toSpliced: every slot an own data property, no
  // species lookup), then overwritten in place: Array.from of a length-only array-like
  // defines its slots one by one through the generic path, about 25 ns each.
  const sortedKeys = ArrayPrototypeToSpliced(keys, 0, 0);
  const sortedValues = ArrayPrototypeToSpliced(values, 0, 0);
  for (let i = 0; i < count; i++) {
    const at = orderBuffer[i];
    if (at >= count) return NO_SKELETON_TEMPLATE;
    sortedKeys[i] = keys[at];
    sortedValues[i] = values[at];
  }
  return new FlatTemplate(sortedKeys, sortedValues);
}

let busy = false;
let reentered = false;
/**
 * The template run made from a skeleton (template character 2), taken by hashedCanonicalJson.
 * @type {symbol | ReturnType<typeof skeletonTemplate> | FlatTemplate}
 */
let madeTemplate = NO_SKELETON_TEMPLATE;

/** The template character of a hashed native result: how views are made. */
const VIEWS_FROM_SKELETON = 0x32;
/** Template character 0: views are parsed (an object too wide to copy member by member). */
const VIEWS_PARSED = 0x30;

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
  let result;
  let failed = false;
  let failure;
  try {
    walk(value, withPath);
    result = encode(withPath, agentName, toolName);
    // The template comes from this walk's tape, before the tape is reset.
    if (agentName !== undefined) {
      const views = StringPrototypeCharCodeAt(result, 64);
      if (views === VIEWS_FROM_SKELETON) {
        madeTemplate = skeletonTemplate();
      } else if (views === VIEWS_PARSED) {
        // A wide flat root: its views are built from what the walk read (./view.js).
        const root = flatRoot();
        if (root !== null) madeTemplate = flatTemplate(root.keys, root.values);
      }
    }
  } catch (error) {
    // Nothing is read from what was thrown: it is passed on as it is.
    failed = true;
    failure = error;
  }
  resetWalk();
  resetTape();
  busy = false;
  if (reentered) {
    reentered = false;
    throw new WalkFailure('reentrant_call', undefined);
  }
  if (failed) throw failure;
  return result;
}

function canonicalJson(value, withPath) {
  return run(value, withPath === true, undefined, undefined);
}

/**
 * `[proposal hash, canonical JSON, how views are made, template]` of a native result: the
 * third is the template character's code (0x30 parse each view, 0x31 copy a template
 * parsed at the first view, 0x32 copy `template`, made from the skeleton; a failed one is
 * NO_SKELETON_TEMPLATE).
 */
function splitHashed(result, template) {
  return [StringPrototypeSlice(result, 0, 64), StringPrototypeSlice(result, 65), StringPrototypeCharCodeAt(result, 64), template];
}

/**
 * splitHashed's four fields for a value, or a WalkFailure. The hash is computed by the
 * native side over exactly `agentName`, `toolName` (well-formed strings, checked by the
 * caller) and the JSON returned.
 */
function hashedCanonicalJson(value, withPath, agentName, toolName) {
  // The views' template is never copied from the value: reading it a second time is
  // not the walk's read. A host object whose property reads go through interceptors (a
  // node:vm global, see the README's limits) can answer differently the second time,
  // and a template made from those answers would give views that differ from the hashed
  // JSON. Templates are parsed from the canonical JSON at the first view, or made from
  // the skeleton and the numbers and long strings of the walk's own tape.
  madeTemplate = NO_SKELETON_TEMPLATE;
  const result = run(value, withPath === true, agentName, toolName);
  const template = madeTemplate;
  madeTemplate = NO_SKELETON_TEMPLATE;
  return splitHashed(result, template);
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
  if (typeof result === 'string') return splitHashed(result, NO_SKELETON_TEMPLATE);
  if (result !== FAILED_SNAPSHOT) throw new TextFailure('json', nativeFailure(includes));
  try {
    return hashedCanonicalJson(JSONParse(rawText), includes, agentName, toolName);
  } catch (error) {
    if (error instanceof WalkFailure) throw new TextFailure('snapshot', error);
    throw error;
  }
}

module.exports = { canonicalJson, hashedCanonicalJson, hashedCanonicalText, TextFailure, MAX_DEPTH, VIEWS_FROM_SKELETON };
