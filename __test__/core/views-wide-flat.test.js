'use strict';
// Views of a wide flat root (an object of more than 512 members, all primitives: issue 35)
// are built from the walk's reads in the native side's key order (lib/snapshot/view.js
// FlatTemplate) instead of parsing the canonical JSON. Each must be what JSON.parse of the
// snapshot's argsCanonicalJson gives (the engine's parse is the oracle): the same own
// keys in the same order (integer-like keys first, as elements), the same attributes and
// primitives, Object.prototype, a new object per view, and nothing shared between views.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { createSnapshot, decodeView, canonicalize, prepareToolCall, authorizeToolCall } = require('../..');
const payloads = require('../../support/payloads');

/** Every own key with its descriptor, in order, and the prototype: what must be equal. */
function shape(value) {
  const keys = Reflect.ownKeys(value);
  return {
    prototype: Object.getPrototypeOf(value) === Object.prototype ? 'Object.prototype' : 'other',
    extensible: Object.isExtensible(value),
    members: keys.map((key) => {
      const d = Object.getOwnPropertyDescriptor(value, key);
      return [key, Object.is(d.value, -0) ? '-0' : d.value, d.writable, d.enumerable, d.configurable];
    }),
  };
}

function wideValue() {
  const value = {};
  for (let i = 0; i < 1500; i++) {
    // Keys JCS and the engine order differently: integer-like (elements), numeric-looking
    // strings that are not array indices, escapes, non-ASCII, surrogate pairs, "__proto__".
    const key =
      i % 7 === 0
        ? String(i * 3)
        : i % 7 === 1
          ? `0${i}`
          : i % 7 === 2
            ? `k\u00e9y_${i}`
            : i % 7 === 3
              ? `\ud83d\ude00${i}`
              : i % 7 === 4
                ? `a"b\\${i}`
                : `key_${1500 - i}`;
    value[key] = i % 5 === 0 ? i / 7 : i % 5 === 1 ? `v${i}` : i % 5 === 2 ? null : i % 5 === 3 ? i % 2 === 0 : 'x'.repeat(1100);
  }
  Object.defineProperty(value, '__proto__', { value: 'own', enumerable: true, writable: true, configurable: true });
  value['4294967294'] = 'largest index';
  value['4294967295'] = 'not an index';
  return value;
}

const CASES = [
  ['a mixed wide object', wideValue()],
  ['wideIntKeys', payloads.wideIntKeys()],
  ['wide', payloads.wide()],
  ['intKeysSparse', payloads.intKeysSparse()],
];

for (const [name, value] of CASES) {
  test(`${name}: every view is JSON.parse(argsCanonicalJson), member by member, and new`, () => {
    const snapshot = createSnapshot({ agentName: 'agent', toolName: 'tool', value });
    const oracle = shape(JSON.parse(snapshot.argsCanonicalJson));
    assert.ok(oracle.members.length > 512);
    const first = decodeView(snapshot);
    const second = decodeView(snapshot);
    assert.notEqual(first, second);
    assert.deepEqual(shape(first), oracle);
    assert.deepEqual(shape(second), oracle);
    // A view changed by its holder changes no later view.
    const key = Object.keys(first)[3];
    first[key] = 'changed';
    delete first[Object.keys(first)[0]];
    first.added = 1;
    assert.deepEqual(shape(decodeView(snapshot)), oracle);
    assert.equal(canonicalize(decodeView(snapshot)), snapshot.argsCanonicalJson);
  });
}

test('index accessors on Array.prototype are never reached while a wide flat root is snapshotted and viewed', () => {
  // The walk's and the template's arrays must have every slot as an own data property: a
  // store into a hole, or a read of one, would reach these (and fill a view with 'lie').
  const value = payloads.wideIntKeys();
  const calls = { count: 0 };
  const indices = [0, 1, 3, 511, 512, 1000, 2500, 4998, 4999, 5000];
  for (const index of indices) {
    Object.defineProperty(Array.prototype, index, {
      configurable: true,
      get() {
        calls.count += 1;
        return 'lie';
      },
      set() {
        calls.count += 1;
      },
    });
  }
  let snapshot;
  let views;
  try {
    snapshot = createSnapshot({ agentName: 'agent', toolName: 'tool', value });
    views = [decodeView(snapshot), decodeView(snapshot)];
  } finally {
    for (const index of indices) delete Array.prototype[index];
  }
  assert.equal(calls.count, 0);
  const oracle = shape(JSON.parse(snapshot.argsCanonicalJson));
  assert.equal(oracle.members.length, 5000);
  assert.deepEqual(shape(views[0]), oracle);
  assert.deepEqual(shape(views[1]), oracle);
  assert.equal(snapshot.argsCanonicalJson, createSnapshot({ agentName: 'agent', toolName: 'tool', value }).argsCanonicalJson);
});

test('a wide root with a nested member is parsed as before (nothing flat)', () => {
  const value = payloads.wideIntKeys();
  value.key_1 = { nested: [1, 2] };
  const snapshot = createSnapshot({ agentName: 'agent', toolName: 'tool', value });
  const view = decodeView(snapshot);
  assert.deepEqual(shape(view), shape(JSON.parse(snapshot.argsCanonicalJson)));
  assert.notEqual(decodeView(snapshot).key_1, view.key_1);
});

test('the run loop: the policy view and the handler view of a wide flat root are JSON.parse of its JSON', async () => {
  const value = payloads.wideIntKeys();
  const prepared = prepareToolCall({ agentName: 'agent', toolName: 'tool', rawArguments: JSON.stringify(value), schema: (input) => input });
  const oracle = shape(JSON.parse(prepared.argsCanonicalJson));
  let seen;
  const outcome = await authorizeToolCall({
    prepared,
    policy: (input) => {
      seen = shape(input.parsedArguments);
      input.parsedArguments.key_1 = 'mutated';
      return { decision: 'allow', reason: 'ok' };
    },
    execute: (args) => shape(args),
  });
  assert.deepEqual(seen, oracle);
  assert.equal(outcome.decision, 'deny', 'the policy mutated its view');
  const clean = await authorizeToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'ok' }), execute: (args) => shape(args) });
  assert.equal(clean.decision, 'allow');
  assert.deepEqual(clean.result, oracle);
});
