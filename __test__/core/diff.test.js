'use strict';
// diffSnapshots (lib/diff.js): exact paths for hand-written cases (keys with "/" and "~",
// __proto__ members, arrays of different lengths, changes of type, canonical order),
// agreement with an independent naive diff on JSON.parse results for generated pairs
// (fast-check), verification of both sides as verifySnapshot does, payload-free errors,
// options read as own data properties, fresh values, and no code run from the inputs.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');

const lib = require('../..');
const { diffSnapshots } = require('../../lib/diff');

const { createSnapshot, prepareToolCall, authorizeToolCall, verifySnapshot, SnapshotDomainError, MAX_DEPTH } = lib;

const AGENT = 'Diff test agent';
const TOOL = 'diff_tool';
const snap = (value, agentName = AGENT, toolName = TOOL) => createSnapshot({ agentName, toolName, value });
/** A snapshot as a store gives it back: a plain JSON copy. */
const stored = (snapshot) => JSON.parse(JSON.stringify(snapshot));
const paths = (diff) => diff.map((entry) => `${entry.kind} ${entry.path}`);

/** Builds a record with own data properties only (an own "__proto__" key stays a key). */
function record(entries) {
  const out = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

describe('hand-written cases: exact paths, kinds and order', () => {
  const CASES = [
    ['equal documents', { a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, []],
    ['a changed scalar', { a: 1 }, { a: 2 }, ['changed /a']],
    ['an added and a removed member', { a: 1, old: true }, { a: 1, new: null }, ['added /new', 'removed /old']],
    [
      'keys with "/" and "~" are escaped as RFC 6901 says (~0, then ~1)',
      { 'a/b': 1, 'm~n': 1, '~1': 1, '/': 1 },
      { 'a/b': 2, 'm~n': 2, '~1': 2, '/': 2 },
      ['changed /~1', 'changed /a~1b', 'changed /m~0n', 'changed /~01'],
    ],
    ['the empty key is "/"', { '': 1 }, { '': 2 }, ['changed /']],
    ['arrays by index: a shorter proposal removes the tail', { list: [1, 2, 3] }, { list: [1] }, ['removed /list/1', 'removed /list/2']],
    ['arrays by index: a longer proposal adds the tail', { list: [1] }, { list: [1, 2, 3] }, ['added /list/1', 'added /list/2']],
    ['arrays by index: an insertion at the front changes every index', [2, 3], [1, 2, 3], ['changed /0', 'changed /1', 'added /2']],
    ['a change of type is changed, without descending', { a: { b: 1, c: 2 } }, { a: [1, 2] }, ['changed /a']],
    ['null to an object is a change of type', { a: null }, { a: { b: 1 } }, ['changed /a']],
    ['a number to a string is changed', { n: 1 }, { n: '1' }, ['changed /n']],
    ['different roots of different types', [1], { 0: 1 }, ['changed ']],
    ['different scalar roots', 'x', 'y', ['changed ']],
    [
      'members in canonical order (UTF-16 code units), not JavaScript property order',
      {},
      { b: 1, 10: 1, 9: 1, a: 1, B: 1, '\ufb33': 1, '\ud83d\ude00': 1 },
      ['added /10', 'added /9', 'added /B', 'added /a', 'added /b', 'added /\ud83d\ude00', 'added /\ufb33'],
    ],
    [
      'depth first: a nested change comes before the next member',
      { a: { x: 1, y: 1 }, b: 1 },
      { a: { x: 2, y: 2 }, b: 2 },
      ['changed /a/x', 'changed /a/y', 'changed /b'],
    ],
  ];
  for (const [label, approved, proposed, expected] of CASES) {
    test(label, () => {
      assert.deepEqual(paths(diffSnapshots(snap(approved), snap(proposed))), expected);
    });
  }

  test('__proto__, constructor and prototype members are data: compared, added and removed like any key', () => {
    const withProto = record([
      ['__proto__', { amount: 1000000 }],
      ['to', 'x'],
    ]);
    const smaller = record([
      ['__proto__', { amount: 1 }],
      ['to', 'x'],
    ]);
    assert.deepEqual(paths(diffSnapshots(snap(smaller), snap(withProto))), ['changed /__proto__/amount']);
    assert.deepEqual(paths(diffSnapshots(snap({ to: 'x' }), snap(withProto))), ['added /__proto__']);
    assert.deepEqual(paths(diffSnapshots(snap(withProto), snap({ to: 'x' }))), ['removed /__proto__']);
    const polluted = record([
      ['constructor', { prototype: { admin: true } }],
      ['prototype', 1],
    ]);
    assert.deepEqual(paths(diffSnapshots(snap({}), snap(polluted))), ['added /constructor', 'added /prototype']);
    const values = diffSnapshots(snap({ to: 'x' }), snap(withProto), { includeValues: true });
    assert.deepEqual(values[0].proposed, { amount: 1000000 });
    assert.equal(Object.getPrototypeOf({}).amount, undefined, 'no prototype was touched');
  });

  test('a difference 1024 levels deep has a 1023-segment path, without exhausting the stack', () => {
    const nest = (leaf) => {
      let value = leaf;
      for (let i = 0; i < MAX_DEPTH - 1; i++) value = { k: value };
      return value;
    };
    const diff = diffSnapshots(snap(nest([1])), snap(nest([2])));
    assert.deepEqual(paths(diff), [`changed ${'/k'.repeat(MAX_DEPTH - 1)}/0`]);
  });

  test('a wide object of 20,000 members: one entry per changed member, in order', () => {
    const a = {};
    const b = {};
    for (let i = 0; i < 20000; i++) {
      a[`k${i}`] = i;
      b[`k${i}`] = i % 1000 === 0 ? -i - 1 : i;
    }
    const diff = diffSnapshots(snap(a), snap(b));
    assert.equal(diff.length, 20);
    assert.deepEqual(
      diff.map((e) => e.path),
      Array.from({ length: 20 }, (_, i) => `/k${i * 1000}`).sort(),
    );
  });
});

describe('the result', () => {
  test('is a frozen array of frozen entries; equal documents give a frozen empty array', () => {
    const diff = diffSnapshots(snap({ a: 1 }), snap({ a: 2 }));
    assert.ok(Array.isArray(diff) && Object.isFrozen(diff));
    assert.ok(Object.isFrozen(diff[0]));
    assert.deepEqual(Object.keys(diff[0]), ['path', 'kind']);
    const none = diffSnapshots(snap({ a: 1 }), snap({ a: 1 }));
    assert.deepEqual(none, []);
    assert.ok(Object.isFrozen(none));
  });

  test('values appear only with { includeValues: true }: approved for removed, proposed for added, both for changed', () => {
    const approved = snap({ same: 1, changed: { x: [1] }, removed: 'gone' });
    const proposed = snap({ same: 1, changed: 'now a string', added: [true] });
    const bare = diffSnapshots(approved, proposed);
    for (const entry of bare) assert.deepEqual(Object.keys(entry), ['path', 'kind']);
    const full = diffSnapshots(approved, proposed, { includeValues: true });
    assert.deepEqual(full, [
      { path: '/added', kind: 'added', proposed: [true] },
      { path: '/changed', kind: 'changed', approved: { x: [1] }, proposed: 'now a string' },
      { path: '/removed', kind: 'removed', approved: 'gone' },
    ]);
    assert.ok(!Object.hasOwn(full[0], 'approved') && !Object.hasOwn(full[2], 'proposed'));
    for (const options of [{ includeValues: 1 }, { includeValues: 'yes' }, { includeValues: false }, {}, null, undefined]) {
      for (const entry of diffSnapshots(approved, proposed, options)) assert.deepEqual(Object.keys(entry), ['path', 'kind'], JSON.stringify(options));
    }
  });

  test('values are fresh decoded copies: mutating one changes no later diff and no input', () => {
    const approved = snap({ a: { deep: [1] } });
    const proposed = snap({ a: [{ deep: 2 }] });
    const first = diffSnapshots(approved, proposed, { includeValues: true });
    first[0].approved.deep.push('mutated');
    first[0].proposed[0].deep = 'mutated';
    const second = diffSnapshots(approved, proposed, { includeValues: true });
    assert.deepEqual(second[0].approved, { deep: [1] });
    assert.deepEqual(second[0].proposed, [{ deep: 2 }]);
    assert.notEqual(second[0].approved, first[0].approved);
    assert.equal(approved.argsCanonicalJson, '{"a":{"deep":[1]}}');
  });
});

describe('inputs are verified as verifySnapshot verifies them', () => {
  test('snapshots, stored records, prepared calls, decisions and proposals are accepted', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"replicas":3}' });
    const outcome = await authorizeToolCall({
      prepared: prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"replicas":30}' }),
      policy: () => ({ decision: 'require_approval', reason: 'review' }),
      execute: () => assert.fail('never runs'),
    });
    const expected = ['changed /replicas'];
    assert.deepEqual(paths(diffSnapshots(prepared, outcome.proposal)), expected);
    assert.deepEqual(paths(diffSnapshots(prepared.snapshot, stored(outcome.proposal))), expected);
    assert.deepEqual(paths(diffSnapshots(stored(prepared.snapshot), verifySnapshot(stored(outcome.proposal)))), expected);
  });

  test('a record that does not verify throws its SnapshotDomainError code, whichever side it is', () => {
    const good = stored(snap({ a: 1 }));
    for (const [label, bad, code] of [
      ['a changed value', { ...good, argsCanonicalJson: '{"a":2}' }, 'hash_mismatch'],
      ['another agent', { ...good, agentName: 'other' }, 'hash_mismatch'],
      ['a non-canonical text', { ...good, argsCanonicalJson: '{ "a":1}' }, 'not_canonical'],
      ['a duplicate key', { ...good, argsCanonicalJson: '{"a":1,"a":1}' }, 'duplicate_key'],
      ['a missing hash', { agentName: AGENT, toolName: TOOL, argsCanonicalJson: '{"a":1}' }, 'not_a_snapshot'],
      ['not an object', 'text', 'not_a_snapshot'],
      ['null', null, 'not_a_snapshot'],
      ['a Proxy of a good record', new Proxy(good, {}), 'not_a_snapshot'],
    ]) {
      for (const [side, args] of [
        ['approved', [bad, good]],
        ['proposed', [good, bad]],
      ]) {
        assert.throws(
          () => diffSnapshots(...args),
          (error) => error instanceof SnapshotDomainError && error.code === code,
          `${label} as ${side}`,
        );
      }
    }
  });

  test('fields are read as own data properties: a getter is never called, an inherited field never counts', () => {
    const good = stored(snap({ a: 1 }));
    let calls = 0;
    const getter = Object.defineProperty({ ...good }, 'argsCanonicalJson', {
      get() {
        calls++;
        return good.argsCanonicalJson;
      },
      enumerable: true,
    });
    assert.throws(() => diffSnapshots(getter, good), { code: 'not_a_snapshot' });
    const inherited = Object.create(good);
    assert.throws(() => diffSnapshots(good, inherited), { code: 'not_a_snapshot' });
    assert.equal(calls, 0);
  });

  test('different agents or tools throw a payload-free TypeError (ERR_INVALID_ARG_VALUE)', () => {
    const secret = `secret-${Math.random().toString(36).slice(2)}`;
    const value = { [secret]: secret };
    for (const [label, other, what] of [
      ['agent', snap(value, `${secret}-agent`, TOOL), 'agent names'],
      ['tool', snap(value, AGENT, `${secret}-tool`), 'tool names'],
    ]) {
      assert.throws(
        () => diffSnapshots(snap(value), other),
        (error) => {
          assert.ok(error instanceof TypeError, label);
          assert.equal(error.code, 'ERR_INVALID_ARG_VALUE');
          assert.ok(error.message.includes(what), error.message);
          assert.ok(!error.message.includes(secret) && !error.stack.includes(secret), `${label}: the message holds a name or payload`);
          return true;
        },
      );
    }
  });
});

describe('options', () => {
  const approved = snap({ a: 1 });
  const proposed = snap({ a: 2 });

  test('a Proxy or a non-object is refused with a TypeError, unread', () => {
    let traps = 0;
    const proxy = new Proxy(
      { includeValues: true },
      {
        get() {
          traps++;
          return true;
        },
        getOwnPropertyDescriptor() {
          traps++;
          return undefined;
        },
        has() {
          traps++;
          return true;
        },
      },
    );
    assert.throws(() => diffSnapshots(approved, proposed, proxy), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    assert.equal(traps, 0);
    for (const options of [true, 'includeValues', 1]) {
      assert.throws(() => diffSnapshots(approved, proposed, options), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    }
  });

  test('includeValues is read as an own data property: inherited or getter values never count, a getter is never called', () => {
    let calls = 0;
    const getter = Object.defineProperty({}, 'includeValues', {
      get() {
        calls++;
        return true;
      },
      enumerable: true,
    });
    assert.deepEqual(Object.keys(diffSnapshots(approved, proposed, getter)[0]), ['path', 'kind']);
    assert.deepEqual(Object.keys(diffSnapshots(approved, proposed, Object.create({ includeValues: true }))[0]), ['path', 'kind']);
    Object.prototype.includeValues = true; // eslint-disable-line no-extend-native
    try {
      assert.deepEqual(Object.keys(diffSnapshots(approved, proposed, {})[0]), ['path', 'kind']);
    } finally {
      delete Object.prototype.includeValues;
    }
    assert.equal(calls, 0);
  });
});

test('built-ins patched after load change nothing, and no setter on Object.prototype or Array.prototype is reached', () => {
  const approved = snap({ 'a/b': [1, 2], z: { y: 1 } });
  const proposed = snap({ 'a/b': [1], z: { y: 2, x: 0 } });
  const expected = diffSnapshots(approved, proposed, { includeValues: true });
  const saved = {
    sort: Array.prototype.sort,
    keys: Object.keys,
    parse: JSON.parse,
    freeze: Object.freeze,
    charCodeAt: String.prototype.charCodeAt,
    slice: String.prototype.slice,
    isArray: Array.isArray,
    defineProperty: Object.defineProperty,
    hasOwn: Object.hasOwn,
  };
  const hits = [];
  const trap = (name) =>
    function trapped() {
      hits.push(name);
      throw new Error(`patched ${name} ran`);
    };
  try {
    Array.prototype.sort = trap('sort'); // eslint-disable-line no-extend-native
    Object.keys = trap('keys');
    JSON.parse = trap('parse');
    Object.freeze = trap('freeze');
    String.prototype.charCodeAt = trap('charCodeAt'); // eslint-disable-line no-extend-native
    String.prototype.slice = trap('slice'); // eslint-disable-line no-extend-native
    Array.isArray = trap('isArray');
    Object.hasOwn = trap('hasOwn');
    for (const key of ['0', '1', '2', 'path', 'kind', 'approved', 'proposed']) {
      saved.defineProperty(Object.prototype, key, {
        set() {
          hits.push(`Object.prototype setter ${key}`);
        },
        configurable: true,
      });
    }
    for (const key of ['0', '1', '2', '3', '4']) {
      saved.defineProperty(Array.prototype, key, {
        set() {
          hits.push(`Array.prototype setter ${key}`);
        },
        configurable: true,
      });
    }
    Object.defineProperty = trap('defineProperty');
    var actual = diffSnapshots(approved, proposed, { includeValues: true }); // eslint-disable-line no-var
  } finally {
    Object.defineProperty = saved.defineProperty;
    Array.prototype.sort = saved.sort; // eslint-disable-line no-extend-native
    Object.keys = saved.keys;
    JSON.parse = saved.parse;
    Object.freeze = saved.freeze;
    String.prototype.charCodeAt = saved.charCodeAt; // eslint-disable-line no-extend-native
    String.prototype.slice = saved.slice; // eslint-disable-line no-extend-native
    Array.isArray = saved.isArray;
    Object.hasOwn = saved.hasOwn;
    for (const key of ['0', '1', '2', 'path', 'kind', 'approved', 'proposed']) delete Object.prototype[key];
    for (const key of ['0', '1', '2', '3', '4']) delete Array.prototype[key];
  }
  assert.deepEqual(hits, []);
  assert.deepEqual(actual, expected);
});

// ---------------------------------------------------------------------------------------
// Generated pairs against an independent naive diff.

const KEYS = ['a', 'b', 'B', '', '/', '~', '~1', 'a/b', '__proto__', 'constructor', '10', '9', '\ud83d\ude00', '\ufb33', '\u00e9'];
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, 1, 2, -1.5, 1e21, 'x', 'y', '', '\u2028'),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('json')), { selector: ([k]) => k, maxLength: 5 }).map(record),
  ),
}));

/** RFC 6901 token escaping, written independently of lib/diff.js. */
const token = (key) => key.split('~').join('~0').split('/').join('~1');
const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** Code-unit order, spelled out rather than relying on the default sort. */
function byCodeUnits(x, y) {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x.charCodeAt(i) - y.charCodeAt(i);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** The naive oracle: recursive, on JSON.parse results. */
function naiveDiff(a, b, path = '', out = []) {
  if (kindOf(a) !== kindOf(b)) {
    out.push({ path, kind: 'changed', approved: a, proposed: b });
  } else if (kindOf(a) === 'array') {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const p = `${path}/${i}`;
      if (i >= a.length) out.push({ path: p, kind: 'added', proposed: b[i] });
      else if (i >= b.length) out.push({ path: p, kind: 'removed', approved: a[i] });
      else naiveDiff(a[i], b[i], p, out);
    }
  } else if (kindOf(a) === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(byCodeUnits);
    for (const key of keys) {
      const p = `${path}/${token(key)}`;
      if (!Object.hasOwn(a, key)) out.push({ path: p, kind: 'added', proposed: b[key] });
      else if (!Object.hasOwn(b, key)) out.push({ path: p, kind: 'removed', approved: a[key] });
      else naiveDiff(a[key], b[key], p, out);
    }
  } else if (a !== b) {
    out.push({ path, kind: 'changed', approved: a, proposed: b });
  }
  return out;
}

test('generated pairs: diffSnapshots equals a naive recursive diff of JSON.parse results, with and without values', () => {
  let nonEmpty = 0;
  fc.assert(
    fc.property(json, json, (approvedValue, proposedValue) => {
      const approved = snap(approvedValue);
      const proposed = snap(proposedValue);
      const oracle = naiveDiff(JSON.parse(approved.argsCanonicalJson), JSON.parse(proposed.argsCanonicalJson));
      if (oracle.length > 0) nonEmpty++;
      assert.deepStrictEqual(
        diffSnapshots(approved, proposed, { includeValues: true }).map((e) => ({ ...e })),
        oracle,
      );
      assert.deepStrictEqual(
        diffSnapshots(approved, proposed).map((e) => ({ ...e })),
        oracle.map(({ path, kind }) => ({ path, kind })),
      );
      // Swapping the sides swaps added and removed and keeps the paths.
      const swapped = diffSnapshots(proposed, approved).map((e) => `${e.kind} ${e.path}`);
      const flip = { added: 'removed', removed: 'added', changed: 'changed' };
      assert.deepStrictEqual(
        swapped,
        oracle.map((e) => `${flip[e.kind]} ${e.path}`),
      );
      assert.equal(diffSnapshots(approved, stored(approved)).length, 0);
    }),
    { numRuns: 600, seed: 0x0d1ff },
  );
  assert.ok(nonEmpty > 300, `only ${nonEmpty} generated pairs differed`);
});

test('the package root exports this diffSnapshots (a function that loads lib/diff.js at its first call and hands over)', () => {
  assert.equal(typeof lib.diffSnapshots, 'function');
  assert.equal(lib.diffSnapshots.name, 'diffSnapshots');
  assert.equal(lib.diffSnapshots.length, diffSnapshots.length);
  const a = createSnapshot({ agentName: 'a', toolName: 't', value: { x: [1, 2], y: 'same' } });
  const b = createSnapshot({ agentName: 'a', toolName: 't', value: { x: [1, 3], z: true, y: 'same' } });
  assert.deepEqual(lib.diffSnapshots(a, b), diffSnapshots(a, b));
  assert.deepEqual(lib.diffSnapshots(a, b, { includeValues: true }), diffSnapshots(a, b, { includeValues: true }));
  assert.throws(
    () => lib.diffSnapshots(a, {}),
    (error) => {
      assert.throws(() => diffSnapshots(a, {}), { name: error.name, code: error.code, message: error.message });
      return true;
    },
  );
});
