'use strict';
// Provider text: the raw arguments string a model proposed, checked strictly by the
// native decoder (duplicate keys, lone surrogates, numbers that overflow, trailing text
// are errors) before JSON.parse builds a value of it.

const { binding } = require('../native');
const { ToolArgumentsValidationError, nativeFailure, FAILED, invalidArgument } = require('../errors');
const { own, requireInput, requireString } = require('../input');
const P = require('../primordials');

const { JSONParse, StringPrototypeCharCodeAt, StringPrototypeSlice, StringPrototypeIsWellFormed, ArrayIsArray, ObjectFreeze, ObjectHasOwn, isProxy } = P;
// Captured when the package loaded (the run loop loads at its first use).
const { ObjectIsFrozen } = P;

// Native flags and checkJson results: the constants src/binding/mod.rs exports.
const { FLAG_PATH, JSON_BLANK } = binding;

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

// ---------------------------------------------------------------------------------
// Setting a member aside (decodeRequest's `setAside`). A message that carries a tool
// call's arguments (a JSON-RPC tools/call: `params.arguments`) is decoded strictly once,
// as a whole; the member's exact text and the value JSON.parse made of it are then kept
// in an ArgumentsText in its place, which prepareToolCall takes as `rawArguments`: the
// text is not checked again (it is part of text that passed the same check, at a lesser
// depth) and the value is the schema's input, not a second parse. The text is found in
// the strict text by its structure: keys are unique there, and a key spelt with escapes
// is compared decoded.

/** Only the package holds this: `new ArgumentsText(...)` without it throws. */
const CONSTRUCT = P.SafeSymbol('construct an arguments text');
/** What an ArgumentsText holds once its value has been handed out. */
const TAKEN = P.SafeSymbol('taken');

/** A member decodeRequest set aside: its exact `text`, and its decoded value for one taker. */
class ArgumentsText {
  text;
  #value;

  constructor(token, text, value) {
    if (token !== CONSTRUCT) throw invalidArgument('an ArgumentsText is made only by decodeRequest');
    this.text = text;
    this.#value = value;
    ObjectFreeze(this);
  }

  /**
   * The member's decoded value: the one made with the message the first time, then a
   * new decoding of its text each time (so no two takers share an object).
   */
  decode() {
    if (!ArgumentsText.is(this)) throw invalidArgument('decode() expects an ArgumentsText made by decodeRequest');
    return ArgumentsText.take(this);
  }

  /** Whether a value is an ArgumentsText decodeRequest made (a Proxy is not: no trap runs). */
  static is(value) {
    return value !== null && typeof value === 'object' && #value in value;
  }

  /** decode() for a value `is` accepted. */
  static take(handle) {
    const value = handle.#value;
    if (value === TAKEN) return JSONParse(handle.text);
    handle.#value = TAKEN;
    return value;
  }
}
ObjectFreeze(ArgumentsText.prototype);
ObjectFreeze(ArgumentsText);

/** The most keys a `setAside` path may have. */
const MAX_SET_ASIDE = 16;

/** The last frozen `setAside` array read, and its copy: a frozen array never changes. */
let lastSetAside;
let lastPath;

/** `options.setAside`: undefined, or a frozen copy of a non-empty array of well-formed strings. */
function readSetAside(value) {
  if (value === undefined) return undefined;
  if (value === lastSetAside) return lastPath;
  if (value === null || typeof value !== 'object' || isProxy(value) || !ArrayIsArray(value)) {
    throw invalidArgument('options.setAside must be an array of member names');
  }
  const count = own(value, 'length');
  if (typeof count !== 'number' || count < 1 || count > MAX_SET_ASIDE) {
    throw invalidArgument(`options.setAside must name 1 to ${MAX_SET_ASIDE} members`);
  }
  const path = [];
  for (let i = 0; i < count; i++) {
    const key = own(value, i);
    if (typeof key !== 'string' || !StringPrototypeIsWellFormed(key)) throw invalidArgument('options.setAside must be an array of well-formed strings');
    path[i] = key;
  }
  ObjectFreeze(path);
  // Kept for the next call only when the array can never change (a gate passes one frozen array).
  if (ObjectIsFrozen(value)) {
    lastSetAside = value;
    lastPath = path;
  }
  return path;
}

function isSpace(c) {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipSpace(text, i) {
  while (i < text.length && isSpace(StringPrototypeCharCodeAt(text, i))) i++;
  return i;
}

/** The index after the string token of strict JSON starting at i (its `"`). */
function stringEnd(text, i) {
  for (i++; ; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i++;
  }
}

/** The index after the value token of strict JSON starting at i (nesting costs no stack). */
function valueEnd(text, i) {
  const first = StringPrototypeCharCodeAt(text, i);
  if (first === 0x22) return stringEnd(text, i);
  if (first !== 0x7b && first !== 0x5b) {
    while (i < text.length) {
      const c = StringPrototypeCharCodeAt(text, i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) return i;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (;;) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
    i++;
  }
}

/** Whether the string token text[start, end) (quotes included) decodes to `key`. */
function tokenIs(text, start, end, key) {
  if (end - start - 2 < key.length) return false;
  for (let i = start + 1; i < end - 1; i++) {
    if (StringPrototypeCharCodeAt(text, i) === 0x5c) return JSONParse(StringPrototypeSlice(text, start, end)) === key;
  }
  if (end - start - 2 !== key.length) return false;
  for (let i = 0; i < key.length; i++) {
    if (StringPrototypeCharCodeAt(text, start + 1 + i) !== StringPrototypeCharCodeAt(key, i)) return false;
  }
  return true;
}

/** Where the value of member `key` of the object token starting at i (a `{`) starts, or -1. */
function memberValueAt(text, i, key) {
  i = skipSpace(text, i + 1);
  while (StringPrototypeCharCodeAt(text, i) === 0x22) {
    const keyEnd = stringEnd(text, i);
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
    if (tokenIs(text, i, keyEnd, key)) return start;
    i = skipSpace(text, valueEnd(text, start));
    if (StringPrototypeCharCodeAt(text, i) !== 0x2c) return -1;
    i = skipSpace(text, i + 1);
  }
  return -1;
}

function isRecord(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value);
}

/** Sets the member at `path` of `node` (decoded from the token at i) aside, when every step is a record's member. */
function setAsideAt(text, i, node, path) {
  const last = path.length - 1;
  for (let d = 0; ; d++) {
    const key = path[d];
    if (!isRecord(node) || !ObjectHasOwn(node, key) || StringPrototypeCharCodeAt(text, i) !== 0x7b) return;
    i = memberValueAt(text, i, key);
    if (i === -1) return;
    if (d === last) {
      // JSON.parse made the member an own writable data property (`__proto__` too): an
      // assignment finds it first and runs no setter.
      node[key] = new ArgumentsText(CONSTRUCT, StringPrototypeSlice(text, i, valueEnd(text, i)), node[key]);
      return;
    }
    node = node[key];
  }
}

/** Sets `path` aside in a decoded value, or in each element of a decoded array (a JSON-RPC batch). */
function setAside(text, value, path) {
  let i = skipSpace(text, 0);
  if (!ArrayIsArray(value)) {
    setAsideAt(text, i, value, path);
    return;
  }
  i = skipSpace(text, i + 1);
  for (let k = 0; k < value.length; k++) {
    const end = valueEnd(text, i);
    setAsideAt(text, i, value[k], path);
    i = skipSpace(text, skipSpace(text, end) + 1);
  }
}

function decodeRequest(rawArguments, options) {
  requireString(rawArguments, 'rawArguments', false);
  let toolName = '';
  let includePath = false;
  let path;
  if (options !== undefined && options !== null) {
    requireInput(options, 'options must be an object');
    const name = own(options, 'toolName');
    if (typeof name === 'string') toolName = name;
    includePath = own(options, 'includePath') === true;
    path = readSetAside(own(options, 'setAside'));
  }
  const blank = checkRequest(toolName, rawArguments, includePath);
  const value = parseRequest(rawArguments, blank);
  if (path !== undefined && !blank) setAside(rawArguments, value, path);
  return value;
}

module.exports = { checkRequest, parseRequest, decodeRequest, ArgumentsText };
