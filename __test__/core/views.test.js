'use strict';
// Snapshots and views of RFC-0016: the snapshot is immutable and detached from the
// value it was made from; every decodeView call returns a fresh, alias-free value whose
// canonical form is argsCanonicalJson; the proposal hash binds agent, tool and JSON.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');

const { canonicalize, createSnapshot, decodeView, proposalHash, SnapshotDomainError } = require('../..');

const AGENT = 'Views test agent';
const TOOL = 'write_file';

function sampleValue() {
  return {
    path: '/srv/app/config.json',
    content: 'line 1\nline "2"\t\u0001 😀 é',
    overwrite: false,
    mode: 420,
    ratio: 0.1,
    tags: ['a', 'b', { nested: ['deep', { deeper: [1, 2, 3] }] }],
    options: { encoding: 'utf8', owner: { uid: 1000, gid: null }, list: [[], {}] },
    10: 'ten',
    2: 'two',
  };
}

/** Every object and array reachable from `value`, in walk order. */
function containers(value, out = []) {
  if (value !== null && typeof value === 'object') {
    out.push(value);
    for (const key of Object.keys(value)) containers(value[key], out);
  }
  return out;
}

function snapshotOf(value = sampleValue()) {
  return createSnapshot({ agentName: AGENT, toolName: TOOL, value });
}

describe('decodeView returns fresh, alias-free views', () => {
  test('every call returns a different object, with no container shared between two views', () => {
    const snapshot = snapshotOf();
    const first = decodeView(snapshot);
    const second = decodeView(snapshot);
    assert.notEqual(first, second, 'two views of one snapshot are different objects');
    const a = containers(first);
    const b = new Set(containers(second));
    assert.equal(a.length, b.size, 'both views have as many containers');
    assert.ok(a.length > 10, 'the sample has nested containers');
    for (const [i, container] of a.entries()) {
      assert.equal(b.has(container), false, `container #${i} of the first view is shared with the second view`);
    }
    const fromText = decodeView(snapshot.argsCanonicalJson);
    for (const [i, container] of containers(fromText).entries()) {
      assert.equal(b.has(container) || a.includes(container), false, `container #${i} of a text view is shared with a snapshot view`);
    }
  });

  test('a view is structurally equal to JSON.parse(argsCanonicalJson) and canonicalizes back to it', () => {
    for (const value of [sampleValue(), {}, [], { a: [] }, [null, true, false, 0, -1.5, 'x'], { '': { '': [''] } }]) {
      const snapshot = snapshotOf(value);
      const view = decodeView(snapshot);
      assert.deepStrictEqual(view, JSON.parse(snapshot.argsCanonicalJson), `view of ${snapshot.argsCanonicalJson} equals JSON.parse`);
      assert.equal(canonicalize(view), snapshot.argsCanonicalJson, `view of ${snapshot.argsCanonicalJson} canonicalizes back`);
      assert.deepStrictEqual(decodeView(snapshot.argsCanonicalJson), view, `text view of ${snapshot.argsCanonicalJson} equals the snapshot view`);
    }
  });

  test('views of JSON-safe values are structurally equal to the value but never the same object', () => {
    const value = sampleValue();
    const snapshot = snapshotOf(value);
    const view = decodeView(snapshot);
    assert.deepStrictEqual(view, value, 'the view equals the original value');
    const original = new Set(containers(value));
    for (const [i, container] of containers(view).entries()) {
      assert.equal(original.has(container), false, `container #${i} of the view is an object of the original value`);
    }
  });

  test('deeply mutating a view changes neither the next view nor the snapshot', () => {
    const snapshot = snapshotOf();
    const json = snapshot.argsCanonicalJson;
    const hash = snapshot.proposalHash;
    const view = decodeView(snapshot);
    view.path = '/etc/passwd';
    view.tags[2].nested[1].deeper.push(4);
    view.tags[2].nested[1].deeper[0] = 'changed';
    view.options.owner.uid = 0;
    delete view.options.encoding;
    view.options.list[0].push('x');
    view.added = { evil: true };
    Object.setPrototypeOf(view.options, null);
    assert.notEqual(canonicalize(view), json, 'the mutated view no longer canonicalizes to the snapshot (mutation is detectable)');
    assert.equal(snapshot.argsCanonicalJson, json, 'argsCanonicalJson is unchanged');
    assert.equal(snapshot.proposalHash, hash, 'proposalHash is unchanged');
    const next = decodeView(snapshot);
    assert.deepStrictEqual(next, JSON.parse(json), 'the next view is the original value');
    assert.equal(canonicalize(next), json, 'the next view canonicalizes to the snapshot');
    assert.deepStrictEqual(decodeView(json), JSON.parse(json), 'a view of the text is the original value');
  });

  test('freezing or poisoning a view does not affect later views', () => {
    const snapshot = snapshotOf();
    const view = decodeView(snapshot);
    Object.freeze(view);
    Object.freeze(view.tags);
    Object.defineProperty(view.options, 'trap', {
      get() {
        throw new Error('poisoned');
      },
      enumerable: true,
    });
    const next = decodeView(snapshot);
    assert.equal(Object.isFrozen(next), false, 'the next view is not frozen');
    assert.equal(Object.isFrozen(next.tags), false, "the next view's arrays are not frozen");
    assert.equal(Object.hasOwn(next.options, 'trap'), false, 'the next view has no poisoned property');
  });
});

describe('views copied from a template made from the skeleton and the tape', () => {
  // Long strings and many numbers: the template is JSON.parse of the skeleton (the JSON
  // with placeholders for numbers and long strings) with the walk's own numbers and long
  // strings put in (lib/snapshot/view.js templateFromSkeleton). JSON.parse of the JSON is
  // the oracle: same structure, values and key order at every level, prototypes
  // Object.prototype and Array.prototype, nothing shared with the value.
  const long = 'é"\\\n😀'.repeat(600);
  const values = [
    { z: long, a: [long, 'x'], 10: long, 2: { y: long, b: null, __proto__: undefined } },
    { series: Array.from({ length: 3000 }, (_, i) => i / 7 - 200), unit: 'ms', tags: { b: 1, a: 2, 1: 3 } },
    [long, [long], { k: long }],
    JSON.parse(`{"__proto__":{"s":"${'q'.repeat(3000)}"},"b":[${'1,'.repeat(500)}2]}`),
    long,
    Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? [i * 1e300, -(i + 1) / 3, { [String(i)]: i, [`k${i}`]: -(i + 1) }] : i === 7 ? long : 0.5 - i)),
    { b: [long, 1, 2, 3, long.slice(1)], a: Array.from({ length: 100 }, (_, i) => Number.MIN_VALUE * i), 0: Number.MAX_SAFE_INTEGER },
  ];
  delete values[0][2].__proto__;
  test('these values take the skeleton path (template character 2)', () => {
    const { hashedCanonicalJson } = require('../../lib/snapshot/canonical');
    for (const [i, value] of values.entries()) {
      const [, , views, template] = hashedCanonicalJson(value, false, AGENT, TOOL);
      assert.equal(String.fromCharCode(views), '2', `value #${i}`);
      assert.equal(typeof template === 'symbol', false, `value #${i} has a template`);
    }
  });

  test('every view equals JSON.parse of the JSON, key order and prototypes included', () => {
    for (const value of values) {
      const s = createSnapshot({ agentName: AGENT, toolName: TOOL, value });
      const expected = JSON.parse(s.argsCanonicalJson);
      for (const view of [decodeView(s), decodeView(s), decodeView(s)]) {
        assert.deepStrictEqual(view, expected);
        assert.equal(JSON.stringify(view), JSON.stringify(expected), 'same key order at every level');
        const a = containers(view);
        const b = containers(expected);
        assert.equal(a.length, b.length);
        for (let i = 0; i < a.length; i++) {
          assert.equal(Object.getPrototypeOf(a[i]), Object.getPrototypeOf(b[i]), 'prototype');
          assert.deepEqual(Object.keys(a[i]), Object.keys(b[i]), 'own keys in order');
        }
      }
    }
  });

  test('views share no container with the value, and mutating the value afterwards changes no view', () => {
    for (const value of values) {
      const s = createSnapshot({ agentName: AGENT, toolName: TOOL, value });
      const before = JSON.parse(s.argsCanonicalJson);
      const own = new Set(containers(value));
      const first = decodeView(s);
      for (const c of containers(first)) assert.ok(!own.has(c), 'a view shares a container with the value');
      for (const c of containers(value)) {
        if (Array.isArray(c)) c.push('mutated');
        else c.mutated = true;
      }
      assert.deepStrictEqual(decodeView(s), before);
      assert.deepStrictEqual(first, before);
    }
  });
});

describe('the snapshot object is immutable', () => {
  test('a snapshot is frozen, with exactly its four fields', () => {
    const snapshot = snapshotOf();
    assert.ok(Object.isFrozen(snapshot), 'Object.isFrozen(snapshot)');
    assert.deepEqual(Object.keys(snapshot).sort(), ['agentName', 'argsCanonicalJson', 'proposalHash', 'toolName'], 'snapshot fields');
    assert.equal(Object.getPrototypeOf(snapshot), Object.prototype, 'a snapshot is a plain object');
    for (const key of Object.keys(snapshot)) {
      const descriptor = Object.getOwnPropertyDescriptor(snapshot, key);
      assert.ok(Object.hasOwn(descriptor, 'value'), `${key} is a data property`);
      assert.equal(typeof descriptor.value, 'string', `${key} is a string`);
      assert.equal(descriptor.writable, false, `${key} is not writable`);
      assert.equal(descriptor.configurable, false, `${key} is not configurable`);
    }
    assert.equal(snapshot.agentName, AGENT, 'agentName');
    assert.equal(snapshot.toolName, TOOL, 'toolName');
    assert.match(snapshot.proposalHash, /^[0-9a-f]{64}$/, 'proposalHash is 64 lowercase hex digits');
  });

  test('assigning, deleting or redefining any field changes nothing', () => {
    const snapshot = snapshotOf();
    const before = { ...snapshot };
    for (const key of ['agentName', 'toolName', 'argsCanonicalJson', 'proposalHash']) {
      try {
        snapshot[key] = 'tampered';
      } catch {
        /* strict mode throws on a frozen object */
      }
      try {
        delete snapshot[key];
      } catch {
        /* strict mode throws on a frozen object */
      }
      try {
        Object.defineProperty(snapshot, key, { value: 'tampered' });
      } catch {
        /* a frozen object refuses */
      }
      assert.equal(snapshot[key], before[key], `${key} is unchanged`);
    }
    try {
      snapshot.extra = 1;
    } catch {
      /* strict mode throws */
    }
    try {
      Object.setPrototypeOf(snapshot, { argsCanonicalJson: 'x' });
    } catch {
      /* not extensible */
    }
    assert.equal(Object.hasOwn(snapshot, 'extra'), false, 'no field can be added');
    assert.equal(Object.getPrototypeOf(snapshot), Object.prototype, 'the prototype cannot be changed');
    assert.deepStrictEqual(decodeView(snapshot), JSON.parse(before.argsCanonicalJson), 'the view is unchanged');
  });

  test('mutating the original value after createSnapshot changes neither the JSON nor any later view', () => {
    // RFC-0016 matrix items 2-3: an application-owned alias cannot mutate policy or execution input.
    const value = sampleValue();
    const snapshot = snapshotOf(value);
    const json = snapshot.argsCanonicalJson;
    const hash = snapshot.proposalHash;
    const policyView = decodeView(snapshot);
    value.path = '/etc/shadow';
    value.tags[2].nested[1].deeper[0] = 99;
    value.options.owner.gid = 0;
    value.options.list.push('more');
    delete value.mode;
    value.extra = [1];
    assert.equal(snapshot.argsCanonicalJson, json, 'argsCanonicalJson is unchanged after the original value mutates');
    assert.equal(snapshot.proposalHash, hash, 'proposalHash is unchanged after the original value mutates');
    assert.equal(canonicalize(policyView), json, 'a view taken before the mutation is unchanged');
    const executionView = decodeView(snapshot);
    assert.equal(canonicalize(executionView), json, 'a view taken after the mutation is unchanged');
    assert.notEqual(executionView.path, '/etc/shadow', 'the execution view does not see the mutated path');
    // A policy-retained reference cannot mutate the later execution input (matrix item 2).
    policyView.path = '/late/policy/mutation';
    assert.equal(decodeView(snapshot).path, '/srv/app/config.json', 'a late policy mutation does not reach a later view');
  });
});

describe('decodeView accepts snapshots, their text and stored copies', () => {
  test('it accepts argsCanonicalJson strings and non-canonical but strict JSON text', () => {
    const snapshot = snapshotOf();
    assert.deepStrictEqual(decodeView(snapshot.argsCanonicalJson), JSON.parse(snapshot.argsCanonicalJson), 'canonical text');
    const loose = ' {\n  "b" : [ 1 , 2.50 , 1E2 ] ,\t"a" : { "y" : null , "x" : "\\u00e9\\n" } } ';
    const view = decodeView(loose);
    assert.deepStrictEqual(view, JSON.parse(loose), 'whitespace and unsorted keys');
    assert.equal(canonicalize(view), '{"a":{"x":"é\\n","y":null},"b":[1,2.5,100]}', 'the loose text canonicalizes');
    assert.deepStrictEqual(decodeView('1e-400'), 0, 'an underflowing number decodes to 0');
    assert.deepStrictEqual(decodeView('"\\ud83d\\ude00"'), '😀', 'an escaped surrogate pair');
    assert.deepStrictEqual(decodeView('null'), null, 'null at the root');
  });

  const isDomainError = (code) => (error) => error instanceof SnapshotDomainError && error.code === code;
  /** A stored record of `argsCanonicalJson` with its proposal hash, as storage would hold it. */
  const storedOf = (argsCanonicalJson, agentName = 'Views agent', toolName = 'views_tool') => ({
    agentName,
    toolName,
    argsCanonicalJson,
    proposalHash: proposalHash({ agentName, toolName, argsCanonicalJson }),
  });

  test('it accepts a snapshot stored and loaded as plain JSON', () => {
    const snapshot = snapshotOf();
    const stored = JSON.parse(JSON.stringify(snapshot));
    const view = decodeView(stored);
    assert.deepStrictEqual(view, JSON.parse(snapshot.argsCanonicalJson), 'the stored snapshot decodes to the same value');
    assert.notEqual(decodeView(stored), view, 'a stored snapshot also gives fresh views');
    const bare = Object.assign(Object.create(null), storedOf('[1]'));
    assert.deepStrictEqual(decodeView(bare), [1], 'a null-prototype stored record');
    assert.deepStrictEqual(decodeView({ ...storedOf('{"a":2,"b":1}'), savedAt: 'x' }), { a: 2, b: 1 }, 'extra fields are ignored');
  });

  test('a stored record is verified before it is decoded: a record without a valid hash is refused', () => {
    assert.throws(() => decodeView({ argsCanonicalJson: '{"a":2,"b":1}' }), isDomainError('not_a_snapshot'), 'a hash-less record');
    assert.throws(() => decodeView({ ...storedOf('{"a":2,"b":1}'), proposalHash: '0'.repeat(64) }), isDomainError('hash_mismatch'), 'a wrong hash');
    const tampered = { ...storedOf('{"a":2,"b":1}'), argsCanonicalJson: '{"a":3,"b":1}' };
    assert.throws(() => decodeView(tampered), isDomainError('hash_mismatch'), 'a changed value');
    assert.throws(() => decodeView(storedOf('{"b":1,"a":2}')), isDomainError('not_canonical'), 'keys out of order, even with the matching hash');
  });

  test('a stored snapshot holding text outside the domain is rejected', () => {
    assert.throws(() => decodeView(storedOf('{"a":-0}')), isDomainError('negative_zero'), 'negative zero in stored JSON');
    assert.throws(() => decodeView(storedOf('{"a":1,"a":1}')), isDomainError('duplicate_key'), 'duplicate key in stored JSON');
  });

  test('it rejects non-strings and non-objects with TypeError, and objects that are not stored snapshots with not_a_snapshot', () => {
    for (const [label, value] of [
      ['undefined', undefined],
      ['null', null],
      ['a number', 42],
      ['NaN', NaN],
      ['a boolean', true],
      ['a bigint', 1n],
      ['a symbol', Symbol('s')],
      ['a function', () => '{}'],
    ]) {
      assert.throws(() => decodeView(value), TypeError, `decodeView(${label})`);
    }
    for (const [label, value] of [
      ['an object without argsCanonicalJson', { agentName: 'a' }],
      ['an object whose argsCanonicalJson is a number', { ...storedOf('{}'), argsCanonicalJson: 1 }],
      ['an object whose argsCanonicalJson is an object', { ...storedOf('{}'), argsCanonicalJson: { a: 1 } }],
      ['an array', ['{}']],
    ]) {
      assert.throws(() => decodeView(value), isDomainError('not_a_snapshot'), `decodeView(${label})`);
    }
  });

  test('an argsCanonicalJson getter or inherited field is rejected without being called', () => {
    let calls = 0;
    const { argsCanonicalJson, ...rest } = storedOf('{}');
    assert.equal(argsCanonicalJson, '{}');
    const getter = Object.defineProperty({ ...rest }, 'argsCanonicalJson', {
      get() {
        calls += 1;
        return '{}';
      },
      enumerable: true,
    });
    assert.throws(() => decodeView(getter), isDomainError('not_a_snapshot'), 'a getter argsCanonicalJson');
    const inherited = Object.create(
      Object.defineProperty({}, 'argsCanonicalJson', {
        get() {
          calls += 1;
          return '{}';
        },
      }),
    );
    Object.assign(inherited, rest);
    assert.throws(() => decodeView(inherited), isDomainError('not_a_snapshot'), 'an inherited argsCanonicalJson getter');
    assert.throws(
      () => decodeView(Object.assign(Object.create({ argsCanonicalJson: '{}' }), rest)),
      isDomainError('not_a_snapshot'),
      'an inherited argsCanonicalJson data property',
    );
    assert.equal(calls, 0, 'the argsCanonicalJson getter was never called');
  });

  test('a Proxy posing as a snapshot is rejected without any trap running', () => {
    let traps = 0;
    const handler = {};
    for (const trap of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'isExtensible']) {
      handler[trap] = (...args) => {
        traps += 1;
        return Reflect[trap](...args);
      };
    }
    const snapshot = snapshotOf();
    const proxy = new Proxy({ ...snapshot }, handler);
    assert.throws(() => decodeView(proxy), isDomainError('not_a_snapshot'), 'a Proxy of a stored snapshot');
    assert.equal(traps, 0, 'no trap of the Proxy ran');
  });

  test('a __proto__ key round-trips as own data through snapshot, text and stored copy', () => {
    const value = Object.defineProperty({ a: 1 }, '__proto__', { value: { b: [2] }, enumerable: true, writable: true, configurable: true });
    const snapshot = snapshotOf(value);
    assert.equal(snapshot.argsCanonicalJson, '{"__proto__":{"b":[2]},"a":1}', 'the JSON keeps the __proto__ key');
    const views = [
      ['snapshot', decodeView(snapshot)],
      ['text', decodeView(snapshot.argsCanonicalJson)],
      ['stored copy', decodeView(JSON.parse(JSON.stringify(snapshot)))],
    ];
    for (const [label, view] of views) {
      assert.ok(Object.hasOwn(view, '__proto__'), `${label}: __proto__ is an own property`);
      assert.equal(Object.getPrototypeOf(view), Object.prototype, `${label}: the prototype was not changed`);
      assert.deepStrictEqual(Object.getOwnPropertyDescriptor(view, '__proto__').value, { b: [2] }, `${label}: __proto__ value`);
      assert.equal(view.b, undefined, `${label}: the __proto__ value is not inherited`);
      assert.equal(canonicalize(view), snapshot.argsCanonicalJson, `${label}: round trip`);
    }
  });
});

describe('the proposal hash binds agent, tool and canonical JSON', () => {
  test('the empty-arguments hash matches the figure measured from aioc 0.2.8', () => {
    const snapshot = createSnapshot({ agentName: 'Policy unit agent', toolName: 'ping', value: {} });
    assert.equal(snapshot.argsCanonicalJson, '{}', 'argsCanonicalJson');
    assert.equal(snapshot.proposalHash, '486e7d858f077daf704366bd7f7742a58955c40c0e173da363ab9fa5f47f4a41', 'proposalHash');
  });

  test('proposalHash({...}) equals the snapshot hash and the SHA-256 of the JCS envelope', () => {
    const names = [
      ['Policy unit agent', 'ping'],
      ['agent "quoted" \\ back', 'tool\nline'],
      ['agent é 😀 \u2028', '工具'],
      ['', ''],
      ['\u0000\u001f\u007f', '</script>'],
    ];
    for (const [agentName, toolName] of names) {
      const snapshot = createSnapshot({ agentName, toolName, value: sampleValue() });
      const label = `agent ${JSON.stringify(agentName)}, tool ${JSON.stringify(toolName)}`;
      assert.equal(proposalHash(snapshot), snapshot.proposalHash, `${label}: proposalHash(snapshot)`);
      assert.equal(
        proposalHash({ agentName, toolName, argsCanonicalJson: snapshot.argsCanonicalJson }),
        snapshot.proposalHash,
        `${label}: proposalHash(fields)`,
      );
      const envelope = canonicalize({ agentName, argsCanonicalJson: snapshot.argsCanonicalJson, kind: 'tool', toolName });
      const expected = createHash('sha256').update(envelope, 'utf8').digest('hex');
      assert.equal(snapshot.proposalHash, expected, `${label}: SHA-256 of the envelope`);
    }
  });

  test('a different agent, tool or argument gives a different hash', () => {
    const base = createSnapshot({ agentName: 'agent', toolName: 'tool', value: { a: 1 } }).proposalHash;
    const variants = [
      ['another agent', { agentName: 'agent2', toolName: 'tool', value: { a: 1 } }],
      ['another tool', { agentName: 'agent', toolName: 'tool2', value: { a: 1 } }],
      ['another value', { agentName: 'agent', toolName: 'tool', value: { a: 2 } }],
      ['another key', { agentName: 'agent', toolName: 'tool', value: { b: 1 } }],
      ['a string instead of a number', { agentName: 'agent', toolName: 'tool', value: { a: '1' } }],
      ['names shifted between agent and tool', { agentName: 'agentt', toolName: 'ool', value: { a: 1 } }],
    ];
    const seen = new Map([[base, 'base']]);
    for (const [label, input] of variants) {
      const hash = createSnapshot(input).proposalHash;
      assert.ok(!seen.has(hash), `${label} collides with ${seen.get(hash)}`);
      seen.set(hash, label);
    }
    const sameAsBase = createSnapshot({ agentName: 'agent', toolName: 'tool', value: JSON.parse('{ "a" : 1.0 }') }).proposalHash;
    assert.equal(sameAsBase, base, 'the same canonical value gives the same hash');
  });

  test('createSnapshot rejects non-string and ill-formed names with TypeError', () => {
    const bad = [
      ['undefined', undefined],
      ['null', null],
      ['a number', 1],
      ['an object', {}],
      ['a String object', new String('a')],
      ['a symbol', Symbol('a')],
      ['a lone high surrogate', '\ud800'],
      ['a lone low surrogate in text', 'a\udc00b'],
      ['a reversed pair', '\udc00\ud800'],
    ];
    for (const [label, name] of bad) {
      assert.throws(() => createSnapshot({ agentName: name, toolName: 'tool', value: {} }), TypeError, `agentName ${label}`);
      assert.throws(() => createSnapshot({ agentName: 'agent', toolName: name, value: {} }), TypeError, `toolName ${label}`);
    }
    for (const [label, input] of [
      ['undefined', undefined],
      ['null', null],
      ['a string', 'x'],
      ['a number', 3],
    ]) {
      assert.throws(() => createSnapshot(input), TypeError, `createSnapshot(${label})`);
    }
  });

  test('proposalHash rejects non-string and ill-formed fields with TypeError', () => {
    assert.throws(() => proposalHash({ agentName: 'a', toolName: 't' }), TypeError, 'a missing argsCanonicalJson');
    assert.throws(() => proposalHash({ agentName: 'a\ud800', toolName: 't', argsCanonicalJson: '{}' }), TypeError, 'an ill-formed agentName');
    assert.throws(() => proposalHash({ agentName: 'a', toolName: 't', argsCanonicalJson: '"\ud800"' }), TypeError, 'an ill-formed argsCanonicalJson');
    assert.throws(() => proposalHash(null), TypeError, 'proposalHash(null)');
  });
});
