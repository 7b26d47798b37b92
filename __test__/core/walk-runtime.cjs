'use strict';
// The child script of core/walk.test.js, run by Node, Bun and Deno (node --test does
// not run this file: its name matches no test-file pattern). It prints, as JSON, what the
// package's walk gives for valid values and for one hostile value per check, and whether
// any planted code ran; every runtime must print the same.

const { canonicalize, createSnapshot, decodeView, prepareToolCall } = require('../..');

let runs = 0;
const hit = () => {
  runs++;
  return 1;
};
const traps = {};
for (const trap of ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'deleteProperty', 'apply', 'construct']) {
  traps[trap] = (...args) => {
    hit();
    return Reflect[trap](...args);
  };
}
const reset = (v, proto = null) => Object.setPrototypeOf(v, proto);
const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
const cyclic = { a: 1 };
cyclic.self = cyclic;
const shared = {};
const cases = [
  ['valid', { b: [1, 2.5, 'x', null, true, false, {}, []], a: { __proto__: null, c: 'é😀' }, long: 'L'.repeat(3000), n: [1e21, 5e-324, -1.5] }],
  ['many containers', Array.from({ length: 40 }, (_, i) => ({ i, list: [i, `${i}`] }))],
  ['a long array', Array.from({ length: 100 }, (_, i) => i / 3)],
  ['a Proxy', { p: new Proxy({}, traps) }],
  ['a getter', Object.defineProperty({}, 'g', { get: hit, enumerable: true })],
  [
    'a getter at an index of a long array',
    Object.defineProperty(
      Array.from({ length: 40 }, () => 0),
      30,
      { get: hit, enumerable: true },
    ),
  ],
  ['a setter at an index', Object.defineProperty([0, 1], 1, { set: hit, enumerable: true })],
  ['a non-enumerable index', Object.defineProperty([0, 1], 1, { value: 1, enumerable: false })],
  [
    'a non-enumerable extra on a long array',
    Object.defineProperty(
      Array.from({ length: 40 }, () => 0),
      'x',
      { value: 1 },
    ),
  ],
  ['a hole', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['a symbol key', { [Symbol('s')]: 1 }],
  ['a Date reset to null', reset(new Date(0))],
  ['a Map reset to null', reset(new Map())],
  ['a typed array reset to null', reset(new Uint8Array(2))],
  ['an Error reset to null', reset(new Error('x'))],
  ['an empty WeakRef reset to null', reset(new WeakRef({}))],
  ['an empty Intl.Collator reset to Object.prototype', reset(new Intl.Collator('en'), Object.prototype)],
  ['an empty array iterator reset to null', reset([][Symbol.iterator]())],
  ['an empty WebAssembly.Module reset to null', reset(new WebAssembly.Module(wasm))],
  ['an empty shared WebAssembly.Memory reset to Object.prototype', reset(new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true }), Object.prototype)],
  ['a class instance', new (class C {})()],
  ['a cycle', cyclic],
  ['a repeated reference', [shared, shared]],
  ['negative zero', [-0]],
  ['NaN', { n: NaN }],
  ['a lone surrogate', ['\ud800']],
  ['undefined', [undefined]],
];
const out = {};
for (const [label, value] of cases) {
  let r;
  try {
    const s = createSnapshot({ agentName: 'agent', toolName: 'tool', value });
    r = `${canonicalize(value)} ${s.proposalHash} ${JSON.stringify(decodeView(s))}`;
  } catch (e) {
    r = `${e.code} ${e.path}`;
    try {
      canonicalize(value, { includePath: true });
    } catch (e2) {
      r += ` ${e2.code} ${e2.path}`;
    }
  }
  out[label] = r;
}
for (const text of ['{"b":[1,2],"a":"x"}', ' ', '{"a":-0}', '{"a":1,"a":2}', '[1e400]']) {
  try {
    const p = prepareToolCall({ agentName: 'agent', toolName: 'tool', rawArguments: text });
    out[`text ${text}`] = `${p.argsCanonicalJson} ${p.proposalHash}`;
  } catch (e) {
    out[`text ${text}`] = `${e.stage} ${e.code}`;
  }
}
// Classifying an empty object calls no built-in an application could replace (Deno's
// structuredClone is JavaScript and iterates arrays unless handed its own iterable).
{
  const iterator = Array.prototype[Symbol.iterator];
  const arrayIteratorPrototype = Object.getPrototypeOf([][Symbol.iterator]());
  const next = arrayIteratorPrototype.next;
  let patchedRuns = 0;
  Object.defineProperty(Array.prototype, Symbol.iterator, {
    configurable: true,
    writable: true,
    value: function patched() {
      patchedRuns++;
      return iterator.call(this);
    },
  });
  Object.defineProperty(arrayIteratorPrototype, 'next', {
    configurable: true,
    writable: true,
    value: function patched() {
      patchedRuns++;
      return next.call(this);
    },
  });
  let r;
  try {
    r = canonicalize({ a: {}, b: [{}, Object.create(null)] });
  } catch (e) {
    r = e.code;
  } finally {
    Object.defineProperty(Array.prototype, Symbol.iterator, { configurable: true, writable: true, value: iterator });
    Object.defineProperty(arrayIteratorPrototype, 'next', { configurable: true, writable: true, value: next });
  }
  out['empty objects under patched array iteration'] = `${r} patched built-ins ran ${patchedRuns} time(s)`;
}
out.runs = runs;
process.stdout.write(JSON.stringify(out));
