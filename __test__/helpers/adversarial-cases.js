'use strict';
// The adversarial catalogue: hostile inputs for every entry point of the package, each
// with its expected canonical output or error code. core/adversarial.test.js runs every row
// through canonicalize, createSnapshot, decodeView, decodeRequest and prepareToolCall
// (whichever apply) and checks that no code of the value ran.
// node --test does not run this file: its name matches no test-file pattern.
//
// Row kinds:
// - value:   { make(counter) -> value, expect: { json } | { code }, env?, includePath?,
//              reference?: false | code, knownBug? }
//   make() may weave counting traps, getters and functions into the value; every one
//   of them calls counter.hit(), and the test requires counter.count === 0 afterwards.
//   env(run) installs a pollution or patch, calls run() and restores in `finally`.
//   reference: the strict JS reference (support/strict-reference.js) is compared on
//   every value row without env, unless `reference: false`, or a string naming the
//   code the reference gives where it knowingly differs.
// - text:    { text, view, request, prepare } for decodeView (snapshot text: -0 is an
//   error, blank text is invalid_json), decodeRequest (provider text: -0 passes, blank
//   text is {}) and prepareToolCall (stage json, then stage snapshot).
// - binding: { call(binding) -> unknown, expect: { code } } on the raw native binding.
//
// knownBug: a string describing a package bug that makes the row fail today; the test
// runs it as a node:test `todo` (reported, not failing the run) until it is fixed.

const vm = require('node:vm');

const { MAX_DEPTH } = require('../..');

// ---------------------------------------------------------------------------------
// Counters, traps and builders

/** Counts every run of code planted in a value. */
function newCounter() {
  const counter = {
    count: 0,
    log: [],
    hit(what) {
      counter.count += 1;
      if (counter.log.length < 20) counter.log.push(what);
    },
  };
  return counter;
}

const TRAPS = [
  'get',
  'set',
  'has',
  'ownKeys',
  'getOwnPropertyDescriptor',
  'getPrototypeOf',
  'defineProperty',
  'deleteProperty',
  'apply',
  'construct',
  'isExtensible',
  'preventExtensions',
  'setPrototypeOf',
];

const R = Reflect;

/** A Proxy handler defining every trap; each trap counts, then forwards. */
function countingHandler(counter) {
  const handler = {};
  for (const trap of TRAPS) {
    handler[trap] = (...args) => {
      counter.hit(`trap ${trap}`);
      return R[trap](...args);
    };
  }
  return handler;
}

function proxy(counter, target) {
  return new Proxy(target, countingHandler(counter));
}

function revokedProxy(counter, target) {
  const { proxy: p, revoke } = Proxy.revocable(target, countingHandler(counter));
  revoke();
  return p;
}

/** A getter/setter pair that counts. */
function accessors(counter, label) {
  return {
    get() {
      counter.hit(`getter ${label}`);
      return 1;
    },
    set() {
      counter.hit(`setter ${label}`);
    },
  };
}

function spy(counter, label) {
  return function spied() {
    counter.hit(label);
    return 'spied';
  };
}

function data(object, key, value, enumerable = true) {
  Object.defineProperty(object, key, { value, enumerable, writable: true, configurable: true });
  return object;
}

function reset(value, proto) {
  Object.setPrototypeOf(value, proto);
  return value;
}

function nested(levels, leaf, kind = 'array') {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = kind === 'array' ? [value] : kind === 'object' ? { k: value } : i % 2 ? [value] : { k: value };
  return value;
}

/**
 * Runs `run` with `key` of `target` replaced by `descriptor`; restores it in finally.
 * Descriptors are null-prototype objects: Object.defineProperty reads `get`, `set` and
 * `value` from the descriptor's prototype chain too, which some rows pollute.
 */
function patched(target, key, descriptor) {
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  return (run) => {
    const saved = describe(target, key);
    define(target, key, { __proto__: null, configurable: true, ...descriptor });
    try {
      return run();
    } finally {
      if (saved === undefined) delete target[key];
      else define(target, key, { __proto__: null, ...saved });
    }
  };
}

/** Several patches at once, restored in reverse order. */
function patches(...list) {
  return (run) => {
    const apply = (i) => (i === list.length ? run() : list[i](() => apply(i + 1)));
    return apply(0);
  };
}

// ---------------------------------------------------------------------------------
// Row builders

const CASES = [];
const ids = new Set();

function add(row) {
  const id = `${row.group}: ${row.name}`;
  if (ids.has(id)) throw new Error(`duplicate adversarial case ${id}`);
  ids.add(id);
  CASES.push({ ...row, id });
}

const ok = (json) => ({ json });
const err = (code) => ({ code });

/** A value row. */
function V(group, name, make, expect, extra = {}) {
  add({ kind: 'value', group, name, make, expect, ...extra });
}

/** A text row that every decoder rejects at stage json with `code`. */
function Tbad(group, name, text, code) {
  add({ kind: 'text', group, name, text, view: err(code), request: err(code), prepare: { stage: 'json', code } });
}

/** A text row every decoder accepts; `json` is its canonical form. */
function Tok(group, name, text, json) {
  add({ kind: 'text', group, name, text, view: ok(json), request: ok(json), prepare: ok(json) });
}

/** Negative zero: a snapshot-text error, a valid request, a snapshot-stage error. */
function Tnz(name, text) {
  add({
    kind: 'text',
    group: 'text negative_zero',
    name,
    text,
    view: err('negative_zero'),
    request: { negativeZero: true },
    prepare: { stage: 'snapshot', code: 'negative_zero' },
  });
}

function B(name, call, code) {
  add({ kind: 'binding', group: 'binding', name, call, expect: err(code) });
}

// ---------------------------------------------------------------------------------
// 1. Every domain code, at the root and nested

V('codes', 'undefined as an object member', () => ({ a: 1, u: undefined }), err('unsupported_type'));
V('codes', 'a bigint inside an array', () => [1, [2n]], err('unsupported_type'));
V('codes', 'a symbol value', () => ({ s: Symbol('x') }), err('unsupported_type'));
V('codes', 'a counting function as a member is not called', (c) => ({ f: spy(c, 'function member') }), err('unsupported_type'));
V('codes', 'NaN deep inside', () => ({ a: [{ b: [0, NaN] }] }), err('non_finite_number'));
V('codes', '-Infinity as the root', () => -Infinity, err('non_finite_number'));
V('codes', 'negative zero deep inside', () => [[[{ z: -0 }]]], err('negative_zero'));
V('codes', 'the string "-0" is data, not negative zero', () => ({ '-0': '-0' }), ok('{"-0":"-0"}'));
V('codes', 'a lone surrogate in a deep key', () => ({ a: { b: { '\udbff': 1 } } }), err('lone_surrogate'));
V('codes', 'a lone surrogate at the end of a long string', () => `${'x'.repeat(10000)}\ud83d`, err('lone_surrogate'));
V('codes', 'a Map nested in an array', () => [new Map()], err('non_plain_object'));
V(
  'codes',
  'a hole at the end of a long array',
  () => {
    const a = Array.from({ length: 1000 }, (_, i) => i);
    a.length = 1001;
    return a;
  },
  err('sparse_array'),
);
V('codes', 'an array with an extra numeric-looking property beyond 2^32-2', () => data([1], '4294967295', 1), err('array_extra_property'));
V(
  'codes',
  'an accessor three levels down',
  (c) => ({ a: [{ b: Object.defineProperty({}, 'g', { ...accessors(c, 'deep'), enumerable: true }) }] }),
  err('accessor_property'),
);
V('codes', 'a non-enumerable member of a null-prototype object', () => data(Object.create(null), 'h', 1, false), err('non_enumerable_property'));
V('codes', 'a symbol key on an empty object', () => ({ [Symbol.iterator]: 1 }), err('symbol_key'));
V(
  'codes',
  'a cycle through an own __proto__ key',
  () => {
    const o = {};
    data(o, '__proto__', o);
    return o;
  },
  err('cycle'),
);
V(
  'codes',
  'the same array under two __proto__ keys',
  () => {
    const shared = [1];
    return [data({}, '__proto__', shared), data({}, '__proto__', shared)];
  },
  err('repeated_reference'),
);
// A node:vm global object under a reset prototype cannot be told from a record before
// its keys are listed, and listing them runs its sandbox's Proxy traps (a limit
// documented in docs/security.md). A trap that calls the package again makes the outer
// call fail closed, whatever it would have returned (this trap calls nothing that counts).
V(
  'codes',
  'a node:vm global whose sandbox calls the package again while its keys are listed',
  () => {
    const pkg = require('../..');
    const sandbox = new Proxy(
      { a: 1 },
      {
        ownKeys(target) {
          try {
            pkg.canonicalize([1]);
          } catch {}
          return R.ownKeys(target);
        },
      },
    );
    const global = vm.runInContext('this', vm.createContext(sandbox));
    Object.setPrototypeOf(global, Object.prototype);
    return { before: 1, global };
  },
  err('reentrant_call'),
  { reference: false },
);
V('codes', `${MAX_DEPTH + 1} alternating containers`, () => nested(MAX_DEPTH + 1, 1, 'mixed'), err('depth_limit'), { reference: false });
V('codes', `exactly ${MAX_DEPTH} nested arrays are accepted`, () => nested(MAX_DEPTH, 0), ok(`${'['.repeat(MAX_DEPTH)}0${']'.repeat(MAX_DEPTH)}`), {
  reference: false,
});
// Short strings are concatenated into the tape's text: past the engine's maximum string
// length the walk stops with size_limit. (Long strings take another path, measured in
// core/adversarial.test.js's huge inputs.)
V('codes', 'short strings whose concatenation exceeds the engine string limit', () => new Array(540000).fill('x'.repeat(1000)), err('size_limit'), {
  reference: false,
  skipViews: true,
});
V(
  'codes',
  'the first failure in own-key order decides: integer keys come first',
  (c) => {
    const o = {};
    Object.defineProperty(o, 'b', { ...accessors(c, 'b'), enumerable: true });
    o[1] = -0;
    return o;
  },
  err('negative_zero'),
);
V(
  'codes',
  'the first failure in own-key order decides: insertion order for string keys',
  (c) => {
    const o = {};
    Object.defineProperty(o, 'b', { ...accessors(c, 'b'), enumerable: true });
    o.a = -0;
    return o;
  },
  err('accessor_property'),
);

// ---------------------------------------------------------------------------------
// 2. Proxies: every trap counts, none may run

V('proxy', 'a Proxy of a plain object', (c) => proxy(c, { a: 1 }), err('non_plain_object'));
V('proxy', 'a Proxy of an empty object', (c) => proxy(c, {}), err('non_plain_object'));
V('proxy', 'a Proxy of a null-prototype object', (c) => proxy(c, Object.create(null)), err('non_plain_object'));
V('proxy', 'a Proxy of an array', (c) => proxy(c, [1, 2]), err('non_plain_object'));
V('proxy', 'a Proxy of an empty array', (c) => proxy(c, []), err('non_plain_object'));
// A Proxy is named first, also when its target is callable (the reference agrees).
V('proxy', 'a Proxy of a function', (c) => proxy(c, function target() {}), err('non_plain_object'));
V('proxy', 'a Proxy of an arrow function', (c) => proxy(c, () => 1), err('non_plain_object'));
V('proxy', 'a Proxy of a class', (c) => proxy(c, class Target {}), err('non_plain_object'));
V('proxy', 'a Proxy of a Proxy', (c) => proxy(c, proxy(c, { a: 1 })), err('non_plain_object'));
V('proxy', 'a revoked Proxy of an object', (c) => revokedProxy(c, { a: 1 }), err('non_plain_object'));
V('proxy', 'a revoked Proxy of an array', (c) => revokedProxy(c, [1]), err('non_plain_object'));
V('proxy', 'a revoked Proxy of a function', (c) => revokedProxy(c, function target() {}), err('non_plain_object'));
V('proxy', 'a Proxy as an object member', (c) => ({ ok: 1, p: proxy(c, { a: 1 }) }), err('non_plain_object'));
V('proxy', 'a Proxy as an array element', (c) => [1, 'two', proxy(c, [3])], err('non_plain_object'));
V('proxy', 'a Proxy deep inside mixed containers', (c) => ({ a: [{ b: [null, { c: proxy(c, {}) }] }] }), err('non_plain_object'));
V('proxy', 'a revoked Proxy deep inside an array', (c) => [[[revokedProxy(c, {})]]], err('non_plain_object'));
V(
  'proxy',
  'a Proxy owning __proto__, constructor and prototype keys',
  (c) => proxy(c, JSON.parse('{"__proto__":1,"constructor":2,"prototype":3}')),
  err('non_plain_object'),
);
V('proxy', 'a Proxy as the value of an own __proto__ key', (c) => data({}, '__proto__', proxy(c, { a: 1 })), err('non_plain_object'));
V('proxy', 'a Proxy as the prototype of a plain object with own keys', (c) => data(Object.create(proxy(c, {})), 'a', 1), err('non_plain_object'));
V('proxy', 'a Proxy as the prototype of an array', (c) => reset([1], proxy(c, [])), err('non_plain_object'));
V('proxy', 'a Proxy of a frozen object', (c) => proxy(c, Object.freeze({ a: 1 })), err('non_plain_object'));
V(
  'proxy',
  'a Proxy of an object with a getter',
  (c) => proxy(c, Object.defineProperty({}, 'g', { ...accessors(c, 'target getter'), enumerable: true })),
  err('non_plain_object'),
);
V('proxy', 'a Proxy of a Date', (c) => proxy(c, new Date(0)), err('non_plain_object'));
V('proxy', 'a Proxy of a Map', (c) => proxy(c, new Map([[1, 2]])), err('non_plain_object'));
V('proxy', 'a Proxy inside a frozen array', (c) => Object.freeze([proxy(c, {})]), err('non_plain_object'));
V(
  'proxy',
  'the same Proxy twice is rejected as a Proxy first',
  (c) => {
    const p = proxy(c, {});
    return [p, p];
  },
  err('non_plain_object'),
);

// ---------------------------------------------------------------------------------
// 3. Getters and setters: never invoked

const acc = (c, label, enumerable = true) => ({ ...accessors(c, label), enumerable });
V('accessor', 'a getter and setter on an object', (c) => Object.defineProperty({ a: 1 }, 'g', acc(c, 'g')), err('accessor_property'));
V('accessor', 'a setter only', (c) => Object.defineProperty({}, 's', { set: accessors(c, 's').set, enumerable: true }), err('accessor_property'));
V('accessor', 'a getter only', (c) => Object.defineProperty({}, 'g', { get: accessors(c, 'g').get, enumerable: true }), err('accessor_property'));
V('accessor', 'a non-enumerable getter (the accessor is found first)', (c) => Object.defineProperty({}, 'g', acc(c, 'g', false)), err('accessor_property'));
V('accessor', 'a getter at array index 0', (c) => Object.defineProperty([0, 1], 0, acc(c, '[0]')), err('accessor_property'));
V(
  'accessor',
  'a setter at the last array index',
  (c) => Object.defineProperty([0, 1], 1, { set: accessors(c, '[1]').set, enumerable: true }),
  err('accessor_property'),
);
V('accessor', 'a getter on a frozen object', (c) => Object.freeze(Object.defineProperty({ a: 1 }, 'g', acc(c, 'g'))), err('accessor_property'));
V('accessor', 'a setter on a sealed object', (c) => Object.seal(Object.defineProperty({ a: 1 }, 's', acc(c, 's'))), err('accessor_property'));
V('accessor', 'a getter on a non-extensible object', (c) => Object.preventExtensions(Object.defineProperty({}, 'g', acc(c, 'g'))), err('accessor_property'));
V('accessor', 'a getter at an index of a frozen array', (c) => Object.freeze(Object.defineProperty([1, 2], 1, acc(c, '[1]'))), err('accessor_property'));
V('accessor', 'a getter at an index of a sealed array', (c) => Object.seal(Object.defineProperty([1, 2], 0, acc(c, '[0]'))), err('accessor_property'));
V('accessor', 'a getter on a null-prototype object', (c) => Object.defineProperty(Object.create(null), 'g', acc(c, 'g')), err('accessor_property'));
V('accessor', 'an own accessor named __proto__', (c) => Object.defineProperty({}, '__proto__', acc(c, '__proto__')), err('accessor_property'));
V('accessor', 'an own accessor named constructor', (c) => Object.defineProperty({}, 'constructor', acc(c, 'constructor')), err('accessor_property'));
V('accessor', 'an own accessor named length on an object', (c) => Object.defineProperty({ a: 1 }, 'length', acc(c, 'length')), err('accessor_property'));
V('accessor', 'a getter deep in an array of objects', (c) => [{ a: 1 }, { b: [Object.defineProperty({}, 'x', acc(c, 'x'))] }], err('accessor_property'));
V(
  'accessor',
  'a getter returning a valid value is still rejected',
  (c) =>
    Object.defineProperty({}, 'ok', {
      get() {
        c.hit('ok getter');
        return 'fine';
      },
      enumerable: true,
    }),
  err('accessor_property'),
);
V(
  'accessor',
  'a getter on a frozen null-prototype object',
  (c) => Object.freeze(Object.defineProperty(Object.create(null), 'g', acc(c, 'g'))),
  err('accessor_property'),
);

// ---------------------------------------------------------------------------------
// 4. Objects with internal slots under a reset prototype

const SLOTTED = [
  ['a Date', () => new Date(0)],
  ['a Map', () => new Map([[1, 2]])],
  ['a Set', () => new Set([1])],
  ['a RegExp', () => /x/g],
  ['a Uint8Array', () => new Uint8Array([1, 2])],
  ['a Number object', () => new Number(7)],
  ['a String object', () => new String('str')],
  ['an Error', () => new Error('boom')],
  ['a Promise', () => Promise.resolve(1)],
  ['a WeakRef', () => new WeakRef({})],
  ['an Intl.Collator', () => new Intl.Collator('en')],
  ['an Array iterator', () => [1, 2][Symbol.iterator]()],
  ['a Map iterator', () => new Map([[1, 2]]).entries()],
  ['a Set iterator', () => new Set([1]).values()],
  [
    'a generator object',
    () =>
      (function* gen() {
        yield 1;
      })(),
  ],
];
// Empty engine objects that util.types cannot name are refused through structuredClone
// (by the package and the strict reference alike).
for (const [label, make] of SLOTTED) {
  V('internal slots', `${label} whose prototype is reset to Object.prototype`, () => reset(make(), Object.prototype), err('non_plain_object'));
  V('internal slots', `${label} whose prototype is reset to null`, () => reset(make(), null), err('non_plain_object'));
}
V(
  'internal slots',
  'a Map iterator with own data under Object.prototype',
  () => reset(data(new Map().keys(), 'a', 1), Object.prototype),
  err('non_plain_object'),
);
V('internal slots', 'a Date with own data under null', () => reset(data(new Date(0), 'a', 1), null), err('non_plain_object'));

// Engine objects util.types cannot name (WeakRef, FinalizationRegistry, Intl objects,
// iterators) are told apart (by a structured clone that can run no code) only when they
// have no own properties.
// With a reset prototype AND own data properties no side-effect-free check can tell them
// from a plain record, so they are snapshotted as one (their own data, nothing else: the
// view is a plain object and no code of theirs runs). This is a limit documented in
// docs/security.md; these rows pin it so that a change is noticed.
const UNNAMED = [
  ['a WeakRef', () => new WeakRef({})],
  ['a FinalizationRegistry', () => new FinalizationRegistry(() => {})],
  ['an Intl.Collator', () => new Intl.Collator('en')],
  ['an Intl.NumberFormat', () => new Intl.NumberFormat('en')],
  ['an Array iterator', () => [][Symbol.iterator]()],
  ['a String iterator', () => ''[Symbol.iterator]()],
];
for (const [label, make] of UNNAMED) {
  V(
    'internal slots',
    `${label} with own data whose prototype is reset to Object.prototype (documented limit)`,
    () => reset(data(make(), 'a', 1), Object.prototype),
    ok('{"a":1}'),
    { reference: false },
  );
}

// ---------------------------------------------------------------------------------
// 5. Objects from another realm (node:vm)
//
// Decision: an object or array made in another realm (vm.runInNewContext, an iframe, a
// ShadowRealm) is rejected as non_plain_object, because its prototype is that realm's
// Object.prototype or Array.prototype, not this realm's. The package cannot tell a
// foreign realm's intrinsic prototype from any other object without running code of that
// realm, so it treats them alike. Null-prototype objects have no realm-specific
// prototype and are accepted from any realm; so are primitives. A foreign object whose
// prototype was reset to this realm's Object.prototype is an ordinary record here and is
// accepted. Callers with cross-realm data should JSON round-trip it (or decodeRequest its
// text) in this realm first.

const other = () => vm.runInNewContext('this');
V('cross-realm', 'an object literal from another realm', () => vm.runInNewContext('({ a: 1 })'), err('non_plain_object'));
V('cross-realm', 'an array literal from another realm', () => vm.runInNewContext('[1, 2]'), err('non_plain_object'));
V('cross-realm', 'an empty object from another realm', () => vm.runInNewContext('({})'), err('non_plain_object'));
V('cross-realm', 'JSON.parse output of another realm', () => vm.runInNewContext('JSON.parse(\'{"a":[1]}\')'), err('non_plain_object'));
V('cross-realm', 'a foreign object nested in a local object', () => ({ local: true, foreign: vm.runInNewContext('({ a: 1 })') }), err('non_plain_object'));
V('cross-realm', 'a foreign array nested in a local array', () => [1, vm.runInNewContext('[2]')], err('non_plain_object'));
V(
  'cross-realm',
  'a local object nested in a foreign array',
  () => {
    const g = other();
    const arr = g.Array.of({ a: 1 });
    return { arr };
  },
  err('non_plain_object'),
);
V(
  'cross-realm',
  'a foreign null-prototype object is accepted',
  () => vm.runInNewContext('Object.assign(Object.create(null), { b: 2, a: 1 })'),
  ok('{"a":1,"b":2}'),
);
V(
  'cross-realm',
  'a foreign null-prototype object holding a foreign plain object',
  () => vm.runInNewContext('Object.assign(Object.create(null), { a: {} })'),
  err('non_plain_object'),
);
V(
  'cross-realm',
  "a foreign object reset to this realm's Object.prototype is accepted",
  () => reset(vm.runInNewContext('({ a: 1 })'), Object.prototype),
  ok('{"a":1}'),
);
V(
  'cross-realm',
  "a foreign array reset to this realm's Array.prototype is accepted",
  () => reset(vm.runInNewContext('[1, "x"]'), Array.prototype),
  ok('[1,"x"]'),
);
V('cross-realm', 'a foreign Date', () => vm.runInNewContext('new Date(0)'), err('non_plain_object'));
V(
  'cross-realm',
  'a foreign Proxy of a function',
  (c) => {
    const g = other();
    return new g.Proxy(function f() {}, countingHandler(c));
  },
  err('non_plain_object'),
);
V('cross-realm', 'a foreign function', () => vm.runInNewContext('(function f() {})'), err('unsupported_type'));
V(
  'cross-realm',
  'primitives from another realm are realm-free',
  () => ({ s: vm.runInNewContext('"x"'), n: vm.runInNewContext('1.5'), b: vm.runInNewContext('true') }),
  ok('{"b":true,"n":1.5,"s":"x"}'),
);
V('cross-realm', 'negative zero from another realm', () => [vm.runInNewContext('-0')], err('negative_zero'));

// ---------------------------------------------------------------------------------
// 6. Array subclasses, changed prototypes, the intrinsic prototypes as values

class SubArray extends Array {}
V('arrays', 'an instance of an Array subclass', () => SubArray.of(1, 2), err('non_plain_object'));
V('arrays', 'an array constructed with a subclass new.target', () => Reflect.construct(Array, [1], SubArray), err('non_plain_object'));
V('arrays', 'an array whose prototype inherits from Array.prototype', () => reset([1], Object.create(Array.prototype)), err('non_plain_object'));
V('arrays', 'an array with a null prototype', () => reset([1], null), err('non_plain_object'));
V('arrays', 'an array with Object.prototype as prototype', () => reset([1], Object.prototype), err('non_plain_object'));
V('arrays', 'an array with an own constructor property', () => data([1], 'constructor', SubArray, false), err('array_extra_property'));
V('arrays', 'an array with an own Symbol.species', () => data([1], Symbol.species, SubArray, false), err('symbol_key'));
V('arrays', 'an array with a non-writable length is accepted', () => Object.defineProperty([1, 2], 'length', { writable: false }), ok('[1,2]'));
V('arrays', 'a frozen array of frozen objects is accepted', () => Object.freeze([Object.freeze({ b: 1, a: 2 })]), ok('[{"a":2,"b":1}]'));
V('arrays', 'Array.prototype as a value', () => ({ p: Array.prototype }), err('non_plain_object'));
V('arrays', 'Object.prototype as a value (its first own key is a non-enumerable method)', () => [Object.prototype], err('non_enumerable_property'));
V('arrays', 'a Node Buffer', () => Buffer.from('abc'), err('non_plain_object'));
V(
  'arrays',
  'an arguments object',
  () =>
    (function args() {
      return arguments;
    })(1, 2),
  err('non_plain_object'),
); // eslint-disable-line prefer-rest-params
V(
  'arrays',
  'an array with a hole and an extra property of the same count',
  () => {
    const a = [, 1];
    a.x = 1;
    return a;
  },
  err('sparse_array'),
); // eslint-disable-line no-sparse-arrays

// ---------------------------------------------------------------------------------
// 7. toJSON and Symbol.toPrimitive: data, never behaviour

V('toJSON', 'an enumerable toJSON method', (c) => ({ a: 1, toJSON: spy(c, 'toJSON') }), err('unsupported_type'));
V('toJSON', 'a non-enumerable toJSON on an object', (c) => data({ a: 1 }, 'toJSON', spy(c, 'toJSON'), false), err('non_enumerable_property'));
V('toJSON', 'a non-enumerable toJSON on an array', (c) => data([1], 'toJSON', spy(c, 'toJSON'), false), err('array_extra_property'));
V('toJSON', 'a toJSON string member is plain data', () => ({ toJSON: 'x', a: 1 }), ok('{"a":1,"toJSON":"x"}'));
V('toJSON', 'a toJSON null member is plain data', () => ({ toJSON: null }), ok('{"toJSON":null}'));
V('toJSON', 'an own Symbol.toPrimitive', (c) => ({ [Symbol.toPrimitive]: spy(c, 'toPrimitive') }), err('symbol_key'));
V(
  'toJSON',
  'a Date with own toJSON and toISOString',
  (c) => Object.assign(new Date(0), { toJSON: spy(c, 'Date toJSON'), toISOString: spy(c, 'toISOString') }),
  err('non_plain_object'),
);
V('toJSON', 'valueOf and toString string members are plain data', () => ({ valueOf: 'v', toString: 't' }), ok('{"toString":"t","valueOf":"v"}'));
V('toJSON', 'Object.prototype.toJSON is never called', () => ({ a: [1, { b: 2 }] }), ok('{"a":[1,{"b":2}]}'), {
  envFactory: (c) => patched(Object.prototype, 'toJSON', { value: spy(c, 'Object.prototype.toJSON'), writable: true }),
});
V('toJSON', 'Array.prototype.toJSON is never called', () => [[1], []], ok('[[1],[]]'), {
  envFactory: (c) => patched(Array.prototype, 'toJSON', { value: spy(c, 'Array.prototype.toJSON'), writable: true }),
});
V('toJSON', 'String and Number toJSON are never called', () => ['s', 1.5], ok('["s",1.5]'), {
  envFactory: (c) =>
    patches(
      patched(String.prototype, 'toJSON', { value: spy(c, 'String.prototype.toJSON'), writable: true }),
      patched(Number.prototype, 'toJSON', { value: spy(c, 'Number.prototype.toJSON'), writable: true }),
    ),
});
V('toJSON', 'Object.prototype[Symbol.toPrimitive] is never called', () => ({ a: {} }), ok('{"a":{}}'), {
  envFactory: (c) => patched(Object.prototype, Symbol.toPrimitive, { value: spy(c, 'toPrimitive'), writable: true }),
});
V('toJSON', 'a toJSON getter on Object.prototype is never called', () => ({ a: 1 }), ok('{"a":1}'), {
  envFactory: (c) => patched(Object.prototype, 'toJSON', { get: spy(c, 'toJSON getter') }),
});
V(
  'toJSON',
  'a non-enumerable toJSON on a null-prototype object',
  (c) => data(Object.create(null), 'toJSON', spy(c, 'toJSON'), false),
  err('non_enumerable_property'),
);

// ---------------------------------------------------------------------------------
// 8. Polluted Object.prototype and Array.prototype (restored in finally)

V('pollution', 'Array.prototype[1] = "x" does not fill a hole', () => [0, , 2], err('sparse_array'), {
  envFactory: () => patched(Array.prototype, '1', { value: 'x', writable: true, enumerable: true }),
}); // eslint-disable-line no-sparse-arrays
V('pollution', 'Array.prototype[1] = "x" leaves a dense array as it is', () => [0, 1, 2], ok('[0,1,2]'), {
  envFactory: () => patched(Array.prototype, '1', { value: 'x', writable: true, enumerable: true }),
});
V('pollution', 'a counting Array.prototype[0] getter does not fill a leading hole', () => [, 1], err('sparse_array'), {
  envFactory: (c) => patched(Array.prototype, '0', { get: spy(c, 'Array.prototype[0]'), enumerable: true }),
}); // eslint-disable-line no-sparse-arrays
V('pollution', 'Object.prototype[0] does not fill a hole either', () => ({ list: [, 1] }), err('sparse_array'), {
  envFactory: () => patched(Object.prototype, '0', { value: 'x', writable: true, enumerable: true }),
}); // eslint-disable-line no-sparse-arrays
V('pollution', 'a counting Object.prototype.polluted getter is never called', () => ({ a: { b: [{}] } }), ok('{"a":{"b":[{}]}}'), {
  envFactory: (c) => patched(Object.prototype, 'polluted', { get: spy(c, 'polluted getter'), enumerable: true }),
});
V('pollution', 'an enumerable Object.prototype.polluted value is not inherited into the output', () => ({ z: 1 }), ok('{"z":1}'), {
  envFactory: () => patched(Object.prototype, 'polluted', { value: 'x', writable: true, enumerable: true }),
});
V('pollution', 'an enumerable Array.prototype.extra is not an extra property', () => [1, [2]], ok('[1,[2]]'), {
  envFactory: () => patched(Array.prototype, 'extra', { value: 1, writable: true, enumerable: true }),
});
V('pollution', 'Object.prototype.length does not make an object array-like', () => ({}), ok('{}'), {
  envFactory: () => patched(Object.prototype, 'length', { value: 5, writable: true, enumerable: true }),
});
V('pollution', 'a counting setter for "a" on Object.prototype is never called, in views too', () => ({ a: { a: [1] } }), ok('{"a":{"a":[1]}}'), {
  envFactory: (c) => patched(Object.prototype, 'a', { ...accessors(c, 'Object.prototype.a') }),
});
V(
  'pollution',
  'a counting Object.prototype.__proto__ accessor is never used',
  () => data({ b: 1 }, '__proto__', { c: [] }),
  ok('{"__proto__":{"c":[]},"b":1}'),
  {
    envFactory: (c) =>
      patched(Object.prototype, '__proto__', {
        get() {
          c.hit('__proto__ getter');
          return Object.getPrototypeOf(this);
        },
        set(v) {
          c.hit('__proto__ setter');
          Object.setPrototypeOf(this, v);
        },
      }),
  },
);
V(
  'pollution',
  'counting setters for every descriptor field name on Object.prototype',
  () => ({ value: 1, get: [2], set: { enumerable: true } }),
  ok('{"get":[2],"set":{"enumerable":true},"value":1}'),
  {
    envFactory: (c) =>
      patches(
        ...['value', 'writable', 'enumerable', 'configurable', 'get', 'set'].map((k) =>
          patched(Object.prototype, k, { ...accessors(c, `Object.prototype.${k}`) }),
        ),
      ),
  },
);
V(
  'pollution',
  'an Object.prototype.value getter does not turn an accessor into data',
  (c) => Object.defineProperty({}, 'g', acc(c, 'own getter')),
  err('accessor_property'),
  {
    envFactory: (c) => patched(Object.prototype, 'value', { get: spy(c, 'Object.prototype.value getter') }),
  },
);
V('pollution', 'a counting Array.prototype[Symbol.iterator] is never called', () => ({ a: [1, [2, [3]]] }), ok('{"a":[1,[2,[3]]]}'), {
  envFactory: (c) => patched(Array.prototype, Symbol.iterator, { value: spy(c, 'array iterator'), writable: true }),
});
V('pollution', 'counting Object.prototype toString and valueOf are never called', () => ({ n: 1, s: 's', o: {} }), ok('{"n":1,"o":{},"s":"s"}'), {
  envFactory: (c) =>
    patches(
      patched(Object.prototype, 'toString', { value: spy(c, 'toString'), writable: true }),
      patched(Object.prototype, 'valueOf', { value: spy(c, 'valueOf'), writable: true }),
    ),
});
V('pollution', 'a thenable Object.prototype.then is never called', () => ({ a: 1 }), ok('{"a":1}'), {
  envFactory: (c) => patched(Object.prototype, 'then', { value: spy(c, 'then'), writable: true }),
});
V('pollution', 'a setter for "code" on Object.prototype neither runs nor hides the error code', () => ({ a: -0 }), err('negative_zero'), {
  envFactory: (c) => patched(Object.prototype, 'code', { ...accessors(c, 'Object.prototype.code') }),
});
V('pollution', 'a "get" accessor on Object.prototype is never consulted when an error is built', () => ({ a: -0 }), err('negative_zero'), {
  envFactory: (c) =>
    patched(Object.prototype, 'get', {
      get() {
        c.hit('Object.prototype.get');
        return undefined;
      },
    }),
});
V('pollution', 'a "set" accessor on Object.prototype is never consulted when an error is built', () => ['\ud800'], err('lone_surrogate'), {
  envFactory: (c) =>
    patched(Object.prototype, 'set', {
      get() {
        c.hit('Object.prototype.set');
        return undefined;
      },
    }),
});
const PREPARED_FIELDS = ['agentName', 'toolName', 'rawArguments', 'requestedArguments', 'snapshot', 'argsCanonicalJson', 'proposalHash'];
V('pollution', 'setters for the PreparedToolCall field names on Object.prototype are never called', () => ({ a: 1 }), ok('{"a":1}'), {
  envFactory: (c) => patches(...PREPARED_FIELDS.map((k) => patched(Object.prototype, k, { ...accessors(c, `Object.prototype.${k}`) }))),
});
V('pollution', 'a setter for "path" on Object.prototype never receives the JSON Pointer', () => ({ secretKey: { a: -0 } }), err('negative_zero'), {
  includePath: '/secretKey/a',
  envFactory: (c) => patched(Object.prototype, 'path', { ...accessors(c, 'Object.prototype.path') }),
});

// ---------------------------------------------------------------------------------
// 9. __proto__, constructor and prototype keys are data at every depth, views included

const PROTO_TEXTS = [
  ['__proto__ at the root', '{"__proto__":{"polluted":1}}', '{"__proto__":{"polluted":1}}'],
  ['constructor.prototype at the root', '{"constructor":{"prototype":{"polluted":1}}}', '{"constructor":{"prototype":{"polluted":1}}}'],
  ['prototype at the root', '{"prototype":{"polluted":true}}', '{"prototype":{"polluted":true}}'],
  [
    'all three with other keys, sorted by code units',
    '{"prototype":3,"constructor":2,"a":0,"__proto__":1}',
    '{"__proto__":1,"a":0,"constructor":2,"prototype":3}',
  ],
  ['__proto__ at depth 2', '{"a":{"__proto__":[1]}}', '{"a":{"__proto__":[1]}}'],
  [
    '__proto__ chained five levels',
    '{"__proto__":{"__proto__":{"__proto__":{"__proto__":{"__proto__":null}}}}}',
    '{"__proto__":{"__proto__":{"__proto__":{"__proto__":{"__proto__":null}}}}}',
  ],
  ['__proto__ and constructor inside an array', '[{"__proto__":1},{"constructor":{"name":"x"}}]', '[{"__proto__":1},{"constructor":{"name":"x"}}]'],
  [
    '__proto__ holding an array of objects with __proto__',
    '{"__proto__":[{"__proto__":{"x":1}},{"prototype":[]}]}',
    '{"__proto__":[{"__proto__":{"x":1}},{"prototype":[]}]}',
  ],
  [
    'Object.prototype method names as data',
    '{"valueOf":null,"toString":"x","hasOwnProperty":1,"isPrototypeOf":[]}',
    '{"hasOwnProperty":1,"isPrototypeOf":[],"toString":"x","valueOf":null}',
  ],
  ['__proto__ spelled with escapes', '{"\\u005f\\u005fproto\\u005f\\u005f":{"a":1}}', '{"__proto__":{"a":1}}'],
  [
    '__proto__ at depth 6 in mixed containers',
    '[{"a":[{"b":{"c":[{"__proto__":{"constructor":{"prototype":1}}}]}}]}]',
    '[{"a":[{"b":{"c":[{"__proto__":{"constructor":{"prototype":1}}}]}}]}]',
  ],
  [
    'near-miss spellings sort as plain keys',
    '{"__proto__ ":1,"__PROTO__":2,"__proto":3,"_proto__":4}',
    '{"__PROTO__":2,"__proto":3,"__proto__ ":1,"_proto__":4}',
  ],
];
for (const [name, text, json] of PROTO_TEXTS) {
  V('__proto__ keys', `${name} (value built by JSON.parse)`, () => JSON.parse(text), ok(json), { protoCheck: true });
  Tok('__proto__ text', name, text, json);
}
V('__proto__ keys', 'own __proto__ on a null-prototype object', () => data(Object.create(null), '__proto__', { a: 1 }), ok('{"__proto__":{"a":1}}'), {
  protoCheck: true,
});
V('__proto__ keys', 'own __proto__ whose value is a string', () => data({}, '__proto__', 'Object.prototype'), ok('{"__proto__":"Object.prototype"}'), {
  protoCheck: true,
});
V(
  '__proto__ keys',
  'computed-key __proto__ literal at three depths',
  () => ({ ['__proto__']: { ['__proto__']: [{ ['__proto__']: 0 }] } }),
  ok('{"__proto__":{"__proto__":[{"__proto__":0}]}}'),
  { protoCheck: true },
);

// ---------------------------------------------------------------------------------
// 10. RFC 8785 output on valid values (ordering, numbers, strings)

V('jcs', 'integer-like keys sort as strings', () => ({ 10: 1, 9: 2, a: 3, 1: 4, '-1': 5 }), ok('{"-1":5,"1":4,"10":1,"9":2,"a":3}'));
V('jcs', 'keys sort by UTF-16 code units, astral before U+FFFF', () => ({ '\uffff': 2, '😀': 1, é: 3, '': 4 }), ok('{"":4,"é":3,"😀":1,"\uffff":2}'));
V(
  'jcs',
  'numbers of every magnitude',
  () => [1e21, 1e-7, 5e-324, 1.7976931348623157e308, 9007199254740993, 0.1 + 0.2, -1e-7, 123e-20, 1e20],
  ok('[1e+21,1e-7,5e-324,1.7976931348623157e+308,9007199254740992,0.30000000000000004,-1e-7,1.23e-18,100000000000000000000]'),
);
V(
  'jcs',
  'control characters, quote, backslash, solidus, DEL, U+2028',
  () => ['\u0000\b\t\n\f\r\u001f"\\/\u007f\u2028é'],
  ok('["\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u2028é"]'),
);
V('jcs', 'a valid surrogate pair as key and value', () => ({ '\ud83d\ude00': '\ud83d\ude00' }), ok('{"😀":"😀"}'));
V('jcs', 'nested empty containers', () => [[], {}, [{}], { a: [] }], ok('[[],{},[{}],{"a":[]}]'));
V(
  'jcs',
  'a null-prototype root with nested null-prototype objects',
  () => Object.assign(Object.create(null), { b: Object.assign(Object.create(null), { d: 1, c: 2 }), a: null }),
  ok('{"a":null,"b":{"c":2,"d":1}}'),
);
V('jcs', 'primitive roots', () => [true, false, null, 0, '', 'x'], ok('[true,false,null,0,"","x"]'));
V('jcs', 'a long key and a key with every escape', () => ({ ['k'.repeat(5000)]: 1, '\n"\\': 2 }), ok(`{"\\n\\"\\\\":2,"${'k'.repeat(5000)}":1}`));
// Strings of 1024+ units go to the native side by reference (BIG_STRING); the output is
// Latin-1 when every unit is below 0x100 and UTF-16 otherwise. Each path, and the hash
// streamed from it, must give the same canonical text.
const big = (unit, n = 1500) => unit.repeat(n);
V('jcs strings', 'a long ASCII string', () => ({ s: big('a') }), ok(`{"s":"${big('a')}"}`));
V('jcs strings', 'a long Latin-1 string', () => ({ s: big('é') }), ok(`{"s":"${big('é')}"}`));
V('jcs strings', 'a long string above U+00FF', () => ({ s: big('€') }), ok(`{"s":"${big('€')}"}`));
V('jcs strings', 'a long string of surrogate pairs', () => [big('😀', 800)], ok(`["${big('😀', 800)}"]`));
V('jcs strings', 'a long string of escapes', () => [big('\n"\\\u0001', 400)], ok(`["${big('\\n\\"\\\\\\u0001', 400)}"]`));
V('jcs strings', 'a long string ending in a lone high surrogate', () => ({ a: 1, s: `${big('x')}\ud800` }), err('lone_surrogate'));
V('jcs strings', 'a long string starting with a lone low surrogate', () => [`\udc00${big('é')}`], err('lone_surrogate'));
V(
  'jcs strings',
  'a long string split inside a surrogate pair is two lone halves',
  () => {
    const s = big('😀', 600);
    return [s.slice(0, 1023), s.slice(1023)];
  },
  err('lone_surrogate'),
);
V('jcs strings', 'only the long string is above U+00FF', () => ({ short: 'é', long: big('€') }), ok(`{"long":"${big('€')}","short":"é"}`));
V('jcs strings', 'only a short string is above U+00FF', () => ({ short: '€', long: big('é') }), ok(`{"long":"${big('é')}","short":"€"}`));
V(
  'jcs strings',
  'strings of 1023, 1024 and 1025 units',
  () => [big('b', 1023), big('c', 1024), big('d', 1025)],
  ok(`["${big('b', 1023)}","${big('c', 1024)}","${big('d', 1025)}"]`),
);
V(
  'jcs strings',
  'the same long string many times (strings are not references)',
  () => {
    const s = big('r', 4096);
    return Array(50).fill(s);
  },
  ok(
    `[${Array(50)
      .fill(`"${big('r', 4096)}"`)
      .join(',')}]`,
  ),
);
V('jcs strings', 'Latin-1 keys and U+00FF', () => ({ ÿ: 1, þ: 2, '\u0080': 3 }), ok('{"\u0080":3,"þ":2,"ÿ":1}'));
V(
  'jcs',
  'equal but distinct objects are not repeated references',
  () => ({ a: { v: 1 }, b: { v: 1 }, c: [[], []] }),
  ok('{"a":{"v":1},"b":{"v":1},"c":[[],[]]}'),
);

// ---------------------------------------------------------------------------------
// 11. Text for decodeView, decodeRequest and prepareToolCall

const BAD_JSON = [
  ['a byte order mark', '\ufeff{}'],
  ['trailing garbage', '{} x'],
  ['a block comment', '{/*c*/}'],
  ['a line comment', '{"a":1}//'],
  ['single quotes', "{'a':1}"],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'],
  ['a hex number', '0x10'],
  ['a leading plus', '+1'],
  ['a leading dot', '.5'],
  ['a trailing dot', '1.'],
  ['an empty exponent', '1e'],
  ['an exponent sign only', '1e+'],
  ['a leading zero', '01'],
  ['a minus and a space', '- 1'],
  ['an unterminated string', '"abc'],
  ['a raw newline in a string', '"a\nb"'],
  ['a raw tab in a string', '"a\tb"'],
  ['a raw NUL in a string', '"\u0000"'],
  ['an unknown escape', '"\\x41"'],
  ['a short unicode escape', '"\\u12"'],
  ['an uppercase U escape', '"\\U0041"'],
  ['a backslash at the end', '"\\'],
  ['a trailing comma in an object', '{"a":1,}'],
  ['a missing colon', '{"a" 1}'],
  ['an unquoted key', '{a:1}'],
  ['a number key', '{1:2}'],
  ['True', 'True'],
  ['a truncated null', 'nul'],
  ['undefined', 'undefined'],
  ['an elision', '[,]'],
  ['a double comma', '[1,,2]'],
  ['a no-break space as whitespace', '\u00a0{}'],
  ['a line separator as whitespace', '\u2028{}'],
  ['a vertical tab as whitespace', '\u000b{}'],
  ['an unclosed array', '[1,2'],
  ['a closing bracket only', ']'],
  ['two documents', '[] []'],
];
for (const [name, text] of BAD_JSON) Tbad('text invalid_json', name, text, 'invalid_json');

const DUPLICATES = [
  ['the same key twice', '{"a":1,"a":1}'],
  ['the same key spelled with an escape', '{"a":1,"\\u0061":2}'],
  ['__proto__ twice', '{"__proto__":{},"__proto__":[]}'],
  ['non-adjacent duplicates', '{"a":1,"b":2,"c":3,"a":4}'],
  ['the empty key twice', '{"":1,"":2}'],
  ['an astral key raw and escaped', '{"😀":1,"\\ud83d\\ude00":2}'],
  ['a duplicate inside an array at depth 3', '[[{"x":{"k":1,"k":2}}]]'],
  ['a duplicate at depth 100', `${'{"a":'.repeat(99)}{"d":1,"d":2}${'}'.repeat(99)}`],
];
for (const [name, text] of DUPLICATES) Tbad('text duplicate_key', name, text, 'duplicate_key');

const LONE = [
  ['an escaped lone high surrogate', '"\\ud800"'],
  ['an escaped lone low surrogate', '"\\udc00"'],
  ['an escaped lone surrogate in a key', '{"\\ud800":1}'],
  ['an escaped reversed pair', '"\\ude00\\ud83d"'],
  ['a raw lone surrogate', '"x\ud800"'],
  ['an escaped high surrogate before an escaped letter', '"\\ud83d\\u0041"'],
  ['a high surrogate at the end of a string', '["a\\ud83d"]'],
  ['a raw high surrogate before an escaped low one', '"\ud83d\\ude00"'],
  ['an escaped high surrogate before a raw low one', '"\\ud83d\ude00"'],
  ['a key whose pair is half raw, half escaped', '{"\\ud83d\ude00":1}'],
];
for (const [name, text] of LONE) Tbad('text lone_surrogate', name, text, 'lone_surrogate');

for (const [name, text] of [
  ['1e400', '1e400'],
  ['-1e400', '-1e400'],
  ['an overflow in an array', '[1e309]'],
  ['an overflow as a member', '{"a":1.8e308}'],
]) {
  Tbad('text non_finite_number', name, text, 'non_finite_number');
}

for (const [name, text] of [
  ['-0', '-0'],
  ['-0.0', '-0.0'],
  ['-0e0', '-0e0'],
  ['-0 in an array', '[-0]'],
  ['-0E+3 as a member', '{"a":-0E+3}'],
  ['-1e-400 underflows to -0', '-1e-400'],
  ['-0.000', '-0.000'],
]) {
  Tnz(name, text);
}

Tbad('text depth_limit', `${MAX_DEPTH + 1} nested arrays`, `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`, 'depth_limit');
Tbad('text depth_limit', `${MAX_DEPTH + 1} nested objects`, `${'{"a":'.repeat(MAX_DEPTH + 1)}1${'}'.repeat(MAX_DEPTH + 1)}`, 'depth_limit');
// Text that is not JSON is invalid_json before any value rule (issue 9, item 10): a
// negative zero, a duplicate key, a lone surrogate or an overflow followed by garbage is
// invalid_json for snapshot text and provider text alike. Only the depth limit, a limit
// hit while reading, comes first (below).
add({
  kind: 'text',
  group: 'text order',
  name: 'a negative leading zero "-01"',
  text: '-01',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
add({
  kind: 'text',
  group: 'text order',
  name: '"-00" and "-0."',
  text: '[-00]',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
add({
  kind: 'text',
  group: 'text order',
  name: '"-0" then garbage',
  text: '[-0,}',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
add({
  kind: 'text',
  group: 'text order',
  name: 'a duplicate key before garbage',
  text: '{"a":1,"a":2} x',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
add({
  kind: 'text',
  group: 'text order',
  name: 'a lone surrogate before garbage',
  text: '["\\ud800" x',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
add({
  kind: 'text',
  group: 'text order',
  name: 'an overflow before garbage',
  text: '[1e999,,]',
  jsonParse: false,
  view: err('invalid_json'),
  request: err('invalid_json'),
  prepare: { stage: 'json', code: 'invalid_json' },
});
Tbad('text depth_limit', 'the depth limit is found before the missing closers', '['.repeat(MAX_DEPTH + 1), 'depth_limit');

Tok('text valid', 'whitespace around members', ' \t\r\n{"b" : 1 , "a" : [ true , false , null ] } \n', '{"a":[true,false,null],"b":1}');
Tok(
  'text valid',
  'number spellings',
  '[1E2,0.1e1,1e-7,-5e-324,123456789012345678901234567890,1e-400,2.50]',
  '[100,1,1e-7,-5e-324,1.2345678901234568e+29,0,2.5]',
);
Tok('text valid', 'escapes that canonicalize to raw characters', '"\\u00e9\\/\\u2028\\ud83d\\ude00"', '"é/\u2028😀"');
Tok('text valid', 'control characters keep short or lowercase escapes', '"\\u001F\\u0008\\u000a"', '"\\u001f\\b\\n"');
Tok('text valid', 'astral keys sort by code units', '{"\\uffff":2,"\\ud83d\\ude00":1}', '{"😀":1,"\uffff":2}');
Tok('text valid', 'integer-like keys sort as strings', '{"b":1,"a":1,"10":1,"9":1}', '{"10":1,"9":1,"a":1,"b":1}');
Tok('text valid', 'empty containers', '[{},[]]', '[{},[]]');
Tok('text valid', `exactly ${MAX_DEPTH} nested arrays`, `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`, `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`);
for (const [name, text] of [
  ['the empty string', ''],
  ['whitespace only', ' \t\r\n '],
]) {
  add({ kind: 'text', group: 'text blank', name, text, view: err('invalid_json'), request: { blank: true }, prepare: ok('{}') });
}

// ---------------------------------------------------------------------------------
// 12. The raw native binding: malformed tapes give internal_error, never a crash

/**
 * binding.encodeTape(tape, text, bigs, agentName?, toolName?) (src/binding/mod.rs): ops,
 * nums and lens in one buffer behind a header of 16 u32 words (ops, nums, lens, text and
 * bigs lengths, flags, then the byte offsets of nums, lens and ops). Header fields default
 * to what the streams hold; `names` passes agent and tool names.
 */
function tape(b, t) {
  const ops = t.ops || [];
  const nums = t.nums || [];
  const lens = t.lens || [];
  const text = t.text ?? '';
  const bigs = t.bigs || [];
  const numsOffset = 64;
  const lensOffset = numsOffset + nums.length * 8;
  const opsOffset = lensOffset + lens.length * 4;
  const memory = new ArrayBuffer(opsOffset + ops.length);
  new Float64Array(memory, numsOffset, nums.length).set(nums);
  new Uint32Array(memory, lensOffset, lens.length).set(lens);
  new Uint8Array(memory, opsOffset, ops.length).set(ops);
  new Uint32Array(memory, 0, 16).set([
    t.opsLen ?? ops.length,
    nums.length,
    lens.length,
    t.textLen ?? text.length,
    t.bigsLen ?? bigs.length,
    t.flags ?? 0,
    numsOffset,
    lensOffset,
    opsOffset,
  ]);
  const bytes = new Uint8Array(memory);
  if (t.detach) structuredClone(memory, { transfer: [memory] });
  return t.names ? b.encodeTape(bytes, text, bigs, t.names[0], t.names[1]) : b.encodeTape(bytes, text, bigs);
}
B('an op code out of range', (b) => tape(b, { ops: [9] }), 'internal_error');
B('opsLen past the buffer', (b) => tape(b, { ops: [0], opsLen: 2 }), 'internal_error');
B('an array count larger than its elements', (b) => tape(b, { ops: [5, 0], lens: [3] }), 'internal_error');
B('a string length past the text', (b) => tape(b, { ops: [4], lens: [10], text: 'abc' }), 'internal_error');
B('trailing ops after the value', (b) => tape(b, { ops: [0, 0] }), 'internal_error');
B('text left over', (b) => tape(b, { ops: [0], text: 'left' }), 'internal_error');
B('a number op without a number', (b) => tape(b, { ops: [3] }), 'internal_error');
B('a BIG_STRING op without a big string', (b) => tape(b, { ops: [7] }), 'internal_error');
B('big strings left over', (b) => tape(b, { ops: [0], bigs: ['x'.repeat(2000)] }), 'internal_error');
B('bigsLen past the bigs array', (b) => tape(b, { ops: [7], bigs: [], bigsLen: 1 }), 'internal_error');
B('an agent name without a tool name', (b) => tape(b, { ops: [0], names: ['agent', undefined] }), 'internal_error');
B('a text length past the text', (b) => tape(b, { ops: [4], lens: [2], text: 'ab', textLen: 3 }), 'internal_error');
B('a text longer than its length', (b) => tape(b, { ops: [4], lens: [2], text: 'abc', textLen: 2 }), 'internal_error');
B('a NaN on the tape', (b) => tape(b, { ops: [3], nums: [NaN] }), 'non_finite_number');
B('negative zero on the tape', (b) => tape(b, { ops: [5, 3], lens: [1], nums: [-0] }), 'negative_zero');
B('a lone surrogate in a big string', (b) => tape(b, { ops: [7], bigs: [`${'x'.repeat(2000)}\ud800`] }), 'lone_surrogate');
B('duplicate keys on the tape', (b) => tape(b, { ops: [6, 0, 0], lens: [2, 1, 1], text: 'aa' }), 'duplicate_key');
B(
  `${MAX_DEPTH + 1} nested arrays on the tape`,
  (b) => tape(b, { ops: [...Array(MAX_DEPTH + 1).fill(5), 0], lens: Array(MAX_DEPTH + 1).fill(1) }),
  'depth_limit',
);
B('a detached tape buffer', (b) => tape(b, { ops: [0], detach: true }), 'internal_error');

module.exports = { CASES, TRAPS, newCounter, countingHandler, accessors, spy, data, reset, nested, patched, patches };
