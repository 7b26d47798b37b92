'use strict';
// Copies for fromJsonSchema (lib/json-schema/index.js): the schema is read once, as JSON
// data (own data properties; no getter runs, a Proxy is refused unread), and a value
// validated with defaults is a copy the package owns.

const { invalidArgument } = require('../errors');
const { pointerSegment } = require('../run/schemas');
const P = require('../primordials');

const {
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectGetOwnPropertyDescriptor,
  ObjectDefineProperty,
  ObjectHasOwn,
  ObjectPrototype,
  ReflectOwnKeys,
  ArrayIsArray,
  isProxy,
} = P;
// Captured when the package loaded (this module loads at first use).
const { SafeArray } = P;

/** Deepest nesting of a value validate copies (the strict decoder's limit, MAX_DEPTH). */
const MAX_DEPTH = 1024;

// ---------------------------------------------------------------------------------
// Copies: the schema is read once, as data; every validated value is the package's own.

/** A plain object: Object.prototype or null as prototype, not a Proxy. */
function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || isProxy(value) || ArrayIsArray(value)) return false;
  const proto = ObjectGetPrototypeOf(value);
  return proto === ObjectPrototype || proto === null;
}

function defineData(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

/**
 * A JSON copy of a schema (own enumerable data properties of plain objects and arrays;
 * strings, finite numbers, booleans, null), or a TypeError naming where it is not one.
 * No getter runs; a Proxy is refused unread.
 */
function copySchema(value, where, depth) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (value !== value || value === Infinity || value === -Infinity) throw invalidArgument(`fromJsonSchema: the schema holds a non-finite number at ${where}`);
    return value;
  }
  if (depth > MAX_DEPTH) throw invalidArgument('fromJsonSchema: the schema is nested too deeply');
  if (ArrayIsArray(value) && !isProxy(value)) {
    const length = value.length;
    const out = new SafeArray(length);
    for (let i = 0; i < length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(value, i);
      if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value'))
        throw invalidArgument(`fromJsonSchema: the schema holds a hole or an accessor at ${where}/${i}`);
      defineData(out, i, copySchema(descriptor.value, `${where}/${i}`, depth + 1));
    }
    return out;
  }
  if (!isPlainObject(value)) throw invalidArgument(`fromJsonSchema: the schema holds a value that is not JSON at ${where || '/'}`);
  const out = {};
  const keys = ReflectOwnKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(value, key);
    if (!descriptor.enumerable) continue;
    if (typeof key !== 'string' || !ObjectHasOwn(descriptor, 'value'))
      throw invalidArgument(`fromJsonSchema: the schema holds a symbol key or an accessor at ${where || '/'}`);
    defineData(out, key, copySchema(descriptor.value, `${where}/${pointerSegment(key)}`, depth + 1));
  }
  return out;
}

/** A frozen deep copy of a copied schema (for `jsonSchema`). */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    const keys = ReflectOwnKeys(value);
    for (let i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    ObjectFreeze(value);
  }
  return value;
}

/** A new mutable copy of a copied schema. */
function cloneSchema(value) {
  if (value === null || typeof value !== 'object') return value;
  if (ArrayIsArray(value)) {
    const out = new SafeArray(value.length);
    for (let i = 0; i < value.length; i++) defineData(out, i, cloneSchema(value[i]));
    return out;
  }
  const out = {};
  const keys = ReflectOwnKeys(value);
  for (let i = 0; i < keys.length; i++) defineData(out, keys[i], cloneSchema(value[keys[i]]));
  return out;
}

/**
 * The package's own copy of a value to validate: plain objects become new records of
 * their own enumerable data properties, dense arrays new arrays. Anything
 * else (a number, a string, and also a Date, a Map, an accessor, a sparse array) stays
 * as it is, for Ajv to judge and, if it passes, for the snapshot to refuse as RFC-0016
 * says. `undefined` when nested deeper than MAX_DEPTH.
 */
function copyValue(value, depth) {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return undefined;
  if (isProxy(value)) return value;
  if (ArrayIsArray(value)) {
    const length = value.length;
    const keys = ReflectOwnKeys(value);
    // Own keys of a dense array without extras: its indices and `length`.
    if (keys.length !== length + 1) return value;
    const out = new SafeArray(length);
    for (let i = 0; i < length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(value, i);
      if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value')) return value;
      const item = copyValue(descriptor.value, depth + 1);
      if (item === undefined && descriptor.value !== undefined) return undefined;
      defineData(out, i, item);
    }
    return out;
  }
  const proto = ObjectGetPrototypeOf(value);
  if (proto !== ObjectPrototype && proto !== null) return value;
  const keys = ReflectOwnKeys(value);
  const out = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(value, key);
    if (typeof key !== 'string' || !descriptor.enumerable || !ObjectHasOwn(descriptor, 'value')) return value;
    const item = copyValue(descriptor.value, depth + 1);
    if (item === undefined && descriptor.value !== undefined) return undefined;
    defineData(out, key, item);
  }
  return out;
}

module.exports = { MAX_DEPTH, defineData, copySchema, deepFreeze, cloneSchema, copyValue };
