'use strict';
// diffSnapshots: a reviewer's aid that lists where a proposed call's arguments differ
// from an approved one. Both sides are verified exactly as verifySnapshot verifies a
// stored record (a snapshot of this package verifies the same way), then decoded afresh
// from their verified canonical JSON: nothing is read from the caller's objects but the
// four fields verifySnapshot reads, and no code of theirs runs.
//
// A diff is never an authorization: an approval binds a proposal hash, and a call runs
// only when a policy allows it. The paths are JSON Pointers made of payload keys, and
// with includeValues the entries hold payload values: treat both as sensitive.
//
// Every built-in used here is captured at load, so later monkey-patching changes
// nothing; containers of the result are built with defined properties, so no setter on
// Object.prototype or Array.prototype is reached.

const { verifySnapshot } = require('./snapshot');
const P = require('./primordials');

// Captured when the package loaded (this module loads at first use).
const {
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  ObjectKeys,
  ObjectSetPrototypeOf,
  ArrayIsArray,
  ArrayPrototypeSort,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  JSONParse,
  SafeTypeError,
  isProxy,
} = P;

/** A TypeError with a Node-style code; the message never holds a name, key or value. */
function argumentError(message, code) {
  const error = new SafeTypeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: code, enumerable: true, writable: false, configurable: true });
  return error;
}

/** Whether options ask for values: `includeValues` read as an own data property. */
function readIncludeValues(options) {
  if (options === undefined || options === null) return false;
  if (typeof options !== 'object' || isProxy(options)) throw argumentError('diffSnapshots options must be an object', 'ERR_INVALID_ARG_TYPE');
  if (!ObjectHasOwn(options, 'includeValues')) return false;
  const descriptor = ObjectGetOwnPropertyDescriptor(options, 'includeValues');
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') && descriptor.value === true;
}

/** One RFC 6901 reference token: "~" is written "~0" and "/" is written "~1". */
function escapeToken(key) {
  let out = '';
  let start = 0;
  for (let i = 0; i < key.length; i++) {
    const c = StringPrototypeCharCodeAt(key, i);
    if (c === 0x7e || c === 0x2f) {
      out += `${StringPrototypeSlice(key, start, i)}${c === 0x7e ? '~0' : '~1'}`;
      start = i + 1;
    }
  }
  return start === 0 ? key : out + StringPrototypeSlice(key, start);
}

/** null, boolean, number, string, array or object: a change between two of them is not descended into. */
function typeOf(value) {
  if (value === null) return 'null';
  if (ArrayIsArray(value)) return 'array';
  return typeof value;
}

/** A list whose index writes reach no inherited setter (its prototype is null). */
function bareList() {
  return ObjectSetPrototypeOf([], null);
}

/** Sorted own keys: the default sort compares UTF-16 code units, RFC 8785's order. */
function sortedKeys(object) {
  return ArrayPrototypeSort(ObjectKeys(object));
}

function entry(path, kind, includeValues, approved, proposed) {
  if (!includeValues) return ObjectFreeze({ path, kind });
  if (kind === 'added') return ObjectFreeze({ path, kind, proposed });
  if (kind === 'removed') return ObjectFreeze({ path, kind, approved });
  return ObjectFreeze({ path, kind, approved, proposed });
}

/**
 * The differences between two decoded JSON values, in canonical order: a depth-first
 * walk that visits object members in RFC 8785 key order (the union of both sides' keys)
 * and array elements by index. Iterative: no depth of input can exhaust the stack.
 */
function differences(approvedRoot, proposedRoot, includeValues) {
  const out = [];
  let count = 0;
  // Work items, last in first out: path, then the two sides, then which sides exist.
  const stack = bareList();
  let top = 0;
  const push = (path, a, b, has) => {
    stack[top++] = path;
    stack[top++] = a;
    stack[top++] = b;
    stack[top++] = has;
  };
  const emit = (path, kind, a, b) => {
    ObjectDefineProperty(out, count++, {
      __proto__: null,
      value: entry(path, kind, includeValues, a, b),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  push('', approvedRoot, proposedRoot, 3);
  while (top > 0) {
    const has = stack[--top];
    const b = stack[--top];
    const a = stack[--top];
    const path = stack[--top];
    stack[top] = stack[top + 1] = stack[top + 2] = stack[top + 3] = undefined;
    if (has === 2) {
      emit(path, 'added', undefined, b);
      continue;
    }
    if (has === 1) {
      emit(path, 'removed', a, undefined);
      continue;
    }
    const type = typeOf(a);
    if (type !== typeOf(b)) {
      emit(path, 'changed', a, b);
      continue;
    }
    if (type === 'array') {
      // Children are pushed last first, so that they come out in index order.
      const longest = a.length > b.length ? a.length : b.length;
      for (let i = longest - 1; i >= 0; i--) {
        const childPath = `${path}/${i}`;
        if (i >= a.length) push(childPath, undefined, b[i], 2);
        else if (i >= b.length) push(childPath, a[i], undefined, 1);
        else push(childPath, a[i], b[i], 3);
      }
    } else if (type === 'object') {
      const aKeys = sortedKeys(a);
      const bKeys = sortedKeys(b);
      // Merge the two sorted key lists, then push the members in reverse.
      const merged = bareList();
      let m = 0;
      let i = 0;
      let j = 0;
      while (i < aKeys.length || j < bKeys.length) {
        if (j >= bKeys.length || (i < aKeys.length && aKeys[i] < bKeys[j])) {
          merged[m++] = aKeys[i++];
          merged[m++] = 1;
        } else if (i >= aKeys.length || bKeys[j] < aKeys[i]) {
          merged[m++] = bKeys[j++];
          merged[m++] = 2;
        } else {
          merged[m++] = aKeys[i++];
          merged[m++] = 3;
          j++;
        }
      }
      for (let k = m - 2; k >= 0; k -= 2) {
        const key = merged[k];
        const side = merged[k + 1];
        // Own data properties of a fresh JSON.parse result: "__proto__" is one too.
        push(`${path}/${escapeToken(key)}`, side & 1 ? a[key] : undefined, side & 2 ? b[key] : undefined, side);
      }
    } else if (a !== b) {
      emit(path, 'changed', a, b);
    }
  }
  return ObjectFreeze(out);
}

/**
 * The differences between an approved and a proposed snapshot of the same agent and tool:
 * a frozen array of frozen `{ path, kind }` in canonical key order, `path` an RFC 6901
 * JSON Pointer, `kind` 'added', 'removed' or 'changed' (a change of type is 'changed'
 * without descending; arrays by index). With `{ includeValues: true }` an entry also has
 * `approved` and/or `proposed`: fresh decoded copies of the values at that path.
 *
 * @throws {SnapshotDomainError} when either side does not verify (as verifySnapshot).
 * @throws {TypeError} (code ERR_INVALID_ARG_VALUE) when the agents or tools differ; (code
 *   ERR_INVALID_ARG_TYPE) when options is not an object or is a Proxy.
 */
function diffSnapshots(approved, proposed, options) {
  const includeValues = readIncludeValues(options);
  const left = verifySnapshot(approved);
  const right = verifySnapshot(proposed);
  if (left.agentName !== right.agentName) {
    throw argumentError('diffSnapshots compares two snapshots of one agent and one tool: the agent names differ', 'ERR_INVALID_ARG_VALUE');
  }
  if (left.toolName !== right.toolName) {
    throw argumentError('diffSnapshots compares two snapshots of one agent and one tool: the tool names differ', 'ERR_INVALID_ARG_VALUE');
  }
  if (left.argsCanonicalJson === right.argsCanonicalJson) return ObjectFreeze([]);
  return differences(JSONParse(left.argsCanonicalJson), JSONParse(right.argsCanonicalJson), includeValues);
}

module.exports = { diffSnapshots };
