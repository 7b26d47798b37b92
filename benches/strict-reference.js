'use strict';
// A strict JavaScript implementation of the RFC-0016 snapshot rules, written the
// way a TypeScript runtime core does it: validate descriptors, build a detached
// tree, serialize it per RFC 8785 with V8's own string and number formatting, hash
// with node:crypto. It is the baseline the benchmark compares against and an
// independent oracle for the differential tests; it shares no code with the package.

const { createHash } = require('node:crypto');
const { types } = require('node:util');

const MAX_DEPTH = 1000;

class ReferenceError_ extends Error {
  constructor(code) {
    super(code);
    this.code = code;
  }
}

function fail(code) {
  throw new ReferenceError_(code);
}

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;
const hasOwn = Object.hasOwn;

function hasInternalSlots(v) {
  return types.isDate(v) || types.isRegExp(v) || types.isMap(v) || types.isSet(v) ||
    types.isWeakMap(v) || types.isWeakSet(v) || types.isAnyArrayBuffer(v) ||
    types.isArrayBufferView(v) || types.isBoxedPrimitive(v) || types.isNativeError(v) ||
    types.isPromise(v) || types.isGeneratorObject(v) || types.isMapIterator(v) ||
    types.isSetIterator(v) || types.isModuleNamespaceObject(v) || types.isArgumentsObject(v) ||
    types.isExternal(v);
}

function detach(value, depth, path, seen) {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) fail('lone_surrogate');
      return value;
    case 'number':
      if (!Number.isFinite(value)) fail('non_finite_number');
      if (value === 0 && 1 / value < 0) fail('negative_zero');
      return value;
    case 'boolean':
      return value;
    case 'object':
      break;
    case 'function':
      fail(types.isProxy(value) ? 'non_plain_object' : 'unsupported_type');
      break;
    default:
      fail('unsupported_type');
  }
  if (value === null) return null;
  if (types.isProxy(value)) fail('non_plain_object');
  if (path.has(value)) fail('cycle');
  if (seen.has(value)) fail('repeated_reference');
  if (depth >= MAX_DEPTH) fail('depth_limit');
  path.add(value);
  seen.add(value);
  let out;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== ARRAY_PROTO) fail('non_plain_object');
    const keys = Reflect.ownKeys(value);
    const length = value.length;
    out = new Array(length);
    for (let i = 0; i < length; i++) {
      const d = Object.getOwnPropertyDescriptor(value, i);
      if (d === undefined) fail('sparse_array');
      if (!hasOwn(d, 'value')) fail('accessor_property');
      if (!d.enumerable) fail('non_enumerable_property');
      out[i] = detach(d.value, depth + 1, path, seen);
    }
    for (const key of keys) {
      if (typeof key === 'symbol') fail('symbol_key');
    }
    if (keys.length !== length + 1) fail('array_extra_property');
  } else {
    const proto = Object.getPrototypeOf(value);
    if ((proto !== OBJECT_PROTO && proto !== null) || hasInternalSlots(value)) fail('non_plain_object');
    out = Object.create(null);
    const keys = Reflect.ownKeys(value);
    // Engine objects util.types cannot name refuse structured cloning, which reads
    // nothing from an object without own properties.
    if (keys.length === 0) {
      try {
        structuredClone(value);
      } catch {
        fail('non_plain_object');
      }
    }
    for (const key of keys) {
      if (typeof key === 'symbol') fail('symbol_key');
      if (!key.isWellFormed()) fail('lone_surrogate');
      const d = Object.getOwnPropertyDescriptor(value, key);
      if (!hasOwn(d, 'value')) fail('accessor_property');
      if (!d.enumerable) fail('non_enumerable_property');
      out[key] = detach(d.value, depth + 1, path, seen);
    }
  }
  path.delete(value);
  return out;
}

function serialize(v) {
  switch (typeof v) {
    case 'string': return JSON.stringify(v);
    case 'number': return String(v);
    case 'boolean': return v ? 'true' : 'false';
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + serialize(v[i]);
    return s + ']';
  }
  const keys = Object.keys(v).sort();
  let s = '{';
  for (let i = 0; i < keys.length; i++) {
    s += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + serialize(v[keys[i]]);
  }
  return s + '}';
}

function canonicalize(value) {
  return serialize(detach(value, 0, new Set(), new Set()));
}

function proposalHash(agentName, toolName, argsCanonicalJson) {
  const envelope = `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(argsCanonicalJson)},"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

function createSnapshot({ agentName, toolName, value }) {
  const argsCanonicalJson = canonicalize(value);
  return { agentName, toolName, argsCanonicalJson, proposalHash: proposalHash(agentName, toolName, argsCanonicalJson) };
}

module.exports = { canonicalize, createSnapshot, proposalHash, MAX_DEPTH, ReferenceError: ReferenceError_ };
