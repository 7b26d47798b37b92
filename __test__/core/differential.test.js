'use strict';
// Differential tests against support/strict-reference.js, an independent JavaScript
// implementation of the same rules: for the benchmark payload classes and for
// thousands of seeded random values, canonicalize and createSnapshot agree with it
// exactly (JSON and hash); for random values with exactly one planted fault, both
// throw and agree on the code.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');

const { canonicalize, createSnapshot, decodeView } = require('../..');
const reference = require('../../support/strict-reference');
const { CLASSES, prng, anyDouble } = require('../../support/payloads');
const { BlockList } = require('node:net');

/** The smallest WebAssembly module: magic number and version. */
const WASM_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

const VALID_COUNT = 3000;
const FAULT_COUNT = 2500;

// ---------------------------------------------------------------------------------
// A seeded generator of JSON-safe values.

const KEY_POOL = [
  '0',
  '1',
  '2',
  '10',
  '01',
  '-1',
  '1.5',
  '4294967294',
  '4294967295',
  '9007199254740993',
  '1e3',
  '',
  ' ',
  'a',
  'B',
  'b',
  'aa',
  'ab',
  'A',
  'z',
  '_',
  '~',
  '/',
  '~1',
  'a/b',
  'm~n',
  '"',
  '\\',
  'é',
  'e\u0301',
  'Ω',
  'ß',
  '東京',
  '😀',
  '\ud83d\ude00x',
  '\uffff',
  '\ufffe',
  '\u00ff',
  '\u0100',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  'key\nline',
  'tab\t',
  '€',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'length',
];

const STRING_PIECES = [
  'plain',
  ' ',
  'é',
  'ü',
  'Ω',
  '東京',
  '😀',
  '𝄞',
  '\ud83d\ude00',
  '\udbff\udfff',
  '\ud800\udc00',
  '"',
  '\\',
  '/',
  '\b',
  '\f',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\uffff',
  '<',
  '>',
  '&',
  "'",
  '`',
  '${x}',
  'e\u0301',
  '\u200d',
];

const SPECIAL_NUMBERS = [
  0,
  1,
  -1,
  0.1,
  0.2,
  0.1 + 0.2,
  1 / 3,
  -2 / 3,
  1e21,
  1e20,
  123e20,
  1e-7,
  1e-6,
  1.5e-7,
  9.999999999999999e20,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  2 ** 31,
  2 ** 32,
  -(2 ** 31),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  2.2250738585072014e-308,
  2.225073858507201e-308,
  5e-324,
  1e308,
  4.35,
  0.000001,
  0.0000001,
  123456789012345680000,
  1.7976931348623157e308,
  333333333.3333333,
  1e-323,
];

function makeGenerator(seed) {
  const rand = prng(seed);
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(rand() * list.length)];

  function number() {
    switch (int(0, 5)) {
      case 0:
        return pick(SPECIAL_NUMBERS);
      case 1:
        return int(-1e9, 1e9);
      case 2: {
        // A random bit pattern: every exponent and mantissa shape.
        for (;;) {
          u32[0] = Math.floor(rand() * 2 ** 32);
          u32[1] = Math.floor(rand() * 2 ** 32);
          const v = f64[0];
          if (Number.isFinite(v) && !Object.is(v, -0)) return v;
        }
      }
      case 3:
        return Math.round((rand() - 0.5) * 1e6) / 10 ** int(0, 8);
      default: {
        const v = anyDouble(rand);
        return v === 0 ? 0 : v;
      }
    }
  }

  function string() {
    const n = int(0, 6);
    let s = '';
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.3) s += pick(STRING_PIECES);
      else if (r < 0.5) s += String.fromCharCode(int(0, 0x7f));
      else if (r < 0.6) s += String.fromCharCode(int(0x80, 0xd7ff));
      else if (r < 0.65) s += String.fromCharCode(int(0xe000, 0xffff));
      else if (r < 0.7) s += String.fromCodePoint(int(0x10000, 0x10ffff));
      else s += Math.floor(rand() * 1e6).toString(36);
    }
    return s;
  }

  function key() {
    const r = rand();
    if (r < 0.45) return pick(KEY_POOL);
    if (r < 0.6) return String(int(0, 5000));
    return string();
  }

  function defineData(object, k, v) {
    Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true });
  }

  function value(depth) {
    const r = rand();
    if (depth <= 0 || r < 0.35) {
      switch (int(0, 5)) {
        case 0:
          return null;
        case 1:
          return rand() < 0.5;
        case 2:
        case 3:
          return number();
        default:
          return string();
      }
    }
    if (r < 0.65) {
      const n = int(0, 5);
      const out = [];
      for (let i = 0; i < n; i++) out.push(value(depth - 1));
      return out;
    }
    const out = rand() < 0.15 ? Object.create(null) : {};
    const n = int(0, 6);
    for (let i = 0; i < n; i++) defineData(out, key(), value(depth - 1));
    return out;
  }

  function container(depth) {
    for (;;) {
      const v = value(depth);
      // Mostly non-empty, so that most faults land inside the value rather than in an empty root.
      if (v !== null && typeof v === 'object' && (Object.keys(v).length > 0 || rand() < 0.1)) return v;
    }
  }

  function name() {
    return rand() < 0.5 ? pick(['agent', 'Policy unit agent', 'search', 'write_file', '']) : string();
  }

  return { rand, int, pick, value, container, string, name, defineData };
}

// ---------------------------------------------------------------------------------
// Running both implementations.

function run(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, code: error.code, name: error.name, message: error.message };
  }
}

function describeOutcome(outcome) {
  return outcome.ok ? `ok ${String(outcome.value).slice(0, 200)}` : `throws ${outcome.code} (${outcome.name}: ${outcome.message})`;
}

/** Asserts that the package and the reference agree exactly on `value`. */
function assertAgrees(value, agentName, toolName, label) {
  const expected = run(() => reference.canonicalize(value));
  assert.ok(expected.ok, `${label}: the reference rejects the value: ${describeOutcome(expected)}`);
  const actual = run(() => canonicalize(value));
  assert.ok(actual.ok, `${label}: canonicalize rejects a value the reference accepts: ${describeOutcome(actual)}`);
  assert.equal(actual.value, expected.value, `${label}: canonicalize differs from the reference`);

  const snapshot = run(() => createSnapshot({ agentName, toolName, value }));
  assert.ok(snapshot.ok, `${label}: createSnapshot rejects a value the reference accepts: ${describeOutcome(snapshot)}`);
  const expectedSnapshot = reference.createSnapshot({ agentName, toolName, value });
  assert.equal(snapshot.value.argsCanonicalJson, expectedSnapshot.argsCanonicalJson, `${label}: createSnapshot JSON differs from the reference`);
  assert.equal(
    snapshot.value.proposalHash,
    expectedSnapshot.proposalHash,
    `${label}: createSnapshot hash differs from the reference (agent ${JSON.stringify(agentName)}, tool ${JSON.stringify(toolName)})`,
  );
  return snapshot.value;
}

describe('the package agrees with the strict reference on valid values', () => {
  for (const [className, make] of Object.entries(CLASSES)) {
    test(`every ${className} payload canonicalizes and hashes exactly like the reference`, () => {
      for (const seed of [1, 2, 3]) {
        const payload = make(seed);
        const values = Array.isArray(payload) && className === 'realistic' ? [payload, ...payload] : [payload];
        values.forEach((value, i) => {
          const label = `${className} seed ${seed}${values.length > 1 ? ` item ${i}` : ''}`;
          const snapshot = assertAgrees(value, 'Payload agent', `tool_${className}`, label);
          assert.equal(canonicalize(decodeView(snapshot)), snapshot.argsCanonicalJson, `${label}: the view round-trips`);
        });
      }
    });
  }

  test(`${VALID_COUNT} random JSON-safe values canonicalize and hash exactly like the reference`, () => {
    const gen = makeGenerator(0x5eed);
    for (let i = 0; i < VALID_COUNT; i++) {
      const value = i % 10 === 0 ? gen.value(1) : gen.value(gen.int(1, 6));
      const agentName = gen.name();
      const toolName = gen.name();
      const snapshot = assertAgrees(value, agentName, toolName, `random value #${i}`);
      const view = decodeView(snapshot);
      assert.equal(reference.canonicalize(view), snapshot.argsCanonicalJson, `random value #${i}: the view canonicalizes back (reference)`);
      if (view !== null && typeof view === 'object') {
        assert.notEqual(decodeView(snapshot.argsCanonicalJson), view, `random value #${i}: views are fresh`);
      }
    }
  });

  test('random objects with many integer-like and non-ASCII keys sort exactly like the reference', () => {
    const gen = makeGenerator(0xc0ffee);
    for (let i = 0; i < 300; i++) {
      const object = gen.rand() < 0.5 ? {} : Object.create(null);
      const n = gen.int(1, 40);
      for (let k = 0; k < n; k++) {
        const key = gen.rand() < 0.5 ? String(gen.int(0, 2 ** 33)) : gen.string();
        gen.defineData(object, key, k);
      }
      assertAgrees(object, 'agent', 'tool', `random keyed object #${i}`);
    }
  });

  test('every number shape formats exactly like the reference', () => {
    const gen = makeGenerator(0xf10a7);
    const numbers = [...SPECIAL_NUMBERS, ...SPECIAL_NUMBERS.map((n) => -n).filter((n) => !Object.is(n, -0))];
    for (let i = 0; i < 20000; i++) {
      const v = gen.value(0);
      if (typeof v === 'number') numbers.push(v);
    }
    // One array of all the numbers, and a few numbers alone at the root.
    assertAgrees(numbers, 'agent', 'tool', `${numbers.length} numbers`);
    for (const n of numbers.slice(0, 200)) assertAgrees(n, 'agent', 'tool', `the number ${n}`);
  });
});

// ---------------------------------------------------------------------------------
// Planting exactly one fault.

/** Every member slot of `root`: its parent, key, the containers above it and its old value. */
function slots(root) {
  const out = [];
  const walk = (container, ancestors) => {
    const chain = [...ancestors, container];
    const keys = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
    for (const key of keys) {
      const child = container[key];
      out.push({ parent: container, key, chain, child });
      if (child !== null && typeof child === 'object') walk(child, chain);
    }
  };
  walk(root, []);
  return out;
}

function allContainers(root) {
  const out = [{ container: root, chain: [root] }];
  for (const slot of slots(root)) {
    if (slot.child !== null && typeof slot.child === 'object') out.push({ container: slot.child, chain: [...slot.chain, slot.child] });
  }
  return out;
}

class Plain {
  constructor() {
    this.a = 1;
  }
}

function replace(slot, value) {
  Object.defineProperty(slot.parent, slot.key, { value, enumerable: true, writable: true, configurable: true });
}

// Faults that replace the value of a member slot.
const VALUE_FAULTS = [
  ['a Date', 'non_plain_object', () => new Date(0)],
  ['a Date reset to Object.prototype', 'non_plain_object', () => Object.setPrototypeOf(new Date(0), Object.prototype)],
  ['a Map', 'non_plain_object', () => new Map()],
  ['a Set reset to null', 'non_plain_object', () => Object.setPrototypeOf(new Set(), null)],
  ['a RegExp', 'non_plain_object', () => /x/],
  ['a Uint8Array', 'non_plain_object', () => new Uint8Array(2)],
  ['a Number object', 'non_plain_object', () => new Number(3)],
  ['an Error', 'non_plain_object', () => new Error('x')],
  ['a class instance', 'non_plain_object', () => new Plain()],
  ['an object with another prototype', 'non_plain_object', () => Object.create({ x: 1 })],
  ['an array reset to Object.prototype', 'non_plain_object', () => Object.setPrototypeOf([1], Object.prototype)],
  ['a Proxy', 'non_plain_object', () => new Proxy({ a: 1 }, {})],
  ['a Proxy of an array', 'non_plain_object', () => new Proxy([1], {})],
  ['negative zero', 'negative_zero', () => -0],
  ['NaN', 'non_finite_number', () => NaN],
  ['Infinity', 'non_finite_number', () => Infinity],
  ['-Infinity', 'non_finite_number', () => -Infinity],
  ['undefined', 'unsupported_type', () => undefined],
  ['a function', 'unsupported_type', () => function f() {}],
  ['a bigint', 'unsupported_type', () => 5n],
  ['a symbol', 'unsupported_type', () => Symbol('s')],
  ['a lone high surrogate', 'lone_surrogate', () => 'ab\ud800'],
  ['a lone low surrogate', 'lone_surrogate', () => '\udc00'],
  ['a holey array', 'sparse_array', () => [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['an array with a named property', 'array_extra_property', () => Object.assign([1], { extra: 1 })],
  [
    'the same object twice',
    'repeated_reference',
    () => {
      const s = { s: 1 };
      return [s, s];
    },
  ],
  // Engine and host objects no util.types check names, empty under a reset prototype.
  ['an empty WeakRef reset to Object.prototype', 'non_plain_object', () => Object.setPrototypeOf(new WeakRef({}), Object.prototype)],
  ['an empty FinalizationRegistry reset to null', 'non_plain_object', () => Object.setPrototypeOf(new FinalizationRegistry(() => {}), null)],
  ['an empty Intl.Collator reset to null', 'non_plain_object', () => Object.setPrototypeOf(new Intl.Collator('en'), null)],
  ['a WebAssembly.Module reset to null', 'non_plain_object', () => Object.setPrototypeOf(new WebAssembly.Module(WASM_HEADER), null)],
  [
    'a shared WebAssembly.Memory reset to Object.prototype',
    'non_plain_object',
    () => Object.setPrototypeOf(new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true }), Object.prototype),
  ],
  [
    'a BlockList without its handle, reset to Object.prototype',
    'non_plain_object',
    () => {
      const list = new BlockList();
      for (const symbol of Object.getOwnPropertySymbols(list)) delete list[symbol];
      return Object.setPrototypeOf(list, Object.prototype);
    },
  ],
];

function plantFault(gen, root) {
  const all = slots(root);
  const slot = all.length > 0 ? gen.pick(all) : undefined;
  const kind = gen.int(0, 11);
  if (slot === undefined || kind < 4) {
    // Replace a slot's value, or the whole (empty) root's only member.
    const [label, code, make] = gen.pick(VALUE_FAULTS);
    if (slot === undefined) {
      if (Array.isArray(root)) root.push(make());
      else root.k = make();
      return { label: `${label} in an empty root`, code };
    }
    replace(slot, make());
    return { label, code };
  }
  switch (kind) {
    case 4: {
      Object.defineProperty(slot.parent, slot.key, { get: () => slot.child, enumerable: true, configurable: true });
      return { label: 'a getter', code: 'accessor_property' };
    }
    case 5: {
      Object.defineProperty(slot.parent, slot.key, { value: slot.child, enumerable: false, writable: true, configurable: true });
      return { label: 'a non-enumerable property', code: 'non_enumerable_property' };
    }
    case 6: {
      // A cycle: the slot points at one of the containers above it.
      replace(slot, gen.pick(slot.chain));
      return { label: 'a cycle', code: 'cycle' };
    }
    case 7: {
      // A repeated reference: the slot points at a container that is neither above it nor inside its old value.
      const candidates = allContainers(root).filter(({ container, chain }) => !slot.chain.includes(container) && !chain.includes(slot.child));
      if (candidates.length === 0) {
        replace(
          slot,
          (() => {
            const s = {};
            return { a: s, b: s };
          })(),
        );
      } else {
        replace(slot, gen.pick(candidates).container);
      }
      return { label: 'a repeated reference', code: 'repeated_reference' };
    }
    case 8: {
      const target = gen.pick(allContainers(root)).container;
      target[Symbol('planted')] = 1;
      return { label: 'a symbol key', code: 'symbol_key' };
    }
    case 9: {
      // A lone surrogate in a key: on an object, or inside a new object in place of the slot.
      const objects = allContainers(root)
        .map(({ container }) => container)
        .filter((c) => !Array.isArray(c));
      if (objects.length > 0) {
        gen.defineData(gen.pick(objects), `k\ud800${gen.int(0, 9)}`, 1);
      } else {
        replace(slot, { '\udc00': 1 });
      }
      return { label: 'a lone surrogate key', code: 'lone_surrogate' };
    }
    case 10: {
      // A hole: in an existing array, or a new holey array in place of the slot.
      const arrays = allContainers(root)
        .map(({ container }) => container)
        .filter((c) => Array.isArray(c));
      if (arrays.length > 0) {
        const array = gen.pick(arrays);
        if (array.length > 0 && gen.rand() < 0.5) delete array[gen.int(0, array.length - 1)];
        else array.length += 1;
      } else {
        replace(slot, [1, , 2]); // eslint-disable-line no-sparse-arrays
      }
      return { label: 'a hole', code: 'sparse_array' };
    }
    default: {
      // An extra property on an existing array, or an array with one in place of the slot.
      const arrays = allContainers(root)
        .map(({ container }) => container)
        .filter((c) => Array.isArray(c));
      if (arrays.length > 0) gen.pick(arrays).extra = true;
      else replace(slot, Object.assign([], { extra: true }));
      return { label: 'an array extra property', code: 'array_extra_property' };
    }
  }
}

describe('the package agrees with the strict reference on values with one fault', () => {
  test(`${FAULT_COUNT} random values with exactly one planted fault throw the same code in both`, () => {
    const gen = makeGenerator(0xfa017);
    const seenCodes = new Set();
    for (let i = 0; i < FAULT_COUNT; i++) {
      const root = gen.container(gen.int(1, 5));
      const before = run(() => reference.canonicalize(root));
      assert.ok(before.ok, `faulty value #${i}: the generated value is valid before planting`);
      const { label, code } = plantFault(gen, root);
      const name = `faulty value #${i} (${label})`;
      const expected = run(() => reference.canonicalize(root));
      const actual = run(() => canonicalize(root));
      const snapshot = run(() => createSnapshot({ agentName: 'agent', toolName: 'tool', value: root }));
      assert.equal(expected.ok, false, `${name}: the reference accepted the value: ${describeOutcome(expected)}`);
      assert.equal(actual.ok, false, `${name}: canonicalize accepted the value: ${describeOutcome(actual)}`);
      assert.equal(snapshot.ok, false, `${name}: createSnapshot accepted the value: ${describeOutcome(snapshot)}`);
      assert.equal(actual.code, expected.code, `${name}: canonicalize code differs from the reference`);
      assert.equal(snapshot.code, expected.code, `${name}: createSnapshot code differs from the reference`);
      assert.equal(actual.code, code, `${name}: the code is not the one of the planted fault`);
      assert.equal(actual.name, 'SnapshotDomainError', `${name}: canonicalize error class`);
      assert.equal(snapshot.name, 'ToolArgumentsValidationError', `${name}: createSnapshot error class`);
      seenCodes.add(code);
    }
    for (const code of [
      'unsupported_type',
      'non_finite_number',
      'negative_zero',
      'lone_surrogate',
      'non_plain_object',
      'sparse_array',
      'array_extra_property',
      'accessor_property',
      'non_enumerable_property',
      'symbol_key',
      'cycle',
      'repeated_reference',
    ]) {
      assert.ok(seenCodes.has(code), `no planted fault produced ${code}`);
    }
  });
});

describe('the one native pass for provider text agrees with the two-step path', () => {
  // lib/snapshot/index.js createSnapshotFromText (prepareToolCall without a schema) against
  // checkJson, JSON.parse and createSnapshot of the parsed value: the same snapshot, or
  // the same stage, code and path. Texts: the payload classes, generated values written
  // with every indentation, and edits that break them.
  const { createSnapshotFromText } = require('../../lib/snapshot');
  const { binding } = require('../../lib/native');
  const { decodeRequest, ToolArgumentsValidationError } = require('../..');

  function twoStep(text, includePath) {
    try {
      const value = decodeRequest(text, { toolName: 'tool', includePath });
      const s = createSnapshot({ agentName: 'agent', toolName: 'tool', value, includePath });
      return `ok ${s.argsCanonicalJson} ${s.proposalHash}`;
    } catch (e) {
      const stage = e instanceof ToolArgumentsValidationError ? e.stage : 'json';
      return `${stage} ${e.code} ${e.path}`;
    }
  }
  function onePass(text, includePath) {
    try {
      const s = createSnapshotFromText('agent', 'tool', text, includePath);
      return `ok ${s.argsCanonicalJson} ${s.proposalHash}`;
    } catch (e) {
      return `${e.stage} ${e.code} ${e.path}`;
    }
  }

  test('on the payload classes, generated texts and broken texts: same snapshot or same stage, code and path', (t) => {
    const rand = prng(0x51ab);
    const texts = [
      ' ',
      '',
      '{}',
      '[]',
      '0',
      '"x"',
      '{"b":-0,"1":-0,"a":[-0]}',
      '{"a":1,"a":2}',
      '[1e400]',
      '{"\\ud800":1}',
      '[',
      '{"a":[1,2.50,-0.0e5]}',
      ' {"z": {"y": [true, null]}} ',
    ];
    for (const make of Object.values(CLASSES)) texts.push(JSON.stringify(make()));
    const pieces = ['{', '}', '[', ']', ',', ':', '"k"', '-0', '1', '"\\ud83d"', ' ', 'null', '"a":', '1e999'];
    for (let i = 0; i < 400; i++) {
      const value = CLASSES.small(i + 1);
      let text = JSON.stringify(value, null, [undefined, 0, 2, '\t'][i % 4]);
      for (let k = i % 3; k > 0; k--) {
        const at = Math.floor(rand() * (text.length + 1));
        text = text.slice(0, at) + pieces[Math.floor(rand() * pieces.length)] + text.slice(at);
      }
      texts.push(text);
    }
    const stages = {};
    for (const text of texts) {
      for (const includePath of [false, true]) {
        const expected = twoStep(text, includePath);
        assert.equal(onePass(text, includePath), expected, `${JSON.stringify(text.slice(0, 80))} includePath=${includePath}`);
        const stage = expected.split(' ')[0];
        stages[stage] = (stages[stage] || 0) + 1;
      }
    }
    assert.ok(stages.ok > 100 && stages.json > 50 && stages.snapshot >= 4, JSON.stringify(stages));
    t.diagnostic(`${texts.length} texts: ${JSON.stringify(stages)}`);
    assert.equal(binding.checkJson('{}', 0), 0, 'the binding still loads');
  });
});
