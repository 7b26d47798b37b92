'use strict';
// The raw native binding (lib/native.js's `binding`), called directly with tapes the
// package would never write. A Rust panic must never cross into Node and nothing may
// crash the process: every call returns canonical JSON, or fails with a code listed in
// ERROR_CODES (internal_error for a tape that does not add up), or (for arguments of the
// wrong JavaScript type only) throws an Error.
//
// Failures are read with either protocol of src/binding/mod.rs: a thrown Error with `code`,
// or the FAILED sentinel (0xffffffff) with binding.lastFailureCode().
//
// Tape format (src/jcs/tape.rs): ops (u8: NULL 0, FALSE 1, TRUE 2, NUMBER 3, STRING 4,
// ARRAY 5, OBJECT 6, BIG_STRING 7), nums (f64 per NUMBER), lens (u32: STRING length,
// ARRAY count, OBJECT count then each key's length), text (UTF-16 of keys and strings in
// tape order), bigs (long strings, one per BIG_STRING). encodeTape(tape, text, bigs,
// agentName?, toolName?) takes ops, nums and lens in one buffer behind a header of u32
// words (lengths, flags, offsets; src/binding/mod.rs). With both names the result is 64 hex
// digits, a template character (0 or 1), then the JSON. FLAG_PATH (2): failures record a
// pointer.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Worker } = require('node:worker_threads');

const { canonicalize, createSnapshot, ERROR_CODES } = require('../..');
const { binding } = require('../../lib/native');
const { prng } = require('../../support/payloads');

const ROOT = path.join(__dirname, '..', '..');
const FAILED = 0xffffffff;
const FLAG_PATH = 2;
const OP = { NULL: 0, FALSE: 1, TRUE: 2, NUMBER: 3, STRING: 4, ARRAY: 5, OBJECT: 6, BIG_STRING: 7 };
// The header layout of src/binding/mod.rs, written out here so that a change there must be
// made here too.
const HEADER_WORDS = 16;
const H = { OPS_LEN: 0, NUMS_LEN: 1, LENS_LEN: 2, TEXT_LEN: 3, BIGS_LEN: 4, FLAGS: 5, NUMS_OFFSET: 6, LENS_OFFSET: 7, OPS_OFFSET: 8 };
const BIG_STRING_MIN = 1024;

/** Writes `value` (plain JSON data) to a tape, independently of lib/snapshot/walk.js. */
function toTape(value, names) {
  const t = { ops: [], nums: [], lens: [], text: '', bigs: [], flags: 0, names };
  const write = (v) => {
    if (v === null) t.ops.push(OP.NULL);
    else if (v === false) t.ops.push(OP.FALSE);
    else if (v === true) t.ops.push(OP.TRUE);
    else if (typeof v === 'number') {
      t.ops.push(OP.NUMBER);
      t.nums.push(v);
    } else if (typeof v === 'string') {
      if (v.length >= BIG_STRING_MIN) {
        t.ops.push(OP.BIG_STRING);
        t.bigs.push(v);
      } else {
        t.ops.push(OP.STRING);
        t.lens.push(v.length);
        t.text += v;
      }
    } else if (Array.isArray(v)) {
      t.ops.push(OP.ARRAY);
      t.lens.push(v.length);
      for (const item of v) write(item);
    } else {
      const keys = Object.keys(v);
      t.ops.push(OP.OBJECT);
      t.lens.push(keys.length);
      for (const key of keys) {
        t.lens.push(key.length);
        t.text += key;
        write(v[key]);
      }
    }
  };
  write(value);
  return t;
}

/** The tape buffer of `t`; header fields can be overridden (opsLen, numsLen, ...). */
function packTape(t, buffer) {
  const numsOffset = HEADER_WORDS * 4;
  const lensOffset = numsOffset + t.nums.length * 8;
  const opsOffset = lensOffset + t.lens.length * 4;
  const memory = buffer || new ArrayBuffer(opsOffset + t.ops.length);
  new Float64Array(memory, numsOffset, t.nums.length).set(t.nums);
  new Uint32Array(memory, lensOffset, t.lens.length).set(t.lens);
  new Uint8Array(memory, opsOffset, t.ops.length).set(t.ops);
  const header = new Uint32Array(memory, 0, HEADER_WORDS);
  header[H.OPS_LEN] = t.opsLen ?? t.ops.length;
  header[H.NUMS_LEN] = t.numsLen ?? t.nums.length;
  header[H.LENS_LEN] = t.lensLen ?? t.lens.length;
  header[H.TEXT_LEN] = t.textLen ?? t.text.length;
  header[H.BIGS_LEN] = t.bigsLen ?? t.bigs.length;
  header[H.FLAGS] = t.flags;
  header[H.NUMS_OFFSET] = t.numsOffset ?? numsOffset;
  header[H.LENS_OFFSET] = t.lensOffset ?? lensOffset;
  header[H.OPS_OFFSET] = t.opsOffset ?? opsOffset;
  return new Uint8Array(memory);
}

function encode(t) {
  const tape = packTape(t);
  return t.names ? binding.encodeTape(tape, t.text, t.bigs, t.names[0], t.names[1]) : binding.encodeTape(tape, t.text, t.bigs);
}

function nativeOutcome(fn) {
  let value;
  try {
    value = fn();
  } catch (error) {
    return { failed: true, threw: true, error, code: error && error.code };
  }
  if (value === FAILED && typeof binding.lastFailureCode === 'function') return { failed: true, code: binding.lastFailureCode() };
  return { failed: false, value };
}

/**
 * The invariant of every well-typed call: a failure has a listed code; a success is
 * canonical JSON (a fixed point of canonicalize), behind 64 hex digits and a template
 * character when both names are given.
 */
function checkInvariant(t, label) {
  const r = nativeOutcome(() => encode(t));
  if (r.failed) {
    assert.ok(ERROR_CODES.includes(r.code), `${label}: a failure with an unlisted code ${r.code}${r.threw ? ` (thrown: ${r.error && r.error.message})` : ''}`);
    return r;
  }
  assert.equal(typeof r.value, 'string', `${label}: the result is a string`);
  let json = r.value;
  if (t.names) {
    assert.match(json.slice(0, 65), /^[0-9a-f]{64}[0123]$/, `${label}: hash and template prefix`);
    json = json.slice(65);
  }
  let parsed;
  assert.doesNotThrow(
    () => {
      parsed = JSON.parse(json);
    },
    `${label}: the output is JSON: ${json.slice(0, 200)}`,
  );
  assert.equal(canonicalize(parsed), json, `${label}: the output is canonical`);
  return r;
}

const VALUES = [
  null,
  true,
  0,
  -1.5e-7,
  'x',
  '',
  [],
  {},
  [1, 'two', null, [false, {}]],
  { b: 1, a: [2, { d: 'é', c: '€😀' }], '': null, 10: 1, 9: 2 },
  { big: 'L'.repeat(2000), list: ['é'.repeat(1500), 'short', '😀'.repeat(600)] },
  JSON.parse('{"__proto__":{"constructor":{"prototype":1}}}'),
  Array.from({ length: 40 }, (_, i) => ({ [`k${i}`]: i, n: [i, `${i}`] })),
];

describe('the native binding', () => {
  test('ERROR_CODES lists internal_error, and errorMessages describes every code', () => {
    assert.ok(ERROR_CODES.includes('internal_error'), 'internal_error is a listed code');
    const described = binding.errorMessages();
    assert.deepEqual(
      described.map((d) => d.code),
      [...ERROR_CODES],
      'errorMessages lists the codes of ERROR_CODES, in order',
    );
    for (const { code, message } of described) assert.ok(typeof message === 'string' && message.length > 10, `${code}: a sentence`);
  });

  test('tapes written independently of lib/snapshot/walk.js encode exactly like canonicalize and createSnapshot', () => {
    for (const value of VALUES) {
      const label = JSON.stringify(value).slice(0, 60);
      const r = nativeOutcome(() => encode(toTape(value)));
      assert.equal(r.failed, false, `${label}: failed with ${r.code}`);
      assert.equal(r.value, canonicalize(value), `${label}: JSON`);
      const hashed = nativeOutcome(() => encode(toTape(value, ['agent é', 'tool 😀'])));
      const snapshot = createSnapshot({ agentName: 'agent é', toolName: 'tool 😀', value });
      assert.equal(hashed.value.slice(0, 64) + hashed.value.slice(65), snapshot.proposalHash + snapshot.argsCanonicalJson, `${label}: hash and JSON`);
    }
  });

  test('every single-field corruption of valid tapes returns canonical JSON or a listed code', (t) => {
    let calls = 0;
    const codes = {};
    const tally = (r) => {
      calls += 1;
      const k = r.failed ? r.code : 'ok';
      codes[k] = (codes[k] || 0) + 1;
    };
    for (const value of VALUES) {
      for (const names of [undefined, ['a', 'tool']]) {
        const base = toTape(value, names);
        const label = `${JSON.stringify(value).slice(0, 40)}${names ? ' hashed' : ''}`;
        for (let i = 0; i < base.ops.length; i++) {
          for (const op of [0, 1, 2, 3, 4, 5, 6, 7, 8, 200, 255])
            tally(checkInvariant({ ...base, ops: base.ops.map((o, j) => (j === i ? op : o)) }, `${label}: ops[${i}] = ${op}`));
        }
        for (let i = 0; i < base.lens.length; i++) {
          for (const delta of [-1, 1, 1000])
            tally(checkInvariant({ ...base, lens: base.lens.map((n, j) => (j === i ? Math.max(0, n + delta) : n)) }, `${label}: lens[${i}] ${delta}`));
          for (const n of [0, 0x7fffffff, 0xffffffff])
            tally(checkInvariant({ ...base, lens: base.lens.map((m, j) => (j === i ? n : m)) }, `${label}: lens[${i}] = ${n}`));
        }
        for (let i = 0; i < base.nums.length; i++) {
          for (const n of [NaN, -0, Infinity, -Infinity, 5e-324])
            tally(checkInvariant({ ...base, nums: base.nums.map((m, j) => (j === i ? n : m)) }, `${label}: nums[${i}] = ${n}`));
        }
        for (const [what, text] of [
          ['text shorter', base.text.slice(0, -1)],
          ['text longer', `${base.text}x`],
          ['a lone surrogate appended', `${base.text}\ud800`],
          ['text reversed', [...base.text].reverse().join('')],
        ]) {
          tally(checkInvariant({ ...base, text }, `${label}: ${what}`));
        }
        tally(checkInvariant({ ...base, bigs: [...base.bigs, 'b'.repeat(2000)] }, `${label}: an extra big string`));
        if (base.bigs.length > 0) {
          tally(checkInvariant({ ...base, bigs: base.bigs.slice(1) }, `${label}: a missing big string`));
          tally(checkInvariant({ ...base, bigs: [`${base.bigs[0]}\udc00`, ...base.bigs.slice(1)] }, `${label}: a lone surrogate in a big string`));
          tally(checkInvariant({ ...base, bigsLen: base.bigs.length + 1 }, `${label}: bigsLen past the array`));
        }
        for (const [what, patch] of [
          ['opsLen - 1', { opsLen: base.ops.length - 1 }],
          ['opsLen + 1', { opsLen: base.ops.length + 1 }],
          ['lensLen - 1', { lensLen: Math.max(0, base.lens.length - 1) }],
          ['lensLen + 1', { lensLen: base.lens.length + 1 }],
          ['numsLen + 1', { numsLen: base.nums.length + 1 }],
          ['all lengths 0', { opsLen: 0, lensLen: 0, numsLen: 0 }],
          ['names toggled', { names: base.names ? undefined : ['x', 'y'] }],
          ['one name only', { names: ['x', undefined] }],
          ['FLAG_PATH set', { flags: base.flags | FLAG_PATH }],
          ['every flag bit', { flags: 0xffffffff }],
          ['textLen + 1', { textLen: base.text.length + 1 }],
          ['numsOffset unaligned', { numsOffset: HEADER_WORDS * 4 + 1 }],
          ['lensOffset past the buffer', { lensOffset: 0xfffffff0 }],
          ['opsOffset 0 (the header)', { opsOffset: 0 }],
        ]) {
          tally(checkInvariant({ ...base, ...patch }, `${label}: ${what}`));
        }
      }
    }
    t.diagnostic(`${calls} corrupted tapes: ${JSON.stringify(codes)}`);
    assert.ok(calls > 1500, `only ${calls} corruptions`);
    assert.ok(codes.internal_error > 100, 'malformed tapes give internal_error');
  });

  test('20000 random tapes, mostly well-formed, return canonical JSON or a listed code', (t) => {
    const rand = prng(0x7a9e);
    const int = (n) => Math.floor(rand() * n);
    const pick = (list) => list[int(list.length)];
    const UNITS = ['a', 'b', 'é', '€', '\ud83d', '\ude00', '\ud83d\ude00', '"', '\\', '\u0000', '~', '/', '1'];
    const str = () => {
      let s = '';
      for (let k = int(6); k > 0; k--) s += pick(UNITS);
      return s;
    };
    const value = (depth) => {
      const r = rand();
      if (depth <= 0 || r < 0.4) return pick([null, true, false, 0, 1.5, -2, 1e21, 5e-324, '', 'x', str(), str(), 'L'.repeat(1024 + int(50))]);
      if (r < 0.7) return Array.from({ length: int(4) }, () => value(depth - 1));
      const o = {};
      for (let k = int(4); k > 0; k--) o[str()] = value(depth - 1);
      return o;
    };
    const corrupt = (tape) => {
      const c = { ...tape, ops: [...tape.ops], lens: [...tape.lens], nums: [...tape.nums], bigs: [...tape.bigs] };
      switch (int(9)) {
        case 0:
          if (c.ops.length) c.ops[int(c.ops.length)] = int(256);
          break;
        case 1:
          if (c.lens.length) c.lens[int(c.lens.length)] = pick([0, 1, 2, 0xffffffff, int(10)]);
          break;
        case 2:
          if (c.nums.length) c.nums[int(c.nums.length)] = pick([NaN, -0, Infinity]);
          break;
        case 3:
          c.text = c.text.slice(0, int(c.text.length + 1)) + pick(['', 'z', '\ud800']);
          break;
        case 4:
          c.ops.splice(int(c.ops.length + 1), 0, int(8));
          break;
        case 5:
          c.ops.splice(int(c.ops.length), 1);
          break;
        case 6:
          c.bigs.push('q'.repeat(1100));
          break;
        case 7:
          c.names = c.names ? undefined : [str(), str()];
          break;
        default:
          c.flags ^= 1 << int(3);
          break;
      }
      return c;
    };
    const codes = {};
    for (let i = 0; i < 20000; i++) {
      let tape = toTape(value(4), rand() < 0.3 ? [str(), str()] : undefined);
      for (let k = rand() < 0.4 ? 0 : 1 + int(3); k > 0; k--) tape = corrupt(tape);
      const r = checkInvariant(
        tape,
        `random tape #${i} ${JSON.stringify({ ops: tape.ops, lens: tape.lens, text: tape.text, flags: tape.flags }).slice(0, 300)}`,
      );
      const k = r.failed ? r.code : 'ok';
      codes[k] = (codes[k] || 0) + 1;
    }
    t.diagnostic(`20000 random tapes: ${JSON.stringify(codes)}`);
    assert.ok(codes.ok > 5000, 'many random tapes are valid');
    assert.ok(codes.internal_error > 1000, 'many random tapes are malformed');
  });

  test('arguments of the wrong type throw an Error (or fail) and never crash', (t) => {
    const empty = { ops: [0], nums: [], lens: [], text: '', bigs: [], flags: 0 };
    const ok = () => packTape(empty);
    const big = () => packTape({ ...empty, ops: [7] });
    const detached = ok();
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    let getterRuns = 0;
    const bigsWithGetter = [];
    Object.defineProperty(bigsWithGetter, 0, {
      get() {
        getterRuns += 1;
        return 'g'.repeat(2000);
      },
      enumerable: true,
    });
    const calls = [
      ['no arguments', () => binding.encodeTape()],
      ['a Float64Array for the tape', () => binding.encodeTape(new Float64Array(16), '')],
      ['a plain array for the tape', () => binding.encodeTape([0], '')],
      ['a tape shorter than its header', () => binding.encodeTape(new Uint8Array(8), '')],
      ['a number for text', () => binding.encodeTape(ok(), 42)],
      ['a string for bigs', () => binding.encodeTape(big(), '', 'bigs')],
      ['no bigs for a BIG_STRING', () => binding.encodeTape(big(), '')],
      ['a Proxy for bigs', () => binding.encodeTape(big(), '', new Proxy(['b'.repeat(2000)], {}))],
      ['a number inside bigs', () => binding.encodeTape(big(), '', [42])],
      ['a hole inside bigs', () => binding.encodeTape(big(), '', [, 'x'])], // eslint-disable-line no-sparse-arrays
      ['a getter inside bigs', () => binding.encodeTape(big(), '', bigsWithGetter)],
      ['a number for a name', () => binding.encodeTape(ok(), '', undefined, 1, 'tool')],
      ['a detached tape', () => binding.encodeTape(detached, '')],
      ['a Buffer for the tape', () => binding.encodeTape(Buffer.from(ok()), '')],
      ['canonicalizeText of a number', () => binding.canonicalizeText(42, 'a', 't', 0)],
      ['canonicalizeText without names', () => binding.canonicalizeText('{}')],
      ['canonicalizeText with every flag bit', () => binding.canonicalizeText('{"a":-0}', 'a', 't', 0xffffffff)],
      ['isExternal of nothing', () => binding.isExternal()],
      ['checkJson of a number', () => binding.checkJson(42, 0)],
      ['checkJson of undefined', () => binding.checkJson(undefined, 0)],
      ['checkJson with every flag bit', () => binding.checkJson('{"a":-0}', 0xffffffff)],
      ['canonicalizeJson of a symbol', () => binding.canonicalizeJson(Symbol('s'), 0)],
      ['canonicalizeJson of a lone surrogate', () => binding.canonicalizeJson('"\\ud800"', 0)],
      ['hashProposal of a lone surrogate', () => binding.hashProposal('a', 't', '"\ud800"')],
      ['hashProposal of objects', () => binding.hashProposal({}, [], null)],
    ];
    const outcomes = {};
    for (const [label, call] of calls) {
      const r = nativeOutcome(call);
      outcomes[label] = r.failed
        ? `${r.threw ? 'threw' : 'FAILED'} ${r.code}`
        : `returned ${typeof r.value === 'string' ? JSON.stringify(r.value.slice(0, 20)) : r.value}`;
      if (r.threw) assert.ok(r.error instanceof Error, `${label}: throws an Error`);
      if (r.failed && !r.threw) assert.ok(ERROR_CODES.includes(r.code), `${label}: listed code ${r.code}`);
    }
    // Still working.
    assert.equal(canonicalize({ b: 1, a: 2 }), '{"a":2,"b":1}', 'canonicalize afterwards');
    t.diagnostic(
      `outcomes: ${JSON.stringify(outcomes)}; getter inside bigs ran ${getterRuns} time(s) (raw binding only: lib/snapshot/tape-writer.js owns its bigs array)`,
    );
  });

  test('lastFailureCode and lastFailurePath are per thread', async () => {
    if (typeof binding.lastFailureCode !== 'function') return;
    assert.equal(binding.checkJson('{"a":1,"a":2}', FLAG_PATH), FAILED, 'main thread: a duplicate key fails');
    const inWorker = await new Promise((resolve, reject) => {
      const worker = new Worker(
        `
        const { parentPort } = require('node:worker_threads');
        const { binding } = require(${JSON.stringify(path.join(ROOT, 'lib', 'native.js'))});
        const status = binding.checkJson('[1e999]', 2);
        parentPort.postMessage({ status, code: binding.lastFailureCode(), path: binding.lastFailurePath() });
      `,
        { eval: true },
      );
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.deepEqual(inWorker, { status: FAILED, code: 'non_finite_number', path: '/0' }, 'the worker sees its own failure');
    assert.equal(binding.lastFailureCode(), 'duplicate_key', 'the main thread keeps its own failure');
    assert.equal(binding.lastFailurePath(), '/a', 'the main thread keeps its own pointer');
  });
});

describe('a tape in shared memory, rewritten by another thread while it is encoded', () => {
  // Only the raw binding can be handed a SharedArrayBuffer-backed tape (lib/snapshot/tape-writer.js owns
  // its buffers, and the package's exports keep lib/ private). The encoder checks the
  // tape in one pass and writes it in a second; a length that changed in between used to
  // make the second pass index out of bounds and panic. The binding now copies the tape
  // before either pass, so a racing writer yields an ordinary result or internal_error.
  const script = `
    const { Worker } = require('node:worker_threads');
    const { binding } = require(${JSON.stringify(path.join(ROOT, 'lib', 'native.js'))});
    const listed = new Set(binding.errorMessages().map((d) => d.code));
    // Header (16 words), no numbers, 9 lengths, 9 ops.
    const shared = new SharedArrayBuffer(64 + 9 * 4 + 9);
    const header = new Uint32Array(shared, 0, 16);
    header.set([9, 0, 9, 8, 0, 0, 64, 64, 64 + 36]);
    new Uint32Array(shared, 64, 9).set([8, 1, 1, 1, 1, 1, 1, 1, 1]);
    new Uint8Array(shared, 100, 9).set([5, 4, 4, 4, 4, 4, 4, 4, 4]);
    const tape = new Uint8Array(shared);
    const writer = new Worker('const { workerData } = require("node:worker_threads"); const lens = new Uint32Array(workerData, 64, 9); for (let i = 0;; i++) lens[8] = (i & 1) ? 1 : 1000000;', { eval: true, workerData: shared });
    setTimeout(() => {
      const seen = {};
      const start = Date.now();
      let calls = 0;
      // Up to 3 s, or 0.5 s once a panic was seen.
      while (Date.now() - start < (Object.keys(seen).some((k) => k.startsWith('threw')) ? 500 : 3000)) {
        calls++;
        let key;
        try {
          const r = binding.encodeTape(tape, 'abcdefgh');
          key = r === 0xffffffff ? 'FAILED ' + binding.lastFailureCode() : 'ok';
        } catch (e) {
          key = 'threw ' + e.code;
        }
        seen[key] = (seen[key] || 0) + 1;
      }
      writer.terminate();
      const unlisted = Object.keys(seen).filter((k) => k !== 'ok' && !listed.has(k.split(' ')[1]));
      process.stdout.write(JSON.stringify({ calls, seen, unlisted }));
    }, 50);
  `;
  let report;
  function race() {
    if (report === undefined) {
      const child = spawnSync(process.execPath, ['-e', script], {
        encoding: 'utf8',
        timeout: 60000,
        maxBuffer: 1 << 29,
        env: { ...process.env, RUST_BACKTRACE: '0' },
      });
      const panicLines = (child.stderr.match(/panicked at/g) || []).length;
      report = { child, panicLines, result: child.status === 0 ? JSON.parse(child.stdout) : undefined };
    }
    return report;
  }

  test('never crashes the process', (t) => {
    const { child, result } = race();
    assert.equal(child.signal, null, `killed by ${child.signal}`);
    assert.equal(child.status, 0, `exit status ${child.status}: ${child.stderr.slice(0, 500)}`);
    t.diagnostic(`${result.calls} racing calls: ${JSON.stringify(result.seen)}; Rust's panic hook wrote ${race().panicLines} "panicked at" lines to stderr`);
  });

  test('every failure has a listed code', () => {
    const { result } = race();
    assert.deepEqual(result.unlisted, [], `unlisted outcomes: ${JSON.stringify(result.seen)}`);
  });
});
