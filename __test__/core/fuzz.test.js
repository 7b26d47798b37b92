'use strict';
// Property-based fuzzing with fast-check (differential, against oracles this package did
// not write):
// 1. generated JSON values (own arbitraries: integer-like and __proto__ keys, astral
//    characters, numbers of every magnitude) canonicalize and hash exactly like
//    support/strict-reference.js and like the V8 oracles (String(n), JSON.stringify for
//    strings, the default sort for keys), and round-trip through decodeView;
// 2. the same values with exactly one invalid primitive planted (a lone surrogate in a
//    string or a key, -0, NaN, an infinity, undefined, a bigint, a symbol) and
// 3. with exactly one hostile object planted (Proxies, getters, setters, Dates, class
//    instances, holes, symbol keys, non-enumerable properties, cycles, repeated
//    references, ...): the package and the reference both throw, with the same code,
//    through canonicalize, createSnapshot and prepareToolCall; no planted code runs;
// 4. generated strings (valid JSON re-spaced, mutated JSON, token soup, objects with
//    repeated keys): decodeRequest and decodeView against JSON.parse and an independent
//    strict parser written here (first error in text order, like the package). Whenever
//    JSON.parse succeeds and the text has no duplicate key, lone surrogate, overflow or
//    excess depth, both decode it to JSON.parse's value; whenever JSON.parse fails, both
//    fail, with invalid_json (text that is not JSON is invalid_json before any value
//    rule; only the depth limit, hit while reading, can come first).
//
// Default: 8,000 + 5,000 + 5,000 + 30,000 runs (well under 20 s). FUZZ_RUNS=<n> sets
// the text property's runs (the value properties get n/5): FUZZ_RUNS=1000000 for a long
// run. FUZZ_SEED=<n> replays a run (the seed is printed).

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const fc = require('fast-check');

const { canonicalize, createSnapshot, decodeView, decodeRequest, prepareToolCall, MAX_DEPTH } = require('../..');
const reference = require('../../support/strict-reference');

const TEXT_RUNS = Number(process.env.FUZZ_RUNS || 30000);
const VALUE_RUNS = process.env.FUZZ_RUNS ? Math.max(100, Math.floor(TEXT_RUNS / 5)) : 8000;
const HOSTILE_RUNS = process.env.FUZZ_RUNS ? Math.max(100, Math.floor(TEXT_RUNS / 5)) : 5000;
const SEED = process.env.FUZZ_SEED === undefined ? 0x5eed2026 : Number(process.env.FUZZ_SEED);

function params(numRuns, label) {
  return { numRuns, seed: (SEED ^ [...label].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261)) | 0, endOnFailure: true };
}

// ---------------------------------------------------------------------------------
// Arbitraries

const codePoint = (min, max) => fc.integer({ min, max }).map((cp) => String.fromCodePoint(cp));
/** One well-formed character: ASCII, controls, BMP (no surrogates), astral, specials. */
const wellFormedUnit = fc.oneof(
  { weight: 6, arbitrary: codePoint(0x20, 0x7e) },
  { weight: 1, arbitrary: codePoint(0, 0x1f) },
  { weight: 2, arbitrary: codePoint(0x80, 0xd7ff) },
  { weight: 1, arbitrary: codePoint(0xe000, 0xffff) },
  { weight: 2, arbitrary: codePoint(0x10000, 0x10ffff) },
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '/', '\u2028', '\u2029', '\u007f', 'é', 'e\u0301', '😀', '\ufeff') },
);
const wellFormedString = fc.string({ unit: wellFormedUnit, maxLength: 12 });
const longString = fc.tuple(wellFormedUnit, fc.integer({ min: 1000, max: 1100 })).map(([u, n]) => u.repeat(Math.ceil(n / u.length)));

const key = fc.oneof(
  { weight: 3, arbitrary: wellFormedString },
  { weight: 2, arbitrary: fc.nat({ max: 100 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('4294967294', '4294967295', '4294967296', '9007199254740993', '-1', '01', '1.5', '1e3', '-0') },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'length', 'toJSON', '') },
  { weight: 1, arbitrary: fc.constantFrom('a', 'b', 'A', 'B', 'aa', 'é', '😀', '\uffff', '\ud7ff', '\ue000', '~', '/') },
);

const SPECIAL_NUMBERS = [
  1e21,
  1e20,
  999999999999999900000,
  1e-7,
  1e-6,
  5e-324,
  -5e-324,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 53 - 1,
  -(2 ** 53),
  2 ** 64,
  0.1 + 0.2,
  1 / 3,
  4.35,
  123456789012345680000,
  2.2250738585072014e-308,
];
const number = fc.oneof(
  { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)) },
  { weight: 3, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_NUMBERS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 999999 }), fc.integer({ min: -330, max: 310 }))
      .map(([m, e]) => Number(`${m}e${e}`))
      .filter((n) => Number.isFinite(n))
      .map((n) => (n === 0 ? 0 : n)),
  },
);

function defineData(target, k, v) {
  Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  return target;
}

const { jsonValue } = fc.letrec((tie) => ({
  jsonValue: fc.oneof(
    { depthSize: 'medium', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    wellFormedString,
    { weight: 1, arbitrary: longString },
    fc.array(tie('jsonValue'), { maxLength: 5 }),
    tie('object'),
  ),
  object: fc.tuple(fc.uniqueArray(fc.tuple(key, tie('jsonValue')), { selector: ([k]) => k, maxLength: 6 }), fc.boolean()).map(([entries, nullProto]) => {
    const out = nullProto ? Object.create(null) : {};
    for (const [k, v] of entries) defineData(out, k, v);
    return out;
  }),
}));

/** A deep copy that keeps own keys (including __proto__) and null prototypes. */
function clone(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone);
  const out = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (const k of Object.keys(value)) defineData(out, k, clone(value[k]));
  return out;
}

/** Every container of `root` with its keys: [container, key] slots, in walk order. */
function slotsOf(root) {
  const out = [];
  const walk = (c) => {
    const keys = Array.isArray(c) ? c.map((_, i) => i) : Object.keys(c);
    for (const k of keys) {
      out.push([c, k]);
      const child = c[k];
      if (child !== null && typeof child === 'object') walk(child);
    }
  };
  walk(root);
  return out;
}

/** Puts `make(parent)` at the `choice`-th slot of a copy of `value` (wrapping it when it has none). */
function plant(value, choice, make) {
  const root = { wrap: clone(value) };
  const slots = slotsOf(root);
  const [parent, k] = slots[choice % slots.length];
  defineData(parent, k, make(parent));
  return root;
}

// ---------------------------------------------------------------------------------
// Oracles

/** RFC 8785 from the V8 built-ins: String(n), JSON.stringify of strings, the default sort. */
function builtinCanonical(v) {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(builtinCanonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${builtinCanonical(v[k])}`)
    .join(',')}}`;
}

function outcome(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, code: error && error.code, stage: error && error.stage, name: error && error.name, message: error && error.message };
  }
}

/**
 * An independent strict JSON parser: RFC 8259 grammar (JSON.parse's), plus duplicate
 * keys (checked when an object closes), lone surrogates (when a string closes), numbers
 * that overflow, negative zero (optional) and nesting past MAX_DEPTH (when a container
 * opens). Returns { ok: true } or { ok: false, code }: invalid_json for text that is not
 * JSON, else the first value rule broken in text order (the depth limit stops at once).
 */
function strictParse(text, rejectNegativeZero) {
  let pos = 0;
  let broken = null;
  const fail = (code) => {
    throw { strict: code };
  }; // eslint-disable-line no-throw-literal
  const rule = (code) => {
    if (broken === null) broken = code;
  };
  const ws = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
  };
  const string = () => {
    pos++; // opening quote
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('invalid_json');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        break;
      }
      if (c < 0x20) fail('invalid_json');
      if (c === 0x5c) {
        const e = text[pos + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && Object.hasOwn(simple, e)) {
          out += simple[e];
          pos += 2;
          continue;
        }
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
          continue;
        }
        fail('invalid_json');
      }
      out += text[pos];
      pos++;
    }
    if (!out.isWellFormed()) rule('lone_surrogate');
    return out;
  };
  const numberToken = () => {
    // Greedy, like a JSON lexer: a '.' or an exponent marker commits to its digits.
    const start = pos;
    const digits = () => {
      const from = pos;
      while (pos < text.length && text[pos] >= '0' && text[pos] <= '9') pos++;
      return pos - from;
    };
    if (text[pos] === '-') pos++;
    if (text[pos] === '0') pos++;
    else if (text[pos] >= '1' && text[pos] <= '9') digits();
    else fail('invalid_json');
    if (text[pos] === '.') {
      pos++;
      if (digits() === 0) fail('invalid_json');
    }
    if (text[pos] === 'e' || text[pos] === 'E') {
      pos++;
      if (text[pos] === '+' || text[pos] === '-') pos++;
      if (digits() === 0) fail('invalid_json');
    }
    const n = Number(text.slice(start, pos));
    if (!Number.isFinite(n)) rule('non_finite_number');
    if (rejectNegativeZero && Object.is(n, -0)) rule('negative_zero');
  };
  const value = (depth) => {
    ws();
    const c = text[pos];
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) fail('depth_limit');
      pos++;
      ws();
      if (c === '[') {
        if (text[pos] === ']') {
          pos++;
          return;
        }
        for (;;) {
          value(depth + 1);
          ws();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === ']') {
            pos++;
            return;
          }
          fail('invalid_json');
        }
      }
      if (text[pos] === '}') {
        pos++;
        return;
      }
      const keys = new Set();
      let duplicate = false;
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('invalid_json');
        const k = string();
        if (keys.has(k)) duplicate = true;
        keys.add(k);
        ws();
        if (text[pos] !== ':') fail('invalid_json');
        pos++;
        value(depth + 1);
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          if (duplicate) rule('duplicate_key');
          return;
        }
        fail('invalid_json');
      }
    }
    if (c === '"') {
      string();
      return;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      numberToken();
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return;
      }
    }
    fail('invalid_json');
  };
  try {
    value(0);
    ws();
    if (pos !== text.length) fail('invalid_json');
    return broken === null ? { ok: true } : { ok: false, code: broken };
  } catch (error) {
    if (error && error.strict) return { ok: false, code: error.strict };
    throw error;
  }
}

const isBlank = (text) => /^[ \t\n\r]*$/.test(text);

// ---------------------------------------------------------------------------------

describe('fast-check differential properties', () => {
  test(`valid JSON values agree with the strict reference and the V8 oracles (${VALUE_RUNS} runs)`, (t) => {
    const names = fc.tuple(wellFormedString, wellFormedString);
    fc.assert(
      fc.property(jsonValue, names, (value, [agentName, toolName]) => {
        const json = canonicalize(value);
        assert.equal(json, reference.canonicalize(value), 'the strict reference');
        assert.equal(json, builtinCanonical(value), 'the V8 oracles');
        const snapshot = createSnapshot({ agentName, toolName, value });
        assert.equal(snapshot.argsCanonicalJson, json, 'createSnapshot JSON');
        assert.equal(snapshot.proposalHash, reference.proposalHash(agentName, toolName, json), 'the reference hash');
        const parsed = JSON.parse(json);
        assert.equal(canonicalize(parsed), json, 'a fixed point');
        assert.deepStrictEqual(decodeView(json), parsed, 'decodeView(text) equals JSON.parse');
        const v1 = decodeView(snapshot);
        const v2 = decodeView(snapshot);
        assert.deepStrictEqual(v1, parsed, 'view 1');
        assert.deepStrictEqual(v2, parsed, 'view 2');
        if (typeof parsed === 'object' && parsed !== null) assert.notEqual(v1, v2, 'views are fresh');
        const prepared = prepareToolCall({ agentName, toolName, rawArguments: json });
        assert.equal(prepared.proposalHash, snapshot.proposalHash, 'prepareToolCall hash');
      }),
      params(VALUE_RUNS, 'valid'),
    );
    t.diagnostic(`${VALUE_RUNS} runs, seed ${params(VALUE_RUNS, 'valid').seed}`);
  });

  const INVALID_PRIMITIVES = [
    ['a lone high surrogate', () => `x\ud800`, 'lone_surrogate'],
    ['a lone low surrogate', () => `\udc00y`, 'lone_surrogate'],
    ['a long string with a lone surrogate', () => `${'z'.repeat(1100)}\udbff`, 'lone_surrogate'],
    ['negative zero', () => -0, 'negative_zero'],
    ['NaN', () => NaN, 'non_finite_number'],
    ['Infinity', () => Infinity, 'non_finite_number'],
    ['-Infinity', () => -Infinity, 'non_finite_number'],
    ['undefined', () => undefined, 'unsupported_type'],
    ['a bigint', () => 12n, 'unsupported_type'],
    ['a symbol', () => Symbol('s'), 'unsupported_type'],
  ];

  /** Both implementations throw the same code through every entry point. */
  function assertSameFailure(value, expected, label) {
    const ref = outcome(() => reference.canonicalize(value));
    const canon = outcome(() => canonicalize(value));
    const snap = outcome(() => createSnapshot({ agentName: 'a', toolName: 't', value }));
    const prepared = outcome(() => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => value }));
    assert.equal(canon.ok, false, `${label}: canonicalize accepted`);
    assert.equal(canon.code, expected, `${label}: canonicalize code`);
    assert.equal(snap.code, expected, `${label}: createSnapshot code`);
    assert.equal(snap.stage, 'snapshot', `${label}: createSnapshot stage`);
    assert.equal(prepared.code, expected, `${label}: prepareToolCall code`);
    assert.equal(prepared.stage, 'snapshot', `${label}: prepareToolCall stage`);
    return ref;
  }

  test(`one invalid primitive or key in a valid value: same code as the reference (${HOSTILE_RUNS} runs)`, (t) => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), fc.nat(INVALID_PRIMITIVES.length - 1), fc.boolean(), (value, choice, kind, asKey) => {
        const [label, make, code] = INVALID_PRIMITIVES[kind];
        let root;
        if (asKey && code === 'lone_surrogate') {
          // A lone surrogate in a key of a new object at the chosen slot.
          root = plant(value, choice, () => defineData({}, make(), 1));
        } else {
          root = plant(value, choice, make);
        }
        const ref = assertSameFailure(root, code, label);
        assert.equal(ref.ok, false, `${label}: the reference accepted`);
        assert.equal(ref.code, code, `${label}: the reference's code`);
      }),
      params(HOSTILE_RUNS, 'invalid'),
    );
    t.diagnostic(`${HOSTILE_RUNS} runs, seed ${params(HOSTILE_RUNS, 'invalid').seed}`);
  });

  test(`one hostile object in a valid value: same code as the reference, no code runs (${HOSTILE_RUNS} runs)`, (t) => {
    let runs = 0;
    const counter = { count: 0 };
    const hit = () => {
      counter.count += 1;
      return 1;
    };
    const traps = {};
    for (const trap of [
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
    ]) {
      traps[trap] = (...args) => {
        hit();
        return Reflect[trap](...args);
      };
    }
    class Instance {
      constructor() {
        this.a = 1;
      }
    }
    // [label, make(parent), code, code the reference gives if it differs (false: not compared)]
    const HOSTILE = [
      ['a Proxy of an object', () => new Proxy({ a: 1 }, traps), 'non_plain_object'],
      ['a Proxy of an array', () => new Proxy([1], traps), 'non_plain_object'],
      [
        'a revoked Proxy',
        () => {
          const r = Proxy.revocable({}, traps);
          r.revoke();
          return r.proxy;
        },
        'non_plain_object',
      ],
      ['a Proxy of a function', () => new Proxy(function f() {}, traps), 'non_plain_object'],
      ['a getter', () => Object.defineProperty({}, 'g', { get: hit, enumerable: true }), 'accessor_property'],
      ['a setter at an array index', () => Object.defineProperty([0], 0, { set: hit, enumerable: true }), 'accessor_property'],
      ['a non-enumerable property', () => Object.defineProperty({}, 'h', { value: 1 }), 'non_enumerable_property'],
      ['a symbol key', () => ({ [Symbol('k')]: 1 }), 'symbol_key'],
      ['a Date', () => new Date(0), 'non_plain_object'],
      ['a Date reset to null', () => Object.setPrototypeOf(new Date(0), null), 'non_plain_object'],
      ['a Map', () => new Map(), 'non_plain_object'],
      ['a class instance', () => new Instance(), 'non_plain_object'],
      ['an array subclass', () => new (class A extends Array {})(), 'non_plain_object'],
      ['a boxed number', () => new Number(1), 'non_plain_object'],
      ['a typed array', () => new Uint8Array(1), 'non_plain_object'],
      ['an object from another realm', () => vm.runInNewContext('({ a: 1 })'), 'non_plain_object'],
      ['an empty WeakRef reset to Object.prototype', () => Object.setPrototypeOf(new WeakRef({}), Object.prototype), 'non_plain_object'],
      ['a holey array', () => [1, , 2], 'sparse_array'], // eslint-disable-line no-sparse-arrays
      ['an array with an extra property', () => Object.assign([1], { x: 1 }), 'array_extra_property'],
      ['a cycle to the parent', (parent) => parent, 'cycle'],
      [
        'a repeated reference',
        () => {
          const s = {};
          return [s, { s }];
        },
        'repeated_reference',
      ],
      ['a function with a toJSON', () => Object.assign(() => 1, { toJSON: hit }), 'unsupported_type'],
      ['an object with a toJSON getter', () => Object.defineProperty({}, 'toJSON', { get: hit, enumerable: true }), 'accessor_property'],
      [
        `${MAX_DEPTH + 2} nested arrays`,
        () => {
          let v = 0;
          for (let i = 0; i < MAX_DEPTH + 2; i++) v = [v];
          return v;
        },
        'depth_limit',
        false,
      ],
    ];
    fc.assert(
      fc.property(jsonValue, fc.nat(), fc.nat(HOSTILE.length - 1), (value, choice, kind) => {
        runs += 1;
        const [label, make, code, referenceCode] = HOSTILE[kind];
        const root = plant(value, choice, make);
        counter.count = 0;
        const ref = assertSameFailure(root, code, label);
        assert.equal(counter.count, 0, `${label}: planted code ran ${counter.count} time(s)`);
        if (referenceCode !== false) {
          assert.equal(ref.ok, false, `${label}: the reference accepted`);
          assert.equal(ref.code, referenceCode || code, `${label}: the reference's code`);
        }
      }),
      params(HOSTILE_RUNS, 'hostile'),
    );
    t.diagnostic(`${runs} runs, seed ${params(HOSTILE_RUNS, 'hostile').seed}`);
  });

  test(`decodeRequest and decodeView against JSON.parse and a strict parser on generated text (${TEXT_RUNS} runs)`, (t) => {
    const TOKENS = [
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      '"',
      '\\',
      '\\u',
      '\\ud800',
      '\\udc00',
      '\\ud83d\\ude00',
      '\ud800',
      'true',
      'false',
      'null',
      '-0',
      '0',
      '1',
      '-',
      '.',
      'e',
      'E',
      '+',
      '1e400',
      '-1e-400',
      '"a"',
      '"a":1',
      '"\\u0061":2',
      '"__proto__":',
      ' ',
      '\n',
      '\t',
      '\u00a0',
      '\ufeff',
      'x',
      'é',
      '😀',
      '\u0001',
    ];
    const spaced = fc
      .tuple(jsonValue, fc.constantFrom(undefined, 0, 1, 2, '\t', ' \n'))
      .map(([v, indent]) => JSON.stringify(v, null, indent))
      .filter((s) => typeof s === 'string');
    const edit = fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...TOKENS));
    const mutated = fc.tuple(spaced, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) => {
      let s = text;
      for (const [at, op, token] of edits) {
        const i = s.length === 0 ? 0 : at % (s.length + 1);
        if (op === 0) s = s.slice(0, i) + token + s.slice(i);
        else if (op === 1) s = s.slice(0, i) + s.slice(i + 1);
        else if (op === 2) s = s.slice(0, i) + s.slice(i, i + 1 + (at % 7)) + s.slice(i); // duplicate a piece
        else s = s.slice(0, i) + token + s.slice(i + token.length);
      }
      return s;
    });
    const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 20 }).map((parts) => parts.join(''));
    const dupKeys = fc
      .array(fc.tuple(fc.constantFrom('a', 'b', '__proto__', 'é', '😀', ''), fc.boolean(), jsonValue), { minLength: 1, maxLength: 5 })
      .map(
        (members) =>
          `{${members.map(([k, escaped, v]) => `${escaped ? JSON.stringify(k).replace(/[a-z_]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
      );
    const deep = fc
      .tuple(fc.integer({ min: MAX_DEPTH - 2, max: MAX_DEPTH + 2 }), fc.boolean(), fc.boolean())
      .map(([n, objects, closed]) => (objects ? '{"k":'.repeat(n) : '['.repeat(n)) + (closed ? `0${(objects ? '}' : ']').repeat(n)}` : ''));
    const text = fc.oneof(
      { weight: 3, arbitrary: spaced },
      { weight: 5, arbitrary: mutated },
      { weight: 2, arbitrary: soup },
      { weight: 2, arbitrary: dupKeys },
      { weight: 1, arbitrary: deep },
    );

    const tally = { runs: 0, parsed: 0, accepted: 0, strictOnly: 0, parseFailedOtherCode: 0 };
    fc.assert(
      fc.property(text, (s) => {
        tally.runs += 1;
        const parsed = outcome(() => JSON.parse(s));
        const request = outcome(() => decodeRequest(s, { toolName: 't' }));
        const view = outcome(() => decodeView(s));
        const oracleRequest = strictParse(s, false);
        const oracleView = strictParse(s, true);
        // The strict parser accepts a subset of what JSON.parse accepts, and refuses with
        // invalid_json only text JSON.parse refuses too.
        if (oracleRequest.ok) assert.equal(parsed.ok, true, 'the strict parser accepts text JSON.parse refuses');
        if (!parsed.ok) assert.equal(oracleRequest.ok, false, 'the strict parser accepts text JSON.parse refuses');
        if (parsed.ok) tally.parsed += 1;

        // decodeRequest: provider text.
        if (isBlank(s)) {
          assert.deepStrictEqual(request.value, {}, 'blank text decodes to {}');
        } else if (oracleRequest.ok) {
          tally.accepted += 1;
          assert.equal(request.ok, true, `decodeRequest refuses strict JSON (${request.code})`);
          assert.deepStrictEqual(request.value, parsed.value, 'decodeRequest equals JSON.parse');
        } else {
          assert.equal(request.ok, false, `decodeRequest accepts text the strict parser refuses (${oracleRequest.code})`);
          assert.equal(request.stage, 'json', 'stage json');
          assert.equal(request.code, oracleRequest.code, 'decodeRequest reports the first error in text order');
          if (parsed.ok) tally.strictOnly += 1;
          if (!parsed.ok && request.code !== 'invalid_json') tally.parseFailedOtherCode += 1;
        }
        // The brief's two rules, stated directly.
        if (parsed.ok && oracleRequest.ok) assert.equal(request.ok, true, 'JSON.parse succeeds without strict issues, decodeRequest must too');
        if (!parsed.ok && !isBlank(s)) assert.equal(request.ok, false, 'JSON.parse fails, decodeRequest must fail');
        if (!parsed.ok && !isBlank(s) && request.code !== 'depth_limit')
          assert.equal(request.code, 'invalid_json', 'not JSON: invalid_json before any value rule');
        if (!parsed.ok && !isBlank(s) && view.code !== 'depth_limit') assert.equal(view.code, 'invalid_json', 'not JSON: invalid_json before any value rule');

        // decodeView: snapshot text (-0 refused, blank text invalid).
        if (isBlank(s)) {
          assert.equal(view.code, 'invalid_json', 'blank snapshot text');
        } else if (oracleView.ok) {
          assert.equal(view.ok, true, `decodeView refuses strict JSON (${view.code})`);
          assert.deepStrictEqual(view.value, parsed.value, 'decodeView equals JSON.parse');
        } else {
          assert.equal(view.code, oracleView.code, 'decodeView reports the first error in text order');
        }
      }),
      params(TEXT_RUNS, 'text'),
    );
    t.diagnostic(
      `${tally.runs} texts: JSON.parse accepted ${tally.parsed}, strict decoding accepted ${tally.accepted}; ${tally.strictOnly} refused only by the strict rules; ${tally.parseFailedOtherCode} refused by JSON.parse with the depth limit first (code other than invalid_json); seed ${params(TEXT_RUNS, 'text').seed}`,
    );
  });
});
