'use strict';
// What the durable grant stores share: reading their options and the records, queries
// and times the grants object hands them (own data properties only; a Proxy refused
// unread), the text encoding every store writes, the timeout every call runs under, and
// the errors a failed call rejects with (never holding a key, a value or a statement).

const { invalidArgument } = require('../errors');
// An own data property of an object, or undefined (an accessor is never called).
const { own } = require('../input');
const P = require('../primordials');

const { ObjectDefineProperty, ObjectFreeze, StringPrototypeCharCodeAt, StringPrototypeIsWellFormed, StringPrototypeSlice, isProxy } = P;

// Captured when the package loaded (this module loads at first use).
const { StringPrototypeIndexOf, NumberIsFinite, NumberIsSafeInteger, NumberParseInt, SafeError, SafePromise, PromiseReject } = P;
// Promises of a database client are attached to without looking anything up on
// Promise.prototype (lib/promises.js); a thenable that is not a native promise is refused.
const { attach, isPromise } = require('../promises');
const { ReflectApply, SafeSetTimeout: setTimer, SafeClearTimeout: clearTimer } = P;
const BRAND = P.SymbolFor('tool-argument-snapshot.error');

const DEFAULT_TABLE = 'tool_argument_snapshot_grants';
const DEFAULT_PREFIX = 'tas:grant:';
const DEFAULT_TIMEOUT_MS = 5000;
/** setTimeout's largest delay. */
const MAX_TIMEOUT_MS = 2147483647;
/**
 * The longest table name: the longest derived name (`<table>_proposals_expires`) then fits
 * the 63 bytes PostgreSQL keeps of an identifier (src/store/sqlite.rs uses the same limit).
 */
const MAX_TABLE_NAME = 41;

/** The options object of a factory: a plain object, a Proxy refused unread. */
function readOptions(options, factory) {
  if (options === null || typeof options !== 'object' || isProxy(options)) {
    throw invalidArgument(`${factory} expects an options object`);
  }
  return options;
}

/** Whether `name` is `[A-Za-z_][A-Za-z0-9_]*` of 1 to `max` characters. */
function isIdentifier(name, max) {
  if (name.length === 0 || name.length > max) return false;
  for (let i = 0; i < name.length; i++) {
    const c = StringPrototypeCharCodeAt(name, i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
    if (!letter && !(i > 0 && c >= 0x30 && c <= 0x39)) return false;
  }
  return true;
}

/**
 * `options.table` as `{ schema, name }` (default `tool_argument_snapshot_grants`). The name
 * is spliced into SQL (quoted), so only identifiers pass: a letter or `_`, then letters,
 * digits and `_`, at most 41 characters; `schema.table` where `allowSchema` (PostgreSQL),
 * the schema at most 63.
 */
function readTable(value, allowSchema) {
  if (value === undefined) return ObjectFreeze({ schema: null, name: DEFAULT_TABLE });
  if (typeof value === 'string') {
    const dot = StringPrototypeIndexOf(value, '.');
    const schema = dot === -1 ? null : StringPrototypeSlice(value, 0, dot);
    const name = dot === -1 ? value : StringPrototypeSlice(value, dot + 1);
    if ((schema === null || (allowSchema && isIdentifier(schema, 63))) && isIdentifier(name, MAX_TABLE_NAME)) {
      return ObjectFreeze({ schema, name });
    }
  }
  throw invalidArgument(
    `options.table must be an SQL identifier (a letter or _, then letters, digits or _; at most ${MAX_TABLE_NAME} characters)` +
      (allowSchema ? ', optionally schema-qualified (schema.table)' : ''),
  );
}

/** `options.timeoutMs`: whole milliseconds, 1 to 2147483647 (default 5000). */
function readTimeout(value) {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (!NumberIsSafeInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw invalidArgument(`options.timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

// Stored text. PostgreSQL's text cannot hold U+0000, and UTF-8 (PostgreSQL, Redis, the
// addon's strings) cannot hold a lone surrogate: it would become U+FFFD, and two keys
// that differ only there would meet. So U+0000, U+0001 and lone surrogates are written
// as U+0001 followed by `0`, `1` or `u` and four hex digits. Any other text (every name,
// scope and canonical JSON in practice) is stored as it is, and the mapping is one to one.

const HEX = '0123456789abcdef';

function needsEncoding(text) {
  return !StringPrototypeIsWellFormed(text) || StringPrototypeIndexOf(text, '\u0000') !== -1 || StringPrototypeIndexOf(text, '\u0001') !== -1;
}

function encodeText(text) {
  if (!needsEncoding(text)) return text;
  let out = '';
  let start = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    let escape;
    if (c === 0) escape = '\u00010';
    else if (c === 1) escape = '\u00011';
    else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < length ? StringPrototypeCharCodeAt(text, i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      escape = '\u0001u' + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
    } else continue;
    out += StringPrototypeSlice(text, start, i) + escape;
    start = i + 1;
  }
  return out + StringPrototypeSlice(text, start);
}

/** The inverse of encodeText (for text a store gives back: kept proposals). */
function decodeText(text) {
  let at = StringPrototypeIndexOf(text, '\u0001');
  if (at === -1) return text;
  let out = '';
  let start = 0;
  while (at !== -1) {
    out += StringPrototypeSlice(text, start, at);
    const kind = StringPrototypeSlice(text, at + 1, at + 2);
    if (kind === '0') {
      out += '\u0000';
      start = at + 2;
    } else if (kind === '1') {
      out += '\u0001';
      start = at + 2;
    } else {
      out += P.StringFromCharCode(NumberParseInt(StringPrototypeSlice(text, at + 2, at + 6), 16));
      start = at + 6;
    }
    at = StringPrototypeIndexOf(text, '\u0001', start);
  }
  return out + StringPrototypeSlice(text, start);
}

function isHash(text) {
  if (typeof text !== 'string' || text.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function readObject(value, what) {
  if (value === null || typeof value !== 'object' || isProxy(value)) throw invalidArgument(`${what} must be an object`);
  return value;
}

function readString(value, what) {
  if (typeof value !== 'string') throw invalidArgument(`${what} must be a string`);
  return value;
}

/** A string or null (an absent field reads as null). */
function readNullableString(value, what) {
  if (value === undefined || value === null) return null;
  return readString(value, what);
}

/** A finite number of milliseconds or null (an absent field reads as null). */
function readTime(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !NumberIsFinite(value)) throw invalidArgument(`${what} must be a finite number or null`);
  return value;
}

/** The grants' clock reading every time-dependent call is given. */
function readNow(now) {
  if (typeof now !== 'number' || !NumberIsFinite(now)) throw invalidArgument('now must be a finite number (milliseconds)');
  return now;
}

/**
 * A GrantQuery as the stores write it: names and scope encoded (encodeText), the hash
 * checked. `scope` absent reads as null.
 */
function readQuery(query) {
  const source = readObject(query, 'query');
  const proposalHash = own(source, 'proposalHash');
  if (!isHash(proposalHash)) throw invalidArgument('query.proposalHash must be 64 lowercase hex digits');
  const scope = readNullableString(own(source, 'scope'), 'query.scope');
  return {
    agentName: encodeText(readString(own(source, 'agentName'), 'query.agentName')),
    toolName: encodeText(readString(own(source, 'toolName'), 'query.toolName')),
    proposalHash,
    scope: scope === null ? null : encodeText(scope),
  };
}

/** A GrantRecord as the stores write it (see readQuery). */
function readRecord(record) {
  const query = readQuery(record);
  const uses = own(record, 'uses');
  if (!NumberIsSafeInteger(uses) || uses < 1) throw invalidArgument('record.uses must be a positive safe integer');
  const nonce = readNullableString(own(record, 'nonce'), 'record.nonce');
  query.argsCanonicalJson = encodeText(readString(own(record, 'argsCanonicalJson'), 'record.argsCanonicalJson'));
  query.expiresAt = readTime(own(record, 'expiresAt'), 'record.expiresAt');
  query.uses = uses;
  query.nonce = nonce === null ? null : encodeText(nonce);
  query.nonceExpiresAt = readTime(own(record, 'nonceExpiresAt'), 'record.nonceExpiresAt');
  return query;
}

function readProposalKey(key) {
  return encodeText(readString(key, 'key'));
}

/** The most kept proposals one listProposals call answers. */
const MAX_LIST_LIMIT = 1000;

/** listProposals' `limit`: a safe integer from 1 to MAX_LIST_LIMIT. */
function readListLimit(limit) {
  if (!NumberIsSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw invalidArgument(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  return limit;
}

/** listProposals' `after`: null (from the start) or a key as given, encoded as stored. */
function readListAfter(after) {
  if (after === null || after === undefined) return null;
  return encodeText(readString(after, 'after'));
}

/**
 * A page of listProposals from stored (encoded) keys and JSON texts, in the store's
 * order: fresh plain objects, text decoded; `next` is the stored key to continue after
 * (decoded), or null when the listing is done.
 */
function proposalPage(keys, jsons, next) {
  const proposals = [];
  for (let i = 0; i < keys.length; i++) {
    ObjectDefineProperty(proposals, i, {
      __proto__: null,
      value: { key: decodeText(keys[i]), json: decodeText(jsons[i]) },
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return { proposals, next: next === null ? null : decodeText(next) };
}

// Failures. The message names the store, the table or prefix, the operation and a code;
// `code` is `store_timeout`, `store_closed` or `store_failed`, and `detail` (when the
// cause gave one) a bare code such as an SQLSTATE, a system error or a Redis error kind.
// The cause itself is never attached: a driver's message can quote a key or a value.

const MESSAGES = { __proto__: null, store_timeout: 'timed out', store_closed: 'refused: the store is closed', store_failed: 'failed' };

function defineData(target, key, value, enumerable) {
  ObjectDefineProperty(target, key, { __proto__: null, value, enumerable, writable: false, configurable: true });
}

/** Whether `text` is a bare code (letters, digits, `_`, at most 40): safe to show. */
function isCode(text) {
  if (typeof text !== 'string' || text.length === 0 || text.length > 40) return false;
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f)) return false;
  }
  return true;
}

function storeError(where, operation, code, detail, hint, timeoutMs) {
  let text = `${where}: ${operation} ${MESSAGES[code]}`;
  if (timeoutMs !== undefined) text += ` after ${timeoutMs} ms`;
  if (detail !== undefined) text += ` (${detail}${hint === undefined ? '' : `: ${hint}`})`;
  const error = new SafeError(`${text} [${code}]`);
  defineData(error, 'name', 'GrantStoreError', false);
  defineData(error, BRAND, 'GrantStoreError', false);
  defineData(error, 'code', code, true);
  defineData(error, 'operation', operation, true);
  if (detail !== undefined) defineData(error, 'detail', detail, true);
  return error;
}

/**
 * Runs one store operation: `start()` returns a value or a promise (a synchronous throw
 * counts as a rejection). The result settles within `timeoutMs`: a late answer is dropped
 * (a take that lands after its timeout loses that use, it is never repeated). `classify`
 * turns a cause into `{ code, detail, hint }`.
 */
function run(where, operation, timeoutMs, classify, start) {
  let pending;
  try {
    pending = start();
  } catch (cause) {
    return PromiseReject(failure(where, operation, classify, cause, timeoutMs));
  }
  return new SafePromise((resolve, reject) => {
    const timer = setTimer(() => reject(storeError(where, operation, 'store_timeout', undefined, undefined, timeoutMs)), timeoutMs);
    const fulfilled = (value) => {
      clearTimer(timer);
      resolve(value);
    };
    const rejected = (cause) => {
      clearTimer(timer);
      reject(failure(where, operation, classify, cause, timeoutMs));
    };
    settleInto(pending, fulfilled, rejected);
  });
}

/**
 * Calls `onValue` with what `value` settles to, or `onError` with what it rejects with: a
 * native promise is attached to hook-free; anything else is a value as it is (no `then`
 * is looked up: a client's non-native thenable is then a value of the wrong type, which
 * the store's own checks refuse).
 */
function settleInto(value, onValue, onError) {
  if (!isPromise(value)) {
    onValue(value);
  } else if (!attach(value, onValue, onError)) {
    onError(BAD_RESULT);
  }
}
const BAD_RESULT = { code: 'bad_result' };

function failure(where, operation, classify, cause, timeoutMs) {
  if (cause !== null && typeof cause === 'object' && !isProxy(cause) && own(cause, BRAND) === 'GrantStoreError') return cause;
  const kind = classify(cause);
  const detail = isCode(kind.detail) ? kind.detail : undefined;
  return storeError(where, operation, kind.code, detail, detail === undefined ? undefined : kind.hint, kind.code === 'store_timeout' ? timeoutMs : undefined);
}

/** A thrown value's own `code` when it is a bare code (SQLSTATE, ECONNREFUSED), else undefined. */
function causeCode(cause) {
  if (cause === null || typeof cause !== 'object' || isProxy(cause)) return undefined;
  const code = own(cause, 'code');
  return isCode(code) ? code : undefined;
}

/**
 * A store method from `body`: an argument that fails validation (a TypeError thrown by
 * body before any I/O) becomes a rejection, like every other failure of a store call.
 */
function method(body) {
  return function storeMethod(a, b, c, d) {
    try {
      return body(a, b, c, d);
    } catch (error) {
      return PromiseReject(error);
    }
  };
}

/**
 * `value.then(onValue, onError)` for a value, a native promise or a database client's
 * promise, without a lookup on Promise.prototype: what the callbacks return (a value or a
 * native promise) settles the result the same way.
 */
function then(value, onValue, onError) {
  return new SafePromise((resolve, reject) => {
    const follow = (fn, argument, otherwise) => {
      if (fn === undefined) {
        otherwise(argument);
        return;
      }
      let next;
      try {
        next = fn(argument);
      } catch (error) {
        reject(error);
        return;
      }
      settleInto(next, resolve, reject);
    };
    settleInto(
      value,
      (result) => follow(onValue, result, resolve),
      (error) => follow(onError, error, reject),
    );
  });
}

/** Calls `method` on `target` with `args` (a method read once, at creation). */
function call(method, target, args) {
  return ReflectApply(method, target, args);
}

module.exports = {
  DEFAULT_PREFIX,
  DEFAULT_TABLE,
  DEFAULT_TIMEOUT_MS,
  MAX_TABLE_NAME,
  call,
  causeCode,
  decodeText,
  encodeText,
  isCode,
  method,
  own,
  MAX_LIST_LIMIT,
  proposalPage,
  readListAfter,
  readListLimit,
  readNow,
  readNullableString,
  readObject,
  readOptions,
  readProposalKey,
  readQuery,
  readRecord,
  readString,
  readTable,
  readTime,
  readTimeout,
  isHash,
  run,
  storeError,
  // A module only require()d inside the package, never awaited: its `then` is the helper above.
  // oxlint-disable-next-line unicorn/no-thenable
  then,
};
