'use strict';
// Property tests against oracles this project did not write: V8's Number-to-String
// (which RFC 8785 section 3.2.2.3 adopts), JSON.stringify's string escaping (section
// 3.2.2.2), Array.prototype.sort's UTF-16 code unit order (section 3.2.3),
// String.prototype.isWellFormed, JSON.parse and node:crypto's SHA-256. Cases come from
// a seeded PRNG: the seed is printed, and SEED=<n> replays a run.

const test = require('node:test');
const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');

const { canonicalize, createSnapshot, decodeView, proposalHash, SnapshotDomainError, ToolArgumentsValidationError } = require('../..');
const { attempt, describeError } = require('../helpers/attempt');

const DEFAULT_SEED = 0x20260716;
const SEED = parseSeed(process.env.SEED);
const MAX_LISTED = 10;

function parseSeed(text) {
  if (text === undefined || text === '') return DEFAULT_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`SEED must be an integer, got ${JSON.stringify(text)}`);
  return seed >>> 0;
}

// ---------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: a small 32-bit PRNG, uniform enough for test-case generation. */
function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** FNV-1a of a label, so each test draws its own stream and tests stay independent. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function rngFor(label) {
  const next = mulberry32((SEED ^ fnv1a(label)) >>> 0);
  return {
    u32: next,
    /** Uniform in [0, 1). */
    float: () => next() / 4294967296,
    /** Uniform integer in [0, n). */
    int: (n) => Math.floor((next() / 4294967296) * n),
    range: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    pick: (list) => list[Math.floor((next() / 4294967296) * list.length)],
    chance: (p) => next() / 4294967296 < p,
  };
}

// ---------------------------------------------------------------------------------------
// Shared helpers

const bitsView = new DataView(new ArrayBuffer(8));

function fromBits(hi, lo) {
  bitsView.setUint32(0, hi >>> 0);
  bitsView.setUint32(4, lo >>> 0);
  return bitsView.getFloat64(0);
}

function bitsOf(value) {
  bitsView.setFloat64(0, value);
  return bitsView.getBigUint64(0);
}

function fromBigBits(bits) {
  bitsView.setBigUint64(0, BigInt.asUintN(64, bits));
  return bitsView.getFloat64(0);
}

function hexOf(value) {
  return bitsOf(value).toString(16).padStart(16, '0');
}

/** The two doubles adjacent to a finite value (same sign), when they exist. */
function neighbors(value) {
  const bits = bitsOf(value);
  const out = [];
  if ((bits & 0x7fffffffffffffffn) !== 0n) out.push(fromBigBits(bits - 1n));
  out.push(fromBigBits(bits + 1n));
  return out;
}

function describeNumber(value) {
  return `${Object.is(value, -0) ? '-0' : String(value)} (bits ${hexOf(value)})`;
}

/** Printable form of any string, lone surrogates included (JSON.stringify escapes them). */
function show(text) {
  return JSON.stringify(text);
}

/**
 * Collects failures across many cases and reports them in one assertion, the seed and
 * the first few cases included, instead of stopping at the first.
 */
function failureLog(label) {
  const failures = [];
  let cases = 0;
  return {
    count() {
      cases++;
    },
    get cases() {
      return cases;
    },
    fail(message) {
      failures.push(message);
    },
    /** Runs fn and records a failure unless it returns exactly `expected`. */
    expectValue(fn, expected, where) {
      cases++;
      const result = attempt(fn);
      if (!result.ok) failures.push(`${where}: threw ${describeError(result.error)}, expected ${show(expected)}`);
      else if (result.value !== expected) failures.push(`${where}: got ${show(result.value)}, expected ${show(expected)}`);
    },
    /** Runs fn and records a failure unless it throws SnapshotDomainError `code`. */
    expectCode(fn, code, where) {
      cases++;
      const result = attempt(fn);
      if (result.ok) failures.push(`${where}: returned ${show(result.value)}, expected SnapshotDomainError ${code}`);
      else if (!(result.error instanceof SnapshotDomainError) || result.error.code !== code) {
        failures.push(`${where}: threw ${describeError(result.error)}, expected SnapshotDomainError ${code}`);
      }
    },
    /** Runs fn and records a failure unless it throws ToolArgumentsValidationError at stage snapshot with `code`. */
    expectSnapshotStage(fn, code, where) {
      cases++;
      const result = attempt(fn);
      const expected = `ToolArgumentsValidationError snapshot ${code}`;
      if (result.ok) failures.push(`${where}: returned ${show(result.value)}, expected ${expected}`);
      else if (!(result.error instanceof ToolArgumentsValidationError) || result.error.stage !== 'snapshot' || result.error.code !== code) {
        failures.push(`${where}: threw ${describeError(result.error)}, expected ${expected}`);
      }
    },
    done(t) {
      t.diagnostic(`${label}: ${cases} cases (seed ${SEED})`);
      if (failures.length === 0) return;
      const shown = failures.slice(0, MAX_LISTED).join('\n  ');
      const more = failures.length > MAX_LISTED ? `\n  ... and ${failures.length - MAX_LISTED} more` : '';
      assert.fail(`${label}: ${failures.length} failures with SEED=${SEED}:\n  ${shown}${more}`);
    },
  };
}

test('the property tests print their seed', (t) => {
  t.diagnostic(`SEED=${SEED}${process.env.SEED ? ' (from the environment)' : ' (default; set SEED to change it)'}`);
});

// ---------------------------------------------------------------------------------------
// Numbers: RFC 8785 section 3.2.2.3 is ECMAScript's Number::toString, so V8's String(n)
// is the oracle for every finite double except negative zero, which the snapshot domain
// rejects.

const BOUNDARIES = [
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 53,
  2 ** 53 - 1,
  2 ** 53 + 1,
  2 ** 53 + 2,
  2 ** 54,
  2 ** 63,
  2 ** 64,
  2 ** 31,
  2 ** 32,
  2 ** 32 - 1,
  2 ** -1022,
  2 ** -1074,
  2 ** 1023,
  2 ** 68,
  2 ** 69,
  1e21,
  1e21 - 65536,
  999999999999999900000,
  999999999999999700000,
  1e20,
  1e22,
  1e23,
  1e-7,
  1e-6,
  0.000001,
  9.999999999999997e-7,
  1e-5,
  1e-300,
  1e-320,
  1e308,
  1.7976931348623157e308,
  0.1,
  0.2,
  0.3,
  0.1 + 0.2,
  1 / 3,
  2 / 3,
  5e-324,
  2.2250738585072014e-308,
  2.225073858507201e-308,
  333333333.33333329,
  1424953923781206.2,
  9007199254740993,
  4.35,
  0.5,
  1.5,
  123456789012345680000,
];

function generateDoubles(rng) {
  const values = [];
  const add = (value, sign = rng.chance(0.5) ? -1 : 1) => values.push(sign * value);
  // Random IEEE-754 bit patterns: every exponent and mantissa, NaN and infinity included.
  for (let i = 0; i < 30000; i++) values.push(fromBits(rng.u32(), rng.u32()));
  // Integers of every width up to 2**70, and the neighborhood of 2**53.
  for (let i = 0; i < 10000; i++) add(Math.floor(rng.float() * 2 ** rng.range(0, 70)));
  for (let i = 0; i < 1000; i++) add(2 ** 53 + rng.range(-64, 64));
  // Subnormals (exponent bits zero) and the smallest normals.
  for (let i = 0; i < 5000; i++) add(fromBits(rng.u32() & 0x000fffff, rng.u32()), 1);
  for (let i = 0; i < 1000; i++) add(fromBits(0x00100000 | (rng.u32() & 0x000fffff), rng.u32()), 1);
  // Powers of ten, computed two ways (they differ for some exponents), and their neighbors.
  for (let k = -330; k <= 310; k++) {
    for (const power of [10 ** k, Number(`1e${k}`)]) {
      if (!Number.isFinite(power) || power === 0) continue;
      for (const value of [power, ...neighbors(power)]) add(value);
    }
  }
  // Short decimals: 1 to 17 significant digits at every exponent, parsed by V8.
  for (let i = 0; i < 10000; i++) {
    let digits = String(rng.range(1, 9));
    const length = rng.range(1, 17);
    while (digits.length < length) digits += String(rng.int(10));
    add(Number(`${digits}e${rng.range(-340, 310)}`));
  }
  // Ordinary magnitudes: fractions scaled around the fixed/exponent switch points.
  for (let i = 0; i < 5000; i++) add(rng.float() * 10 ** rng.range(-10, 25));
  for (const value of BOUNDARIES) {
    for (const near of [value, ...neighbors(value)]) {
      add(near, 1);
      add(near, -1);
    }
  }
  return values;
}

test('every finite non-zero double canonicalizes to String(n)', (t) => {
  const rng = rngFor('doubles');
  const log = failureLog('doubles');
  const formatted = [];
  let special = 0;
  for (const value of generateDoubles(rng)) {
    if (!Number.isFinite(value) || Object.is(value, -0)) {
      special++;
      continue;
    }
    log.expectValue(() => canonicalize(value), String(value), describeNumber(value));
    formatted.push(value);
  }
  // The container path formats numbers the same way.
  log.expectValue(() => canonicalize(formatted), `[${formatted.map(String).join(',')}]`, `all ${formatted.length} doubles as one array`);
  t.diagnostic(`${special} generated doubles were NaN, infinite or negative zero (checked by the next test)`);
  assert.ok(formatted.length > 60000, `too few finite doubles generated: ${formatted.length}`);
  log.done(t);
});

test('negative zero, NaN and the infinities throw the codes of the strict domain', (t) => {
  const rng = rngFor('special numbers');
  const log = failureLog('special numbers');
  const nonFinite = [NaN, Infinity, -Infinity, 0 / 0, Number.MAX_VALUE * 2, -Number.MAX_VALUE * 2];
  // NaN with random payloads and either sign, from raw bits.
  for (let i = 0; i < 1000; i++) {
    const hi = (rng.chance(0.5) ? 0xfff00000 : 0x7ff00000) | (rng.u32() & 0x000fffff);
    nonFinite.push(fromBits(hi, rng.u32() | 1));
  }
  // The random bit patterns of the double generator that landed outside the domain.
  const negativeZeros = [-0, 0 * -1, -1 / Infinity, Number('-0'), fromBits(0x80000000, 0)];
  for (const value of generateDoubles(rngFor('doubles'))) {
    if (Object.is(value, -0)) negativeZeros.push(value);
    else if (!Number.isFinite(value)) nonFinite.push(value);
  }
  for (const [values, code] of [
    [nonFinite, 'non_finite_number'],
    [negativeZeros, 'negative_zero'],
  ]) {
    for (const value of values) {
      const where = describeNumber(value);
      log.expectCode(() => canonicalize(value), code, where);
      log.expectCode(() => canonicalize([1, { a: value }]), code, `${where} nested`);
      log.expectSnapshotStage(() => createSnapshot({ agentName: 'a', toolName: 't', value: { x: [value] } }).proposalHash, code, `${where} in createSnapshot`);
    }
  }
  // Texts that denote negative zero or overflow to infinity are rejected by decodeView.
  for (const text of ['-0', '-0.0', '-0e5', '-0E-3', '[-0]', '{"a":-0.000}']) {
    log.expectCode(() => decodeView(text), 'negative_zero', `decodeView(${show(text)})`);
  }
  for (const text of ['1e400', '-1e400', '[1.8e308]', '{"a":-2e308}']) {
    log.expectCode(() => decodeView(text), 'non_finite_number', `decodeView(${show(text)})`);
  }
  log.done(t);
});

/** Exact decimal text of 2**-1075, the midpoint between 0 and the smallest subnormal. */
function halfMinSubnormal() {
  return `0.${(5n ** 1075n).toString().padStart(1075, '0')}`;
}

function randomDigits(rng, min, max) {
  let digits = '';
  for (let n = rng.range(min, max); n > 0; n--) digits += String(rng.int(10));
  return digits;
}

test('the strict decoder accepts a number text exactly when JSON.parse reads a finite non-negative-zero double', (t) => {
  const rng = rngFor('number texts');
  const log = failureLog('number texts');
  const texts = [
    // Rounding thresholds, exactly and one unit in the last digit either side.
    halfMinSubnormal(),
    `${halfMinSubnormal()}1`,
    `-${halfMinSubnormal()}`,
    `-${halfMinSubnormal()}1`,
    (2n ** 1024n - 2n ** 970n).toString(),
    (2n ** 1024n - 2n ** 970n - 1n).toString(),
    `-${2n ** 1024n - 2n ** 970n}`,
    '2.4703282292062327e-324',
    '2.4703282292062328e-324',
    '-2.4703282292062327e-324',
    '-2.4703282292062328e-324',
    '1.7976931348623157e308',
    '1.7976931348623158e308',
    '1.7976931348623159e308',
    '-1.7976931348623159e308',
    '0',
    '-0',
    '0e-999',
    '-0e999',
    '0.0',
    '-0.0',
    '1e-400',
    '-1e-400',
    '1e400',
    '-1e400',
  ];
  for (let i = 0; i < 5000; i++) {
    let text = rng.chance(0.5) ? '-' : '';
    text += rng.chance(0.3) ? '0' : String(rng.range(1, 9)) + randomDigits(rng, 0, 20);
    if (rng.chance(0.6)) text += `.${randomDigits(rng, 1, 30)}`;
    if (rng.chance(0.8)) {
      const exponent = rng.chance(0.5) ? rng.range(-360, -300) : rng.chance(0.5) ? rng.range(280, 330) : rng.range(-999, 999);
      text += `${rng.pick(['e', 'E'])}${exponent < 0 ? '-' : rng.pick(['', '+'])}${Math.abs(exponent)}`;
    }
    texts.push(text);
  }
  let negativeZero = 0;
  let nonFinite = 0;
  for (const text of texts) {
    const parsed = JSON.parse(text);
    const where = `decodeView(${show(text.length > 60 ? `${text.slice(0, 30)}...${text.slice(-20)}` : text)})`;
    if (Object.is(parsed, -0)) {
      negativeZero++;
      log.expectCode(() => decodeView(text), 'negative_zero', where);
    } else if (!Number.isFinite(parsed)) {
      nonFinite++;
      log.expectCode(() => decodeView(`[${text}]`), 'non_finite_number', where);
    } else {
      log.count();
      const result = attempt(() => decodeView(`{"n":${text}}`));
      if (!result.ok) log.fail(`${where}: threw ${describeError(result.error)}, expected ${parsed}`);
      else if (!Object.is(result.value.n, parsed)) log.fail(`${where}: got ${result.value.n}, expected ${parsed}`);
    }
  }
  t.diagnostic(`${texts.length} texts: ${negativeZero} read as negative zero, ${nonFinite} as infinity`);
  assert.ok(negativeZero > 100 && nonFinite > 100, 'the generator must reach both boundaries');
  log.done(t);
});

// ---------------------------------------------------------------------------------------
// Strings: for well-formed strings RFC 8785 section 3.2.2.2 is JSON.stringify's escaping;
// strings with a lone surrogate are outside the snapshot domain.

const SPECIAL_UNITS = [0x22, 0x5c, 0x2f, 0x7f, 0x80, 0x9f, 0xad, 0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff, 0xe000, 0x3c, 0x3e, 0x26, 0x27];

/** Random UTF-16 code units; lone surrogates only when `allowLone`. */
function randomString(rng, allowLone, maxLength = 24) {
  const units = [];
  const length = rng.int(maxLength + 1);
  while (units.length < length) {
    switch (rng.int(allowLone ? 10 : 8)) {
      case 0:
        units.push(rng.int(0x20));
        break;
      case 1:
        units.push(rng.pick(SPECIAL_UNITS));
        break;
      case 2:
      case 3:
        units.push(rng.range(0x20, 0x7e));
        break;
      case 4: {
        let unit = rng.int(0x10000 - 0x800);
        if (unit >= 0xd800) unit += 0x800;
        units.push(unit);
        break;
      }
      case 5:
        units.push(rng.range(0x80, 0x7ff));
        break;
      case 6:
      case 7: {
        const codePoint = rng.range(0x10000, 0x10ffff);
        units.push(0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff));
        break;
      }
      case 8:
        units.push(rng.range(0xd800, 0xdfff));
        break;
      default:
        units.push(rng.int(0x10000));
    }
  }
  return String.fromCharCode(...units);
}

/** JSON text of a string with every code unit as a \uXXXX escape (pairs as two), hex case alternating. */
function escapeAll(text) {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const hex = text.charCodeAt(i).toString(16).padStart(4, '0');
    out += `\\u${i % 2 === 0 ? hex : hex.toUpperCase()}`;
  }
  return `${out}"`;
}

/** JSON text of a string with escaped surrogates written as raw code units instead. */
function rawSurrogateText(text) {
  return JSON.stringify(text).replace(/\\\\|\\u(d[89a-f][0-9a-f]{2})/g, (match, hex) => (hex ? String.fromCharCode(parseInt(hex, 16)) : match));
}

test('strings canonicalize as JSON.stringify when well-formed and throw lone_surrogate otherwise', (t) => {
  const rng = rngFor('strings');
  const log = failureLog('strings');
  let wellFormed = 0;
  let lone = 0;
  for (let i = 0; i < 20000; i++) {
    const text = randomString(rng, rng.chance(0.5));
    const where = `string ${show(text)}`;
    if (text.isWellFormed()) {
      wellFormed++;
      const expected = JSON.stringify(text);
      log.expectValue(() => canonicalize(text), expected, where);
      log.expectValue(() => canonicalize({ [text]: text }), `{${expected}:${expected}}`, `${where} as key and value`);
      log.expectValue(() => decodeView(expected), text, `decodeView of ${where}`);
      log.expectValue(() => decodeView(escapeAll(text)), text, `decodeView of ${where} with every unit escaped`);
    } else {
      lone++;
      log.expectCode(() => canonicalize(text), 'lone_surrogate', where);
      log.expectCode(() => canonicalize({ [text]: 1 }), 'lone_surrogate', `${where} as a key`);
      log.expectCode(() => canonicalize({ a: [text] }), 'lone_surrogate', `${where} nested`);
      // JSON.stringify writes lone surrogates as \udXXX escapes; the strict decoder refuses them escaped or raw.
      log.expectCode(() => decodeView(JSON.stringify(text)), 'lone_surrogate', `decodeView(${show(JSON.stringify(text))})`);
      log.expectCode(() => decodeView(`{${JSON.stringify(text)}:0}`), 'lone_surrogate', `decodeView of ${where} as a key`);
      log.expectCode(() => decodeView(rawSurrogateText(text)), 'lone_surrogate', `decodeView of ${where} with raw surrogates`);
    }
  }
  t.diagnostic(`${wellFormed} well-formed strings, ${lone} with a lone surrogate`);
  assert.ok(wellFormed > 5000 && lone > 5000, 'the generator must produce both kinds of strings');
  log.done(t);
});

// ---------------------------------------------------------------------------------------
// Key order: RFC 8785 section 3.2.3 sorts keys by UTF-16 code units, which is what
// Array.prototype.sort does without a comparator.

const NAMED_KEYS = [
  '',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'length',
  '0',
  '1',
  '2',
  '10',
  '01',
  '-1',
  '1.5',
  '1e3',
  ' 1',
  '4294967294',
  '4294967295',
  '4294967296',
  '9007199254740993',
  '\r',
  '\n',
  '\u0000',
  '\u0080',
  '\u00f6',
  '\u00e9',
  '\u20ac',
  '\ufb33',
  '\uffff',
  '\ue000',
  '\ud7ff',
  '\ud83d\ude00',
  '\ud83d\ude02',
  '\ud800\udc00',
  '\udbff\udfff',
  'peach',
  'p\u00e9ch\u00e9',
  'p\u00eache',
  'a',
  'A',
  'aa',
  'b',
];

function randomKey(rng) {
  switch (rng.int(7)) {
    case 0:
      return rng.pick(NAMED_KEYS);
    case 1:
      // Integer-like keys: array indices sort first in Object.keys, not in JCS.
      return String(rng.chance(0.7) ? rng.int(1000) : rng.int(2 ** 32 + 2));
    case 2: {
      let key = '';
      for (let n = rng.range(1, 4); n > 0; n--) key += String.fromCharCode(rng.range(0x21, 0x7e));
      return key;
    }
    case 3:
      // BMP above the surrogates: sorts after astral keys by code unit, before them by code point.
      return String.fromCharCode(rng.range(0xe000, 0xffff)) + (rng.chance(0.5) ? 'x' : '');
    case 4: {
      const codePoint = rng.range(0x10000, 0x10ffff);
      return String.fromCodePoint(codePoint) + (rng.chance(0.3) ? String.fromCharCode(rng.range(0x20, 0x7e)) : '');
    }
    case 5:
      return String.fromCharCode(rng.range(0x80, 0xd7ff));
    default:
      return randomString(rng, false, 6);
  }
}

function randomScalar(rng) {
  switch (rng.int(6)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.range(-1000, 1000) || 1;
    case 3:
      return fromBits(rng.u32() & 0x7fefffff, rng.u32()) * (rng.chance(0.5) ? -1 : 1) || 1;
    default:
      return randomString(rng, false, 8);
  }
}

function codePointCompare(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

test('object keys come out in the order of Object.keys(obj).sort()', (t) => {
  const rng = rngFor('keys');
  const log = failureLog('keys');
  let reordered = 0;
  let codePointDiffers = 0;
  for (let i = 0; i < 5000; i++) {
    const entries = [];
    for (let n = rng.range(0, 12); n > 0; n--) entries.push([randomKey(rng), randomScalar(rng)]);
    // Object.fromEntries defines data properties, so '__proto__' stays an own key.
    let object = Object.fromEntries(entries);
    if (rng.chance(0.3)) object = Object.assign(Object.create(null), object);
    const keys = Object.keys(object);
    const sorted = keys.slice().sort();
    if (keys.join('\u0000') !== sorted.join('\u0000')) reordered++;
    if (sorted.join('\u0000') !== keys.slice().sort(codePointCompare).join('\u0000')) codePointDiffers++;
    const expected = `{${sorted.map((key) => `${JSON.stringify(key)}:${JSON.stringify(object[key])}`).join(',')}}`;
    const where = `object with keys ${show(keys)}`;
    log.expectValue(() => canonicalize(object), expected, where);
    log.expectValue(() => canonicalize([object]), `[${expected}]`, `${where} in an array`);
    log.expectValue(() => canonicalize(decodeView(expected)), expected, `${where} decoded from its canonical text`);
  }
  t.diagnostic(`${reordered} objects whose Object.keys order is not sorted; ${codePointDiffers} whose UTF-16 order differs from code point order`);
  assert.ok(reordered > 1000 && codePointDiffers > 100, 'the generator must exercise integer-like and astral keys');
  log.done(t);
});

// ---------------------------------------------------------------------------------------
// Nested values

function randomValue(rng, depth) {
  if (depth <= 0 || rng.chance(0.35)) return randomScalar(rng);
  if (rng.chance(0.5)) {
    const array = [];
    for (let n = rng.range(0, 6); n > 0; n--) array.push(randomValue(rng, depth - 1));
    return array;
  }
  const entries = [];
  for (let n = rng.range(0, 6); n > 0; n--) entries.push([randomKey(rng), randomValue(rng, depth - 1)]);
  return Object.fromEntries(entries);
}

/**
 * RFC 8785 restated with ECMAScript built-ins, as the RFC itself does: JSON.stringify
 * for every primitive and for keys, keys sorted by UTF-16 code units.
 */
function builtinCanonical(value) {
  if (Array.isArray(value)) return `[${value.map(builtinCanonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${builtinCanonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

test('random JSON values survive canonicalize, JSON.parse and decodeView unchanged', (t) => {
  const rng = rngFor('values');
  const log = failureLog('values');
  for (let i = 0; i < 4000; i++) {
    const value = randomValue(rng, rng.range(0, 6));
    const expected = builtinCanonical(value);
    const where = `value #${i} ${expected.length > 200 ? `${expected.slice(0, 200)}...` : expected}`;
    const result = attempt(() => canonicalize(value));
    log.count();
    if (!result.ok) {
      log.fail(`${where}: threw ${describeError(result.error)}`);
      continue;
    }
    const json = result.value;
    if (json !== expected) log.fail(`${where}: got ${show(json)}`);
    const parsed = JSON.parse(json);
    const same = attempt(() => assert.deepStrictEqual(parsed, value));
    if (!same.ok) log.fail(`${where}: JSON.parse(canonicalize(v)) differs from v`);
    log.expectValue(() => canonicalize(parsed), json, `${where}: canonicalize is not a fixed point`);
    const view = attempt(() => decodeView(json));
    log.count();
    if (!view.ok) log.fail(`${where}: decodeView threw ${describeError(view.error)}`);
    else if (!attempt(() => assert.deepStrictEqual(view.value, value)).ok) log.fail(`${where}: decodeView(canonicalize(v)) differs from v`);
    log.expectValue(() => createSnapshot({ agentName: 'a', toolName: 't', value }).argsCanonicalJson, json, `${where}: createSnapshot`);
  }
  log.done(t);
});

// ---------------------------------------------------------------------------------------
// Proposal hash: SHA-256 (node:crypto) of the UTF-8 envelope, built with JSON.stringify.

function envelope(agentName, toolName, json) {
  return `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(json)},"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
}

function sha256Hex(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

test('the proposal hash of the aioc 0.2.8 reference case is unchanged', () => {
  const snapshot = createSnapshot({ agentName: 'Policy unit agent', toolName: 'ping', value: {} });
  assert.equal(snapshot.argsCanonicalJson, '{}');
  assert.equal(snapshot.proposalHash, '486e7d858f077daf704366bd7f7742a58955c40c0e173da363ab9fa5f47f4a41');
  assert.equal(sha256Hex(envelope('Policy unit agent', 'ping', '{}')), snapshot.proposalHash, 'the envelope oracle agrees with the reference value');
});

test('proposalHash is the SHA-256 of the JSON.stringify-built envelope', (t) => {
  const rng = rngFor('hashes');
  const log = failureLog('hashes');
  for (let i = 0; i < 3000; i++) {
    const agentName = randomString(rng, false, 16);
    const toolName = rng.chance(0.5) ? randomString(rng, false, 12) : `tool_${rng.int(100)}`;
    const value = randomValue(rng, rng.range(0, 4));
    const where = `case #${i} agent ${show(agentName)} tool ${show(toolName)}`;
    const result = attempt(() => createSnapshot({ agentName, toolName, value }));
    log.count();
    if (!result.ok) {
      log.fail(`${where}: createSnapshot threw ${describeError(result.error)}`);
      continue;
    }
    const snapshot = result.value;
    const text = envelope(agentName, toolName, snapshot.argsCanonicalJson);
    const expected = sha256Hex(text);
    log.expectValue(() => snapshot.proposalHash, expected, `${where}: createSnapshot proposalHash`);
    log.expectValue(() => proposalHash({ agentName, toolName, argsCanonicalJson: snapshot.argsCanonicalJson }), expected, `${where}: proposalHash()`);
    // The envelope is itself the RFC 8785 form of its four members.
    log.expectValue(
      () => canonicalize({ toolName, kind: 'tool', argsCanonicalJson: snapshot.argsCanonicalJson, agentName }),
      text,
      `${where}: envelope is canonical`,
    );
  }
  log.done(t);
});
