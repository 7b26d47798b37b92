'use strict';
// Shared builders for the test files: values outside the strict snapshot domain of
// RFC-0016, one table row per case, grouped by the error code each must produce.
// node --test does not run this file: its name matches no test-file pattern.
//
// A row is { name, code, make(secret), at }:
// - make(secret) builds the offending value; it weaves `secret` into it wherever the
//   case allows (keys, values, function names, error messages, symbol descriptions),
//   so that leak checks can look for it;
// - at(enclosing) is the RFC 6901 JSON Pointer of the failure relative to the
//   offending value, when that value sits inside `enclosing` containers (only the
//   depth cases depend on it).

const { MAX_DEPTH } = require('../..');

/** Builds `levels` nested containers iteratively; `kind(i)` is 'array' or 'object' per level (0 = outermost). */
function nest(levels, kind, leaf) {
  let value = leaf;
  for (let i = levels - 1; i >= 0; i--) value = kind(i) === 'array' ? [value] : { k: value };
  return value;
}

/** The pointer segments of `nest`, for the first `count` levels. */
function nestPath(count, kind) {
  let path = '';
  for (let i = 0; i < count; i++) path += kind(i) === 'array' ? '/0' : '/k';
  return path;
}

const ARRAYS = () => 'array';
const OBJECTS = () => 'object';
const MIXED = (i) => (i % 2 === 0 ? 'array' : 'object');

/** The pointer of the container that first exceeds MAX_DEPTH, relative to the deep value. */
function depthAt(kind) {
  return (enclosing) => nestPath(MAX_DEPTH - enclosing, kind);
}

function at(pointer) {
  return () => pointer;
}

function withData(object, secret) {
  // Own data on an object that is rejected anyway: the secret must not leak from it.
  Object.defineProperty(object, secret, { value: secret, enumerable: true, writable: true, configurable: true });
  return object;
}

function reset(value, proto) {
  Object.setPrototypeOf(value, proto);
  return value;
}

function revoked(target) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

function named(name, fn) {
  Object.defineProperty(fn, 'name', { value: name });
  return fn;
}

// Built-ins whose internal slots make them something other than a plain record.
const BUILT_INS = [
  ['a Date', (s) => withData(new Date(0), s)],
  ['a RegExp', (s) => new RegExp(s)],
  ['a Map', (s) => new Map([[s, s]])],
  ['a Set', (s) => new Set([s])],
  ['a WeakMap', () => new WeakMap()],
  ['a WeakSet', () => new WeakSet()],
  ['a Uint8Array', () => new Uint8Array([1, 2])],
  ['a Float64Array', () => new Float64Array([1.5])],
  ['a BigInt64Array', () => new BigInt64Array(1)],
  ['a Node Buffer', (s) => Buffer.from(s)],
  ['an ArrayBuffer', () => new ArrayBuffer(8)],
  ['a SharedArrayBuffer', () => new SharedArrayBuffer(8)],
  ['a DataView', () => new DataView(new ArrayBuffer(8))],
  ['a Number object', () => new Number(1)],
  ['a String object', (s) => new String(s)],
  ['a Boolean object', () => new Boolean(false)],
  ['a BigInt object', () => Object(10n)],
  ['a Symbol object', (s) => Object(Symbol(s))],
  ['an Error', (s) => new Error(s)],
  ['a TypeError', (s) => new TypeError(s)],
  ['a Promise', (s) => Promise.resolve(s)],
];

// Built-ins the brief names for the prototype-reset variants.
const RESET_BUILT_INS = [
  ['a Date', () => new Date(0)],
  ['a Map', (s) => new Map([[s, s]])],
  ['a Set', (s) => new Set([s])],
  ['a RegExp', (s) => new RegExp(s)],
  ['a Uint8Array', () => new Uint8Array([1])],
  ['a Number object', () => new Number(1)],
  ['an Error', (s) => new Error(s)],
  ['a Promise', (s) => Promise.resolve(s)],
  ['a WeakMap', () => new WeakMap()],
  ['a WeakSet', () => new WeakSet()],
  ['an ArrayBuffer', () => new ArrayBuffer(4)],
  ['a DataView', () => new DataView(new ArrayBuffer(4))],
  ['a String object', (s) => new String(s)],
  ['a Boolean object', () => new Boolean(true)],
];

class SecretHolder {
  constructor(secret) {
    this[secret] = secret;
  }
}

class EmptyClass {}

class SecretArray extends Array {}

function argumentsObject(...values) {
  // eslint-disable-next-line prefer-rest-params
  return (function () {
    return arguments;
  })(...values);
}

const NON_PLAIN = [
  ...BUILT_INS.map(([label, make]) => [label, make]),
  ...RESET_BUILT_INS.flatMap(([label, make]) => [
    [`${label} whose prototype was reset to Object.prototype`, (s) => reset(make(s), Object.prototype)],
    [`${label} whose prototype was reset to null`, (s) => reset(make(s), null)],
  ]),
  ['an instance of a class with own data', (s) => new SecretHolder(s)],
  ['an instance of an empty class', () => new EmptyClass()],
  ['an object made with Object.create(someProto)', (s) => withData(Object.create({ inherited: s }), s)],
  ['an object whose prototype is a null-prototype object', (s) => withData(Object.create(Object.create(null)), s)],
  ['an object whose prototype inherits from Object.prototype', (s) => withData(Object.create(Object.create(Object.prototype)), s)],
  ['an array whose prototype was reset to Object.prototype', (s) => reset([s], Object.prototype)],
  ['an array whose prototype was reset to null', (s) => reset([s], null)],
  ['an array whose prototype is another object', (s) => reset([s], { [s]: s })],
  ['an array whose prototype inherits from Array.prototype', (s) => reset([s], Object.create(Array.prototype))],
  ['an instance of an Array subclass', (s) => SecretArray.from([s])],
  ['a Proxy of a plain object', (s) => new Proxy({ [s]: s }, {})],
  ['a Proxy of an array', (s) => new Proxy([s], {})],
  [
    'a Proxy of a function',
    (s) =>
      new Proxy(
        named(s, function () {}),
        {},
      ),
  ],
  ['a Proxy of a Proxy', (s) => new Proxy(new Proxy({ [s]: s }, {}), {})],
  ['a revoked Proxy of a plain object', (s) => revoked({ [s]: s })],
  ['a revoked Proxy of an array', (s) => revoked([s])],
  ['a revoked Proxy of a function', (s) => revoked(named(s, function () {}))],
  ['an arguments object', (s) => argumentsObject(s)],
  ['a generator object', () => (function* gen() {})()],
];

const RAW_CASES = [
  // unsupported_type
  ['undefined', 'unsupported_type', () => undefined],
  ['a bigint', 'unsupported_type', () => 10n],
  ['a symbol', 'unsupported_type', (s) => Symbol(s)],
  ['a registered symbol', 'unsupported_type', (s) => Symbol.for(s)],
  [
    'a function',
    'unsupported_type',
    (s) =>
      named(s, function () {
        return s;
      }),
  ],
  ['an arrow function', 'unsupported_type', (s) => named(s, () => s)],
  ['an async function', 'unsupported_type', (s) => named(s, async () => s)],
  ['a class constructor', 'unsupported_type', () => class Secret {}],
  ['a bound function', 'unsupported_type', (s) => named(s, function () {}).bind(null)],
  [
    'an object with a toJSON function member',
    'unsupported_type',
    (s) => ({
      [s]: s,
      toJSON() {
        return s;
      },
    }),
    at('/toJSON'),
  ],
  ['an array holding undefined', 'unsupported_type', (s) => [s, undefined], at('/1')],
  // non_finite_number
  ['NaN', 'non_finite_number', () => NaN],
  ['Infinity', 'non_finite_number', () => Infinity],
  ['-Infinity', 'non_finite_number', () => -Infinity],
  ['NaN as an object member', 'non_finite_number', (s) => ({ [s]: s, n: NaN }), at('/n')],
  // negative_zero
  ['negative zero', 'negative_zero', () => -0],
  ['negative zero in an array', 'negative_zero', (s) => [s, -0], at('/1')],
  ['negative zero as an object member', 'negative_zero', (s) => ({ [s]: s, z: -0 }), at('/z')],
  // lone_surrogate
  ['a lone high surrogate in a string', 'lone_surrogate', (s) => `${s}\ud800`],
  ['a lone low surrogate in a string', 'lone_surrogate', (s) => `\udc00${s}`],
  ['a reversed surrogate pair in a string', 'lone_surrogate', (s) => `${s}\ude00\ud83d`],
  ['a high surrogate followed by a letter', 'lone_surrogate', (s) => `\ud83dA${s}`],
  ['a lone surrogate in an array element', 'lone_surrogate', (s) => [s, 'x\udbffy'], at('/1')],
  ['a lone surrogate in a key', 'lone_surrogate', (s) => ({ [`${s}\ud800`]: s }), at('/SECRET\ud800')],
  ['a lone low surrogate as a nested key', 'lone_surrogate', (s) => ({ n: { '\udfff': s } }), at('/n/\udfff')],
  // non_plain_object
  ...NON_PLAIN.map(([label, make]) => [label, 'non_plain_object', make]),
  // sparse_array
  // The pointer of a hole is the index of the first missing element.
  ['an array with a leading hole', 'sparse_array', (s) => [, s], at('/0')], // eslint-disable-line no-sparse-arrays
  ['an array with a hole in the middle', 'sparse_array', (s) => [s, , s], at('/1')], // eslint-disable-line no-sparse-arrays
  ['an array with a trailing hole', 'sparse_array', (s) => [s, ,], at('/1')], // eslint-disable-line no-sparse-arrays
  ['an array made with new Array(3)', 'sparse_array', () => new Array(3), at('/0')],
  [
    'an array whose length was increased',
    'sparse_array',
    (s) => {
      const a = [s];
      a.length = 3;
      return a;
    },
    at('/1'),
  ],
  [
    'an array with a deleted element',
    'sparse_array',
    (s) => {
      const a = [s, s];
      delete a[0];
      return a;
    },
    at('/0'),
  ],
  // array_extra_property
  ['an array with a named property', 'array_extra_property', (s) => Object.assign([s], { [s]: s })],
  ['an empty array with a named property', 'array_extra_property', (s) => Object.assign([], { x: s })],
  ['an array with a "-1" property', 'array_extra_property', (s) => Object.assign([s], { '-1': s })],
  ['an array with a "4294967295" property (not an index)', 'array_extra_property', (s) => Object.assign([s], { 4294967295: s })],
  // accessor_property
  [
    'an object with a getter',
    'accessor_property',
    (s) => ({
      [s]: s,
      get g() {
        return s;
      },
    }),
    at('/g'),
  ],
  ['an object with a setter only', 'accessor_property', (s) => ({ [s]: s, set w(v) {} }), at('/w')],
  ['an array with a getter at an index', 'accessor_property', (s) => Object.defineProperty([s, s], 1, { get: () => s, enumerable: true }), at('/1')],
  [
    'a frozen object with a getter',
    'accessor_property',
    (s) =>
      Object.freeze({
        [s]: s,
        get g() {
          return s;
        },
      }),
    at('/g'),
  ],
  [
    'a sealed object with a getter',
    'accessor_property',
    (s) =>
      Object.seal({
        [s]: s,
        get g() {
          return s;
        },
      }),
    at('/g'),
  ],
  [
    'a null-prototype object with a getter',
    'accessor_property',
    (s) => Object.defineProperty(Object.create(null), 'g', { get: () => s, enumerable: true }),
    at('/g'),
  ],
  // non_enumerable_property
  [
    'an object with a non-enumerable property',
    'non_enumerable_property',
    (s) => Object.defineProperty({ [s]: s }, 'hidden', { value: s, enumerable: false }),
    at('/hidden'),
  ],
  ['an array with a non-enumerable index', 'non_enumerable_property', (s) => Object.defineProperty([s, s], 0, { value: s, enumerable: false }), at('/0')],
  [
    'a null-prototype object with a non-enumerable property',
    'non_enumerable_property',
    (s) => Object.defineProperty(Object.create(null), 'hidden', { value: s }),
    at('/hidden'),
  ],
  // symbol_key
  ['an object with a symbol key', 'symbol_key', (s) => ({ [s]: s, [Symbol(s)]: s })],
  ['an object with a non-enumerable symbol key', 'symbol_key', (s) => Object.defineProperty({ [s]: s }, Symbol(s), { value: s })],
  ['an object with a registered symbol key', 'symbol_key', (s) => ({ [Symbol.for(s)]: s })],
  ['an array with a symbol key', 'symbol_key', (s) => Object.assign([s], { [Symbol(s)]: s })],
  ['a null-prototype object with a symbol key', 'symbol_key', (s) => Object.assign(Object.create(null), { [Symbol(s)]: s })],
  // cycle
  [
    'a self-referencing object',
    'cycle',
    (s) => {
      const o = { [s]: s };
      o.self = o;
      return o;
    },
    at('/self'),
  ],
  [
    'an indirect cycle',
    'cycle',
    (s) => {
      const a = { [s]: s };
      a.b = { a };
      return a;
    },
    at('/b/a'),
  ],
  [
    'a cycle through an array',
    'cycle',
    (s) => {
      const o = { list: [s] };
      o.list.push(o);
      return o;
    },
    at('/list/1'),
  ],
  [
    'a self-containing array',
    'cycle',
    (s) => {
      const a = [s];
      a.push(a);
      return a;
    },
    at('/1'),
  ],
  // repeated_reference
  [
    'the same object in two sibling members',
    'repeated_reference',
    (s) => {
      const x = { [s]: s };
      return { a: x, b: x };
    },
    at('/b'),
  ],
  [
    'the same array twice in an array',
    'repeated_reference',
    (s) => {
      const x = [s];
      return [x, x];
    },
    at('/1'),
  ],
  [
    'the same empty object twice',
    'repeated_reference',
    () => {
      const e = {};
      return { a: e, b: e };
    },
    at('/b'),
  ],
  [
    'the same object at different depths',
    'repeated_reference',
    (s) => {
      const x = { [s]: s };
      return { a: { deep: x }, b: [x] };
    },
    at('/b/0'),
  ],
  // depth_limit
  [`${MAX_DEPTH + 1} nested arrays`, 'depth_limit', (s) => nest(MAX_DEPTH + 1, ARRAYS, s), depthAt(ARRAYS)],
  [`${MAX_DEPTH + 1} nested objects`, 'depth_limit', (s) => nest(MAX_DEPTH + 1, OBJECTS, s), depthAt(OBJECTS)],
  [`${MAX_DEPTH + 1} nested arrays and objects`, 'depth_limit', (s) => nest(MAX_DEPTH + 1, MIXED, s), depthAt(MIXED)],
];

const CASES = RAW_CASES.map(([name, code, make, where]) => ({ name, code, make, at: where || at('') }));

/**
 * Places the offending value inside a payload seeded with the secret in keys and
 * values next to it, at `/a/x~1y/1/m~0n` (4 enclosing containers).
 */
function wrap(secret, offending) {
  return {
    [secret]: secret,
    a: { 'x/y': [secret, { [`${secret}-before`]: secret, 'm~n': offending, [`${secret}-after`]: secret }] },
  };
}
const WRAP_PATH = '/a/x~1y/1/m~0n';
const WRAP_DEPTH = 4;

/** The expected pointer of a case's failure, with the offending value at the root or wrapped. */
function expectedPath(testCase, secret, wrapped) {
  const relative = testCase.at(wrapped ? WRAP_DEPTH : 0).replace(/SECRET/g, secret);
  return wrapped ? WRAP_PATH + relative : relative;
}

let secretCounter = 0;
/** A string that appears nowhere else: no `~`, no `/`, not integer-like. */
function newSecret() {
  secretCounter += 1;
  return `Secret${secretCounter}x${Math.random().toString(36).slice(2)}Zq`;
}

module.exports = { CASES, NON_PLAIN, nest, nestPath, wrap, WRAP_PATH, WRAP_DEPTH, expectedPath, newSecret, MAX_DEPTH };
