'use strict';
// JSON-RPC message text: each message decoded strictly (the package's decodeRequest with
// `arguments` set aside) and the exact text of a tools/call's `params.arguments`, carried
// by a key object that stands in its place. Payload-free error answers.

const { own, isWellFormedString } = require('../gate/read');
const { decodeRequest, isArgumentsText, isToolArgumentsValidationError } = require('tool-argument-snapshot');
const {
  ArrayIsArray,
  ArrayPrototypePush,
  JSONParse,
  NumberIsFinite,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectHasOwn,
  SafeWeakMap,
  StringPrototypeCharCodeAt,
  SafeTextDecoder,
  StringPrototypeSlice,
  TextDecoderPrototypeDecode,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
} = require('../gate/primordials');

const utf8 = new SafeTextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

function isWhitespace(c) {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipWhitespace(text, i) {
  while (i < text.length && isWhitespace(StringPrototypeCharCodeAt(text, i))) i++;
  return i;
}

/** The index after the string token starting at i (a `"`). */
function skipString(text, i) {
  i++;
  for (;;) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x22) return i + 1;
    i += c === 0x5c ? 2 : 1;
  }
}

/** The index after the value token starting at i (iterative: nesting costs no stack). */
function skipValue(text, i) {
  const first = StringPrototypeCharCodeAt(text, i);
  if (first === 0x22) return skipString(text, i);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (;;) {
      const c = StringPrototypeCharCodeAt(text, i);
      if (c === 0x22) {
        i = skipString(text, i);
        continue;
      }
      if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
      i++;
    }
  }
  while (i < text.length) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x2c || c === 0x7d || c === 0x5d || isWhitespace(c)) break;
    i++;
  }
  return i;
}

/** The members of the object token starting at i (a `{`): each key (decoded) and its value's range. */
function membersOf(text, i) {
  const members = [];
  i = skipWhitespace(text, i + 1);
  if (StringPrototypeCharCodeAt(text, i) === 0x7d) return members;
  for (;;) {
    const keyEnd = skipString(text, i);
    const key = JSONParse(StringPrototypeSlice(text, i, keyEnd));
    const start = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const end = skipValue(text, start);
    ArrayPrototypePush(members, { __proto__: null, key, start, end });
    i = skipWhitespace(text, end);
    if (StringPrototypeCharCodeAt(text, i) === 0x7d) return members;
    i = skipWhitespace(text, i + 1);
  }
}

/** The last member named `key`, or undefined. */
function lastMember(members, key) {
  let found;
  for (let i = 0; i < members.length; i++) if (members[i].key === key) found = members[i];
  return found;
}

function isRecord(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value);
}

/** A JSON-RPC error response (payload-free: a fixed message and the decoder's code). */
function errorResponse(id, code, message, data) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}

/** The id of a message for an error answer: a unique, well-formed string or finite number, else null. */
function answerId(members, parsed) {
  let count = 0;
  for (let i = 0; i < members.length; i++) if (members[i].key === 'id') count++;
  if (count !== 1 || !isRecord(parsed)) return null;
  const id = own(parsed, 'id');
  if ((typeof id === 'number' && NumberIsFinite(id)) || isWellFormedString(id)) return id;
  return null;
}

/**
 * The text of `arguments` of each message, by the key object that stands in its place in
 * the message the server receives: a fresh empty record per message (the SDK's request
 * schemas accept only plain records there), found again by identity.
 */
const argumentsTexts = new SafeWeakMap();

function argumentsKey(rawArguments) {
  const key = {};
  WeakMapPrototypeSet(argumentsTexts, key, rawArguments);
  return key;
}

function argumentsTextFor(key) {
  return key !== null && typeof key === 'object' ? WeakMapPrototypeGet(argumentsTexts, key) : undefined;
}

/**
 * One message of a text, checked: `{ message }` to pass on (for tools/call, with its
 * arguments text set aside), or `{ response }` to answer instead.
 */
function checkMessage(text, start, end, parsed) {
  if (StringPrototypeCharCodeAt(text, start) !== 0x7b) return { __proto__: null, message: parsed, response: undefined };
  const members = membersOf(text, start);
  const method = isRecord(parsed) ? own(parsed, 'method') : undefined;
  const params = isRecord(parsed) ? own(parsed, 'params') : undefined;
  let argumentsMember;
  if (method === 'tools/call' && isRecord(params)) {
    const paramsMember = lastMember(members, 'params');
    argumentsMember = lastMember(membersOf(text, paramsMember.start), 'arguments');
  }
  // The whole message, strictly, with the arguments text set aside (it is checked by
  // prepareToolCallAsync, and its failures are the tool's, answered as a CallToolResult).
  const rest =
    argumentsMember === undefined
      ? StringPrototypeSlice(text, start, end)
      : `${StringPrototypeSlice(text, start, argumentsMember.start)}0${StringPrototypeSlice(text, argumentsMember.end, end)}`;
  try {
    decodeRequest(rest);
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return {
      __proto__: null,
      message: undefined,
      response: errorResponse(answerId(members, parsed), INVALID_REQUEST, 'Invalid Request', { stage: 'json', code: error.code }),
    };
  }
  if (method === 'tools/call' && isRecord(params)) {
    const rawArguments = argumentsMember === undefined ? '' : StringPrototypeSlice(text, argumentsMember.start, argumentsMember.end);
    ObjectDefineProperty(params, 'arguments', { __proto__: null, value: argumentsKey(rawArguments), writable: true, enumerable: true, configurable: true });
  }
  return { __proto__: null, message: parsed, response: undefined };
}

/** An own property of a value JSON.parse made (own data, or undefined: never an inherited one). */
function ownJson(value, key) {
  return ObjectHasOwn(value, key) ? value[key] : undefined;
}

/**
 * What stands in place of `arguments` in a message whose text travels with it (stdio, the
 * linked pair): one frozen empty record (the SDK's request schema accepts it and copies
 * it), defined through one frozen descriptor, so setting it aside allocates nothing.
 */
const ARGUMENTS_SET_ASIDE = ObjectFreeze({
  __proto__: null,
  value: ObjectFreeze({}),
  writable: true,
  enumerable: true,
  configurable: true,
});

/** Puts the value of a member decodeRequest set aside back in its place. */
function putBack(params, aside) {
  // decodeRequest made `arguments` an own data property: assigning it runs no setter.
  if (isArgumentsText(aside)) params.arguments = aside.decode();
}

/** putBack for a message of an array that is not read as a batch. */
function putBackIn(message) {
  const params = isRecord(message) ? ownJson(message, 'params') : undefined;
  if (isRecord(params)) putBack(params, ownJson(params, 'arguments'));
}

/**
 * The arguments of a message decodeRequest decoded with `params.arguments` set aside: its
 * ArgumentsText (what prepareToolCallAsync takes: the text, and the value decoded with the
 * message), '' when a tools/call's params have no arguments, or undefined when it is not
 * a tools/call with params (a member set aside there is put back: prompts/get has
 * `arguments` too). A tools/call's `params.arguments` is replaced by a key object that
 * finds its arguments again (`keyed`: the message is handed on without them, as
 * Streamable HTTP does), else by the shared empty record.
 */
function takeArguments(message, keyed) {
  if (!isRecord(message)) return undefined;
  const params = ownJson(message, 'params');
  if (!isRecord(params)) return undefined;
  const aside = ownJson(params, 'arguments');
  if (ownJson(message, 'method') !== 'tools/call') {
    putBack(params, aside);
    return undefined;
  }
  if (!isArgumentsText(aside)) {
    // Strict text whose decoding has params.arguments always has it set aside; without
    // the member, the arguments are '' (blank: `{}`).
    if (ObjectHasOwn(params, 'arguments')) return undefined;
    ObjectDefineProperty(
      params,
      'arguments',
      keyed ? { __proto__: null, value: argumentsKey(''), writable: true, enumerable: true, configurable: true } : ARGUMENTS_SET_ASIDE,
    );
    return '';
  }
  params.arguments = keyed ? argumentsKey(aside) : ARGUMENTS_SET_ASIDE.value;
  return aside;
}

/**
 * The whole text decoded once, strictly (the package's decodeRequest: its native check,
 * then one JSON.parse), or NOT_STRICT when it is not strict JSON (or blank, which
 * decodeRequest reads as `{}`): the caller then finds out why, the slow way.
 */
const NOT_STRICT = ObjectFreeze({ __proto__: null });

/** decodeRequest's options: the arguments of a tools/call (of each message of a batch) set aside. */
const SET_ASIDE = ObjectFreeze({ __proto__: null, setAside: ObjectFreeze(['params', 'arguments']) });

function decodeStrict(text, start) {
  if (start === text.length) return NOT_STRICT;
  try {
    return decodeRequest(text, SET_ASIDE);
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return NOT_STRICT;
  }
}

/**
 * One message text (stdio, the linked pair): `{ message, rawArguments }` to pass on (a
 * tools/call's arguments text set aside, else rawArguments undefined), or `{ response }`.
 * Strict text (every message of a conforming client) is decoded once; other text is read
 * again, the slow way, to answer it (a parse error, or an invalid request naming the
 * code) or to pass on a tools/call whose failure is inside `arguments` (the tool's).
 */
/**
 * What readOneMessage read: a class, so every read has one fast shape (an object literal
 * with a null prototype is made in dictionary mode, a slow object per message). Its
 * prototype is frozen and holds nothing a read looks up.
 */
class OneMessage {
  message;
  response;
  rawArguments;
  constructor(message, response, rawArguments) {
    this.message = message;
    this.response = response;
    this.rawArguments = rawArguments;
  }
}
ObjectFreeze(OneMessage.prototype);
ObjectFreeze(OneMessage);

function readOneMessage(text) {
  const start = skipWhitespace(text, 0);
  const message = decodeStrict(text, start);
  if (message === NOT_STRICT) {
    const read = readMessageTextSlowly(text, false);
    if (read.response !== undefined) return new OneMessage(undefined, read.response, undefined);
    const slow = read.messages[0];
    const params = isRecord(slow) && ownJson(slow, 'method') === 'tools/call' ? ownJson(slow, 'params') : undefined;
    return new OneMessage(slow, undefined, isRecord(params) ? argumentsTextFor(ownJson(params, 'arguments')) : undefined);
  }
  if (ArrayIsArray(message)) {
    // An array is no message (the SDK refuses it): what decodeRequest set aside is put back.
    for (let index = 0; index < message.length; index++) putBackIn(message[index]);
    return new OneMessage(message, undefined, undefined);
  }
  return new OneMessage(message, undefined, takeArguments(message, false));
}

/**
 * A message text (or, with `batch`, an array of messages): `{ messages }` to pass on, or
 * `{ response }`: a parse error for text that is not JSON, an invalid request for text
 * that is JSON but not strict JSON (a batch fails whole). Strict text is decoded once.
 */
function readMessageText(text, batch) {
  const start = skipWhitespace(text, 0);
  const parsed = decodeStrict(text, start);
  if (parsed === NOT_STRICT) return readMessageTextSlowly(text, batch);
  if (batch && ArrayIsArray(parsed)) {
    for (let index = 0; index < parsed.length; index++) takeArguments(parsed[index], true);
    return { __proto__: null, messages: parsed, response: undefined, batch: true };
  }
  if (ArrayIsArray(parsed)) {
    // Not read as a batch: whatever decodeRequest set aside in it is put back.
    for (let index = 0; index < parsed.length; index++) putBackIn(parsed[index]);
  } else {
    takeArguments(parsed, true);
  }
  return { __proto__: null, messages: [parsed], response: undefined, batch: false };
}

/** readMessageText for text that is not strict JSON as a whole: what fails, and where. */
function readMessageTextSlowly(text, batch) {
  let parsed;
  try {
    parsed = JSONParse(text);
  } catch {
    return { __proto__: null, messages: undefined, response: errorResponse(null, PARSE_ERROR, 'Parse error') };
  }
  const start = skipWhitespace(text, 0);
  if (batch && ArrayIsArray(parsed)) {
    const messages = [];
    let i = skipWhitespace(text, start + 1);
    for (let index = 0; index < parsed.length; index++) {
      const end = skipValue(text, i);
      const checked = checkMessage(text, i, end, parsed[index]);
      if (checked.response !== undefined) return { __proto__: null, messages: undefined, response: { ...checked.response, id: null } };
      ArrayPrototypePush(messages, checked.message);
      i = skipWhitespace(text, skipWhitespace(text, end) + 1);
    }
    return { __proto__: null, messages, response: undefined, batch: true };
  }
  const checked = checkMessage(text, start, skipValue(text, start), parsed);
  if (checked.response !== undefined) return { __proto__: null, messages: undefined, response: checked.response };
  return { __proto__: null, messages: [checked.message], response: undefined, batch: false };
}

/** UTF-8 bytes as text, or undefined when they are not UTF-8 (the SDK would put U+FFFD in). */
function decodeUtf8(bytes) {
  try {
    return TextDecoderPrototypeDecode(utf8, bytes);
  } catch {
    return undefined;
  }
}

module.exports = {
  PARSE_ERROR,
  INVALID_REQUEST,
  INTERNAL_ERROR,
  isRecord,
  errorResponse,
  argumentsTextFor,
  readMessageText,
  readOneMessage,
  decodeUtf8,
};
