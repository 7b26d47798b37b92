'use strict';
// Whether a provider text's lenient parse is the value a framework made of it: the same
// JSON data, own data properties only (no getter runs, no Proxy is read).

const {
  ArrayIsArray,
  isProxy,
  NumberIsNaN,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetOwnPropertyNames,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
} = require('./primordials');

const MAX_DEPTH = 1100;

/** Same JSON data, keys in the same order (the AI SDK's own parse of the text). */
function sameData(a, b, depth = 0) {
  if (a === b) return a !== 0 || 1 / a === 1 / b;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && NumberIsNaN(a) && NumberIsNaN(b);
  if (depth > MAX_DEPTH || isProxy(a) || isProxy(b)) return false;
  const arrays = ArrayIsArray(a);
  if (arrays !== ArrayIsArray(b)) return false;
  if (!arrays && (ObjectGetPrototypeOf(a) !== ObjectPrototype || ObjectGetPrototypeOf(b) !== ObjectPrototype)) return false;
  const namesA = ObjectGetOwnPropertyNames(a);
  const namesB = ObjectGetOwnPropertyNames(b);
  if (namesA.length !== namesB.length) return false;
  for (let i = 0; i < namesA.length; i++) {
    if (namesA[i] !== namesB[i]) return false;
    const da = ObjectGetOwnPropertyDescriptor(a, namesA[i]);
    const db = ObjectGetOwnPropertyDescriptor(b, namesB[i]);
    if (!ObjectHasOwn(da, 'value') || !ObjectHasOwn(db, 'value')) return false;
    if (!sameData(da.value, db.value, depth + 1)) return false;
  }
  return true;
}

/** What `dataOf` answers for an accessor property. */
const NOT_DATA = ObjectFreeze({});

/** The value of an own data property (undefined when absent), or NOT_DATA for an accessor. */
function dataOf(object, key) {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) return undefined;
  return ObjectHasOwn(descriptor, 'value') ? descriptor.value : NOT_DATA;
}

/**
 * Same JSON data in any key order, except that a property null on one side may be absent
 * or undefined on the other (a provider's compat layer turns such nulls into undefined in
 * place before the tool runs: Mastra's arguments).
 */
function sameArguments(a, b, depth = 0) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && NumberIsNaN(a) && NumberIsNaN(b);
  if (depth > MAX_DEPTH || isProxy(a) || isProxy(b)) return false;
  const arrays = ArrayIsArray(a);
  if (arrays !== ArrayIsArray(b)) return false;
  if (arrays) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameArguments(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (ObjectGetPrototypeOf(a) !== ObjectPrototype || ObjectGetPrototypeOf(b) !== ObjectPrototype) return false;
  const namesA = ObjectGetOwnPropertyNames(a);
  const namesB = ObjectGetOwnPropertyNames(b);
  for (let side = 0; side < 2; side++) {
    const names = side === 0 ? namesA : namesB;
    for (let i = 0; i < names.length; i++) {
      const va = dataOf(a, names[i]);
      const vb = dataOf(b, names[i]);
      if (va === NOT_DATA || vb === NOT_DATA) return false;
      const noneA = va === null || va === undefined;
      const noneB = vb === null || vb === undefined;
      if (noneA && noneB) continue;
      if (noneA !== noneB) return false;
      // Keys of both sides were compared on the first pass.
      if (side === 0 && !sameArguments(va, vb, depth + 1)) return false;
    }
  }
  return true;
}

module.exports = { sameData, sameArguments };
